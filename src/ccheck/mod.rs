//! `rmapcheck check --kernel DIR [--patch FILE]...`: the kernel's C checked as a reviewer
//! receives it. Each diff (and each C mutant's edit spec) is applied to a patched copy of the
//! tree ([`overlay`], [`patch`], [`cmutant`]); the C harness ([`crate::charness`]) is built
//! from that copy; and an exhaustive breadth-first search over the harness's vma.c-level
//! alphabet ([`system`], on the checker core, `checker`) checks the sequential invariants on
//! the C world after every call ([`invariants`]), and the model's world against the C's
//! ([`diverge`]): a search never acts on a model that has left the kernel. The same system runs
//! under the core's seeded random walks (`--simulate`) and the distributed search (`--workers`).
//! Counterexamples are shown with the calls in kernel form, the C world at the failure and what the model says
//! after the same calls ([`report`]). See docs/CHECK-C.md.
//!
//! It sits on `charness` and names nothing of `cdiff`, `review` or the commands.

pub mod cmutant;
pub mod consequence;
pub mod coverage;
pub mod cpatch;
pub mod deepen;
pub mod diverge;
pub mod fuzz;
pub mod html;
pub mod invariants;
pub mod overlay;
pub mod pages;
pub mod patch;
pub mod plan;
pub mod report;
pub mod repro;
pub mod system;
pub mod violation;

use crate::charness::build::{self, Built};
use crate::checker::budget::Budget;
use crate::checker::shrink;
use crate::checker::walk::{self, Walked, Walks};
use crate::checker::{self, Config, OnProgress, Start, Stats, Verdict};
use crate::explore::distributed::{self, Cluster, Factory};
use crate::explore::search::CallSystem;
use crate::lang::Program;
use crate::scope::Scope;
use crate::world::scenario::Call;
use std::path::{Path, PathBuf};
use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::time::Duration;
use system::{CFailure, CSystem};

/// What to build: a tree, the diffs to apply in order, the C mutants to inject after them.
#[derive(Clone, Debug, Default)]
pub struct Source {
    pub kernel: PathBuf,
    pub patches: Vec<PathBuf>,
    pub mutants: Vec<cmutant::Spec>,
}

/// The harness built from the patched copy, and what was applied.
pub struct Prepared {
    pub built: Built,
    pub applied: Vec<String>,
    /// The unpatched tree's harness, when something was applied: the search replays on it
    /// where the patched C's layout leaves the model's.
    pub baseline: Option<Built>,
    /// With [`prepare_covered`] and something applied: the changed lines (the harness is then
    /// built with coverage).
    pub changes: Option<coverage::Changes>,
    /// A line for each file a diff touches that the harness does not build: applied, or left
    /// out and why ([`patch::apply`]).
    pub outside: Vec<String>,
}

/// Apply the patches and mutants to a copy of the tree and build the harness from it. Every
/// error here is bad input (exit 2): a diff that does not apply, an anchor not found, a tree
/// the harness cannot be built from.
pub fn prepare(src: &Source) -> Result<Prepared, String> {
    prepare_with(src, Flavour::Plain)
}

/// [`prepare`], the harness of a patched copy built with coverage and the changed lines
/// found ([`coverage`]); with nothing applied, as [`prepare`].
pub fn prepare_covered(src: &Source) -> Result<Prepared, String> {
    prepare_with(src, Flavour::Gcov)
}

/// [`prepare`] for the C fuzz target: the harness (patched or not) built with edge counts for
/// libFuzzer ([`build::build_fuzz`]); the unpatched baseline, when something was applied, is
/// the plain build.
pub fn prepare_fuzz(src: &Source) -> Result<Prepared, String> {
    prepare_with(src, Flavour::Edges)
}

/// Which build of the harness [`prepare_with`] makes.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Flavour {
    Plain,
    /// gcov's line counts of a patched copy ([`prepare_covered`]).
    Gcov,
    /// Edge counts for the fuzz target ([`prepare_fuzz`]).
    Edges,
}

fn prepare_with(src: &Source, harness: Flavour) -> Result<Prepared, String> {
    let tree = &src.kernel;
    if !tree.join("mm/vma.c").is_file() {
        return Err(format!(
            "{}: not a kernel source tree with mm/vma.c (scripts/fetch-kernel.sh fetches one)",
            tree.display()
        ));
    }
    // refused as named, before any copy is patched (the refusal names the tree)
    build::refuse_older(tree)?;
    if src.patches.is_empty() && src.mutants.is_empty() {
        let built = if harness == Flavour::Edges {
            build::build_fuzz(tree, &[])?
        } else {
            build::build(tree)?
        };
        return Ok(Prepared {
            built,
            applied: Vec::new(),
            baseline: None,
            changes: None,
            outside: Vec::new(),
        });
    }
    let parent = build::cache_root().with_file_name("patched");
    let mut o = overlay::Overlay::new(tree, &parent)?;
    let mut outside = Vec::new();
    for p in &src.patches {
        outside.extend(patch::apply(&mut o, p)?);
    }
    for m in &src.mutants {
        cmutant::apply(&mut o, m)?;
    }
    if harness != Flavour::Gcov {
        let built = if harness == Flavour::Edges {
            build::build_fuzz(o.root(), o.salt())?
        } else {
            build::build_salted(o.root(), o.salt())?
        };
        return Ok(Prepared {
            built,
            applied: o.applied.clone(),
            baseline: Some(build::build(tree)?),
            changes: None,
            outside,
        });
    }
    prepare_covered_copy(&o, outside)
}

