// A map whose values borrow may have owned keys: each reads as it reads
// alone, a key with escapes too.
use std::collections::HashMap;

#[derive(codec::Codec)]
struct Labels<'a> {
    labels: HashMap<String, &'a str>,
}

pub fn main() {
    let text = r#"{"labels": {"a\nb": "x"}}"#;
    let labels: Labels<'_> = codec::from_json(text).unwrap();
    assert_eq!(labels.labels["a\nb"], "x");
    assert!(text.as_bytes().as_ptr_range().contains(&labels.labels["a\nb"].as_ptr()));
}
