//! The options of `check --kernel` ([`CcheckArgs`]), apart from the command, so that one pass
//! (`cpass`) and the run of every pass (`ccheck`) both name only this.

use crate::cmd::formats::TraceFormat;
use crate::explore::simulate::Simulation;
use std::path::PathBuf;

/// Options of `check --kernel`.
#[derive(Clone, Debug)]
pub struct CcheckArgs {
    /// The model that chooses the calls offered and is compared at a failure.
    pub model: PathBuf,
    pub kernel: PathBuf,
    pub patches: Vec<PathBuf>,
    /// C mutant specs (files, or directories of `*.toml`).
    pub mutants: Vec<PathBuf>,
    pub scope: Option<String>,
    /// `--mode`: one pass in that mode instead of every pass.
    pub mode: Option<crate::entry::Mode>,
    pub max_depth: Option<u32>,
    pub format: TraceFormat,
    pub threads: Option<usize>,
    /// `FILE:LINE[-LINE]` changed lines accepted as unreached.
    pub accept_unreached: Vec<String>,
    /// Seconds the search may go on past the bound for the changed lines (0: none).
    pub deepen_budget: f64,
    pub progress: bool,
    /// Seeded random walks on the C instead of the breadth-first search (`--simulate`).
    pub simulate: Option<Simulation>,
    /// The breadth-first search on timely workers, threads or processes (`--workers`, ...).
    pub cluster: Option<crate::explore::distributed::Cluster>,
}
