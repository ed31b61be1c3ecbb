//! The command line end to end: bad input, output formats, traces and replay, diff/new, the
//! HTML report, kdiff against the running kernel, fuzz findings, the layering rules,
//! `check --simulate`, and the documents (the README's commands, the generated builtin page).
//!
//! One test binary for the area (each file below is a module), so the suite links a few
//! binaries instead of one per file.
mod bad_input;
mod bin;
mod ccheck;
mod cdiff;
mod cfuzz;
mod cli_bounds;
mod cli_output;
mod commute;
mod coverage;
mod cpairs;
mod cpatch;
mod cplan;
mod csimulate;
mod cwalkers;
mod diffnew;
mod docs;
mod drift;
mod findings;
mod fuzz_cli;
mod import_graph;
mod kdiff;
mod kernel_6_12;
mod kernel_7_2;
mod kernel_tree;
mod layering;
mod minimise_cli;
mod model_coverage;
mod readme;
mod report;
mod review;
#[path = "../common/scratch.rs"]
#[allow(dead_code)]
mod scratch;
mod series;
mod simulate;
mod source_scan;
mod symmetry;
mod trace_cli;
