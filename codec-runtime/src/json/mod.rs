//! JSON: the secondary wire format, same shape as the MessagePack encoding.

pub(crate) mod number;
mod read;
mod scan;
mod write;

pub use read::JsonReader;
pub use write::JsonWriter;

/// The capacity a JSON array's `Vec<T>` takes at its first element: JSON
/// gives no length up front. As many elements as fill 32 bytes, and at
/// least 4 (`Vec`'s own first step): a short array of small numbers (`[3,
/// 17, 42, 8, 5]`) then takes one allocation instead of growing from 4 to
/// 8, at no more memory than the allocator's smallest blocks give.
#[inline]
pub(crate) const fn first_capacity<T>() -> usize {
    let size = std::mem::size_of::<T>();
    if size == 0 || size >= 8 {
        4
    } else {
        32 / size
    }
}
