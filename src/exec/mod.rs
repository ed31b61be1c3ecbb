//! The interpreter: resumable model threads that act on the world through the `Host` trait.

pub mod host;
