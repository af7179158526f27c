//! The Python classes codec generates (`codec::python::Module`): for a set
//! of shapes, msgspec decodes codec's bytes into instances of the generated
//! classes, writes them back byte for byte, and encodes values built in
//! Python that codec decodes to equal values. Uses the msgspec venv of
//! tests/msgspec_interop.rs.

#![cfg(feature = "python")]

#[path = "common/venv.rs"]
mod venv;

#[path = "schema/corpus.rs"]
#[allow(dead_code)]
mod corpus;

use std::collections::{BTreeMap, BTreeSet};
use std::process::Command;
use std::time::{Duration, UNIX_EPOCH};

use codec::python::Module;
use codec::Codec;
use serde_json::{json, Value};

#[derive(Codec, Debug, PartialEq)]
struct Point {
    x: i64,
    y: i64,
}

/// Renamed keys, one of them a Python keyword, and narrow integers.
#[derive(Codec, Debug, PartialEq)]
#[codec(rename_all = "camelCase")]
struct Account {
    user_id: u32,
    display_name: String,
    #[codec(rename = "class")]
    class_name: String,
    r#from: u8,
}

#[derive(Codec, Debug, PartialEq)]
#[codec(array_like)]
struct Row {
    id: i64,
    name: String,
}

#[derive(Codec, Debug, PartialEq)]
#[codec(array_like)]
enum Op {
    Add { a: i64, b: i64 },
    Stop {},
}

#[derive(Codec, Debug, PartialEq)]
#[codec(deny_unknown_fields)]
struct Strict {
    on: bool,
}

#[derive(Codec, Debug, PartialEq)]
struct KeyData {
    code: String,
}

/// Every kind of variant: struct, newtype of a struct (merged), other
/// newtype and tuple (under `value`), unit.
#[derive(Codec, Debug, PartialEq)]
#[codec(tag = "kind")]
enum Event {
    Click { x: i64, y: i64 },
    Key(KeyData),
    Scroll(i64),
    Move(i64, i64),
    Quit,
}

#[derive(Codec, Debug, PartialEq)]
enum Level {
    #[codec(tag = 1)]
    Low {},
    #[codec(tag = 2)]
    High { level: u8 },
}

#[derive(Codec, Debug, PartialEq, Default)]
enum Color {
    Red,
    #[default]
    #[codec(rename = "dark_green")]
    Green,
}

/// Optional fields before and after a required one, out of sorted order.
#[derive(Codec, Debug, PartialEq)]
struct Opts {
    note: Option<String>,
    count: i64,
    at: Option<Point>,
}

#[derive(Codec, Debug, PartialEq)]
struct Bag {
    ints: Vec<i64>,
    pair: (i64, String),
    scores: BTreeMap<String, i64>,
    tags: BTreeSet<String>,
    data: Vec<u8>,
    color: Color,
    colors: Vec<Color>,
}

/// msgspec cannot sort maps with integer keys: built in order in Python.
#[derive(Codec, Debug, PartialEq)]
struct IntKeys {
    by_id: BTreeMap<u32, String>,
}

#[derive(Codec, Debug, PartialEq)]
#[codec(version = 1)]
enum Tree {
    Leaf(i64),
    Node { children: Vec<Tree> },
}

macro_rules! declare {
    ($name:ident) => {
        #[derive(Codec, Debug, PartialEq)]
        #[codec(name = "shapes.Label")]
        struct $name {
            label: String,
        }
    };
}

declare!(Label);

#[derive(Codec, Debug, PartialEq)]
struct Page<T> {
    items: Vec<T>,
    next: Option<u32>,
}

#[derive(Codec, Debug, PartialEq)]
struct Times {
    at: std::time::SystemTime,
    took: Duration,
    any: codec::Value,
}

#[derive(Codec, Debug, PartialEq)]
struct UserId(u64);

#[derive(Codec, Debug, PartialEq)]
struct Owned {
    id: UserId,
}

#[derive(Codec, Debug, PartialEq)]
#[codec(omit_defaults)]
struct Sparse {
    name: String,
    #[codec(default)]
    note: Option<String>,
}

#[derive(Codec, Debug, PartialEq, Default)]
struct Origin {
    x: i64,
    y: i64,
}

fn half() -> f64 {
    0.5
}

fn one() -> f64 {
    1.0
}

fn two_tags() -> Vec<String> {
    vec!["a".into(), "b".into()]
}

fn epoch_and_a_half() -> std::time::SystemTime {
    UNIX_EPOCH + Duration::from_millis(1500)
}

/// Quotes of both kinds, a backslash, a newline, a control character and
/// non-ASCII text, in a Python string literal.
fn tricky() -> String {
    "it's \"q\" \\ \n \u{1} é✓".into()
}

fn answer() -> Option<i64> {
    Some(42)
}

/// Defaults of every kind: literals, a float written without a fraction,
/// empty and non-empty collections, a struct, a time, bytes, a tuple.
#[derive(Codec, Debug, PartialEq)]
struct Defaults {
    #[codec(default)]
    count: u8,
    #[codec(default = "half")]
    ratio: f64,
    #[codec(default = "one")]
    whole: f64,
    #[codec(default = "tricky")]
    name: String,
    #[codec(default)]
    color: Color,
    #[codec(default = "answer")]
    maybe: Option<i64>,
    #[codec(default)]
    empty: Vec<String>,
    #[codec(default = "two_tags")]
    tags: Vec<String>,
    #[codec(default)]
    unique: BTreeSet<i64>,
    #[codec(default)]
    scores: BTreeMap<String, i64>,
    #[codec(default)]
    at: Origin,
    #[codec(default = "epoch_and_a_half")]
    when: std::time::SystemTime,
    #[codec(default)]
    data: Vec<u8>,
    #[codec(default)]
    pair: (i64, String),
}

/// Every field at its default is left out, on both sides.
#[derive(Codec, Debug, PartialEq)]
#[codec(omit_defaults)]
struct SparseDefaults {
    name: String,
    #[codec(default)]
    count: i64,
    #[codec(default = "half")]
    ratio: f64,
    #[codec(default)]
    tags: Vec<String>,
    #[codec(default)]
    color: Color,
    #[codec(default = "epoch_and_a_half")]
    when: std::time::SystemTime,
}

