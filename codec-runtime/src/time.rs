//! Calendar and ISO 8601 helpers for time types.
