// A `Vec` of a type that borrows reads at the top level too, each record
// borrowing from the input.
#[derive(codec::Codec, Debug, PartialEq)]
struct Line<'a> {
    text: &'a str,
}

pub fn main() {
    let bytes = codec::to_msgpack(&vec![Line { text: "a" }, Line { text: "b" }]).unwrap();
    let lines = codec::from_msgpack::<Vec<Line<'_>>>(&bytes).unwrap();
    assert_eq!(lines, [Line { text: "a" }, Line { text: "b" }]);
    assert!(bytes.as_ptr_range().contains(&lines[1].text.as_ptr()));
}