/// msgspec's constraints and integer widths, as `msgspec.Meta`.
#[derive(Codec, Debug, PartialEq)]
struct Limits {
    #[codec(ge = 0, le = 100)]
    percent: i64,
    #[codec(gt = 0.0, lt = 1.0)]
    ratio: f64,
    #[codec(multiple_of = 5)]
    step: u32,
    #[codec(ge = 1)]
    small: u8,
    tiny: i8,
    wide: u64,
    #[codec(min_length = 1, max_length = 3)]
    name: String,
    #[codec(pattern = "^[a-z]+[0-9]?$")]
    login: String,
    #[codec(max_length = 2)]
    tags: Vec<String>,
    #[codec(min_length = 1)]
    scores: BTreeMap<String, i64>,
    #[codec(max_length = 2)]
    ids: BTreeSet<u8>,
    #[codec(ge = 1)]
    maybe: Option<i64>,
    port: Port,
}

#[derive(Codec, Debug, PartialEq)]
struct Port(#[codec(ge = 1, le = 1000)] u16);

/// Untagged unions: one variant per wire kind, as in msgspec's unions.
#[derive(Codec, Debug, PartialEq)]
#[codec(untagged)]
enum Scalar {
    Int(i64),
    Text(String),
}

#[derive(Codec, Debug, PartialEq)]
struct HoldsScalar {
    value: Scalar,
}

#[derive(Codec, Debug, PartialEq)]
#[codec(untagged)]
enum Loose {
    Nothing,
    Flag(bool),
    At(Point),
    Many(Vec<i64>),
}

/// Recursive through an untagged union only, no Struct between: msgspec
/// reads the inner values as `Any`, mypy checks them.
#[derive(Codec, Debug, PartialEq)]
#[codec(untagged)]
enum Nested {
    Int(i64),
    List(Vec<Nested>),
}

#[derive(Codec, Debug, PartialEq)]
struct HoldsNested {
    nested: Nested,
    #[codec(default)]
    more: Vec<Nested>,
}

#[derive(Codec, Debug, PartialEq)]
struct Ratio {
    r: f32,
}

/// A point on a map.
///
/// Both coordinates in metres; "quoted" and \ kept.
#[derive(Codec, Debug, PartialEq)]
struct Documented {
    /// East of the origin.
    x: i64,
    /// North of the origin: """ ends no docstring.
    #[codec(default)]
    y: i64,
    kind: Measured,
}

/// How a point was measured.
#[derive(Codec, Debug, PartialEq)]
enum Measured {
    /// By hand, by someone.
    Manual { by: String },
    /// By a machine.
    Machine,
}

/// `Documented` without its doc comments: the same schema fingerprint.
mod undocumented {
    #[derive(codec::Codec)]
    pub struct Documented {
        pub x: i64,
        #[codec(default)]
        pub y: i64,
        pub kind: Measured,
    }

    #[derive(codec::Codec)]
    pub enum Measured {
        Manual { by: String },
        Machine,
    }
}

/// A part kept encoded: msgspec's `Raw`, written back byte for byte.
#[derive(Codec, Debug)]
struct Envelope {
    kind: String,
    body: codec::Raw,
    parts: Vec<codec::Raw>,
}

/// Equal when the kept parts hold equal values: a `Raw` remembers the
/// format it was read from.
impl PartialEq for Envelope {
    fn eq(&self, other: &Envelope) -> bool {
        let values = |e: &Envelope| -> Vec<codec::Value> {
            std::iter::once(&e.body)
                .chain(&e.parts)
                .map(|r| r.decode().unwrap())
                .collect()
        };
        self.kind == other.kind && values(self) == values(other)
    }
}

/// Integers beyond 64 bits: msgspec bounds none, the module says so.
#[derive(Codec, Debug, PartialEq)]
struct Wide {
    big: u128,
    signed: i128,
}

/// A type renamed since values were stored under its old name.
#[derive(Codec, Debug, PartialEq)]
#[codec(name = "shapes.Tag", alias = "shapes.OldTag")]
struct Tag {
    tag: String,
}

/// `Tag` as it was, under its old name: with the same fields, and with others.
/// The envelope `bytes` with another wire name or writer's fingerprint
/// in its header, as another program (or an earlier codec) wrote it.
fn rewritten(bytes: &[u8], name: Option<&str>, fingerprint: Option<codec::Fingerprint>) -> Vec<u8> {
    let header = codec::envelope_header(bytes).unwrap();
    let mut w = codec::MsgpackWriter::new(bytes[..5].to_vec());
    w.write_str(name.unwrap_or(header.type_name)).unwrap();
    w.write_bin(&fingerprint.unwrap_or(header.fingerprint).0)
        .unwrap();
    w.write_bin(header.schema.as_bytes()).unwrap();
    w.write_raw(&bytes[header.payload_offset..]);
    w.into_inner()
}

mod old {
    #[derive(codec::Codec)]
    #[codec(name = "shapes.OldTag")]
    pub struct Tag {
        pub tag: String,
    }

    /// Stored as a `shapes.OldTag` of another schema (`rewritten`): two
    /// types of one program cannot share a wire name and differ.
    #[derive(codec::Codec)]
    #[codec(name = "shapes.LongTag")]
    pub struct LongTag {
        pub tag: String,
        pub long: bool,
    }
}

/// `Decimal` (feature `decimal`) as msgspec's `decimal.Decimal`.
#[cfg(feature = "decimal")]
mod decimals {
    use codec::Codec;
    use rust_decimal::Decimal;

    #[derive(Codec, Debug, PartialEq)]
    pub struct Priced {
        pub price: Decimal,
        pub history: Vec<Decimal>,
    }
}

/// ndarray arrays (feature `ndarray`): a Struct per dtype and number of
/// dimensions.
#[cfg(feature = "ndarray")]
mod arrays {
    use codec::Codec;

    #[derive(Codec, Debug, PartialEq)]
    pub struct Image {
        pub pixels: ndarray::Array2<f64>,
        pub mask: ndarray::ArrayD<bool>,
        pub labels: Option<ndarray::Array1<i32>>,
    }

    pub fn image() -> Image {
        let mask = [true, false, false, true];
        Image {
            pixels: ndarray::arr2(&[[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]),
            mask: ndarray::ArrayD::from_shape_vec(vec![2, 1, 2], mask.to_vec()).unwrap(),
            labels: Some(ndarray::arr1(&[-1, 2])),
        }
    }

    /// The Python of `image()`, built without numpy.
    pub const IMAGE: &str = "Image(\
        pixels=ArrayF8D2(dtype='<f8', shape=(2, 3), \
        data=__import__('struct').pack('<6d', 1, 2, 3, 4, 5, 6)), \
        mask=ArrayB1(dtype='|b1', shape=(2, 1, 2), data=bytes([1, 0, 0, 1])), \
        labels=ArrayI4D1(dtype='<i4', shape=(2,), data=__import__('struct').pack('<2i', -1, 2)))";
}

/// The module of every shape above.
fn module() -> Module {
    let module = Module::new()
        .add::<Point>()
        .add::<Account>()
        .add::<Row>()
        .add::<Op>()
        .add::<Strict>()
        .add::<Event>()
        .add::<Level>()
        .add::<Color>()
        .add::<Opts>()
        .add::<Bag>()
        .add::<IntKeys>()
        .add::<Tree>()
        .add::<Label>()
        .add::<Page<Point>>()
        .add::<Times>()
        .add::<Owned>()
        .add::<Sparse>()
        .add::<Defaults>()
        .add::<SparseDefaults>()
        .add::<Limits>()
        .add::<HoldsScalar>()
        .add::<Loose>()
        .add::<Ratio>()
        .add::<Envelope>()
        .add::<Wide>()
        .add::<Tag>()
        .add::<HoldsNested>()
        .add::<Documented>();
    #[cfg(feature = "decimal")]
    let module = module.add::<decimals::Priced>();
    #[cfg(feature = "ndarray")]
    let module = module.add::<arrays::Image>();
    module
}

/// Decodes bytes written in Python back into the case's type.
type DecodesBack = Box<dyn Fn(&[u8], &str) -> Result<(), String>>;

/// One value: codec's encodings, the Python type to decode them as, the
/// class expected, and a Python expression building the same value. Or
/// bytes codec refuses, which msgspec must refuse too (`refused`).
struct Case {
    name: &'static str,
    ty: &'static str,
    class: &'static str,
    python: &'static str,
    msgpack: Vec<u8>,
    json: String,
    decodes_back: DecodesBack,
    refused: bool,
    /// The value as `codec::to_stored` writes it, which the module's
    /// `from_stored` reads; or, with `stored_error`, bytes it refuses with
    /// a message holding that text.
    stored: Vec<u8>,
    stored_error: Option<String>,
    /// msgspec writes every float as float64: the MessagePack that Python
    /// writes holds float64 where codec wrote float32, and still decodes
    /// to the same value.
    float32: bool,
}

fn case<T: Codec + PartialEq + std::fmt::Debug + 'static>(
    name: &'static str,
    value: T,
    (ty, class): (&'static str, &'static str),
    python: &'static str,
) -> Case {
    Case {
        name,
        ty,
        class,
        python,
        msgpack: codec::to_msgpack(&value).unwrap(),
        json: codec::to_json(&value).unwrap(),
        stored: codec::to_stored(&value).unwrap(),
        stored_error: None,
        float32: false,
        decodes_back: Box::new(move |mp, js| {
            let a: T = codec::from_msgpack(mp).map_err(|e| e.to_string())?;
            let b: T = codec::from_json(js).map_err(|e| e.to_string())?;
            if a == value && b == value {
                Ok(())
            } else {
                Err(format!("decoded {a:?} / {b:?}, expected {value:?}"))
            }
        }),
        refused: false,
    }
}

/// A valid value of `T` with one field replaced by `bad` (as JSON), which
/// codec refuses in both formats: msgspec must refuse it too.
fn refused<T: Codec + std::fmt::Debug + 'static>(
    name: &'static str,
    valid: T,
    ty: &'static str,
    field: &str,
    bad: Value,
) -> Case {
    let mut doc: Value = serde_json::from_str(&codec::to_json(&valid).unwrap()).unwrap();
    doc[field] = bad;
    let json = doc.to_string();
    // The same document in MessagePack, through codec's dynamic value.
    let dynamic: codec::Value = codec::from_json(&json).unwrap();
    let msgpack = codec::to_msgpack(&dynamic).unwrap();
    let from_json = codec::from_json::<T>(&json);
    let from_msgpack = codec::from_msgpack::<T>(&msgpack);
    assert!(
        from_json.is_err() && from_msgpack.is_err(),
        "{name}: codec reads {json}: {from_json:?} / {from_msgpack:?}"
    );
    Case {
        name,
        ty,
        class: "",
        python: "",
        msgpack,
        json,
        decodes_back: Box::new(|_, _| Ok(())),
        refused: true,
        stored: Vec::new(),
        stored_error: None,
        float32: false,
    }
}

