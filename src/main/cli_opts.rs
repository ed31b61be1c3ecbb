//! The option groups several `rmapcheck` subcommands share (flattened into each subcommand's
//! arguments by clap), apart from the subcommands themselves in `main.rs`.

use std::path::PathBuf;

/// Progress display, shared by the commands that search.
#[derive(clap::Args, Clone, Copy, Debug)]
pub(crate) struct ProgressOpts {
    /// Do not show progress.
    #[arg(long)]
    pub(crate) quiet: bool,
}

/// The scope of an exhaustive search (`check`, `compare`).
#[derive(clap::Args, Clone, Debug)]
pub(crate) struct ScopeOpts {
    /// A built-in scope (tiny, default, contract, walkers, large) or a scope TOML file.
    #[arg(long)]
    pub(crate) scope: Option<String>,
    /// callers (the kernel's call sites) or contract (any documented arguments).
    #[arg(long)]
    pub(crate) mode: Option<rmapcheck::scope::Mode>,
    /// Longest call sequence to explore.
    #[arg(long)]
    pub(crate) max_depth: Option<u32>,
}

/// `check --simulate`: a deep random search in place of the exhaustive one.
#[derive(clap::Args, Clone, Copy, Debug)]
pub(crate) struct SimulateOpts {
    /// Deep random search instead of the exhaustive one: this many seeded random walks of
    /// up to --depth calls, with the same invariants and traces. Never `holds`: incomplete
    /// (exit 3) unless a walk finds a counterexample (exit 1).
    #[arg(long, value_name = "WALKS", conflicts_with_all = ["max_depth", "workers", "process", "processes", "hostfile"])]
    pub(crate) simulate: Option<u64>,
    /// Calls per walk of --simulate at most (1..=64).
    #[arg(long, value_name = "D", requires = "simulate", default_value_t = 20)]
    pub(crate) depth: u32,
    /// Seed of --simulate's walks (the same seed, the same walks).
    #[arg(long, value_name = "S", requires = "simulate", default_value_t = 1)]
    pub(crate) seed: u64,
}

/// `check` on several worker threads or processes.
#[derive(clap::Args, Clone, Debug)]
pub(crate) struct ClusterOpts {
    /// Search on this many timely worker threads (per process); the same verdict, states,
    /// depth and counterexample as the single-process search.
    #[arg(long)]
    pub(crate) workers: Option<usize>,
    /// This process's index in a cluster run (0 ..= N-1): its address is line I of the
    /// hostfile.
    #[arg(long)]
    pub(crate) process: Option<usize>,
    /// Processes in the cluster run (each started with the same command but --process).
    #[arg(long)]
    pub(crate) processes: Option<usize>,
    /// The cluster's addresses, one HOST:PORT per line, process 0 first.
    #[arg(long)]
    pub(crate) hostfile: Option<PathBuf>,
    /// Seconds to wait for every process of the cluster to connect (then exit 2).
    #[arg(long, default_value_t = 60.0)]
    pub(crate) connect_timeout: f64,
}

/// A saved trace and where a command writes what it makes of it (`repro`, `report`).
#[derive(clap::Args, Clone, Debug)]
pub(crate) struct TraceFileOpts {
    /// The trace (JSON from `check --format json` or `--trace-dir`).
    pub(crate) trace: PathBuf,
    /// Output file (default: standard output).
    #[arg(short, long)]
    pub(crate) output: Option<PathBuf>,
}

/// A fuzzer input and the models it selects from (`fuzz-decode`, `replay-crash`).
#[derive(clap::Args, Clone, Debug)]
pub(crate) struct CrashOpts {
    /// The fuzzer input.
    pub(crate) crash: PathBuf,
    /// Models directory (default: $RMAPCHECK_MODELS, else `models`).
    #[arg(long)]
    pub(crate) models: Option<PathBuf>,
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

/// `check --kernel`: the kernel tree's own C searched, with a reviewer's diffs applied.
#[derive(clap::Args, Clone, Debug)]
pub(crate) struct KernelOpts {
    /// Search the C of this kernel tree (v7.3 or v7.2; scripts/fetch-kernel.sh fetches one)
    /// instead of the models: the positional model, if any, only chooses the calls offered.
    /// The model-search flags the C search does not honour are refused with it (exit 2).
    #[arg(long, conflicts_with_all = KERNEL_REFUSES)]
    pub(crate) kernel: Option<PathBuf>,
    /// With --kernel: apply this unified diff (-p1) to a copy of the tree first (repeatable,
    /// in order). The tree itself is never written.
    #[arg(long, requires = "kernel")]
    pub(crate) patch: Vec<PathBuf>,
    /// With --kernel: inject this C mutant (an edit spec, or a directory of them; see
    /// cmutants/) after the patches.
    #[arg(long, requires = "kernel")]
    pub(crate) c_mutant: Vec<PathBuf>,
    /// With --kernel: search threads, one harness process each (default: every core, at most 8).
    #[arg(long, requires = "kernel")]
    pub(crate) jobs: Option<usize>,
    /// With a patch model (one that includes the model it changes), or --kernel with a patch
    /// or C mutant: accept these changed lines as unreached (FILE:LINE or FILE:FIRST-LAST, as
    /// the verdict names them; repeatable), for code only fault injection reaches. The verdict
    /// names the lines accepted.
    #[arg(long, value_name = "FILE:LINE[-LINE]")]
    pub(crate) accept_unreached: Vec<String>,
    /// With a patch model, or --kernel with a patch or C mutant: seconds the search may
    /// spend past the depth bound while changed lines have not run, and past the depth where
    /// they first ran (0: no deepening); each pass of `check` with no flags has its own.
    #[arg(long, default_value_t = 300.0, value_name = "SECS")]
    pub(crate) deepen_budget: f64,
}
