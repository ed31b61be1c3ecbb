//! Deep random search (`rmapcheck check --simulate WALKS --depth D --seed S`), in the spirit of
//! TLC's simulation mode and SPIN's swarm: for scopes the breadth-first search cannot finish,
//! WALKS random walks of up to D calls from the scope's initial world, each call chosen
//! uniformly among those the alphabet offers in the walk's current world, run with the same
//! invariants (and the same walker explorations) as the exhaustive search through
//! [`CallSystem::call_step`].
//!
//! - Reproducible: walk `i` draws from its own Xoshiro256++ generator seeded from `(seed, i)`,
//!   so a walk does not depend on the others, nor on the number of threads running them.
//! - The verdict is never "holds": without a counterexample it is incomplete ("simulated N
//!   walks, depth D, seed S"). With one it is the failing walk of lowest index, the same on
//!   every run whatever the threads (walks are handed out in index order and every walk below a
//!   failing one is run to its end), and the figures count exactly the walks up to it.
//! - A walk ends after D calls, in a world the exhaustive search would not expand (over the
//!   scope's VMA bound), or in a world that offers no call.

use super::budget::{self, Budget};
use super::checker::{Config, Start, Stats, TransitionSystem};
use super::scope::Scope;
use super::search::{CallFailure, CallStep, CallSystem, Outcome};
use super::{alphabet, search};
use crate::lang::Program;
use crate::world::scenario::Call;
use crate::world::World;
use rand::rngs::Xoshiro256PlusPlus;
use rand::{RngExt, SeedableRng};
use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Instant;

/// The longest walk `--depth` allows (the longest call sequence a scope allows).
pub(crate) const MAX_WALK_DEPTH: u32 = 64;

/// What to simulate.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Simulation {
    /// Random walks to run (at least 1).
    pub walks: u64,
    /// Calls per walk at most (1..=[`MAX_WALK_DEPTH`]).
    pub depth: u32,
    pub seed: u64,
}

impl Simulation {
    /// Refuse a simulation that would check nothing or walk deeper than a scope allows.
    pub fn validate(&self) -> Result<(), String> {
        if self.walks == 0 {
            return Err("--simulate 0: at least one walk".into());
        }
        if self.depth == 0 || self.depth > MAX_WALK_DEPTH {
            return Err(format!(
                "--depth {}: must be 1..={MAX_WALK_DEPTH}",
                self.depth
            ));
        }
        Ok(())
    }

    /// `simulated N walks, depth D, seed S`.
    pub fn describe(&self) -> String {
        format!(
            "simulated {} walk{}, depth {}, seed {}",
            self.walks,
            if self.walks == 1 { "" } else { "s" },
            self.depth,
            self.seed
        )
    }

    /// The generator of walk `i`: the seed and the index through SplitMix64's finaliser (so
    /// nearby seeds and indices give unrelated streams), then rand's own seeding.
    fn rng(&self, i: u64) -> Xoshiro256PlusPlus {
        let mut z = self
            .seed
            .wrapping_add(i.wrapping_add(1).wrapping_mul(0x9E37_79B9_7F4A_7C15));
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        Xoshiro256PlusPlus::seed_from_u64(z ^ (z >> 31))
    }
}

/// How a simulation ended, with its figures.
pub struct SimReport {
    /// `Counterexample` / `Interleaving`, or `Incomplete` (never `Holds`); the reason of an
    /// incomplete simulation starts with [`Simulation::describe`].
    pub outcome: Outcome,
    /// Distinct states (the initial one included), calls made (the failing one included),
    /// the longest walk in calls, seconds; over the walks counted.
    pub stats: Stats,
    /// Walks counted: all of them, those up to and including the failing one, or those that
    /// ended before the budget stopped the simulation.
    pub walks: u64,
    /// Index (from 0) of the failing walk.
    pub failing_walk: Option<u64>,
}

/// Progress callback: (walks finished, calls made, seconds).
pub(crate) type SimProgress<'a> = &'a (dyn Fn(u64, u64, f64) + Sync);

/// The end of one walk.
enum WalkEnd {
    /// Ran to its end: calls made.
    Done(u32),
    /// The last call of `path` failed.
    Failed(Vec<Call>, CallFailure),
    /// A lower walk failed: this one no longer counts.
    Abandoned,
    /// The budget ran out, or a walker exploration stopped short.
    Stopped(String),
}

/// What one worker thread found.
#[derive(Default)]
struct Found {
    /// (walk, calls) of each walk it ran to its end or to its failure.
    walks: Vec<(u64, u32)>,
    /// Each state it reached, with the lowest walk that reached it.
    states: HashMap<u64, u64>,
    /// Its lowest failing walk.
    failure: Option<(u64, Vec<Call>, CallFailure)>,
    stopped: Option<String>,
}

