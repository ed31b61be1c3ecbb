//! The options of `rmapcheck check` ([`CheckArgs`]), apart from the command so that what reads
//! them (the scopes of `check_scope`, `compare`) names only this.

use crate::cmd::formats::TraceFormat;
use crate::explore::scope::Mode;
use crate::explore::simulate::Simulation;
use std::path::PathBuf;

/// Options of `rmapcheck check`.
#[derive(Clone, Debug, Default)]
pub struct CheckArgs {
    pub models: Vec<PathBuf>,
    pub scope: Option<String>,
    pub mode: Option<Mode>,
    pub max_depth: Option<u32>,
    /// Turn the symmetry reduction over mms on (`src/world/symmetry.rs`).
    pub symmetry: bool,
    /// Turn the symmetry reduction over files on (`src/world/symmetry.rs`).
    pub file_symmetry: bool,
    /// Turn the commuting-calls reduction on (`src/explore/commute.rs`).
    pub commute: bool,
    /// Search the unreduced worlds: no symmetry reduction by default.
    pub unreduced: bool,
    /// The engine that runs the calls (the same states and verdicts either way).
    pub engine: crate::scope::Engine,
    /// Cross-check the search (`check::crosscheck`): a difference makes `holds` `incomplete`.
    pub audit: bool,
    /// Show the failing call's plain field reads in a text trace.
    pub reads: bool,
    pub format: TraceFormat,
    /// Write each counterexample as JSON here (for `rmapcheck replay`).
    pub trace_dir: Option<PathBuf>,
    /// Write a C reproducer of each callers-mode counterexample here (`rmapcheck repro`).
    pub repro_dir: Option<PathBuf>,
    /// Show progress (a spinner on a terminal).
    pub progress: bool,
    /// Random walks instead of the exhaustive search (`--simulate WALKS --depth D --seed S`).
    pub simulate: Option<Simulation>,
    /// Run the search on timely workers (threads, or a cluster of processes) instead of the
    /// single-process search (`src/explore/distributed/`).
    pub cluster: Option<crate::explore::distributed::Cluster>,
    /// A patch model's changed lines accepted as unreached (`FILE:LINE[-LINE]`).
    pub accept_unreached: Vec<String>,
    /// Seconds a patch model's search may go on past the bound for its changed lines (0:
    /// none).
    pub deepen_budget: f64,
}
