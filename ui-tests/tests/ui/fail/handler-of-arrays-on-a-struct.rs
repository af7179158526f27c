use codec::Codec;

#[derive(Codec)]
#[codec(handler = "array")]
struct Grid {
    cells: Vec<f32>,
}

fn main() {}
