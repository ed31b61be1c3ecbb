//! The subcommands of the `rmapcheck` command line and their options, as clap reads them.

use std::path::PathBuf;

use clap::Subcommand;

use super::cli_opts::{
    ClusterOpts, CrashOpts, KernelOpts, ProgressOpts, ScopeOpts, SimulateOpts, TraceFileOpts,
};

#[derive(Subcommand)]
pub(crate) enum Cmd {
    /// Exhaustively check models (default: models/v7.3-rc4 and models/patches) at a scope.
    /// Exit status: 0 all hold, 1 a counterexample, 2 usage or model errors, 3 incomplete.
    Check {
        /// Model files or directories (every model under a directory, outside lib/ and
        /// mutants/); all baseline and patch models under ./models when none are given.
        models: Vec<PathBuf>,
        #[command(flatten)]
        scope: ScopeOpts,
        /// Output format. With any but text, standard output holds only that document and the
        /// scope and verdict lines go to standard error.
        #[arg(long, value_enum, default_value = "text")]
        format: rmapcheck::cmd::check::TraceFormat,
        /// Save each counterexample as DIR/MODEL.trace.json for `rmapcheck replay`.
        #[arg(long)]
        trace_dir: Option<PathBuf>,
        #[command(flatten)]
        progress: ProgressOpts,
        /// Also write a C reproducer of each callers-mode counterexample as DIR/MODEL.repro.c.
        #[arg(long)]
        repro_dir: Option<PathBuf>,
        #[command(flatten)]
        simulate: SimulateOpts,
        #[command(flatten)]
        cluster: ClusterOpts,
        /// Symmetry reduction: worlds that differ only in the numbering of their mms are one
        /// state (fewer states, the same verdicts; the scope's `symmetry` field).
        #[arg(long)]
        symmetry: bool,
        /// Symmetry reduction over the interchangeable regular files: worlds that differ only
        /// in which file is which are one state (the scope's `file_symmetry` field).
        #[arg(long)]
        file_symmetry: bool,
        /// Commuting calls: calls on mms that share nothing are not run again in both orders
        /// (sleep sets; the same states, verdicts and counterexamples, fewer calls run; the
        /// scope's `commute` field).
        #[arg(long)]
        commute: bool,
        /// Search every state: no symmetry reduction (by default on in each scope without
        /// walkers; the same verdicts and counterexample lengths, more states).
        #[arg(long, conflicts_with_all = ["symmetry", "file_symmetry", "commute"])]
        unreduced: bool,
        /// Which engine runs the calls: compiled (the model decoded once, each call run to its
        /// end in one loop) or reference (the step-by-step interpreter); the same states and
        /// verdicts. Traces are always recorded with the reference interpreter.
        #[arg(long, value_enum, default_value_t = rmapcheck::scope::Engine::Compiled)]
        engine: rmapcheck::scope::Engine,
        /// Audit the search (slower), as `interleave --audit` does: a difference makes a
        /// model's `holds` `incomplete`.
        #[arg(long)]
        audit: bool,
        /// In a text trace, also show the failing call's plain field reads, each with the
        /// value read.
        #[arg(long)]
        reads: bool,
        #[command(flatten)]
        kernel: KernelOpts,
    },
    /// Replay the model's callers-mode call sequences on the running kernel and compare each
    /// mm's VMA layout after every call. Exit status: 0 agrees, 1 a mismatch, 2 bad input or
    /// base address refused, 3 the run broke off.
    Kdiff {
        /// The model (default: the baseline).
        #[arg(default_value = rmapcheck::models::BASELINE)]
        model: PathBuf,
        /// A built-in scope or a scope TOML file (default: default).
        #[arg(long)]
        scope: Option<String>,
        /// Longest sequence (every sequence up to it, or the length of sampled ones).
        #[arg(long)]
        max_depth: Option<u32>,
        /// Run this many distinct random sequences of --max-depth calls instead of all.
        #[arg(long)]
        sample: Option<usize>,
        /// Run this many random walks of --length calls instead of all sequences.
        #[arg(long)]
        walks: Option<usize>,
        #[arg(long, default_value_t = 8)]
        length: u32,
        /// Seed of --sample and --walks.
        #[arg(long, default_value_t = 1)]
        seed: u64,
        /// Mismatches printed in full.
        #[arg(long, default_value_t = 3)]
        show: usize,
        /// Exit 0 when the only mismatches are known model findings (still reported).
        #[arg(long)]
        tolerate_known: bool,
        #[command(flatten)]
        progress: ProgressOpts,
    },
    /// Run the model's call sequences on the model and on a kernel tree's own C (mm/vma.c with
    /// the real rmap trees, built from the tree) and compare the worlds, trees node by node,
    /// after every call. Exit status: 0 agrees, 1 a mismatch, 2 bad input (no tree, a tree the
    /// harness cannot be built from), 3 the run broke off.
    Cdiff {
        /// The model (default: the baseline).
        #[arg(default_value = rmapcheck::models::BASELINE)]
        model: PathBuf,
        /// A kernel source tree, v7.3 or v7.2 (scripts/fetch-kernel.sh fetches one).
        #[arg(long)]
        kernel: PathBuf,
        /// A built-in scope or a scope TOML file (default: default).
        #[arg(long)]
        scope: Option<String>,
        /// Longest sequence (every sequence up to it, or the length of sampled ones).
        #[arg(long)]
        max_depth: Option<u32>,
        /// Run this many distinct random sequences of --max-depth calls instead of all.
        #[arg(long)]
        sample: Option<usize>,
        /// Run this many random walks of --length calls instead of all sequences.
        #[arg(long)]
        walks: Option<usize>,
        #[arg(long, default_value_t = 8)]
        length: u32,
        /// Seed of --sample and --walks.
        #[arg(long, default_value_t = 1)]
        seed: u64,
        /// Run only this sequence: model calls separated by `;`.
        #[arg(long)]
        sequence: Option<String>,
        /// Mismatches printed in full.
        #[arg(long, default_value_t = 3)]
        show: usize,
        /// Exit 0 when the only mismatches are known findings (still reported).
        #[arg(long)]
        tolerate_known: bool,
        /// Only build the harness (or find it cached) and print where it is.
        #[arg(long)]
        build_only: bool,
        /// Apply this unified diff (-p1) to a copy of the tree first, as `check --kernel
        /// --patch` does (repeatable, in order); compare a patch model with the patched C.
        #[arg(long)]
        patch: Vec<PathBuf>,
        /// Test hook: corrupt the C world after every call (`file N` or `anon N`: the root
        /// node's rb_subtree_last of that tree gains 1), to show that cdiff sees it.
        #[arg(long, hide = true)]
        corrupt_c: Option<String>,
        #[command(flatten)]
        progress: ProgressOpts,
    },
    /// Write a C program (libc only) that makes a callers-mode counterexample's calls as
    /// system calls and checks the final layout. Exit status: 0 written, 1 no reproducer can be
    /// made (the reason is printed), 2 bad input.
    Repro {
        #[command(flatten)]
        file: TraceFileOpts,
        /// The unpatched model whose layout the program checks.
        #[arg(long, default_value = rmapcheck::models::BASELINE)]
        baseline: PathBuf,
    },
    /// Write a counterexample trace as one self-contained HTML page: header, calls, steps of
    /// the failing call, every rmap tree drawn before the last call and at the failure with the
    /// changed nodes highlighted, and both worlds. Exit status: 0 written, 2 bad input.
    Report {
        #[command(flatten)]
        file: TraceFileOpts,
        /// Re-run the trace on this model instead of the one it names.
        #[arg(long)]
        model: Option<PathBuf>,
    },
    /// List the models under ./models and the invariants; with --builtins, the builtins and
    /// kernel fields a model may use (`--format markdown` writes docs/BUILTINS.md).
    List {
        /// The builtins and fields instead of models and invariants.
        #[arg(long)]
        builtins: bool,
        /// text, or markdown (with --builtins).
        #[arg(long, value_enum, default_value = "text")]
        format: rmapcheck::cmd::check::TraceFormat,
    },
    /// Compare a patch model with the baseline: equivalence over every call sequence of a
    /// scope, and the work inside the rmap write-side critical sections per kind of call.
    Compare {
        base: PathBuf,
        patch: PathBuf,
        #[command(flatten)]
        scope: ScopeOpts,
        /// A measured scenario instead of the scope: `execl`.
        #[arg(long)]
        scenario: Option<String>,
        /// Processes mapping the library in the execl scenario.
        #[arg(long, default_value_t = 64)]
        procs: u32,
        #[command(flatten)]
        progress: ProgressOpts,
    },
    /// Show a patch model against the baseline as a unified diff, function by function (the
    /// definitions each program runs, after includes and overrides). Exit status: 0 printed,
    /// 2 bad input.
    Diff {
        /// The patch model (a file, or a directory holding exactly one model).
        patch: PathBuf,
        /// The model to compare with.
        #[arg(default_value = rmapcheck::models::BASELINE)]
        base: PathBuf,
    },
    /// Compare the kernel functions the model's functions stand for (their `// kernel: FILE
    /// FUNCTION` lines) with a kernel source tree: in place, moved, or gone. Exit status: 0 no
    /// drift, 1 drift, 2 bad input.
    Drift {
        /// The model (a file, or a directory holding one model).
        #[arg(default_value = rmapcheck::models::BASELINE)]
        model: PathBuf,
        /// The kernel source tree (its top directory).
        #[arg(long)]
        kernel: PathBuf,
        /// Print the token-level diff of every function that differs (always printed for a
        /// function marked `transcribed`).
        #[arg(long)]
        diff: bool,
        /// The table of the model's stand-ins for kernel helpers (default: `stand-ins.toml`
        /// beside the model, if any).
        #[arg(long)]
        stand_ins: Option<PathBuf>,
    },
    /// Scaffold a patch model DIR/NAME.rmap (header template, the baseline's include and a copy
    /// of vma_complete() to edit) and its proof file PROOFS/patch-NAME.toml. Exit status: 0
    /// written, 2 bad name, a file exists or bad base model.
    New {
        /// The patch's short name, [a-z0-9][a-z0-9_-]*.
        name: String,
        /// The model the patch applies to.
        #[arg(long, default_value = rmapcheck::models::BASELINE)]
        base: PathBuf,
        /// Directory of the new model.
        #[arg(long, default_value = "models/patches")]
        dir: PathBuf,
        /// Directory of the new proof file.
        #[arg(long, default_value = "proofs")]
        proofs: PathBuf,
    },
    /// Run proof obligations (proofs/*.toml) and print their certificates.
    Prove {
        /// Proof files.
        #[arg(required = true)]
        files: Vec<PathBuf>,
        /// Also print the counterexample of obligations that expect one.
        #[arg(long)]
        verbose: bool,
        /// Certificates as text, or one test case per obligation as ktap, junit or markdown.
        #[arg(long, value_enum, default_value = "text")]
        format: rmapcheck::cmd::check::TraceFormat,
        #[command(flatten)]
        progress: ProgressOpts,
    },
    /// Re-run a counterexample trace (JSON) and say whether it still fails.
    Replay {
        /// The trace file written by `check --trace-dir` or `--format json`.
        file: PathBuf,
        /// Run it on this model instead of the one it was found on (for a fuzzer input: the
        /// models directory to decode against).
        #[arg(long)]
        model: Option<PathBuf>,
        /// Drop calls and files that the failure does not need, and shrink the arguments of
        /// the calls left (pages, lengths, offsets, which mm, file or VMA), keeping the same
        /// invariant, before printing.
        #[arg(long)]
        minimise: bool,
        /// Also show the failing call's plain field reads, each with the value read.
        #[arg(long)]
        reads: bool,
        /// The file is a fuzzer input (a crash file): decode, minimise and print it as a trace.
        #[arg(long)]
        crash: bool,
        /// Print the trace as a scenario TOML that `rmapcheck run --ops` accepts.
        #[arg(long)]
        emit_scenario: bool,
    },
    /// Run a scenario's calls on a model and print the world after each call.
    Run {
        /// The model file (e.g. models/v7.3-rc4/baseline.rmap).
        model: PathBuf,
        /// Scenario file (TOML): initial world and `calls`.
        #[arg(long)]
        ops: PathBuf,
    },
    /// Print a fuzzer input (e.g. a crash file) as a scenario: the initial world and the concrete
    /// calls it runs, with the model it selects. Save it under tests/ as a regression scenario.
    FuzzDecode {
        #[command(flatten)]
        input: CrashOpts,
    },
    /// Re-run a fuzzer input, minimise the failing call list and print the failing call, the
    /// model step it failed at and the violations.
    ReplayCrash {
        #[command(flatten)]
        input: CrashOpts,
    },
    /// A C patch we wrote as an edit spec (cpatches/, docs/CHECK-C.md) printed as a unified
    /// diff against a kernel tree, for `check --kernel DIR --patch`. Exit status: 0 printed,
    /// 2 bad input (an anchor not in the tree, or in it more than once).
    Cpatch {
        /// The kernel source tree (only read).
        #[arg(long)]
        kernel: PathBuf,
        /// The edit spec (TOML).
        spec: PathBuf,
    },
    /// Run a calls file (one model call per line, `#` comments: what the C fuzz target
    /// `cops` writes when it finds something) again on the model and on a kernel tree's C,
    /// with every check of `check --kernel` after every call (docs/CHECK-C.md). Exit status:
    /// 0 every call passed, 1 a counterexample in the C, 2 bad input, 4 the model diverged.
    Creplay {
        /// The calls file.
        calls: PathBuf,
        /// The kernel source tree (only read).
        #[arg(long)]
        kernel: PathBuf,
        /// Apply this unified diff (-p1) to a copy of the tree first (repeatable, in order).
        #[arg(long)]
        patch: Vec<PathBuf>,
        /// Inject this C mutant (an edit spec, or a directory of them) after the patches.
        #[arg(long)]
        c_mutant: Vec<PathBuf>,
        /// The model whose worlds the calls are checked in and compared with (default: the
        /// baseline).
        #[arg(long, default_value = rmapcheck::models::BASELINE)]
        model: PathBuf,
    },
    /// Review a posted series as C: an mbox (b4 am), a directory of git format-patch files, or
    /// one diff. The patches, in `[PATCH vN k/n]` order, are applied one after the other to a
    /// copy of the tree, the C search of `check --kernel` runs after each that touches a file
    /// the harness builds, and one plain-text reply per patch (and a summary for the cover
    /// letter) is written as an mbox (docs/REVIEW.md). Exit status: 0 every checked patch
    /// holds, 1 a counterexample, 2 bad input or a patch that does not apply, 3 incomplete.
    Review {
        /// The series: an mbox, a directory of *.patch files, or one unified diff.
        series: PathBuf,
        /// The kernel source tree (only read; scripts/fetch-kernel.sh fetches one).
        #[arg(long)]
        kernel: PathBuf,
        /// Write the replies to this mbox (default: standard output).
        #[arg(short = 'o', long)]
        output: Option<PathBuf>,
        /// The model that chooses the calls offered and is compared at a failure.
        #[arg(long, default_value = rmapcheck::models::BASELINE)]
        model: PathBuf,
        /// A built-in scope or a scope TOML file (default: default).
        #[arg(long)]
        scope: Option<String>,
        /// Longest call sequence to search after each patch.
        #[arg(long)]
        max_depth: Option<u32>,
        /// Search threads, one harness process each (default: every core, at most 8).
        #[arg(long)]
        jobs: Option<usize>,
        #[command(flatten)]
        progress: ProgressOpts,
    },
    /// Run an interval-tree op list (insert, insert_after, erase, rekey, propagate, query,
    /// print, validate) and print the results and the final tree.
    Tree {
        /// Op-list file; standard input when absent or `-`.
        file: Option<PathBuf>,
    },
    /// Explore every interleaving of one writer call (the scenario's last call, after the others
    /// set up the world) against concurrent walkers (rmap walks, flush_dcache walks, MADV_DONTNEED
    /// under the per-VMA lock). Exit status: 0 holds, 1 a counterexample, 2 bad input, 3
    /// incomplete.
    Interleave {
        /// The model file.
        model: PathBuf,
        /// Scenario file (TOML): initial world and calls; the last call is the writer.
        #[arg(long)]
        ops: PathBuf,
        /// A walker call (repeatable), e.g. `rmap_walk_file(mapping#0, 101)`; when none is
        /// given, every set of --walkers walkers of --kinds is tried.
        #[arg(long)]
        walker: Vec<String>,
        /// Number of walker threads for generated walkers (default: the scope's, at least 1).
        #[arg(long)]
        walkers: Option<usize>,
        /// Walker kinds to generate: file, anon, flush, madv, and, only when named, fault (a write
        /// fault under the per-VMA lock) and uprobe (uprobe registration's file-tree walk)
        /// (comma-separated; default file, anon, flush, madv).
        #[arg(long, value_delimiter = ',')]
        kinds: Vec<String>,
        /// A built-in scope or scope TOML giving `walkers` and `walker_kinds` defaults.
        #[arg(long)]
        scope: Option<String>,
        /// Explore without the partial-order reduction.
        #[arg(long)]
        no_reduction: bool,
        /// Audit the run (slower): every step's changes against its footprint, every
        /// independence claim of the reduction in both orders, every incremental tree check
        /// against the whole one. A difference makes `holds` `incomplete` (exit 3).
        #[arg(long)]
        audit: bool,
        /// Stop (incomplete) after this many states per thread set.
        #[arg(long, default_value_t = 0)]
        max_states: usize,
        #[command(flatten)]
        progress: ProgressOpts,
    },
    /// Print the lock-order graph observed over a bounded exploration as DOT; violations of
    /// the order of mm/rmap.c go to standard error (exit 1).
    Locks {
        model: PathBuf,
        /// Scope of the exploration (default tiny).
        #[arg(long)]
        scope: Option<String>,
    },
}
