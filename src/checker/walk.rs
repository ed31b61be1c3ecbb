//! Seeded random walks over any [`Walk`] system (deep random search, in the spirit of TLC's
//! simulation mode and SPIN's swarm): N walks of up to D steps from the initial state, each step
//! chosen uniformly among the actions the walk's current state offers, with the step's checks.
//!
//! - Reproducible: walk `i` draws from its own Xoshiro256++ generator seeded from `(seed, i)`,
//!   so a walk depends neither on the others nor on the number of threads running them.
//! - The failing walk reported is the one of lowest index, the same on every run whatever the
//!   threads: walks are handed out in index order and every walk below a failing one runs to
//!   its end. The figures count exactly the walks up to it.
//! - A walk ends after D steps, in a state that offers no action, or in a state the system
//!   does not go on from ([`Step::End`]).
//!
//! The verdict is the caller's to word: random walks never prove that anything holds.

use super::budget::Budget;
use super::{Start, Stats, TransitionSystem};
use rand::rngs::Xoshiro256PlusPlus;
use rand::{RngExt, SeedableRng};
use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Mutex;
use std::time::Instant;

/// A system random walks can run on: the actions of a state, and one step.
pub trait Walk: TransitionSystem {
    /// The actions offered in `s`, in a deterministic order; empty when a walk must end there
    /// (no action offered, or a state a search would not expand).
    fn actions(&self, s: &Self::State) -> Vec<Self::Action>;

    /// The step from `s` (reached after `depth` steps) under `a`, with every check of the
    /// step. The system polls `budget` when the step may take long.
    fn step(
        &self,
        s: &Self::State,
        a: &Self::Action,
        depth: u32,
        budget: &Budget,
    ) -> Step<Self::State, Self::Failure>;

    /// Simpler variants of `a` for shrinking a failing path, simplest first; each must be
    /// strictly smaller than `a` by a measure that cannot fall for ever (so that shrinking
    /// ends). None by default.
    fn simpler(&self, _a: &Self::Action) -> Vec<Self::Action> {
        Vec::new()
    }

    /// A state the walk has left behind: the system may keep it to overwrite rather than
    /// allocate a later state (as [`super::FrontierTuning::recycle`] does for the
    /// breadth-first search). Dropped by default.
    fn recycle(&self, _s: Self::State) {}
}

/// What one step of a walk found.
pub enum Step<S, F> {
    /// The successor.
    Next(S),
    /// The step fails.
    Failed(F),
    /// The step is made but the walk does not go on from it (a state the search would not
    /// expand, such as one where the model left the C).
    End,
    /// The budget ran out, or a nested exploration stopped short.
    Stopped(String),
}

/// What to walk.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Walks {
    /// Random walks to run (at least 1).
    pub walks: u64,
    /// Steps per walk at most.
    pub depth: u32,
    pub seed: u64,
}

impl Walks {
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