/// A stored value the module's `from_stored` refuses as `ty`, saying `error`.
fn stored_refused(name: &'static str, stored: Vec<u8>, ty: &'static str, error: String) -> Case {
    Case {
        name,
        ty,
        class: "",
        python: "",
        msgpack: Vec::new(),
        json: String::new(),
        decodes_back: Box::new(|_, _| Ok(())),
        refused: false,
        stored,
        stored_error: Some(error),
        float32: false,
    }
}

/// `Point` as a later version of the program writes it: another schema
/// under the same wire name.
mod later {
    #[derive(codec::Codec)]
    pub struct Point {
        pub x: i64,
        pub y: i64,
        pub z: i64,
    }
}

fn limits() -> Limits {
    Limits {
        percent: 100,
        ratio: 0.5,
        step: 15,
        small: 1,
        tiny: -128,
        wide: u64::MAX,
        name: "éé✓".into(),
        login: "ada1".into(),
        tags: vec!["a".into(), "b".into()],
        scores: [("x".to_owned(), 1)].into(),
        ids: [0, 255].into(),
        maybe: None,
        port: Port(1000),
    }
}

fn tag() -> Tag {
    Tag { tag: "t".into() }
}

/// A `Tag` stored under its old name, which Rust reads as a `Tag`.
fn old_tag() -> Vec<u8> {
    let stored = codec::to_stored(&old::Tag { tag: "t".into() }).unwrap();
    assert_eq!(codec::from_stored::<Tag>(&stored).unwrap(), tag());
    stored
}

