//! msgspec's constraints (`Annotated[int, Meta(ge=0)]`) as field
//! attributes: `#[codec(ge = 0, le = 100)]`, `gt`, `lt`, `multiple_of`,
//! `min_length`, `max_length`, `pattern`.
//!
//! They are checked while decoding (the error names the field's path and
//! the bound), emitted in the JSON Schema (`minimum`, `exclusiveMaximum`,
//! `multipleOf`, `minLength`, `minItems`, `maxProperties`, `pattern`, ...),
//! and compared by [`crate::schema::diff`]: a narrowed bound is breaking, a
//! widened one compatible. Encoding does not check them.
//!
//! Numeric bounds apply to integers, floats and decimals; lengths to strings
//! (in characters, as Python counts), byte buffers, sequences, sets and maps;
//! `pattern` (a [`regex`](https://docs.rs/regex) searched anywhere in the
//! string, as Python's `re.search`) to strings. On an `Option`, they apply
//! to the value when there is one. A constraint on a type it does not apply
//! to is a compile error.
//!
//! ```
//! #[derive(codec::Codec, Debug)]
//! struct User {
//!     #[codec(ge = 0, le = 150)]
//!     age: u8,
//!     #[codec(min_length = 1, max_length = 32, pattern = "^[a-z_]+$")]
//!     login: String,
//!     #[codec(max_length = 3)]
//!     tags: Vec<String>,
//! }
//!
//! let err = codec::from_json::<User>(r#"{"age":200,"login":"ada","tags":[]}"#).unwrap_err();
//! assert_eq!(err.to_string(), "invalid JSON at $.age: expected a value <= 150 (#[codec(le = 150)]), found 200 (byte 7)");
//! let schema = codec::schema_of::<User>();
//! assert_eq!(schema["properties"]["login"]["pattern"], "^[a-z_]+$");
//! assert_eq!(schema["properties"]["tags"]["maxItems"], 3);
//! ```

use std::borrow::Cow;
use std::cmp::Ordering;
use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet, VecDeque};
use std::sync::LazyLock;

use schemars::Schema;
use serde_json::{json, Map, Value};

use crate::error::{DecodeError, DecodeErrorKind};

/// The compiled pattern of a `pattern` constraint (an alias, so that it
/// stays out of the documentation as the derive's own).
#[doc(hidden)]
pub type Regex = regex::Regex;

/// A numeric bound as written in the attribute.
#[doc(hidden)]
#[derive(Clone, Copy, Debug)]
pub enum Bound {
    /// An integer literal.
    Int(i128),
    /// A float literal.
    Float(f64),
}

impl Bound {
    fn as_f64(self) -> f64 {
        match self {
            Bound::Int(i) => i as f64,
            Bound::Float(f) => f,
        }
    }

    fn json(self) -> Value {
        match self {
            Bound::Int(i) => i64::try_from(i)
                .map(Value::from)
                .or_else(|_| u64::try_from(i).map(Value::from))
                .unwrap_or_else(|_| json!(i as f64)),
            Bound::Float(f) => json!(f),
        }
    }
}

impl std::fmt::Display for Bound {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Bound::Int(i) => write!(f, "{i}"),
            Bound::Float(v) => write!(f, "{v:?}"),
        }
    }
}

/// The constraints of one field, as generated code declares them.
#[doc(hidden)]
#[derive(Clone, Copy, Debug)]
pub struct Bounds {
    pub ge: Option<Bound>,
    pub gt: Option<Bound>,
    pub le: Option<Bound>,
    pub lt: Option<Bound>,
    pub multiple_of: Option<Bound>,
    pub min_length: Option<usize>,
    pub max_length: Option<usize>,
    pub pattern: Option<&'static str>,
}

impl Bounds {
    /// No constraint: the start of a declaration.
    pub const NONE: Bounds = Bounds {
        ge: None,
        gt: None,
        le: None,
        lt: None,
        multiple_of: None,
        min_length: None,
        max_length: None,
        pattern: None,
    };
}

/// A compiled `pattern`, built once on first use.
#[doc(hidden)]
pub type Pattern = LazyLock<Result<Regex, String>>;

