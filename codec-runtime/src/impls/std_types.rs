//! Standard library types with a string or timestamp encoding.
