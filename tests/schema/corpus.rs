//! The types whose schemas are committed under `schemas/` (`corpus.*`),
//! and a value of each.

use std::collections::{BTreeMap, BTreeSet, HashMap};

use codec::Codec;

#[derive(Codec, Debug, Clone, PartialEq)]
#[codec(name = "corpus.Point")]
pub struct Point {
    pub x: i64,
    pub y: i64,
}

#[derive(Codec, Debug, Clone, PartialEq)]
#[codec(name = "corpus.Shape")]
pub enum Shape {
    Dot(Point),
    Label(String),
    Pair(u8, u8),
    Empty,
    Circle { center: Point, r: f64 },
}

#[derive(Codec, Debug, Clone, PartialEq)]
#[codec(name = "corpus.Color", rename_all = "snake_case")]
pub enum Color {
    DarkRed,
    Green,
}

#[derive(Codec, Debug, Clone, PartialEq)]
#[codec(name = "corpus.Level")]
pub enum Level {
    #[codec(tag = 1)]
    Low,
    #[codec(tag = 2)]
    High,
}

#[derive(Codec, Debug, Clone, PartialEq)]
#[codec(name = "corpus.Value", untagged)]
pub enum Scalar {
    Nothing,
    Int(i64),
    Float(f64),
    Text(String),
    List(Vec<Scalar>),
}

#[derive(Codec, Debug, Clone, PartialEq)]
#[codec(name = "corpus.Row", array_like)]
pub struct Row {
    pub id: u32,
    pub name: String,
    #[codec(default)]
    pub note: Option<String>,
}

#[derive(Codec, Debug, Clone, PartialEq)]
#[codec(name = "corpus.Command", tag = "op", content = "args")]
pub enum Command {
    Move(i32, i32),
    Say { text: String },
}

#[derive(Codec, Debug, Clone, PartialEq)]
#[codec(
    name = "corpus.Document",
    rename_all = "camelCase",
    deny_unknown_fields,
    version = 1
)]
pub struct Document {
    pub doc_id: u64,
    #[codec(alias = "name")]
    pub title: String,
    pub shapes: Vec<Shape>,
    pub colors: BTreeSet<String>,
    pub counts: HashMap<String, u32>,
    pub by_id: BTreeMap<i32, bool>,
    pub pair: (u8, String, f32),
    pub grid: [u16; 3],
    pub blob: Vec<u8>,
    pub bytes: codec::Bytes,
    pub color: Color,
    pub level: Level,
    pub scalar: Scalar,
    pub row: Row,
    pub rows: Vec<Row>,
    pub command: Command,
    pub parent: Option<Box<Document>>,
    #[codec(default)]
    pub score: Option<f64>,
    pub unit: (),
    pub letter: char,
}

/// A document that holds every kind of value, and a document in it.
pub fn sample() -> Document {
    let child = Document {
        doc_id: 2,
        title: "child".into(),
        shapes: vec![Shape::Empty],
        colors: BTreeSet::new(),
        counts: HashMap::new(),
        by_id: BTreeMap::new(),
        pair: (0, String::new(), 0.5),
        grid: [0, 0, 0],
        blob: vec![],
        bytes: codec::Bytes::new(),
        color: Color::Green,
        level: Level::Low,
        scalar: Scalar::Nothing,
        row: Row {
            id: 1,
            name: "r".into(),
            note: None,
        },
        rows: vec![],
        command: Command::Move(1, -1),
        parent: None,
        score: None,
        unit: (),
        letter: 'z',
    };
    Document {
        doc_id: u64::MAX,
        title: "Intro ✓".into(),
        shapes: vec![
            Shape::Dot(Point { x: 1, y: -2 }),
            Shape::Label("l".into()),
            Shape::Pair(1, 2),
            Shape::Empty,
            Shape::Circle {
                center: Point { x: 0, y: 0 },
                r: 1.5,
            },
        ],
        colors: ["red".to_string(), "blue".to_string()]
            .into_iter()
            .collect(),
        counts: [("a".to_string(), 1), ("b".to_string(), 2)]
            .into_iter()
            .collect(),
        by_id: [(-1, true), (7, false)].into_iter().collect(),
        pair: (255, "p".into(), -0.25),
        grid: [1, 2, 3],
        blob: vec![0, 1, 255],
        bytes: codec::Bytes::from(b"bytes".to_vec()),
        color: Color::DarkRed,
        level: Level::High,
        scalar: Scalar::List(vec![
            Scalar::Int(1),
            Scalar::Float(2.5),
            Scalar::Text("t".into()),
            Scalar::Nothing,
        ]),
        row: Row {
            id: 3,
            name: "three".into(),
            note: Some("n".into()),
        },
        rows: vec![Row {
            id: 4,
            name: "four".into(),
            note: None,
        }],
        command: Command::Say { text: "hi".into() },
        parent: Some(Box::new(child)),
        score: Some(0.75),
        unit: (),
        letter: 'é',
    }
}