/// Compiles a pattern; the derive has already checked its syntax, so only
/// regex's size limits can fail here, and that becomes a decode error.
#[doc(hidden)]
pub fn compile(pattern: &str) -> Result<Regex, String> {
    Regex::new(pattern).map_err(|e| e.to_string())
}

fn violation(constraint: String, expected: String, found: String) -> DecodeError {
    DecodeError::new(DecodeErrorKind::Constraint {
        constraint,
        expected,
        found,
    })
}

/// Integers, floats and decimals: what `ge`, `gt`, `le`, `lt` and
/// `multiple_of` compare.
#[diagnostic::on_unimplemented(
    message = "numeric constraints (`ge`, `gt`, `le`, `lt`, `multiple_of`) apply to numbers; `{Self}` is not one",
    label = "not a number"
)]
pub trait Numeric {
    /// How the value compares with `bound`; `None` for NaN.
    fn compare(&self, bound: Bound) -> Option<Ordering>;
    /// Whether the value is a whole multiple of `bound`.
    fn is_multiple(&self, bound: Bound) -> bool;
    /// The value as the error shows it.
    fn show(&self) -> String;
}

/// Strings, byte buffers and collections: what `min_length` and
/// `max_length` measure.
#[diagnostic::on_unimplemented(
    message = "`min_length` and `max_length` apply to strings, bytes and collections; `{Self}` is none of them",
    label = "has no length"
)]
pub trait Length {
    /// The length: characters of a string, elements of a collection.
    fn length(&self) -> usize;
}

/// Strings: what `pattern` matches.
#[diagnostic::on_unimplemented(
    message = "`pattern` applies to strings; `{Self}` is not one",
    label = "not a string"
)]
pub trait Text {
    /// The text to match.
    fn text(&self) -> &str;
}

macro_rules! int_numeric {
    ($($t:ty)*) => {$(
        impl Numeric for $t {
            fn compare(&self, bound: Bound) -> Option<Ordering> {
                match bound {
                    Bound::Int(b) => Some(match i128::try_from(*self) {
                        Ok(v) => v.cmp(&b),
                        Err(_) => Ordering::Greater, // above i128::MAX
                    }),
                    Bound::Float(b) => (*self as f64).partial_cmp(&b),
                }
            }
            fn is_multiple(&self, bound: Bound) -> bool {
                match (i128::try_from(*self), bound) {
                    (Ok(v), Bound::Int(b)) => b != 0 && v % b == 0,
                    _ => (*self as f64 % bound.as_f64()) == 0.0,
                }
            }
            fn show(&self) -> String {
                self.to_string()
            }
        }
    )*};
}

int_numeric!(i8 i16 i32 i64 i128 isize u8 u16 u32 u64 u128 usize);

macro_rules! float_numeric {
    ($($t:ty)*) => {$(
        impl Numeric for $t {
            fn compare(&self, bound: Bound) -> Option<Ordering> {
                f64::from(*self).partial_cmp(&bound.as_f64())
            }
            fn is_multiple(&self, bound: Bound) -> bool {
                f64::from(*self) % bound.as_f64() == 0.0
            }
            fn show(&self) -> String {
                format!("{self:?}")
            }
        }
    )*};
}

float_numeric!(f32 f64);

#[cfg(feature = "decimal")]
impl Numeric for rust_decimal::Decimal {
    fn compare(&self, bound: Bound) -> Option<Ordering> {
        let b = match bound {
            Bound::Int(i) => rust_decimal::prelude::FromPrimitive::from_i128(i)?,
            Bound::Float(f) => rust_decimal::Decimal::try_from(f).ok()?,
        };
        Some(self.cmp(&b))
    }
    fn is_multiple(&self, bound: Bound) -> bool {
        let b = match bound {
            Bound::Int(i) => rust_decimal::prelude::FromPrimitive::from_i128(i),
            Bound::Float(f) => rust_decimal::Decimal::try_from(f).ok(),
        };
        b.is_some_and(|b| !b.is_zero() && (self % b).is_zero())
    }
    fn show(&self) -> String {
        self.to_string()
    }
}

impl Length for String {
    fn length(&self) -> usize {
        self.chars().count()
    }
}

impl Length for Box<str> {
    fn length(&self) -> usize {
        self.chars().count()
    }
}