/// State shared by the workers.
struct Shared<'a> {
    sys: &'a CallSystem<'a>,
    sim: Simulation,
    w0: &'a World,
    budget: &'a Budget,
    /// The next walk to hand out.
    next: AtomicU64,
    /// The lowest failing walk so far (`u64::MAX`: none).
    lowest_failure: AtomicU64,
    /// Set when the budget ran out: no further walk starts.
    stop: AtomicBool,
    finished: AtomicU64,
    calls: AtomicU64,
    begin: Instant,
    progress: Option<SimProgress<'a>>,
    /// Serialises progress reports and spaces them.
    last_report: Mutex<f64>,
}

impl Shared<'_> {
    fn report(&self) {
        let Some(p) = self.progress else { return };
        let secs = self.begin.elapsed().as_secs_f64();
        if let Ok(mut last) = self.last_report.try_lock() {
            if secs - *last >= 0.2 {
                *last = secs;
                p(
                    self.finished.load(Ordering::Relaxed),
                    self.calls.load(Ordering::Relaxed),
                    secs,
                );
            }
        }
    }

    fn worker(&self) -> Found {
        let mut found = Found::default();
        loop {
            if self.stop.load(Ordering::Relaxed) {
                break;
            }
            let i = self.next.fetch_add(1, Ordering::Relaxed);
            if i >= self.sim.walks || i > self.lowest_failure.load(Ordering::Relaxed) {
                break;
            }
            match self.walk(i, &mut found.states) {
                WalkEnd::Done(n) => found.walks.push((i, n)),
                WalkEnd::Failed(path, f) => {
                    found.walks.push((i, path.len() as u32));
                    self.lowest_failure.fetch_min(i, Ordering::Relaxed);
                    if found.failure.as_ref().is_none_or(|(j, _, _)| i < *j) {
                        found.failure = Some((i, path, f));
                    }
                }
                WalkEnd::Abandoned => {}
                WalkEnd::Stopped(reason) => {
                    self.stop.store(true, Ordering::Relaxed);
                    found.stopped.get_or_insert(reason);
                    break;
                }
            }
            self.finished.fetch_add(1, Ordering::Relaxed);
            self.report();
        }
        found
    }

    /// Run walk `i`, noting each state it reaches in `states`.
    fn walk(&self, i: u64, states: &mut HashMap<u64, u64>) -> WalkEnd {
        let sys = self.sys;
        let mut rng = self.sim.rng(i);
        let mut w = self.w0.clone();
        let mut path: Vec<Call> = Vec::new();
        for depth in 0..self.sim.depth {
            if sys.cut(&w) {
                break;
            }
            let mut offered = alphabet::calls(sys.scope, sys.prog, &w);
            if offered.is_empty() {
                break;
            }
            if i > self.lowest_failure.load(Ordering::Relaxed) {
                return WalkEnd::Abandoned;
            }
            if let Some(reason) = self.budget.poll() {
                return WalkEnd::Stopped(reason);
            }
            let call = offered.swap_remove(rng.random_range(0..offered.len()));
            self.calls.fetch_add(1, Ordering::Relaxed);
            match sys.call_step(&w, &call, depth) {
                CallStep::Next(w2) => {
                    let fp = search::fingerprint(&w2);
                    let e = states.entry(fp).or_insert(i);
                    *e = (*e).min(i);
                    w = w2;
                    path.push(call);
                }
                CallStep::Failed(f) => {
                    path.push(call);
                    return WalkEnd::Failed(path, f);
                }
                CallStep::Stopped(reason) => return WalkEnd::Stopped(reason),
            }
        }
        WalkEnd::Done(path.len() as u32)
    }
}

/// Run `sim` on `prog` in `scope` (whose invariants, bounds and walkers it uses; its
/// `max_depth` is not read: the walks' depth is `sim.depth`).
pub fn simulate(
    prog: &Program,
    model_name: &str,
    scope: &Scope,
    sim: &Simulation,
    budget: &Arc<Budget>,
    progress: Option<SimProgress<'_>>,
) -> SimReport {
    simulate_on(
        prog,
        model_name,
        scope,
        sim,
        budget,
        progress,
        Config::cores(),
    )
}

