//! The options of `check --kernel` ([`CcheckArgs`]), apart from the command, so that one pass
//! (`cpass`) and the run of every pass (`ccheck`) both name only this. They are made from the
//! command line's `check` options ([`CcheckArgs::of_check`]).

use crate::cmd::check::CheckArgs;
use crate::cmd::formats::TraceFormat;
use crate::cmd::CmdError;
use crate::explore::simulate::Simulation;
use std::path::PathBuf;

/// Options of `check --kernel`.
#[derive(Clone, Debug)]
pub struct CcheckArgs {
    /// The model that chooses the calls offered and is compared at a failure; `None`: the
    /// model of the tree's generation ([`CcheckArgs::model_path`]).
    pub model: Option<PathBuf>,
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

impl CcheckArgs {
    /// The model named, else the model of the tree's generation (the v7.3 baseline for a v7.3
    /// tree, models/v7.2/v7.2.rmap for a 7.2 one).
    pub fn model_path(&self) -> PathBuf {
        crate::charness::generation::model_or_default(self.model.as_deref(), &self.kernel)
    }

    /// The C search that `check` options with `--kernel` ask for; `None` without `--kernel`
    /// (the model search). A cluster the flags cannot describe, or more than one model (one
    /// model chooses the calls), is an error (exit 2).
    pub fn of_check(a: &CheckArgs) -> Result<Option<CcheckArgs>, CmdError> {
        let Some(kernel) = a.c_search.kernel.clone() else {
            return Ok(None);
        };
        let cluster = a
            .cluster()
            .map_err(|e| CmdError::line(format_args!("rmapcheck check: {e}")))?;
        if a.models.len() > 1 {
            return Err(CmdError::line(format_args!(
                "rmapcheck check --kernel: one model chooses the C search's calls; {} given",
                a.models.len()
            )));
        }
        Ok(Some(CcheckArgs {
            model: a.models.first().cloned(),
            kernel,
            patches: a.c_search.patch.clone(),
            mutants: a.c_search.c_mutant.clone(),
            scope: a.scope.name.clone(),
            mode: a.scope.mode,
            max_depth: a.scope.max_depth,
            format: a.format,
            threads: a.c_search.jobs,
            accept_unreached: a.accept_unreached.clone(),
            deepen_budget: a.deepen_budget,
            progress: a.progress,
            simulate: a.simulation(),
            cluster,
        }))
    }
}
