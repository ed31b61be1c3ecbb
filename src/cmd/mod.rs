//! Implementations of the command-line subcommands, in the library so tests can drive them.
//! Each takes its arguments, writes its report to the given writers and returns the exit status.

pub mod fuzz;
pub mod run;

use crate::lang::{self, Program};
use std::path::Path;

/// Load a model file against the world's schema; on failure the rendered diagnostics.
pub fn load_model(path: &Path) -> Result<Program, String> {
    lang::load_file(path, &crate::world::schema()).map_err(|d| lang::render_diagnostics(&d))
}
