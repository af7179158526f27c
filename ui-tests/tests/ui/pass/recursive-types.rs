use codec::Codec;

/// A recursive newtype compiles: its kind is not defined by itself. (Like
/// `Option<Option<T>>`, `Some(Chain(None))` and `None` share one encoding.)
#[derive(Codec, Debug, PartialEq)]
struct Chain(Option<Box<Chain>>);

#[derive(Codec, Debug, PartialEq)]
struct List {
    value: u8,
    next: Option<Box<List>>,
}

#[derive(Codec, Debug, PartialEq)]
#[codec(untagged)]
enum Tree {
    Leaf(u32),
    Node(Vec<Tree>),
}

pub fn main() {
    let c = Chain(None);
    assert_eq!(codec::from_msgpack::<Chain>(&codec::to_msgpack(&c).unwrap()).unwrap(), c);
    let l = List { value: 1, next: Some(Box::new(List { value: 2, next: None })) };
    assert_eq!(codec::from_msgpack::<List>(&codec::to_msgpack(&l).unwrap()).unwrap(), l);
    let t = Tree::Node(vec![Tree::Leaf(1), Tree::Node(vec![])]);
    assert_eq!(codec::from_json::<Tree>(&codec::to_json(&t).unwrap()).unwrap(), t);
}
