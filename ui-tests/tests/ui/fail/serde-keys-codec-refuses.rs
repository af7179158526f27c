//! Serde attributes codec cannot honour, each refused with its own reason
//! and fix (not as an unknown key).
use codec::Codec;

#[derive(Codec)]
#[serde(remote = "Other")]
struct Remote {
    a: u32,
}

#[derive(Codec)]
#[serde(variant_identifier)]
enum VariantIdentifier {
    A,
    B,
}

#[derive(Codec)]
#[serde(field_identifier)]
enum FieldIdentifier {
    A,
    B,
}

#[derive(Codec)]
enum VariantWith {
    #[serde(with = "module")]
    A(u32),
}

#[derive(Codec)]
enum VariantBound {
    #[serde(bound = "")]
    A(u32),
}

#[derive(Codec)]
enum VariantUntagged {
    #[serde(untagged)]
    A(u32),
}

#[derive(Codec)]
struct FieldBound {
    #[serde(bound = "")]
    a: u32,
}

#[derive(Codec)]
struct FieldGetter {
    #[serde(getter = "Other::a")]
    a: u32,
}

fn main() {}