impl Length for Cow<'_, str> {
    fn length(&self) -> usize {
        self.chars().count()
    }
}

impl Length for crate::impls::bytes::Bytes {
    fn length(&self) -> usize {
        self.len()
    }
}

macro_rules! collection_length {
    ($([$($g:tt)*] $t:ty;)*) => {$(
        impl<$($g)*> Length for $t {
            fn length(&self) -> usize {
                self.len()
            }
        }
    )*};
}

collection_length! {
    [T] Vec<T>;
    [T] VecDeque<T>;
    [T] Box<[T]>;
    [T, S] HashSet<T, S>;
    [T] BTreeSet<T>;
    [K, V, S] HashMap<K, V, S>;
    [K, V] BTreeMap<K, V>;
}

impl Text for String {
    fn text(&self) -> &str {
        self
    }
}

impl Text for Box<str> {
    fn text(&self) -> &str {
        self
    }
}

impl Text for Cow<'_, str> {
    fn text(&self) -> &str {
        self
    }
}

/// Checks the numeric bounds of a decoded value.
#[doc(hidden)]
#[diagnostic::on_unimplemented(
    message = "numeric constraints (`ge`, `gt`, `le`, `lt`, `multiple_of`) apply to numbers; `{Self}` is not one",
    label = "not a number",
    note = "remove the constraint, or give the field a numeric type (or an `Option` of one)"
)]
pub trait CheckNumber {
    fn check_number(&self, bounds: &Bounds) -> Result<(), DecodeError>;
}

/// Checks the length bounds of a decoded value.
#[doc(hidden)]
#[diagnostic::on_unimplemented(
    message = "`min_length` and `max_length` apply to strings, bytes and collections; `{Self}` has no length",
    label = "has no length",
    note = "for a bound on a number's value, use `ge`, `gt`, `le` or `lt`"
)]
pub trait CheckLength {
    fn check_length(&self, bounds: &Bounds) -> Result<(), DecodeError>;
}

/// Checks the pattern of a decoded value.
#[doc(hidden)]
#[diagnostic::on_unimplemented(
    message = "`pattern` applies to strings; `{Self}` is not one",
    label = "not a string",
    note = "for a bound on a number, use `ge`, `gt`, `le`, `lt` or `multiple_of`"
)]
pub trait CheckPattern {
    fn check_pattern(&self, bounds: &Bounds, regex: &Pattern) -> Result<(), DecodeError>;
}

impl<T: Numeric> CheckNumber for T {
    fn check_number(&self, b: &Bounds) -> Result<(), DecodeError> {
        type Holds = fn(Ordering) -> bool;
        let checks: [(Option<Bound>, &str, &str, Holds); 4] = [
            (b.ge, "ge", ">=", Ordering::is_ge),
            (b.gt, "gt", ">", Ordering::is_gt),
            (b.le, "le", "<=", Ordering::is_le),
            (b.lt, "lt", "<", Ordering::is_lt),
        ];
        for (bound, key, op, holds) in checks {
            if let Some(bound) = bound
                && !self.compare(bound).is_some_and(holds)
            {
                return Err(violation(
                    format!("{key} = {bound}"),
                    format!("a value {op} {bound}"),
                    self.show(),
                ));
            }
        }
        if let Some(m) = b.multiple_of
            && !self.is_multiple(m)
        {
            return Err(violation(
                format!("multiple_of = {m}"),
                format!("a multiple of {m}"),
                self.show(),
            ));
        }
        Ok(())
    }
}

impl<T: Length> CheckLength for T {
    fn check_length(&self, b: &Bounds) -> Result<(), DecodeError> {
        let len = self.length();
        if let Some(min) = b.min_length.filter(|min| len < *min) {
            return Err(violation(
                format!("min_length = {min}"),
                format!("a length >= {min}"),
                format!("a length of {len}"),
            ));
        }
        if let Some(max) = b.max_length.filter(|max| len > *max) {
            return Err(violation(
                format!("max_length = {max}"),
                format!("a length <= {max}"),
                format!("a length of {len}"),
            ));
        }
        Ok(())
    }
}

