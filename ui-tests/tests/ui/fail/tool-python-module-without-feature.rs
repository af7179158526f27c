// `codec::python_module!` without codec's `python` feature: the error says
// which feature, and where to turn it on.

fn main() {
    let _ = codec::python_module!();
}
