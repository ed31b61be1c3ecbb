//! The subcommands of the `rmapcheck` command line, as clap reads them: most hold the options
//! struct of their library command (`rmapcheck::cmd`, each deriving `clap::Args`), the few
//! that take plain arguments hold them here.

use std::path::PathBuf;

use clap::Subcommand;
use rmapcheck::cmd::{self, check, kernel};

use super::cli_opts::{CrashOpts, TraceFileOpts};

#[derive(Subcommand)]
pub(crate) enum Cmd {
    /// Exhaustively check models (default: models/v7.3-rc4 and models/patches) at a scope.
    /// Exit status: 0 all hold, 1 a counterexample, 2 usage or model errors, 3 incomplete.
    Check(check::CheckArgs),
    /// Replay the model's callers-mode call sequences on the running kernel and compare each
    /// mm's VMA layout after every call. Exit status: 0 agrees, 1 a mismatch, 2 bad input or
    /// base address refused, 3 the run broke off.
    Kdiff(kernel::kdiff::KdiffArgs),
    /// Run the model's call sequences on the model and on a kernel tree's own C (mm/vma.c with
    /// the real rmap trees, built from the tree) and compare the worlds, trees node by node,
    /// after every call. Exit status: 0 agrees, 1 a mismatch, 2 bad input (no tree, a tree the
    /// harness cannot be built from), 3 the run broke off.
    Cdiff(kernel::cdiff::CdiffArgs),
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
    List(cmd::list::ListArgs),
    /// Compare a patch model with the baseline: equivalence over every call sequence of a
    /// scope, and the work inside the rmap write-side critical sections per kind of call.
    Compare(check::compare::CompareArgs),
    /// Show a patch model against the baseline as a unified diff, function by function (the
    /// definitions each program runs, after includes and overrides). Exit status: 0 printed,
    /// 2 bad input.
    Diff(cmd::diff::DiffArgs),
    /// Compare the kernel functions the model's functions stand for (their `// kernel: FILE
    /// FUNCTION` lines) with a kernel source tree: in place, moved, or gone. Exit status: 0 no
    /// drift, 1 drift, 2 bad input.
    Drift(cmd::drift::DriftArgs),
    /// Scaffold a patch model DIR/NAME.rmap (header template, the baseline's include and a copy
    /// of vma_complete() to edit) and its proof file PROOFS/patch-NAME.toml. Exit status: 0
    /// written, 2 bad name, a file exists or bad base model.
    New(cmd::new::NewArgs),
    /// Run proof obligations (proofs/*.toml) and print their certificates.
    Prove(check::prove::ProveArgs),
    /// Re-run a counterexample trace (JSON) and say whether it still fails.
    Replay(cmd::replay::ReplayArgs),
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
    Creplay(kernel::creplay::Args),
    /// Review a posted series as C: an mbox (b4 am), a directory of git format-patch files, or
    /// one diff. The patches, in `[PATCH vN k/n]` order, are applied one after the other to a
    /// copy of the tree, the C search of `check --kernel` runs after each that touches a file
    /// the harness builds, and one plain-text reply per patch (and a summary for the cover
    /// letter) is written as an mbox (docs/REVIEW.md). Exit status: 0 every checked patch
    /// holds, 1 a counterexample, 2 bad input or a patch that does not apply, 3 incomplete.
    Review(kernel::review::ReviewArgs),
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
    Interleave(cmd::interleave::InterleaveArgs),
    /// Print the lock-order graph observed over a bounded exploration as DOT; violations of
    /// the order of mm/rmap.c go to standard error (exit 1).
    Locks {
        model: PathBuf,
        /// Scope of the exploration (default tiny).
        #[arg(long)]
        scope: Option<String>,
    },
}