impl<T: Text> CheckPattern for T {
    fn check_pattern(&self, b: &Bounds, regex: &Pattern) -> Result<(), DecodeError> {
        let Some(pattern) = b.pattern else {
            return Ok(());
        };
        let regex = regex.as_ref().map_err(|e| {
            DecodeError::invalid_value(format!("the pattern `{pattern}` cannot be used: {e}"))
        })?;
        if regex.is_match(self.text()) {
            return Ok(());
        }
        Err(violation(
            format!("pattern = {pattern:?}"),
            format!("a string matching `{pattern}`"),
            format!("{:?}", self.text()),
        ))
    }
}

/// Optional values are checked when present.
macro_rules! through_wrappers {
    ($($trait:ident :: $method:ident ($($arg:ident : $ty:ty),*);)*) => {$(
        impl<T: $trait> $trait for Option<T> {
            fn $method(&self, $($arg: $ty),*) -> Result<(), DecodeError> {
                match self {
                    Some(v) => v.$method($($arg),*),
                    None => Ok(()),
                }
            }
        }
    )*};
}

through_wrappers! {
    CheckNumber::check_number(bounds: &Bounds);
    CheckLength::check_length(bounds: &Bounds);
    CheckPattern::check_pattern(bounds: &Bounds, regex: &Pattern);
}

/// The JSON Schema keywords of `bounds`, added to a field's `schema`: on the
/// non-null branch of an optional field; lengths as `minLength`,
/// `minItems` or `minProperties` after the schema's type; numeric bounds
/// tightened against the type's own range.
#[doc(hidden)]
pub fn schema(schema: Schema, b: &Bounds) -> Schema {
    let mut value = schema.to_value();
    constrain(&mut value, b);
    Schema::try_from(value).unwrap_or_else(|_| Schema::from(true))
}

fn constrain(value: &mut Value, b: &Bounds) {
    let Some(obj) = value.as_object_mut() else {
        return;
    };
    if let Some(Value::Array(branches)) = obj.get_mut("anyOf") {
        for branch in branches {
            if branch.get("type") != Some(&Value::from("null")) {
                constrain(branch, b);
            }
        }
        return;
    }
    let ty = obj
        .get("type")
        .and_then(Value::as_str)
        .unwrap_or("")
        .to_owned();
    match ty.as_str() {
        "integer" | "number" => numeric_keywords(obj, b),
        "string" if obj.get("contentEncoding") == Some(&Value::from("base64")) => {
            // Bytes: the bounds of their base64 text, as msgspec writes them.
            let base64 = |n: usize| n.div_ceil(3) * 4;
            set(obj, "minLength", b.min_length.map(base64));
            set(obj, "maxLength", b.max_length.map(base64));
        }
        "string" => {
            set(obj, "minLength", b.min_length);
            set(obj, "maxLength", b.max_length);
            if let Some(p) = b.pattern {
                obj.insert("pattern".into(), Value::from(p));
            }
        }
        "array" => {
            set(obj, "minItems", b.min_length);
            set(obj, "maxItems", b.max_length);
        }
        "object" => {
            set(obj, "minProperties", b.min_length);
            set(obj, "maxProperties", b.max_length);
        }
        _ => {}
    }
}

fn set(obj: &mut Map<String, Value>, key: &str, v: Option<usize>) {
    if let Some(v) = v {
        obj.insert(key.into(), Value::from(v));
    }
}

fn numeric_keywords(obj: &mut Map<String, Value>, b: &Bounds) {
    let tighter = |obj: &Map<String, Value>, key: &str, bound: Bound, lower: bool| match obj
        .get(key)
        .and_then(Value::as_f64)
    {
        Some(own) if (lower && own > bound.as_f64()) || (!lower && own < bound.as_f64()) => None,
        _ => Some(bound.json()),
    };
    if let Some(v) = b.ge.and_then(|g| tighter(obj, "minimum", g, true)) {
        obj.insert("minimum".into(), v);
    }
    if let Some(v) = b.le.and_then(|l| tighter(obj, "maximum", l, false)) {
        obj.insert("maximum".into(), v);
    }
    if let Some(g) = b.gt {
        obj.insert("exclusiveMinimum".into(), g.json());
    }
    if let Some(l) = b.lt {
        obj.insert("exclusiveMaximum".into(), l.json());
    }
    if let Some(m) = b.multiple_of {
        obj.insert("multipleOf".into(), m.json());
    }
}