fn cases() -> Vec<Case> {
    let mut cases = vec![
        case("struct", Point { x: 1, y: -2 }, ("Point", "Point"), "Point(x=1, y=-2)"),
        case(
            "renamed_and_keyword_fields",
            Account {
                user_id: 7,
                display_name: "Ann".into(),
                class_name: "admin".into(),
                r#from: 255,
            },
            ("Account", "Account"),
            "Account(user_id=7, display_name='Ann', class_='admin', from_=255)",
        ),
        case(
            "array_like",
            Row {
                id: 3,
                name: "r".into(),
            },
            ("Row", "Row"),
            "Row(id=3, name='r')",
        ),
        case("array_like_variant", Op::Add { a: 1, b: -2 }, ("Op", "Add"), "Add(a=1, b=-2)"),
        case("array_like_empty_variant", Op::Stop {}, ("Op", "Stop"), "Stop()"),
        case("deny_unknown_fields", Strict { on: true }, ("Strict", "Strict"), "Strict(on=True)"),
        case(
            "struct_variant",
            Event::Click { x: 1, y: 2 },
            ("Event", "Click"),
            "Click(x=1, y=2)",
        ),
        case(
            "merged_newtype_variant",
            Event::Key(KeyData {
                code: "Enter".into(),
            }),
            ("Event", "Key"),
            "Key(code='Enter')",
        ),
        case("newtype_variant", Event::Scroll(-3), ("Event", "Scroll"), "Scroll(value=-3)"),
        case("tuple_variant", Event::Move(4, 5), ("Event", "Move"), "Move(value=(4, 5))"),
        case("unit_variant", Event::Quit, ("Event", "Quit"), "Quit()"),
        case("int_tag_empty", Level::Low {}, ("Level", "Level1"), "Level1()"),
        case("int_tag", Level::High { level: 9 }, ("Level", "Level2"), "Level2(level=9)"),
        case("unit_only_enum", Color::Green, ("Color", "str"), "'dark_green'"),
        case(
            "options_missing",
            Opts {
                note: None,
                count: 2,
                at: None,
            },
            ("Opts", "Opts"),
            "Opts(count=2)",
        ),
        case(
            "options_present",
            Opts {
                note: Some("n".into()),
                count: 0,
                at: Some(Point { x: 0, y: 1 }),
            },
            ("Opts", "Opts"),
            "Opts(note='n', count=0, at=Point(x=0, y=1))",
        ),
        case(
            "collections",
            Bag {
                ints: vec![1, -1, 300],
                pair: (1, "one".into()),
                scores: [("b".to_owned(), 2), ("a".to_owned(), 1)].into(),
                tags: ["y".to_owned(), "x".to_owned()].into(),
                data: vec![0, 1, 255],
                color: Color::Red,
                colors: vec![Color::Green, Color::Red],
            },
            ("Bag", "Bag"),
            "Bag(ints=[1, -1, 300], pair=(1, 'one'), scores={'b': 2, 'a': 1}, \
             tags={'y', 'x'}, data=b'\\x00\\x01\\xff', \
             color='Red', colors=['dark_green', 'Red'])",
        ),
        case(
            "integer_keys",
            IntKeys {
                by_id: [(10, "ten".to_owned()), (2, "two".to_owned())].into(),
            },
            ("IntKeys", "IntKeys"),
            "IntKeys(by_id={2: 'two', 10: 'ten'})",
        ),
        case(
            "recursive",
            Tree::Node {
                children: vec![Tree::Leaf(1), Tree::Node { children: vec![] }],
            },
            ("Tree", "Node"),
            "Node(children=[Leaf(value=1), Node(children=[])])",
        ),
        case(
            "declared_by_macro",
            Label {
                label: "hi".into(),
            },
            ("Label", "Label"),
            "Label(label='hi')",
        ),
        case(
            "generic_instantiation",
            Page {
                items: vec![Point { x: 1, y: 2 }],
                next: Some(2),
            },
            ("PagePoint", "PagePoint"),
            "PagePoint(items=[Point(x=1, y=2)], next=2)",
        ),
        case(
            "times_and_any",
            Times {
                at: UNIX_EPOCH + Duration::from_millis(1_767_323_045_500),
                took: Duration::from_millis(1500),
                any: codec::Value::Array(vec![codec::Value::Int(1), codec::Value::Str("a".into())]),
            },
            ("Times", "Times"),
            "Times(at=datetime.datetime(2026, 1, 2, 3, 4, 5, 500000, tzinfo=datetime.timezone.utc), \
             took=datetime.timedelta(seconds=1.5), any=[1, 'a'])",
        ),
        case("newtype", Owned { id: UserId(5) }, ("Owned", "Owned"), "Owned(id=5)"),
        case(
            "omit_defaults",
            Sparse {
                name: "s".into(),
                note: None,
            },
            ("Sparse", "Sparse"),
            "Sparse(name='s')",
        ),
        case(
            "omit_defaults_present",
            Sparse {
                name: "s".into(),
                note: Some("n".into()),
            },
            ("Sparse", "Sparse"),
            "Sparse(name='s', note='n')",
        ),
        case(
            "defaults",
            Defaults {
                count: 0,
                ratio: 0.5,
                whole: 1.0,
                name: tricky(),
                color: Color::Green,
                maybe: Some(42),
                empty: vec![],
                tags: two_tags(),
                unique: BTreeSet::new(),
                scores: BTreeMap::new(),
                at: Origin::default(),
                when: epoch_and_a_half(),
                data: vec![],
                pair: (0, String::new()),
            },
            ("Defaults", "Defaults"),
            "Defaults()",
        ),
        case(
            "omit_defaults_all_at_default",
            SparseDefaults {
                name: "s".into(),
                count: 0,
                ratio: 0.5,
                tags: vec![],
                color: Color::Green,
                when: epoch_and_a_half(),
            },
            ("SparseDefaults", "SparseDefaults"),
            "SparseDefaults(name='s')",
        ),
        case(
            "omit_defaults_none_at_default",
            SparseDefaults {
                name: "s".into(),
                count: 1,
                ratio: 1.5,
                tags: vec!["t".into()],
                color: Color::Red,
                when: UNIX_EPOCH,
            },
            ("SparseDefaults", "SparseDefaults"),
            "SparseDefaults(name='s', count=1, ratio=1.5, tags=['t'], color='Red', \
             when=datetime.datetime(1970, 1, 1, tzinfo=datetime.timezone.utc))",
        ),
        case(
            "constraints_at_their_bounds",
            limits(),
            ("Limits", "Limits"),
            "Limits(percent=100, ratio=0.5, step=15, small=1, tiny=-128, \
             wide=18446744073709551615, name='éé✓', login='ada1', tags=['a', 'b'], \
             scores={'x': 1}, ids={0, 255}, port=1000)",
        ),
        case(
            "untagged_int",
            HoldsScalar {
                value: Scalar::Int(-3),
            },
            ("HoldsScalar", "HoldsScalar"),
            "HoldsScalar(value=-3)",
        ),
        case(
            "untagged_string",
            HoldsScalar {
                value: Scalar::Text("t".into()),
            },
            ("HoldsScalar", "HoldsScalar"),
            "HoldsScalar(value='t')",
        ),
        case("untagged_unit", Loose::Nothing, ("Loose", "NoneType"), "None"),
        case("untagged_bool", Loose::Flag(true), ("Loose", "bool"), "True"),
        case(
            "untagged_struct",
            Loose::At(Point { x: 1, y: 2 }),
            ("Loose", "Point"),
            "Point(x=1, y=2)",
        ),
        case("untagged_array", Loose::Many(vec![1, 2]), ("Loose", "list"), "[1, 2]"),
        Case {
            float32: true,
            ..case("float32", Ratio { r: 0.5 }, ("Ratio", "Ratio"), "Ratio(r=0.5)")
        },
        case(
            "raw",
            Envelope {
                kind: "k".into(),
                body: codec::Raw::to_msgpack(&Point { x: 1, y: -2 }).unwrap(),
                parts: vec![
                    codec::Raw::to_msgpack(&"a".to_owned()).unwrap(),
                    codec::Raw::to_msgpack(&vec![1, 2]).unwrap(),
                ],
            },
            ("Envelope", "Envelope"),
            "Envelope(kind='k', body=msgspec.Raw(fmt.encode(Point(x=1, y=-2))), \
             parts=[msgspec.Raw(fmt.encode('a')), msgspec.Raw(fmt.encode([1, 2]))])",
        ),
        case(
            "wider_than_64_bits",
            Wide {
                big: u64::MAX.into(),
                signed: i64::MIN.into(),
            },
            ("Wide", "Wide"),
            "Wide(big=18446744073709551615, signed=-9223372036854775808)",
        ),
        case(
            "recursive_through_an_untagged_union",
            HoldsNested {
                nested: Nested::List(vec![Nested::Int(1), Nested::List(vec![Nested::Int(2)])]),
                more: vec![Nested::Int(3)],
            },
            ("HoldsNested", "HoldsNested"),
            "HoldsNested(nested=[1, [2]], more=[3])",
        ),
        case(
            "documented",
            Documented {
                x: 1,
                y: 0,
                kind: Measured::Manual { by: "a".into() },
            },
            ("Documented", "Documented"),
            "Documented(x=1, kind=Manual(by='a'))",
        ),
        Case {
            stored: old_tag(),
            ..case("stored_under_an_alias", tag(), ("Tag", "Tag"), "Tag(tag='t')")
        },
        Case {
            stored: codec::to_stored(&Origin::default()).unwrap(),
            ..case(
                "stored_under_another_name_with_the_same_schema",
                Point { x: 0, y: 0 },
                ("Point", "Point"),
                "Point(x=0, y=0)",
            )
        },
        refused("above_le", limits(), "Limits", "percent", json!(101)),
        refused("below_ge", limits(), "Limits", "percent", json!(-1)),
        refused("at_gt", limits(), "Limits", "ratio", json!(0.0)),
        refused("at_lt", limits(), "Limits", "ratio", json!(1.0)),
        refused("not_a_multiple", limits(), "Limits", "step", json!(12)),
        refused("below_ge_in_width", limits(), "Limits", "small", json!(0)),
        refused("above_u8", limits(), "Limits", "small", json!(256)),
        refused("below_i8", limits(), "Limits", "tiny", json!(-129)),
        refused("negative_u64", limits(), "Limits", "wide", json!(-1)),
        refused("above_u32", limits(), "Limits", "step", json!(4_294_967_300_u64)),
        refused("too_short", limits(), "Limits", "name", json!("")),
        refused("too_long_in_characters", limits(), "Limits", "name", json!("abcd")),
        refused("no_match", limits(), "Limits", "login", json!("Ada")),
        refused("too_many_items", limits(), "Limits", "tags", json!(["a", "b", "c"])),
        refused("too_few_entries", limits(), "Limits", "scores", json!({})),
        refused("too_many_in_a_set", limits(), "Limits", "ids", json!([1, 2, 3])),
        refused("element_above_u8", limits(), "Limits", "ids", json!([256])),
        refused("optional_below_ge", limits(), "Limits", "maybe", json!(0)),
        refused("newtype_above_le", limits(), "Limits", "port", json!(1001)),
        stored_refused(
            "stored_with_another_schema",
            codec::to_stored(&later::Point { x: 1, y: 2, z: 3 }).unwrap(),
            "Point",
            format!(
                "stored `Point` was written with schema {}, and this module's `Point` has schema {}",
                codec::fingerprint_of::<later::Point>(),
                codec::fingerprint_of::<Point>()
            ),
        ),
        stored_refused(
            "stored_under_an_alias_with_another_schema",
            rewritten(
                &codec::to_stored(&old::LongTag {
                    tag: "t".into(),
                    long: true,
                })
                .unwrap(),
                Some("shapes.OldTag"),
                None,
            ),
            "Tag",
            format!(
                "stored `shapes.OldTag` was written with schema {}, and this module's `shapes.Tag` has schema {}",
                codec::fingerprint_of::<old::LongTag>(),
                codec::fingerprint_of::<Tag>()
            ),
        ),
        stored_refused(
            "stored_as_another_type",
            codec::to_stored(&Event::Quit).unwrap(),
            "Point",
            "stored value is a `Event`, not a `Point`".into(),
        ),
        stored_refused(
            "stored_as_a_type_the_module_only_contains",
            codec::to_stored(&Origin::default()).unwrap(),
            "Origin",
            "is not one of the types this module was generated for".into(),
        ),
        stored_refused(
            "not_stored",
            codec::to_msgpack(&Point { x: 1, y: 2 }).unwrap(),
            "Point",
            "these bytes were not written by codec::to_stored".into(),
        ),
    ];
    // A value stored by a codec that fingerprinted `Defaults` before floats
    // had a width: Python reads it as Rust does.
    let defaults = cases.iter().position(|c| c.name == "defaults").unwrap();
    let legacy = codec::schema::info::<Defaults>()
        .legacy_fingerprint
        .expect("an earlier fingerprint of the same shape");
    let mut earlier = case(
        "stored_by_an_earlier_codec",
        codec::from_stored::<Defaults>(&cases[defaults].stored).unwrap(),
        ("Defaults", "Defaults"),
        "Defaults()",
    );
    earlier.stored = rewritten(&earlier.stored, None, Some(legacy));
    assert_eq!(
        codec::from_stored::<Defaults>(&earlier.stored).unwrap(),
        codec::from_stored::<Defaults>(&cases[defaults].stored).unwrap()
    );
    cases.push(earlier);
    // Rust reads a value stored with the same schema under any name.
    let origin = codec::to_stored(&Origin::default()).unwrap();
    assert_eq!(
        codec::from_stored::<Point>(&origin).unwrap(),
        Point { x: 0, y: 0 }
    );
    cases.extend(feature_cases());
    cases
}