/// [`prepare_covered`] of a copy already patched (`review` applies a series to one copy, a
/// patch at a time): the changed lines found, the copy's harness built with coverage, and the
/// unpatched tree's harness. `outside` is what [`patch::apply`] said of the files the harness
/// does not build.
pub fn prepare_covered_copy(
    o: &overlay::Overlay,
    outside: Vec<String>,
) -> Result<Prepared, String> {
    let changes = coverage::changes(o.tree(), o.root(), &o.edited())?;
    Ok(Prepared {
        built: build::build_covered(o.root(), o.salt())?,
        applied: o.applied.clone(),
        baseline: Some(build::build(o.tree())?),
        changes: Some(changes),
        outside,
    })
}

/// How the C search ended, with its figures.
pub struct Outcome {
    pub verdict: Verdict<Call, CFailure>,
    pub stats: Stats,
    /// Calls the alphabet offered that the harness cannot reach, by reason.
    pub skipped: Vec<(String, usize)>,
    /// Calls made on the C, replays included.
    pub c_calls: u64,
    /// Sequences replayed on the C (one per transition).
    pub replays: u64,
    pub harnesses: u64,
    /// States where the model's world left the C's, never expanded.
    pub divergences: diverge::Divergences,
    /// The digest of the states and edges expanded (`system::Counts::digest`): two searches
    /// with the same digest saw the same states.
    pub digest: u64,
    /// The most walker checkpoints one sequence skipped over the per-call bound (0: none).
    pub checkpoints_over: u64,
    /// The calls of a random walk's counterexample before it was shrunk (when it was).
    pub shrunk_from: Option<usize>,
}

/// Search the C of `binary` within `scope`, the model `prog` choosing the calls offered;
/// `baseline` is the unpatched tree's harness when `binary` is patched.
pub fn search(
    prog: &Program,
    scope: &Scope,
    binary: &Path,
    baseline: Option<&Path>,
    threads: usize,
    progress: OnProgress<'_>,
) -> Result<Outcome, String> {
    search_env(prog, scope, binary, baseline, threads, Vec::new(), progress)
}

/// [`search`] with `env` added to each harness process's environment.
pub fn search_env(
    prog: &Program,
    scope: &Scope,
    binary: &Path,
    baseline: Option<&Path>,
    threads: usize,
    env: Vec<(String, String)>,
    progress: OnProgress<'_>,
) -> Result<Outcome, String> {
    let run = Run {
        binary,
        baseline,
        threads,
        env,
        walks: None,
        cluster: None,
    };
    run.go(prog, scope, progress)
}

/// One run on the C: which harness, how many threads, and how it is searched.
pub struct Run<'a> {
    pub binary: &'a Path,
    /// The unpatched tree's harness when `binary` is patched.
    pub baseline: Option<&'a Path>,
    pub threads: usize,
    /// Added to each harness process's environment (`GCOV_PREFIX` for coverage).
    pub env: Vec<(String, String)>,
    /// Seeded random walks instead of the breadth-first search (`--simulate`).
    pub walks: Option<Walks>,
    /// The breadth-first search on timely workers (`--workers`, `--processes`).
    pub cluster: Option<&'a Cluster>,
}

/// The C search's systems for the workers of a distributed search: each worker (each phase)
/// makes its own, with its own harness processes, all counting into one [`system::Counts`].
struct CFactory {
    prog: Arc<Program>,
    scope: Arc<Scope>,
    budget: Arc<Budget>,
    binary: PathBuf,
    baseline: Option<PathBuf>,
    env: Vec<(String, String)>,
    counts: Arc<system::Counts>,
}

impl Factory for CFactory {
    type State = system::CState;
    type Action = Call;
    type Failure = CFailure;
    type Sys<'a> = CSystem<'a>;

    fn system(&self) -> Result<CSystem<'_>, String> {
        let model = CallSystem::new(&self.prog, &self.scope, Arc::clone(&self.budget));
        Ok(CSystem::new(
            model,
            self.binary.clone(),
            Duration::from_secs(20),
            self.baseline.clone(),
        )?
        .with_env(self.env.clone())
        .with_counts(Arc::clone(&self.counts)))
    }

    fn bounds(&self) -> (u32, usize) {
        (self.scope.max_depth, self.scope.max_states)
    }
}

