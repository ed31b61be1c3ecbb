//! The interpreter: resumable model threads that act on the world through the `Host` trait.
//!
//! It reaches the world only through `Host` and names nothing of `world`, the checks or any layer
//! above.

pub mod compiled;
mod frame;
pub mod host;
mod local;
pub(crate) mod machine;
pub mod run;
mod spare;
pub mod step;
pub mod thread;

pub use run::{run, RunError};
pub use step::{Event, Fault, FaultKind, Step};
pub use thread::{Thread, MAX_CALL_DEPTH};