/// The cases of the optional features' types.
fn feature_cases() -> Vec<Case> {
    #[allow(unused_mut)]
    let mut cases = Vec::new();
    #[cfg(feature = "decimal")]
    {
        use decimals::Priced;
        use std::str::FromStr;

        let d = |s: &str| rust_decimal::Decimal::from_str(s).unwrap();
        cases.push(case(
            "decimal",
            Priced {
                price: d("1.50"),
                history: vec![d("0.0000001"), d("-12345678901234567890.5"), d("0")],
            },
            ("Priced", "Priced"),
            "Priced(price=decimal.Decimal('1.50'), history=[decimal.Decimal('1E-7'), \
             decimal.Decimal('-12345678901234567890.5'), decimal.Decimal('0')])",
        ));
    }
    #[cfg(feature = "ndarray")]
    {
        use arrays::{image, IMAGE};

        let array = |dtype: &str, shape: Value, data: &str| json!({"dtype": dtype, "shape": shape, "data": data});
        cases.extend([
            case("ndarray", image(), ("Image", "Image"), IMAGE),
            refused(
                "array_data_shorter_than_its_shape",
                image(),
                "Image",
                "pixels",
                array("<f8", json!([2, 3]), "AAAAAAAAAAA="),
            ),
            refused(
                "array_of_another_dtype",
                image(),
                "Image",
                "labels",
                array("<i8", json!([1]), "AAAAAAAAAAA="),
            ),
            refused(
                "array_of_other_dimensions",
                image(),
                "Image",
                "labels",
                array("<i4", json!([1, 1]), "AAAAAA=="),
            ),
            refused(
                "array_of_a_negative_dimension",
                image(),
                "Image",
                "mask",
                array("|b1", json!([-1]), ""),
            ),
        ]);
    }
    cases
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

fn unhex(s: &str) -> Vec<u8> {
    (0..s.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&s[i..i + 2], 16).unwrap())
        .collect()
}

