use codec::Codec;
use std::marker::PhantomData;

#[derive(Codec, Debug, PartialEq)]
struct Page<T> {
    items: Vec<T>,
    #[codec(skip)]
    marker: PhantomData<fn() -> T>,
}

#[derive(Codec, Debug, PartialEq)]
enum Reply<T, E> {
    Ok { value: T },
    Err(E),
}

pub fn main() {
    let page = Page { items: vec![1u32, 2], marker: PhantomData };
    let bytes = codec::to_msgpack(&page).unwrap();
    assert_eq!(codec::from_msgpack::<Page<u32>>(&bytes).unwrap(), page);
    let reply: Reply<u8, String> = Reply::Err("no".into());
    let text = codec::to_json(&reply).unwrap();
    assert_eq!(codec::from_json::<Reply<u8, String>>(&text).unwrap(), reply);
}
