//! The case styles of `rename_all`, spelled as serde spells them.

use self::RenameRule::*;

#[derive(Copy, Clone, PartialEq, Debug)]
pub enum RenameRule {
    Lower,
    Upper,
    Pascal,
    Camel,
    Snake,
    ScreamingSnake,
    Kebab,
    ScreamingKebab,
}

pub static RULES: &[(&str, RenameRule)] = &[
    ("lowercase", Lower),
    ("UPPERCASE", Upper),
    ("PascalCase", Pascal),
    ("camelCase", Camel),
    ("snake_case", Snake),
    ("SCREAMING_SNAKE_CASE", ScreamingSnake),
    ("kebab-case", Kebab),
    ("SCREAMING-KEBAB-CASE", ScreamingKebab),
];

impl RenameRule {
    pub fn from_str(s: &str) -> Option<Self> {
        RULES.iter().find(|(name, _)| *name == s).map(|(_, r)| *r)
    }

    /// Applies the rule to a variant name, written in PascalCase.
    pub fn apply_to_variant(self, variant: &str) -> String {
        match self {
            Pascal => variant.to_owned(),
            Lower => variant.to_ascii_lowercase(),
            Upper => variant.to_ascii_uppercase(),
            Camel => variant[..1].to_ascii_lowercase() + &variant[1..],
            Snake => {
                let mut snake = String::new();
                for (i, ch) in variant.char_indices() {
                    if i > 0 && ch.is_uppercase() {
                        snake.push('_');
                    }
                    snake.push(ch.to_ascii_lowercase());
                }
                snake
            }
            ScreamingSnake => Snake.apply_to_variant(variant).to_ascii_uppercase(),
            Kebab => Snake.apply_to_variant(variant).replace('_', "-"),
            ScreamingKebab => ScreamingSnake.apply_to_variant(variant).replace('_', "-"),
        }
    }

    /// Applies the rule to a field name, written in snake_case.
    pub fn apply_to_field(self, field: &str) -> String {
        match self {
            Lower | Snake => field.to_owned(),
            Upper | ScreamingSnake => field.to_ascii_uppercase(),
            Pascal => {
                let mut pascal = String::new();
                let mut capitalize = true;
                for ch in field.chars() {
                    if ch == '_' {
                        capitalize = true;
                    } else if capitalize {
                        pascal.push(ch.to_ascii_uppercase());
                        capitalize = false;
                    } else {
                        pascal.push(ch);
                    }
                }
                pascal
            }
            Camel => {
                let pascal = Pascal.apply_to_field(field);
                match pascal.chars().next() {
                    Some(first) => {
                        first.to_ascii_lowercase().to_string() + &pascal[first.len_utf8()..]
                    }
                    None => pascal,
                }
            }
            Kebab => field.replace('_', "-"),
            ScreamingKebab => ScreamingSnake.apply_to_field(field).replace('_', "-"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn variants() {
        assert_eq!(Snake.apply_to_variant("VeryTasty"), "very_tasty");
        assert_eq!(Camel.apply_to_variant("VeryTasty"), "veryTasty");
        assert_eq!(ScreamingKebab.apply_to_variant("VeryTasty"), "VERY-TASTY");
    }

    #[test]
    fn fields() {
        assert_eq!(Camel.apply_to_field("very_tasty"), "veryTasty");
        assert_eq!(Pascal.apply_to_field("very_tasty"), "VeryTasty");
        assert_eq!(Kebab.apply_to_field("very_tasty"), "very-tasty");
        assert_eq!(ScreamingSnake.apply_to_field("very_tasty"), "VERY_TASTY");
    }
}
