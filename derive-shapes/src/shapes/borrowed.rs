//! Types that borrow from their input: `&'a str`, `&'a [u8]`, `Cow` with
//! `borrow`, nested, in `Option`, `Vec`, tuples, maps and `Box`, in each
//! kind of union, and with a type parameter beside the lifetimes.

use std::borrow::Cow;

/// A struct of borrowed strings and bytes.
#[derive(codec::Codec, Debug, PartialEq)]
pub struct Line<'a> {
    /// Borrowed text.
    pub text: &'a str,
    /// Borrowed bytes.
    pub bytes: &'a [u8],
    /// Maybe text.
    pub user: Option<&'a str>,
    /// Several texts.
    pub tags: Vec<&'a str>,
    /// Text borrowed when it can be.
    #[codec(borrow)]
    pub note: Cow<'a, str>,
}

/// A tagged union holding a borrowing struct and a borrowed string.
#[derive(codec::Codec, Debug, PartialEq)]
pub enum Event<'a> {
    /// Nothing.
    Empty,
    /// A line, merged after the tag.
    Line(#[codec(borrow)] Line<'a>),
    /// A message.
    Message {
        /// Its text.
        text: &'a str,
    },
}

/// An untagged union of a string and a number.
#[derive(codec::Codec, Debug, PartialEq)]
#[codec(untagged)]
pub enum Either<'a> {
    /// Text.
    Text(&'a str),
    /// A number.
    Number(u64),
}

/// Two lifetimes, a type parameter, and a newtype of a borrowing `Vec`.
#[derive(codec::Codec, Debug, PartialEq)]
pub struct Page<'a, 'b, T> {
    /// A title.
    pub title: &'a str,
    /// The events.
    #[codec(borrow)]
    pub events: Events<'b>,
    /// Owned items.
    pub items: Vec<T>,
}

/// A recursive type that borrows, through a pointer, with tuples.
#[derive(codec::Codec, Debug, PartialEq)]
pub struct Node<'a> {
    /// Its name.
    pub name: &'a str,
    /// Pairs of texts.
    pub pairs: Vec<(&'a str, &'a str)>,
    /// A text and a number.
    pub first: Option<(&'a str, u32)>,
    /// The next node.
    #[codec(borrow)]
    pub next: Option<Box<Node<'a>>>,
    /// A shared line.
    #[codec(borrow)]
    pub line: std::sync::Arc<Line<'a>>,
    /// Labels, keys and values borrowed.
    pub labels: std::collections::BTreeMap<&'a str, &'a str>,
}

/// A newtype that borrows.
#[derive(codec::Codec, Debug, PartialEq)]
pub struct Events<'a>(#[codec(borrow)] pub Vec<Event<'a>>);

#[cfg(test)]
mod tests {
    use super::*;

    fn page() -> Page<'static, 'static, u8> {
        Page {
            title: "t",
            events: Events(vec![
                Event::Empty,
                Event::Line(Line {
                    text: "x",
                    bytes: b"\x01",
                    user: None,
                    tags: vec!["a"],
                    note: Cow::Borrowed("n"),
                }),
                Event::Message { text: "m" },
            ]),
            items: vec![1],
        }
    }

    #[test]
    fn borrowing_types_round_trip_through_msgpack() {
        let bytes = codec::to_msgpack(&page()).expect("encodes");
        let back: Page<'_, '_, u8> = codec::from_msgpack(&bytes).expect("decodes");
        assert_eq!(back, page());
        for either in [Either::Text("x"), Either::Number(1)] {
            let bytes = codec::to_msgpack(&either).expect("encodes");
            let back: Either<'_> = codec::from_msgpack(&bytes).expect("decodes");
            assert_eq!(back, either);
        }
    }

    #[test]
    fn a_recursive_borrowing_type_round_trips() {
        let line = Line {
            text: "x",
            bytes: b"\x01",
            user: Some("u"),
            tags: vec![],
            note: Cow::Borrowed("n"),
        };
        let node = Node {
            name: "outer",
            pairs: vec![("a", "b")],
            first: Some(("one", 1)),
            next: Some(Box::new(Node {
                name: "inner",
                pairs: vec![],
                first: None,
                next: None,
                line: std::sync::Arc::new(line),
                labels: std::collections::BTreeMap::new(),
            })),
            line: std::sync::Arc::new(Line {
                text: "y",
                bytes: b"",
                user: None,
                tags: vec!["t"],
                note: Cow::Borrowed("m"),
            }),
            labels: [("k", "v")].into(),
        };
        let bytes = codec::to_msgpack(&node).expect("encodes");
        let back: Node<'_> = codec::from_msgpack(&bytes).expect("decodes");
        assert_eq!(back, node);
    }

    #[test]
    fn borrowing_types_without_bytes_round_trip_through_json() {
        let text = codec::to_json(&Event::Message { text: "m" }).expect("encodes");
        let back: Event<'_> = codec::from_json(&text).expect("decodes");
        assert_eq!(back, Event::Message { text: "m" });
    }
}
