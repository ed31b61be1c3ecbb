//! The options of `rmapcheck check` ([`CheckArgs`]), as the command line reads them (clap), apart
//! from the command so that what reads them (the scopes of `check_scope`, `compare`, the C
//! search's [`crate::cmd::kernel::ccheck::CcheckArgs`]) names only this. The option groups that
//! `compare` shares ([`ScopeOpts`]) or that turn into something else before a search
//! ([`SimulateOpts`], [`ClusterOpts`], [`KernelOpts`]) are their own structs.

use crate::cmd::formats::TraceFormat;
use crate::explore::distributed::Cluster;
use crate::explore::simulate::Simulation;
use crate::scope::Mode;
use std::path::PathBuf;

// The doc comment of each field below is its `--help` text: clap prints it.

/// Options of `rmapcheck check`.
#[derive(clap::Args, Clone, Debug, Default)]
pub struct CheckArgs {
    /// Model files or directories (every model under a directory, outside lib/ and
    /// mutants/); all baseline and patch models under ./models when none are given.
    pub models: Vec<PathBuf>,
    #[command(flatten)]
    pub scope: ScopeOpts,
    /// Output format. With any but text, standard output holds only that document and the
    /// scope and verdict lines go to standard error.
    #[arg(long, value_enum, default_value = "text")]
    pub format: TraceFormat,
    /// Save each counterexample as DIR/MODEL.trace.json for `rmapcheck replay`.
    #[arg(long)]
    pub trace_dir: Option<PathBuf>,
    /// Do not show progress.
    // (`progress` is true, a spinner on a terminal, unless --quiet is given)
    #[arg(long = "quiet", action = clap::ArgAction::SetFalse)]
    pub progress: bool,
    /// Also write a C reproducer of each callers-mode counterexample as DIR/MODEL.repro.c.
    #[arg(long)]
    pub repro_dir: Option<PathBuf>,
    #[command(flatten)]
    pub simulate: SimulateOpts,
    #[command(flatten)]
    pub cluster: ClusterOpts,
    /// Symmetry reduction: worlds that differ only in the numbering of their mms are one
    /// state (fewer states, the same verdicts; the scope's `symmetry` field).
    #[arg(long)]
    pub symmetry: bool,
    /// Symmetry reduction over the interchangeable regular files: worlds that differ only
    /// in which file is which are one state (the scope's `file_symmetry` field).
    #[arg(long)]
    pub file_symmetry: bool,
    /// Commuting calls: calls on mms that share nothing are not run again in both orders
    /// (sleep sets; the same states, verdicts and counterexamples, fewer calls run; the
    /// scope's `commute` field).
    #[arg(long)]
    pub commute: bool,
    /// Search every state: no symmetry reduction (by default on in each scope without
    /// walkers; the same verdicts and counterexample lengths, more states).
    #[arg(long, conflicts_with_all = ["symmetry", "file_symmetry", "commute"])]
    pub unreduced: bool,
    /// Which engine runs the calls: compiled (the model decoded once, each call run to its
    /// end in one loop) or reference (the step-by-step interpreter); the same states and
    /// verdicts. Traces are always recorded with the reference interpreter.
    #[arg(long, value_enum, default_value_t = crate::scope::Engine::Compiled)]
    pub engine: crate::scope::Engine,
    /// Audit the search (slower), as `interleave --audit` does: a difference makes a
    /// model's `holds` `incomplete`.
    #[arg(long)]
    pub audit: bool,
    /// In a text trace, also show the failing call's plain field reads, each with the
    /// value read.
    #[arg(long)]
    pub reads: bool,
    #[command(flatten)]
    pub c_search: KernelOpts,
    /// With a patch model (one that includes the model it changes), or --kernel with a patch
    /// or C mutant: accept these changed lines as unreached (FILE:LINE or FILE:FIRST-LAST, as
    /// the verdict names them; repeatable), for code only fault injection reaches. The verdict
    /// names the lines accepted.
    #[arg(long, value_name = "FILE:LINE[-LINE]")]
    pub accept_unreached: Vec<String>,
    /// With a patch model, or --kernel with a patch or C mutant: seconds the search may
    /// spend past the depth bound while changed lines have not run, and past the depth where
    /// they first ran (0: no deepening); each pass of `check` with no flags has its own.
    #[arg(long, default_value_t = 300.0, value_name = "SECS")]
    pub deepen_budget: f64,
}

impl CheckArgs {
    /// The random walks of `--simulate` instead of the exhaustive search, if asked for.
    pub fn simulation(&self) -> Option<Simulation> {
        let s = &self.simulate;
        s.simulate.map(|walks| Simulation {
            walks,
            depth: s.depth,
            seed: s.seed,
        })
    }