    /// Why a run of these walks that found no failure is incomplete: [`Walks::describe`], or,
    /// when `stopped` says why it ended early, how many of the walks ran (`counted`) and why.
    pub fn passed(&self, counted: u64, stopped: Option<String>) -> String {
        match stopped {
            None => self.describe(),
            Some(why) => format!(
                "simulated {counted} of {} walks, depth {}, seed {}: {why}",
                self.walks, self.depth, self.seed
            ),
        }
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

/// Live figures of a run of walks, handed to the progress callback.
#[derive(Clone, Copy, Debug, Default)]
pub struct WalkProgress {
    /// Walks finished.
    pub walks: u64,
    /// Steps made.
    pub steps: u64,
    pub seconds: f64,
}

/// Progress callback, called about five times a second.
pub type OnWalk<'a> = &'a (dyn Fn(&WalkProgress) + Sync);

/// How a run of walks ended.
pub enum Walked<A, F> {
    /// No walk failed; `stopped` says why the run ended before its last walk, if it did.
    Passed { stopped: Option<String> },
    /// Walk `walk` failed after the actions of `path` (the failing one last).
    Failed { walk: u64, path: Vec<A>, failure: F },
    /// The initial state failed, or the system could not start.
    NoStart(Start<F>),
}

/// The run's end and its figures: distinct states (the initial one included), steps made
/// (failing ones included), the longest walk, seconds; over the walks counted.
pub struct WalkReport<A, F> {
    pub walked: Walked<A, F>,
    pub stats: Stats,
    /// Walks counted: all of them, those up to and including the failing one, or those that
    /// ended before the budget stopped the run.
    pub walks: u64,
}

/// The end of one walk.
enum WalkEnd<A, F> {
    /// Ran to its end: steps made.
    Done(u32),
    Failed(Vec<A>, F),
    /// A lower walk failed: this one no longer counts.
    Abandoned,
    Stopped(String),
}

/// What one worker thread found.
struct Found<A, F> {
    /// (walk, steps) of each walk it ran to its end or to its failure.
    walks: Vec<(u64, u32)>,
    /// Each state it reached, with the lowest walk that reached it.
    states: HashMap<u64, u64>,
    /// Its lowest failing walk.
    failure: Option<(u64, Vec<A>, F)>,
    stopped: Option<String>,
}

/// State shared by the workers.
struct Shared<'a, S: Walk> {
    sys: &'a S,
    walks: Walks,
    s0: &'a S::State,
    budget: &'a Budget,
    next: AtomicU64,
    /// The lowest failing walk so far (`u64::MAX`: none).
    lowest_failure: AtomicU64,
    stop: AtomicBool,
    finished: AtomicU64,
    steps: AtomicU64,
    begin: Instant,
    progress: Option<OnWalk<'a>>,
    last_report: Mutex<f64>,
}

impl<S: Walk> Shared<'_, S> {
    fn report(&self) {
        let Some(p) = self.progress else { return };
        let seconds = self.begin.elapsed().as_secs_f64();
        if let Ok(mut last) = self.last_report.try_lock() {
            if seconds - *last >= 0.2 {
                *last = seconds;
                p(&WalkProgress {
                    walks: self.finished.load(Ordering::Relaxed),
                    steps: self.steps.load(Ordering::Relaxed),
                    seconds,
                });
            }
        }
    }

