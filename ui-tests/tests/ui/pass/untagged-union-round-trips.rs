use codec::Codec;

#[derive(Codec, Debug, PartialEq)]
struct Point {
    x: i64,
}

#[derive(Codec, Debug, PartialEq)]
enum Color {
    Red,
    Green,
}

/// One variant per wire kind: nil, bool, int, float, string-like, bytes (in
/// MessagePack; a string in JSON, so not beside `Text`), array-like, map-like.
#[derive(Codec, Debug, PartialEq)]
#[codec(untagged)]
enum Value {
    Nothing,
    Flag(bool),
    Int(i64),
    Float(f64),
    Text(String),
    List(Vec<Value>),
    Point(Point),
}

#[derive(Codec, Debug, PartialEq)]
#[codec(untagged)]
enum Setting {
    Named(Color),
    Level(u8),
    Pair(u8, u8),
    Custom { r: u8, g: u8, b: u8 },
}

fn round_trip<T: Codec + PartialEq + std::fmt::Debug>(value: T) {
    let bytes = codec::to_msgpack(&value).unwrap();
    assert_eq!(codec::from_msgpack::<T>(&bytes).unwrap(), value);
    let text = codec::to_json(&value).unwrap();
    assert_eq!(codec::from_json::<T>(&text).unwrap(), value, "{text}");
}

pub fn main() {
    round_trip(Value::Nothing);
    round_trip(Value::Flag(true));
    round_trip(Value::Int(-3));
    round_trip(Value::Float(1.5));
    round_trip(Value::Text("hi".into()));
    round_trip(Value::List(vec![Value::Int(1), Value::Nothing, Value::Point(Point { x: 2 })]));
    round_trip(Setting::Named(Color::Green));
    round_trip(Setting::Level(3));
    round_trip(Setting::Pair(1, 2));
    round_trip(Setting::Custom { r: 1, g: 2, b: 3 });
    assert_eq!(codec::to_json(&Setting::Named(Color::Red)).unwrap(), r#""Red""#);
    assert_eq!(codec::to_json(&Setting::Custom { r: 1, g: 2, b: 3 }).unwrap(), r#"{"r":1,"g":2,"b":3}"#);
    // An integer goes to the float variant when there is no int variant.
    #[derive(Codec, Debug, PartialEq)]
    #[codec(untagged)]
    enum Num {
        F(f64),
        S(String),
    }
    assert_eq!(codec::from_json::<Num>("2").unwrap(), Num::F(2.0));
    let err = codec::from_json::<Num>("true").unwrap_err();
    assert!(err.to_string().contains("no variant of untagged `Num` takes bool: `F` takes float, `S` takes string-like"), "{err}");
}