/// What a distributed C search explores, for the cluster's handshake: the model and scope's
/// digest, and the harness binaries' cache keys (their directories are named by content).
fn c_digest(prog: &Program, scope: &Scope, workers: usize, run: &Run<'_>) -> u64 {
    let key = |p: &Path| {
        p.ancestors()
            .find(|a| {
                a.parent()
                    .and_then(Path::file_name)
                    .is_some_and(|n| n == "cdiff" || n == "charness")
            })
            .and_then(Path::file_name)
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default()
    };
    let mut h = xxhash_rust::xxh3::Xxh3::new();
    h.update(&distributed::run::digest(prog, scope, workers).to_le_bytes());
    h.update(key(run.binary).as_bytes());
    h.update(run.baseline.map(key).unwrap_or_default().as_bytes());
    h.digest()
}

impl Run<'_> {
    /// Run within `scope`, the model `prog` choosing the calls offered. Random walks never
    /// hold: without a failure their verdict is incomplete, `simulated N walks, ...`.
    pub fn go(
        &self,
        prog: &Program,
        scope: &Scope,
        progress: OnProgress<'_>,
    ) -> Result<Outcome, String> {
        let budget = scope.budget();
        let model = CallSystem::new(prog, scope, budget.clone());
        let sys = CSystem::new(
            model,
            self.binary.to_path_buf(),
            Duration::from_secs(20),
            self.baseline.map(Path::to_path_buf),
        )?
        .with_env(self.env.clone());
        let threads = self.threads.max(1);
        let mut shrunk_from = None;
        let (verdict, stats) = match (&self.walks, self.cluster) {
            (None, Some(cluster)) => {
                let factory = CFactory {
                    prog: Arc::new(prog.clone()),
                    scope: Arc::new(scope.clone()),
                    budget: budget.clone(),
                    binary: self.binary.to_path_buf(),
                    baseline: self.baseline.map(Path::to_path_buf),
                    env: self.env.clone(),
                    counts: Arc::clone(&sys.counts),
                };
                let id = c_digest(prog, scope, cluster.workers, self);
                distributed::run_on(factory, &budget, cluster, id, &|_| {})?
            }
            (None, None) => {
                let cfg = Config {
                    max_depth: scope.max_depth,
                    max_states: scope.max_states,
                    threads,
                    batch: 64,
                };
                checker::bfs(&sys, &cfg, &budget, progress)
            }
            (Some(w), _) => {
                let r = walk::walk(&sys, w, &budget, None, threads);
                let v = match r.walked {
                    Walked::Failed { path, failure, .. } => {
                        // a random walk's failure, shrunk to the calls it needs (a minute at
                        // most, the search's own budget aside)
                        let n = path.len();
                        let inv = failure.invariant;
                        let within = Budget::new(SHRINK_SECONDS, scope.max_memory_mb);
                        let same = move |f: &CFailure| f.invariant == inv;
                        let s = shrink::shrink(&sys, path, failure, &within, &same);
                        shrunk_from = Some(n).filter(|&n| n > s.path.len());
                        Verdict::Failed {
                            path: s.path,
                            failure: s.failure,
                        }
                    }
                    Walked::NoStart(Start::Failure(f)) => Verdict::FailedInitial(f),
                    Walked::NoStart(Start::Error(e)) => Verdict::Error(e),
                    Walked::Passed { stopped } => Verdict::Incomplete {
                        reason: w.passed(r.walks, stopped),
                        complete_depth: 0,
                    },
                };
                (v, r.stats)
            }
        };
        let skipped = sys
            .counts
            .skipped
            .lock()
            .expect("counts")
            .iter()
            .map(|(k, v)| (k.clone(), *v))
            .collect();
        let divergences = std::mem::take(&mut *sys.counts.divergences.lock().expect("counts"));
        Ok(Outcome {
            verdict,
            stats,
            skipped,
            c_calls: sys.counts.c_calls.load(Ordering::Relaxed),
            replays: sys.counts.replays.load(Ordering::Relaxed),
            harnesses: sys.counts.harnesses.load(Ordering::Relaxed),
            divergences,
            digest: sys.counts.digest.load(Ordering::Relaxed),
            checkpoints_over: sys.counts.checkpoints_over.load(Ordering::Relaxed),
            shrunk_from,
        })
    }
}

/// Seconds a random walk's counterexample may take to shrink.
const SHRINK_SECONDS: f64 = 60.0;

/// Both cores (at most 8): one harness process per search thread.
pub fn default_threads() -> usize {
    Config::cores()
}
