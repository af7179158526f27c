use codec::Codec;

/// A recursive newtype: its kind is not defined by itself.
#[derive(Codec, Debug, PartialEq)]
struct Chain(Option<Box<Chain>>);

#[derive(Codec, Debug, PartialEq)]
#[codec(untagged)]
enum Tree {
    Leaf(u32),
    Node(Vec<Tree>),
}

fn main() {
    let c = Chain(Some(Box::new(Chain(None))));
    assert_eq!(codec::from_msgpack::<Chain>(&codec::to_msgpack(&c).unwrap()).unwrap(), c);
    let t = Tree::Node(vec![Tree::Leaf(1), Tree::Node(vec![])]);
    assert_eq!(codec::from_json::<Tree>(&codec::to_json(&t).unwrap()).unwrap(), t);
}