#[test]
fn generated_classes_read_and_write_codecs_bytes() {
    check_against_codec(&module().render().unwrap(), &cases());
}

/// The repository's committed schemas (`schemas/`, the store's records
/// with them) make a module, without the Rust types, whose classes read
/// and write the corpus' bytes; corpus.Value recurses through an untagged
/// union only.
#[test]
fn the_committed_schemas_make_classes_that_read_the_corpus() {
    let text = committed_schemas_module().render().unwrap();
    // One color: msgspec cannot sort the set of a document whose map has
    // integer keys (it sorts all or nothing), and writes it in order.
    let mut sample = corpus::sample();
    sample.colors = ["blue".to_owned()].into();
    let cases = vec![
        Case {
            float32: true,
            ..case(
                "corpus_document",
                sample.clone(),
                ("Document", "Document"),
                "",
            )
        },
        case(
            "corpus_value",
            corpus::Scalar::List(vec![
                corpus::Scalar::Int(1),
                corpus::Scalar::List(vec![corpus::Scalar::Text("t".into())]),
                corpus::Scalar::Nothing,
            ]),
            ("Value", "list"),
            "[1, ['t'], None]",
        ),
        case(
            "corpus_shape",
            corpus::Shape::Circle {
                center: corpus::Point { x: 0, y: 1 },
                r: 1.5,
            },
            ("Shape", "Circle"),
            "Circle(center=Point(x=0, y=1), r=1.5)",
        ),
    ];
    check_against_codec(&text, &cases);
    mypy_strict(
        &text,
        "from models import Document, Value\n\nvalue: Value = [1, [2.5, ['t', None]]]\n",
    );
}

/// The module of every file of the repository's `schemas/`, by file name.
fn committed_schemas_module() -> Module {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/schemas");
    let mut files: Vec<_> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    files.sort();
    files.iter().fold(Module::new(), |module, path| {
        let schema: Value = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
        module.add_schema(&schema).unwrap()
    })
}

