//! Python spellings of wire names: classes from type names and tags,
//! attributes from field keys.

/// Python's keywords, which a field may be named on the wire but not in a class.
const KEYWORDS: &[&str] = &[
    "False", "None", "True", "and", "as", "assert", "async", "await", "break", "class", "continue",
    "def", "del", "elif", "else", "except", "finally", "for", "from", "global", "if", "import",
    "in", "is", "lambda", "nonlocal", "not", "or", "pass", "raise", "return", "try", "while",
    "with", "yield",
];

/// The class of a wire name: its last path segment, with a generic type's
/// arguments appended (`app.Page<Vec<u32>>` is `PageVecU32`).
pub(super) fn class_name(wire: &str) -> String {
    wire.split(['<', '>', ',', ' '])
        .filter(|part| !part.is_empty())
        .map(|part| pascal_case(part.rsplit(['.', ':']).next().unwrap_or(part)))
        .collect()
}

/// `dark_red`, `dark-red` and `darkRed` as `DarkRed`.
pub(super) fn pascal_case(s: &str) -> String {
    s.split(|c: char| !c.is_ascii_alphanumeric())
        .filter(|w| !w.is_empty())
        .map(|w| {
            let mut chars = w.chars();
            let first = chars.next().map(|c| c.to_ascii_uppercase());
            first.into_iter().chain(chars).collect::<String>()
        })
        .collect()
}

/// The attribute of a field key: the key itself when it is a Python
/// identifier, else snake case (`userId` is `user_id`), with `_` after a
/// keyword (`class_`).
pub(super) fn attribute_name(wire: &str) -> String {
    let identifier = wire.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_')
        && wire.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
    let mut name = if identifier && !wire.chars().any(|c| c.is_ascii_uppercase()) {
        wire.to_owned()
    } else {
        snake_case(wire)
    };
    if !name.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_') {
        name.insert_str(0, "field_");
    }
    if KEYWORDS.contains(&name.as_str()) {
        name.push('_');
    }
    name
}

fn snake_case(s: &str) -> String {
    let mut out = String::new();
    let mut previous_lower = false;
    for c in s.chars() {
        if c.is_ascii_uppercase() {
            if previous_lower {
                out.push('_');
            }
            out.push(c.to_ascii_lowercase());
            previous_lower = false;
        } else if c.is_ascii_alphanumeric() {
            out.push(c);
            previous_lower = true;
        } else {
            if !out.ends_with('_') {
                out.push('_');
            }
            previous_lower = false;
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn classes_attributes_and_tags() {
        assert_eq!(class_name("corpus.Point"), "Point");
        assert_eq!(class_name("Page<Vec<u32>>"), "PageVecU32");
        assert_eq!(class_name("Pair<a.B, u8>"), "PairBU8");
        assert_eq!(pascal_case("dark_red"), "DarkRed");
        assert_eq!(attribute_name("userId"), "user_id");
        assert_eq!(attribute_name("class"), "class_");
        assert_eq!(attribute_name("x"), "x");
        assert_eq!(attribute_name("two words"), "two_words");
        assert_eq!(attribute_name("1st"), "field_1st");
    }
}
