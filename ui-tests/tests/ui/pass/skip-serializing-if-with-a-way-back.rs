//! `fail/fields-skip-serializing-if-without-default.rs` with the advice
//! followed, and an `Option`, which reads back as `None` when absent.
use codec::Codec;

#[derive(Codec, Debug, PartialEq)]
struct Page {
    #[codec(default, skip_serializing_if = "Vec::is_empty")]
    tags: Vec<String>,
    #[codec(skip_serializing_if = "Option::is_none")]
    next: Option<u32>,
}

pub fn main() {
    let page = Page { tags: vec![], next: None };
    assert_eq!(codec::to_json(&page).unwrap(), "{}");
    assert_eq!(codec::from_json::<Page>("{}").unwrap(), page);
}
