//! Exhaustive search across worker threads and processes on timely dataflow:
//! `rmapcheck check --workers W` runs W timely workers in this process, and `--process I
//! --processes N --hostfile FILE` makes this process the I-th of a cluster of N (each with W
//! workers). It is the breadth-first search of the checker core over any system a
//! [`Factory`] makes (the model's call sequences, or the kernel's C): each state is owned by the worker its
//! fingerprint hashes to, which de-duplicates it and expands it; successors travel to their
//! owners as paths of successor indices and are replayed there (worlds are not shipped); one
//! timely timestamp per phase of each depth (see [`ledger`]) keeps the levels apart, so the
//! depth bound, the state count of a search that holds and the shortest counterexample are the
//! single-process search's. Among the failures of the shallowest failing depth the least path
//! wins, which is the one the single-process search finds, whatever W and N.
//!
//! Modules: [`ledger`] (messages and the decisions every worker takes alike), [`dataflow`] (the
//! timely operator), [`connect`] (the TCP mesh with its timeout and handshake), [`hostfile`],
//! [`run`] (starting, watching and ending a run).

pub mod connect;
pub(crate) mod dataflow;
pub mod hostfile;
pub(crate) mod ledger;
pub mod run;

pub use run::{run_on, search};

use crate::checker::budget::Budget;
use crate::checker::TransitionSystem;
use std::path::Path;
use std::time::Duration;

/// What a distributed search runs on: each worker builds its own [`TransitionSystem`] from the
/// factory (a system may hold what is not shared between threads, such as a harness process),
/// and states travel as paths of successor indices, replayed with [`Factory::nth`]. The model's
/// call sequences and the kernel's C are both searched this way.
pub trait Factory: Send + Sync + 'static {
    type State: Clone + Send + Sync + 'static;
    type Action: Clone + Eq + std::hash::Hash + Send + Sync;
    type Failure: Send;
    type Sys<'a>: TransitionSystem<
        State = Self::State,
        Action = Self::Action,
        Failure = Self::Failure,
    >
    where
        Self: 'a;

    /// A system for one worker (or one phase of one worker).
    fn system(&self) -> Result<Self::Sys<'_>, String>;

    /// The depth and distinct-state bounds of the search.
    fn bounds(&self) -> (u32, usize);

    /// The `j`-th successor of `s` (found at `depth`) as [`TransitionSystem::expand`] lists
    /// them. By default the whole expansion is made; a system that can make one successor
    /// alone overrides this.
    fn nth(
        sys: &Self::Sys<'_>,
        s: &Self::State,
        j: usize,
        depth: u32,
        budget: &Budget,
    ) -> Option<(Self::Action, Self::State)> {
        sys.expand(s, depth, budget).succs.into_iter().nth(j)
    }
}

/// Where the workers of a distributed search run.
#[derive(Clone, Debug, PartialEq)]
pub struct Cluster {
    /// Worker threads in this process.
    pub workers: usize,
    /// This process's index in `addresses`.
    pub process: usize,
    /// Every process's address (empty for a one-process run).
    pub addresses: Vec<String>,
    /// How long to wait for every peer to connect.
    pub connect_timeout: Duration,
}

impl Cluster {
    /// The cluster the `check` flags describe; `None` when none of `--workers`, `--process`,
    /// `--processes`, `--hostfile` is given (the single-process search).
    pub fn from_flags(
        workers: Option<usize>,
        process: Option<usize>,
        processes: Option<usize>,
        hostfile: Option<&Path>,
        connect_timeout: f64,
    ) -> Result<Option<Cluster>, String> {
        if workers.is_none() && process.is_none() && processes.is_none() && hostfile.is_none() {
            return Ok(None);
        }
        let workers = workers.unwrap_or(1);
        if workers == 0 {
            return Err("--workers must be at least 1".into());
        }
        if !(connect_timeout.is_finite() && connect_timeout > 0.0) {
            return Err("--connect-timeout must be a positive number of seconds".into());
        }
        let processes = processes.unwrap_or(1);
        let process = process.unwrap_or(0);
        if processes == 0 || process >= processes {
            return Err(format!(
                "--process {process} is not below --processes {processes}"
            ));
        }
        let addresses = match (processes, hostfile) {
            (1, _) => Vec::new(),
            (n, Some(h)) => hostfile::read(h, n)?,
            (_, None) => return Err("--processes above 1 needs --hostfile".into()),
        };
        Ok(Some(Cluster {
            workers,
            process,
            addresses,
            connect_timeout: Duration::from_secs_f64(connect_timeout),
        }))
    }
}
