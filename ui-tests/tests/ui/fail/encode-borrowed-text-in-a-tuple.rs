// Borrowed text encodes alone (`&str`), not yet inside a tuple: the error
// points at `String`, the owned type that encodes.
fn main() {
    let text: &str = "x";
    let _ = codec::to_json(&(text,));
}
