//! The model language: diagnostics with file:line:col, execution, round trips, and parser
//! robustness.
//!
//! One test binary for the area (each file below is a module), so the suite links a few
//! binaries instead of one per file.
#[path = "../common/mod.rs"]
mod common;
mod lang_diagnostics;
mod lang_exec;
mod lang_fuzz;
mod lang_roundtrip;
#[path = "../common/scratch.rs"]
#[allow(dead_code)]
mod scratch;