/// [`simulate`] on `threads` worker threads (at most one per walk); the report is the same
/// for every number of threads, but for the seconds.
pub fn simulate_on(
    prog: &Program,
    model_name: &str,
    scope: &Scope,
    sim: &Simulation,
    budget: &Arc<Budget>,
    progress: Option<SimProgress<'_>>,
    threads: usize,
) -> SimReport {
    let begin = Instant::now();
    let sys = CallSystem::new(prog, scope, Arc::clone(budget));
    let initial = scope.initial_scenario();
    let w0 = match sys.initial() {
        Ok(w) => w,
        Err(start) => {
            let outcome = match start {
                Start::Error(reason) => Outcome::Incomplete {
                    reason,
                    complete_depth: 0,
                },
                Start::Failure(f) => {
                    let v0 = match f {
                        CallFailure::Initial(v) => v,
                        _ => Vec::new(),
                    };
                    Outcome::Counterexample(Box::new(super::replay::initial_trace(
                        prog, model_name, scope, &initial, v0,
                    )))
                }
            };
            let stats = Stats {
                seconds: begin.elapsed().as_secs_f64(),
                ..Stats::default()
            };
            return SimReport {
                outcome,
                stats,
                walks: 0,
                failing_walk: None,
            };
        }
    };
    let shared = Shared {
        sys: &sys,
        sim: *sim,
        w0: &w0,
        budget,
        next: AtomicU64::new(0),
        lowest_failure: AtomicU64::new(u64::MAX),
        stop: AtomicBool::new(false),
        finished: AtomicU64::new(0),
        calls: AtomicU64::new(0),
        begin,
        progress,
        last_report: Mutex::new(0.0),
    };
    let threads = threads.min(sim.walks.min(64) as usize).max(1);
    let founds: Vec<Found> = if threads == 1 {
        vec![shared.worker()]
    } else {
        std::thread::scope(|s| {
            let handles: Vec<_> = (0..threads).map(|_| s.spawn(|| shared.worker())).collect();
            handles
                .into_iter()
                .map(|h| h.join().unwrap_or_else(|p| std::panic::resume_unwind(p)))
                .collect()
        })
    };

    // The lowest failing walk over every worker, and the figures of the walks up to it.
    let mut failure: Option<(u64, Vec<Call>, CallFailure)> = None;
    let mut stopped: Option<String> = None;
    for f in &founds {
        if stopped.is_none() {
            stopped.clone_from(&f.stopped);
        }
    }
    let mut counted_walks = 0u64;
    let mut calls = 0usize;
    let mut longest = 0u32;
    let mut states: HashMap<u64, u64> = HashMap::new();
    let mut founds = founds;
    for f in &mut founds {
        if let Some(x) = f.failure.take() {
            if failure.as_ref().is_none_or(|(j, _, _)| x.0 < *j) {
                failure = Some(x);
            }
        }
    }
    let limit = failure.as_ref().map_or(u64::MAX, |x| x.0);
    for f in &founds {
        for &(i, n) in &f.walks {
            if i <= limit {
                counted_walks += 1;
                calls += n as usize;
                longest = longest.max(n);
            }
        }
        for (&fp, &i) in &f.states {
            let e = states.entry(fp).or_insert(i);
            *e = (*e).min(i);
        }
    }
    let fp0 = search::fingerprint(&w0);
    let distinct = 1 + states
        .iter()
        .filter(|(&fp, &i)| i <= limit && fp != fp0)
        .count();
    // a failing call is a call made, though it leads to no state
    let stats = Stats {
        states: distinct,
        transitions: calls,
        depth: longest,
        seconds: begin.elapsed().as_secs_f64(),
        bytes_per_state: 0,
        peak_rss_bytes: budget::peak_resident_bytes(),
        digest: 0,
    };
    let outcome = match failure {
        Some((_, path, CallFailure::Interleaving(mut t))) => {
            t.model = model_name.to_string();
            t.prefix = path[..path.len().saturating_sub(1)].to_vec();
            Outcome::Interleaving(t)
        }
        Some((_, path, _)) => Outcome::Counterexample(Box::new(super::replay::build_trace(
            prog, model_name, scope, &initial, &path,
        ))),
        None => {
            let reason = match stopped {
                None => sim.describe(),
                Some(why) => format!(
                    "simulated {counted_walks} of {} walks, depth {}, seed {}: {why}",
                    sim.walks, sim.depth, sim.seed
                ),
            };
            Outcome::Incomplete {
                reason,
                complete_depth: 0,
            }
        }
    };
    let failing_walk = match &outcome {
        Outcome::Counterexample(_) | Outcome::Interleaving(_) => Some(limit),
        _ => None,
    };
    SimReport {
        outcome,
        stats,
        walks: counted_walks,
        failing_walk,
    }
}