    fn worker(&self) -> Found<S::Action, S::Failure> {
        let mut found = Found {
            walks: Vec::new(),
            states: HashMap::new(),
            failure: None,
            stopped: None,
        };
        loop {
            if self.stop.load(Ordering::Relaxed) {
                break;
            }
            let i = self.next.fetch_add(1, Ordering::Relaxed);
            if i >= self.walks.walks || i > self.lowest_failure.load(Ordering::Relaxed) {
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
    fn walk(&self, i: u64, states: &mut HashMap<u64, u64>) -> WalkEnd<S::Action, S::Failure> {
        let sys = self.sys;
        let mut rng = self.walks.rng(i);
        let mut s: Option<S::State> = None;
        let mut path: Vec<S::Action> = Vec::new();
        for depth in 0..self.walks.depth {
            let here = s.as_ref().unwrap_or(self.s0);
            let mut offered = sys.actions(here);
            if offered.is_empty() {
                break;
            }
            if i > self.lowest_failure.load(Ordering::Relaxed) {
                return WalkEnd::Abandoned;
            }
            if let Some(reason) = self.budget.poll() {
                return WalkEnd::Stopped(reason);
            }
            let a = offered.swap_remove(rng.random_range(0..offered.len()));
            self.steps.fetch_add(1, Ordering::Relaxed);
            match sys.step(here, &a, depth, self.budget) {
                Step::Next(next) => {
                    let e = states.entry(sys.fingerprint(&next)).or_insert(i);
                    *e = (*e).min(i);
                    path.push(a);
                    if let Some(old) = s.replace(next) {
                        sys.recycle(old);
                    }
                }
                Step::Failed(f) => {
                    path.push(a);
                    return WalkEnd::Failed(path, f);
                }
                Step::End => {
                    path.push(a);
                    break;
                }
                Step::Stopped(reason) => return WalkEnd::Stopped(reason),
            }
        }
        WalkEnd::Done(path.len() as u32)
    }
}

/// Run `walks` on `sys` on `threads` worker threads (at most one per walk); the report is the
/// same for every number of threads, but for the seconds.
pub fn walk<S: Walk>(
    sys: &S,
    walks: &Walks,
    budget: &Budget,
    progress: Option<OnWalk<'_>>,
    threads: usize,
) -> WalkReport<S::Action, S::Failure> {
    let begin = Instant::now();
    let s0 = match sys.initial() {
        Ok(s) => s,
        Err(start) => {
            return WalkReport {
                walked: Walked::NoStart(start),
                stats: Stats {
                    seconds: begin.elapsed().as_secs_f64(),
                    ..Stats::default()
                },
                walks: 0,
            }
        }
    };
    let shared = Shared {
        sys,
        walks: *walks,
        s0: &s0,
        budget,
        next: AtomicU64::new(0),
        lowest_failure: AtomicU64::new(u64::MAX),
        stop: AtomicBool::new(false),
        finished: AtomicU64::new(0),
        steps: AtomicU64::new(0),
        begin,
        progress,
        last_report: Mutex::new(0.0),
    };
    let threads = threads.min(walks.walks.min(64) as usize).max(1);
    let founds: Vec<Found<S::Action, S::Failure>> = if threads == 1 {
        vec![shared.worker()]
    } else {
        std::thread::scope(|sc| {
            let handles: Vec<_> = (0..threads).map(|_| sc.spawn(|| shared.worker())).collect();
            handles
                .into_iter()
                .map(|h| h.join().unwrap_or_else(|p| std::panic::resume_unwind(p)))
                .collect()
        })
    };
    tally(sys, &s0, founds, begin)
}

/// The lowest failing walk over every worker, and the figures of the walks up to it.
fn tally<S: Walk>(
    sys: &S,
    s0: &S::State,
    mut founds: Vec<Found<S::Action, S::Failure>>,
    begin: Instant,
) -> WalkReport<S::Action, S::Failure> {
    let stopped = founds.iter().find_map(|f| f.stopped.clone());
    let mut failure: Option<(u64, Vec<S::Action>, S::Failure)> = None;
    for f in &mut founds {
        if let Some(x) = f.failure.take() {
            if failure.as_ref().is_none_or(|(j, _, _)| x.0 < *j) {
                failure = Some(x);
            }
        }
    }
    let limit = failure.as_ref().map_or(u64::MAX, |x| x.0);
    let (mut counted, mut steps, mut longest) = (0u64, 0usize, 0u32);
    let mut states: HashMap<u64, u64> = HashMap::new();
    for f in &founds {
        for &(_, n) in f.walks.iter().filter(|(i, _)| *i <= limit) {
            counted += 1;
            steps += n as usize;
            longest = longest.max(n);
        }
        for (&fp, &i) in &f.states {
            let e = states.entry(fp).or_insert(i);
            *e = (*e).min(i);
        }
    }
    let fp0 = sys.fingerprint(s0);
    let distinct = 1 + states
        .iter()
        .filter(|(&fp, &i)| i <= limit && fp != fp0)
        .count();
    let stats = Stats {
        states: distinct,
        transitions: steps,
        depth: longest,
        seconds: begin.elapsed().as_secs_f64(),
        bytes_per_state: 0,
        peak_rss_bytes: super::budget::peak_resident_bytes(),
        digest: 0,
    };
    let walked = match failure {
        Some((walk, path, failure)) => Walked::Failed {
            walk,
            path,
            failure,
        },
        None => Walked::Passed { stopped },
    };
    WalkReport {
        walked,
        stats,
        walks: counted,
    }
}
