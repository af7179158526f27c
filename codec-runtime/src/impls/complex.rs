//! `num_complex::Complex<f32 | f64>` (feature `num-complex`): `[re, im]`.

use num_complex::Complex;
use schemars::SchemaGenerator;

use crate::codec::Schema;
use crate::decode::Decode;
use crate::encode::Encode;
use crate::error::{DecodeError, EncodeError};
use crate::json::{JsonReader, JsonWriter};
use crate::kind::WireKind;
use crate::msgpack::{MsgpackReader, MsgpackWriter};

macro_rules! complex_impl {
    ($($t:ty),*) => {$(

        impl Encode for Complex<$t> {
            fn encode_msgpack(&self, w: &mut MsgpackWriter) -> Result<(), EncodeError> {
                (self.re, self.im).encode_msgpack(w)
            }

            fn encode_json(&self, w: &mut JsonWriter) -> Result<(), EncodeError> {
                (self.re, self.im).encode_json(w)
            }
        }

        impl<'de> Decode<'de> for Complex<$t> {
            fn decode_msgpack(r: &mut MsgpackReader<'de>) -> Result<Self, DecodeError> {
                <($t, $t)>::decode_msgpack(r).map(|(re, im)| Complex::new(re, im))
            }

            fn decode_json(r: &mut JsonReader<'de>) -> Result<Self, DecodeError> {
                <($t, $t)>::decode_json(r).map(|(re, im)| Complex::new(re, im))
            }
        }

        impl Schema for Complex<$t> {
            const KIND: WireKind = WireKind::ARRAY;

            fn json_schema(g: &mut SchemaGenerator) -> schemars::Schema {
                <($t, $t)>::json_schema(g)
            }
        }
    )*};
}

complex_impl!(f32, f64);

#[cfg(test)]
mod tests {
    use num_complex::Complex;

    #[test]
    fn complex_is_a_pair() {
        let z = Complex::new(1.5f64, -2.0);
        assert_eq!(crate::convert::to_json(&z).unwrap(), "[1.5,-2.0]");
        assert_eq!(
            crate::convert::from_msgpack::<Complex<f64>>(&crate::convert::to_msgpack(&z).unwrap())
                .unwrap(),
            z
        );
    }
}
