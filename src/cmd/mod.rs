//! Implementations of the command-line subcommands, in the library so tests can drive them.
//! Each takes its arguments, writes its report to the given writers and returns the exit status.

pub mod check;
pub mod compare;
pub mod diff;
pub mod drift;
mod drift_text;
pub mod formats;
pub mod fuzz;
pub mod interleave;
pub mod kdiff;
pub mod list;
pub mod locks;
pub mod new;
pub mod progress;
pub mod prove;
pub mod replay;
pub mod report;
pub mod run;

pub use crate::models::{discover_models, expand_model_args, load_model, resolve_model};