/// Runs the cases through the classes of the module `text` in Python.
fn check_against_codec(text: &str, cases: &[Case]) {
    let python = venv::msgspec();
    let dir = tempfile::tempdir().unwrap();
    let models = dir.path().join("models.py");
    std::fs::write(&models, text).unwrap();
    let manifest = dir.path().join("manifest.jsonl");
    let results = dir.path().join("results.jsonl");
    let lines: Vec<String> = cases
        .iter()
        .map(|c| {
            json!({
                "case": c.name, "type": c.ty, "class": c.class, "python": c.python,
                "msgpack": hex(&c.msgpack), "json": c.json, "refused": c.refused,
                "stored": hex(&c.stored), "stored_error": c.stored_error,
            })
            .to_string()
        })
        .collect();
    std::fs::write(&manifest, lines.join("\n") + "\n").unwrap();
    let script = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/python/python_classes.py"
    );
    venv::run(
        Command::new(&python)
            .arg(script)
            .arg(&models)
            .arg(&manifest)
            .arg(&results),
        "the generated classes' script",
    );
    let results: Vec<Value> = std::fs::read_to_string(&results)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(results.len(), cases.len());
    let mut failures = Vec::new();
    for (c, r) in cases.iter().zip(&results) {
        assert_eq!(r["case"], c.name);
        for p in r["problems"].as_array().unwrap() {
            failures.push(format!("{}: Python: {}", c.name, p.as_str().unwrap()));
        }
        for (what, mp, js) in [
            ("re-encoded", "msgpack", "json"),
            ("built", "built_msgpack", "built_json"),
        ] {
            let (Some(mp), Some(js)) = (r[mp].as_str(), r[js].as_str()) else {
                continue; // reported as a problem, or nothing built
            };
            let mp = unhex(mp);
            if mp != c.msgpack && !c.float32 {
                failures.push(format!(
                    "{}: MessagePack {what} in Python differs\n  codec:   {}\n  msgspec: {}",
                    c.name,
                    hex(&c.msgpack),
                    hex(&mp)
                ));
            }
            if js != c.json {
                failures.push(format!(
                    "{}: JSON {what} in Python differs\n  codec:   {}\n  msgspec: {js}",
                    c.name, c.json
                ));
            }
            if let Err(e) = (c.decodes_back)(&mp, js) {
                failures.push(format!(
                    "{}: codec cannot read what Python {what}: {e}",
                    c.name
                ));
            }
        }
    }
    assert!(
        failures.is_empty(),
        "{} failures:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

/// The generated module, `from_stored` included, and a use of it pass
/// `mypy --strict`: Python users type-check against these classes.
#[test]
fn generated_module_passes_mypy_strict() {
    mypy_strict(
        &module().render().unwrap(),
        "from models import Event, HoldsNested, Nested, Point, Sparse, from_stored\n\
         \n\
         \n\
         def x_of(data: bytes) -> int:\n\
         \x20   point: Point = from_stored(data, Point)\n\
         \x20   return point.x\n\
         \n\
         \n\
         def event(data: bytes) -> Event:\n\
         \x20   value: Event = from_stored(data, Event)\n\
         \x20   return value\n\
         \n\
         \n\
         sparse = Sparse(name=\"s\")\n\
         note: str | None = sparse.note\n\
         deep: Nested = [1, [2, [3]]]\n\
         holds = HoldsNested(nested=deep)\n",
    );
}

/// `mypy --strict` passes on the module `text` and on `use_models`, a
/// module that imports it as `models`.
fn mypy_strict(text: &str, use_models: &str) {
    let python = venv::msgspec();
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("models.py"), text).unwrap();
    std::fs::write(dir.path().join("use_models.py"), use_models).unwrap();
    let cache = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("mypy-cache");
    venv::run(
        Command::new(&python)
            .args([
                "-m",
                "mypy",
                "--strict",
                "--no-error-summary",
                "--cache-dir",
            ])
            .arg(&cache)
            .args(["models.py", "use_models.py"])
            .current_dir(dir.path()),
        "mypy --strict on the generated module",
    );
}

/// With the optional features' shapes, as `.ci/run` tests.
#[cfg(all(feature = "decimal", feature = "ndarray"))]
#[test]
fn rendered_module_snapshot() {
    let text = module().render().unwrap();
    insta::with_settings!({
        description => "the Python module of every shape tests/python_classes.rs checks against msgspec",
        omit_expression => true,
    }, {
        insta::assert_snapshot!("python_module", text);
    });
}

#[test]
fn check_passes_on_an_up_to_date_file_fails_on_a_stale_one_and_rewrites_it() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("python").join("models.py");
    let module = Module::new().add::<Point>().add::<Event>();
    let missing = module.clone().update(false).check(&path).unwrap_err();
    assert!(
        missing.to_string().contains("no Python module at"),
        "{missing}"
    );
    assert!(
        missing.to_string().contains("CODEC_UPDATE_SCHEMAS=1"),
        "{missing}"
    );
    module.clone().update(true).check(&path).unwrap();
    assert_eq!(
        std::fs::read_to_string(&path).unwrap(),
        module.render().unwrap()
    );
    module.clone().update(false).check(&path).unwrap();

    let stale = Module::new().add::<Point>();
    let err = stale.clone().update(false).check(&path).unwrap_err();
    assert!(
        err.to_string()
            .contains("models.py is not what the types generate"),
        "{err}"
    );
    assert!(err.to_string().contains("CODEC_UPDATE_SCHEMAS=1"), "{err}");
    stale.clone().update(true).check(&path).unwrap();
    assert_eq!(
        std::fs::read_to_string(&path).unwrap(),
        stale.render().unwrap()
    );
    stale.update(false).check(&path).unwrap();
}

/// `Module::all` holds the named and versioned types (here `shapes.Label`
/// and `Tree`), and what they contain.
#[test]
fn all_holds_every_named_or_versioned_type() {
    let all = Module::all().render().unwrap();
    // `Tree` (versioned), `shapes.Label`, `shapes.Tag` and the corpus'.
    for named in [
        "\nclass Leaf(msgspec.Struct, tag_field=\"type\", tag=\"Leaf\"):\n",
        "\nclass Node(msgspec.Struct, tag_field=\"type\", tag=\"Node\"):\n",
        "\nTree = typing.Union[Leaf, Node]\n",
        "\nclass Label(msgspec.Struct):\n",
        "\nclass Tag(msgspec.Struct):\n",
        "\nclass Document(msgspec.Struct, forbid_unknown_fields=True",
    ] {
        assert!(all.contains(named), "no {named} in\n{all}");
    }
    for unnamed in ["\nclass Account(", "\nclass Bag(", "\nclass Wide("] {
        assert!(!all.contains(unnamed), "{unnamed} in\n{all}");
    }
    let err = Module::new().render().unwrap_err().to_string();
    assert!(err.contains("codec::python_module!()"), "{err}");
}

/// The Quickstart's types, whose classes the README shows.
mod readme {
    #[derive(codec::Codec)]
    pub struct Chunk {
        pub text: String,
        pub start: u32,
        pub end: u32,
    }

    #[derive(codec::Codec)]
    pub enum Event {
        Click { x: i64, y: i64 },
        Key { code: String },
        Scroll { delta: f64 },
    }
}

/// The README's Python block is what the generator writes for its
/// Quickstart's types.
#[test]
fn readme_shows_the_classes_of_its_quickstart_types() {
    let readme = include_str!("../README.md");
    let section = &readme[readme.find("## Python classes").unwrap()..];
    let block = section
        .split("```python\n")
        .nth(1)
        .and_then(|b| b.split("```").next())
        .unwrap();
    let module = Module::new()
        .add::<readme::Chunk>()
        .add::<readme::Event>()
        .render()
        .unwrap();
    assert!(
        module.contains(block),
        "README:\n{block}\ngenerated:\n{module}"
    );
}

