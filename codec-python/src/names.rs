//! Python spellings: classes from type names and tags, attributes from
//! field keys, literals from JSON values.

use serde_json::Value;

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

/// A Python string literal: in double quotes, unless the text holds some
/// and no single quote (as black writes them).
pub(super) fn python_str(s: &str) -> String {
    let quote = if s.contains('"') && !s.contains('\'') {
        '\''
    } else {
        '"'
    };
    let mut out = String::with_capacity(s.len() + 2);
    out.push(quote);
    for c in s.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if c == quote => {
                out.push('\\');
                out.push(c);
            }
            c if c.is_control() => out.push_str(&format!("\\u{:04x}", u32::from(c))),
            c => out.push(c),
        }
    }
    out.push(quote);
    out
}

/// A docstring of `text` (a doc comment), its lines after `indent`.
pub(super) fn docstring(text: &str, indent: &str) -> String {
    let mut text = text.replace('\\', "\\\\").replace("\"\"\"", "\\\"\\\"\\\"");
    if text.ends_with('"') {
        // Not a fourth quote before the closing ones.
        text.pop();
        text.push_str("\\\"");
    }
    if !text.contains('\n') {
        return format!("{indent}\"\"\"{text}\"\"\"\n");
    }
    let mut out = format!("{indent}\"\"\"");
    for (i, line) in text.lines().enumerate() {
        if i > 0 {
            out.push('\n');
            if !line.is_empty() {
                out.push_str(indent);
            }
        }
        out.push_str(line);
    }
    out.push_str(&format!("\n{indent}\"\"\"\n"));
    out
}

/// A JSON scalar as a Python literal.
pub(super) fn python_literal(value: &Value) -> String {
    match value {
        Value::Null => "None".into(),
        Value::Bool(true) => "True".into(),
        Value::Bool(false) => "False".into(),
        Value::String(s) => python_str(s),
        other => other.to_string(),
    }
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

    #[test]
    fn docstrings_escape_what_would_end_them() {
        assert_eq!(
            docstring("One line.", "    "),
            "    \"\"\"One line.\"\"\"\n"
        );
        assert_eq!(
            docstring("First.\n\nThen \"\"\"x\"\"\" and \\d \"q\"", ""),
            "\"\"\"First.\n\nThen \\\"\\\"\\\"x\\\"\\\"\\\" and \\\\d \"q\\\"\n\"\"\"\n"
        );
    }

    #[test]
    fn string_literals_take_the_quote_that_needs_no_escape() {
        assert_eq!(python_str("plain"), "\"plain\"");
        assert_eq!(python_str(r#"{"x":0}"#), r#"'{"x":0}'"#);
        assert_eq!(python_str("it's \"q\""), r#""it's \"q\"""#);
        assert_eq!(python_str("a\\b\n\u{1}é"), r#""a\\b\n\u0001é""#);
    }
}
