use codec::Codec;

#[derive(Codec)]
union U {
    a: u32,
    b: f32,
}

fn main() {}