    /// The timely workers (threads, or a cluster of processes) the search runs on instead of
    /// the single-process search; `None` when no flag of [`ClusterOpts`] is given. Reads the
    /// hostfile.
    pub fn cluster(&self) -> Result<Option<Cluster>, String> {
        let c = &self.cluster;
        Cluster::from_flags(
            c.workers,
            c.process,
            c.processes,
            c.hostfile.as_deref(),
            c.connect_timeout,
        )
    }
}

/// The scope of an exhaustive search (`check`, `compare`).
#[derive(clap::Args, Clone, Debug, Default)]
pub struct ScopeOpts {
    /// A built-in scope (tiny, default, contract, walkers, large) or a scope TOML file.
    #[arg(id = "scope", long = "scope", value_name = "SCOPE")]
    pub name: Option<String>,
    /// callers (the kernel's call sites) or contract (any documented arguments).
    #[arg(long)]
    pub mode: Option<Mode>,
    /// Longest call sequence to explore.
    #[arg(long)]
    pub max_depth: Option<u32>,
}

/// `check --simulate`: a deep random search in place of the exhaustive one
/// ([`CheckArgs::simulation`]).
#[derive(clap::Args, Clone, Copy, Debug, Default)]
pub struct SimulateOpts {
    /// Deep random search instead of the exhaustive one: this many seeded random walks of
    /// up to --depth calls, with the same invariants and traces. Never `holds`: incomplete
    /// (exit 3) unless a walk finds a counterexample (exit 1).
    #[arg(long, value_name = "WALKS", conflicts_with_all = ["max_depth", "workers", "process", "processes", "hostfile"])]
    pub simulate: Option<u64>,
    /// Calls per walk of --simulate at most (1..=64).
    #[arg(long, value_name = "D", requires = "simulate", default_value_t = 20)]
    pub depth: u32,
    /// Seed of --simulate's walks (the same seed, the same walks).
    #[arg(long, value_name = "S", requires = "simulate", default_value_t = 1)]
    pub seed: u64,
}

/// `check` on several worker threads or processes ([`CheckArgs::cluster`]).
#[derive(clap::Args, Clone, Debug, Default)]
pub struct ClusterOpts {
    /// Search on this many timely worker threads (per process); the same verdict, states,
    /// depth and counterexample as the single-process search.
    #[arg(long)]
    pub workers: Option<usize>,
    /// This process's index in a cluster run (0 ..= N-1): its address is line I of the
    /// hostfile.
    #[arg(long)]
    pub process: Option<usize>,
    /// Processes in the cluster run (each started with the same command but --process).
    #[arg(long)]
    pub processes: Option<usize>,
    /// The cluster's addresses, one HOST:PORT per line, process 0 first.
    #[arg(long)]
    pub hostfile: Option<PathBuf>,
    /// Seconds to wait for every process of the cluster to connect (then exit 2).
    #[arg(long, default_value_t = 60.0)]
    pub connect_timeout: f64,
}

impl ClusterOpts {
    /// Whether any flag that asks for the distributed search is given (`--connect-timeout`
    /// alone does not).
    pub fn given(&self) -> bool {
        self.workers.is_some()
            || self.process.is_some()
            || self.processes.is_some()
            || self.hostfile.is_some()
    }
}

/// The `check` flags that `--kernel` does not honour: each is an error beside it, never
/// silently dropped. (`--unreduced` is what the C search does anyway: it never reduces.)
const KERNEL_REFUSES: [&str; 8] = [
    "trace_dir",
    "repro_dir",
    "symmetry",
    "file_symmetry",
    "commute",
    "engine",
    "audit",
    "reads",
];

/// `check --kernel`: the kernel tree's own C searched, with a reviewer's diffs applied
/// (turned into [`crate::cmd::kernel::ccheck::CcheckArgs`]).
#[derive(clap::Args, Clone, Debug, Default)]
pub struct KernelOpts {
    /// Search the C of this kernel tree (v7.3 or v7.2; scripts/fetch-kernel.sh fetches one)
    /// instead of the models: the positional model, if any, only chooses the calls offered.
    /// The model-search flags the C search does not honour are refused with it (exit 2).
    #[arg(long, conflicts_with_all = KERNEL_REFUSES)]
    pub kernel: Option<PathBuf>,
    /// With --kernel: apply this unified diff (-p1) to a copy of the tree first (repeatable,
    /// in order). The tree itself is never written.
    #[arg(long, requires = "kernel")]
    pub patch: Vec<PathBuf>,
    /// With --kernel: inject this C mutant (an edit spec, or a directory of them; see
    /// cmutants/) after the patches.
    #[arg(long, requires = "kernel")]
    pub c_mutant: Vec<PathBuf>,
    /// With --kernel: search threads, one harness process each (default: every core, at most 8).
    #[arg(long, requires = "kernel")]
    pub jobs: Option<usize>,
}