/// A default that `skip_serializing_if` leaves out of the schema.
#[derive(Codec, Debug, PartialEq)]
struct Counted {
    name: String,
    #[codec(default, skip_serializing_if = "Vec::is_empty")]
    counts: Vec<i64>,
}

/// A default from a factory, which msgspec's `omit_defaults` never leaves out.
#[derive(Codec, Debug, PartialEq)]
#[codec(omit_defaults)]
struct SparseOrigin {
    #[codec(default)]
    at: Origin,
}

#[derive(Codec, Debug, PartialEq)]
struct ShortBytes {
    #[codec(max_length = 4)]
    data: codec::Bytes,
}

#[test]
fn shapes_without_a_python_spelling_are_errors_naming_type_and_field() {
    let err = Module::new().add::<Counted>().render().unwrap_err();
    assert_eq!(
        err.to_string(),
        "`Counted`, field `counts`: optional on the wire, but its schema gives no `default` to write in Python"
    );
    let err = Module::new().add::<SparseOrigin>().render().unwrap_err();
    assert_eq!(
        err.to_string(),
        "`SparseOrigin`, field `at`: the default {\"x\":0,\"y\":0} comes from a factory, which msgspec's \
         omit_defaults never leaves out; drop #[codec(omit_defaults)] or make the default empty"
    );
    let err = Module::new().add::<ShortBytes>().render().unwrap_err();
    assert_eq!(
        err.to_string(),
        "`ShortBytes`, field `data`: length bounds on bytes, which the schema gives in base64 characters, not bytes"
    );
    let err = Module::new().add::<Vec<i64>>().render().unwrap_err();
    assert!(err.to_string().contains("is not a derived type"), "{err}");
}

/// What msgspec cannot bound is said above the field, not left to find out.
#[test]
fn fields_python_does_not_bound_say_so() {
    assert_wide_fields_noted(&Module::new().add::<Wide>().render().unwrap());
}

/// A schema file kept from when a `u128`'s schema said `"maximum": -1`
/// (`u128::MAX` cast to `i128`) reads as the open bound it meant.
#[test]
fn an_old_u128_maximum_of_minus_one_is_read_as_no_bound() {
    let mut schema = codec::schema_of::<Wide>();
    let big = &mut schema["properties"]["big"];
    assert!(big.get("maximum").is_none(), "{big}");
    big["maximum"] = json!(-1);
    assert_wide_fields_noted(&Module::new().add_schema(&schema).unwrap().render().unwrap());
}

/// `module` has `Wide`'s fields, each under the note on wide integers.
fn assert_wide_fields_noted(module: &str) {
    let wide = "    # An integer beyond 64 bits in Rust (i128, u128): msgspec bounds integers\n\
                \x20   # only within 64 bits, so JSON numbers outside the Rust type's range decode\n\
                \x20   # here and are refused in Rust.\n";
    assert!(
        module.contains(&format!(
            "{wide}    big: typing.Annotated[int, msgspec.Meta(ge=0)]\n{wide}    signed: int\n"
        )),
        "{module}"
    );
}

/// An array's class converts to and from numpy, which the module imports
/// only then: it imports without numpy.
#[cfg(feature = "ndarray")]
#[test]
fn arrays_convert_to_and_from_numpy_imported_only_then() {
    let python = venv::msgspec();
    let dir = tempfile::tempdir().unwrap();
    let module = Module::new().add::<arrays::Image>().render().unwrap();
    std::fs::write(dir.path().join("models.py"), module).unwrap();
    let bytes = codec::to_msgpack(&arrays::image()).unwrap();
    let script = format!(
        r#"
import sys

sys.modules["numpy"] = None  # importing it fails
import models

del sys.modules["numpy"]
import msgspec
import numpy

image = msgspec.msgpack.decode(bytes.fromhex("{}"), type=models.Image)
pixels = image.pixels.to_numpy()
assert pixels.dtype == numpy.float64, pixels.dtype
assert pixels.tolist() == [[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], pixels
mask = image.mask.to_numpy()
assert mask.tolist() == [[[True, False]], [[False, True]]], mask
assert image.labels.to_numpy().tolist() == [-1, 2]
again = models.Image(
    pixels=models.ArrayF8D2.from_numpy(pixels),
    mask=models.ArrayB1.from_numpy(mask),
    labels=models.ArrayI4D1.from_numpy(numpy.array([-1, 2])),
)
sys.stdout.write(msgspec.msgpack.encode(again).hex())
"#,
        hex(&bytes)
    );
    let out = Command::new(&python)
        .args(["-c", &script])
        .current_dir(dir.path())
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(String::from_utf8(out.stdout).unwrap(), hex(&bytes));
}

/// Doc comments are the schema's descriptions, which the fingerprint leaves
/// out, and the classes' docstrings.
#[test]
fn doc_comments_become_docstrings_and_leave_fingerprints_alone() {
    assert_eq!(
        codec::fingerprint_of::<Documented>(),
        codec::fingerprint_of::<undocumented::Documented>()
    );
    let schema = codec::schema_of::<Documented>();
    assert_eq!(
        schema["description"],
        "A point on a map.\n\nBoth coordinates in metres; \"quoted\" and \\ kept."
    );
    assert_eq!(
        schema["properties"]["x"]["description"],
        "East of the origin."
    );
    let module = Module::new().add::<Documented>().render().unwrap();
    for expected in [
        "class Documented(msgspec.Struct, kw_only=True):\n\
         \x20   \"\"\"A point on a map.\n\
         \n\
         \x20   Both coordinates in metres; \"quoted\" and \\\\ kept.\n\
         \x20   \"\"\"\n\
         \x20   __codec_name__",
        "    x: int\n    \"\"\"East of the origin.\"\"\"\n",
        "    y: int = 0\n    \"\"\"North of the origin: \\\"\\\"\\\" ends no docstring.\"\"\"\n",
        "class Manual(msgspec.Struct, tag_field=\"type\", tag=\"Manual\"):\n    \"\"\"By hand, by someone.\"\"\"\n",
        "class Machine(msgspec.Struct, tag_field=\"type\", tag=\"Machine\"):\n    \"\"\"By a machine.\"\"\"\n\n",
        "# How a point was measured.\nMeasured = typing.Union[Manual, Machine]\n",
    ] {
        assert!(module.contains(expected), "no\n{expected}\nin\n{module}");
    }
}
