//! Deep random search (`rmapcheck check --simulate WALKS --depth D --seed S`), in the spirit of
//! TLC's simulation mode and SPIN's swarm: for scopes the breadth-first search cannot finish,
//! WALKS random walks of up to D calls from the scope's initial world, each call chosen
//! uniformly among those the alphabet offers in the walk's current world, run with the same
//! invariants (and the same walker explorations) as the exhaustive search through
//! [`CallSystem::call_step`]. The walks themselves are the checker core's ([`checker::walk`]),
//! the same that walk the kernel's C (`ccheck::simulate`); this module makes the call system a
//! [`Walk`] and words the verdict.
//!
//! - The verdict is never "holds": without a counterexample it is incomplete ("simulated N
//!   walks, depth D, seed S"). With one it is the failing walk of lowest index, the same on
//!   every run whatever the threads.
//! - A walk ends after D calls, in a world the exhaustive search would not expand (over the
//!   scope's VMA bound), or in a world that offers no call.

use super::alphabet;
use super::search::{CallFailure, CallStep, CallSystem, Outcome};
use crate::checker::budget::Budget;
use crate::checker::walk::{self, OnWalk, Step, Walk, Walked, Walks};
use crate::checker::{Config, Start, Stats};
use crate::lang::Program;
use crate::scope::Scope;
use crate::world::scenario::Call;
use crate::world::World;
use std::sync::Arc;

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
        self.walks().describe()
    }

    /// The checker core's walks.
    pub fn walks(&self) -> Walks {
        Walks {
            walks: self.walks,
            depth: self.depth,
            seed: self.seed,
        }
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

/// Call sequences walked: the calls the alphabet offers, each with every check.
impl Walk for CallSystem<'_> {
    fn actions(&self, w: &World) -> Vec<Call> {
        if self.cut(w) {
            return Vec::new();
        }
        alphabet::calls(self.scope, self.prog, w)
    }

    fn step(&self, w: &World, call: &Call, depth: u32, _: &Budget) -> Step<World, CallFailure> {
        match self.call_step(w, call, depth) {
            CallStep::Next(w2) => Step::Next(w2),
            CallStep::Failed(f) => Step::Failed(f),
            CallStep::Stopped(reason) => Step::Stopped(reason),
        }
    }

    /// Back to the spares, as the breadth-first search hands its worlds back.
    fn recycle(&self, w: World) {
        crate::checker::FrontierTuning::recycle(self, w);
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
    progress: Option<OnWalk<'_>>,
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
    progress: Option<OnWalk<'_>>,
    threads: usize,
) -> SimReport {
    let sys = CallSystem::new(prog, scope, Arc::clone(budget));
    let initial = scope.initial_scenario();
    let r = walk::walk(&sys, &sim.walks(), budget, progress, threads);
    let (outcome, failing_walk) = match r.walked {
        Walked::NoStart(Start::Error(reason)) => (
            Outcome::Incomplete {
                reason,
                complete_depth: 0,
            },
            None,
        ),
        Walked::NoStart(Start::Failure(f)) => {
            let v0 = match f {
                CallFailure::Initial(v) => v,
                _ => Vec::new(),
            };
            let t = super::replay::initial_trace(prog, model_name, scope, &initial, v0);
            (Outcome::Counterexample(Box::new(t)), None)
        }
        Walked::Failed {
            walk,
            path,
            failure: CallFailure::Interleaving(mut t),
        } => {
            t.model = model_name.to_string();
            t.prefix = path[..path.len().saturating_sub(1)].to_vec();
            (Outcome::Interleaving(t), Some(walk))
        }
        Walked::Failed { walk, path, .. } => {
            let t = super::replay::build_trace(prog, model_name, scope, &initial, &path);
            (Outcome::Counterexample(Box::new(t)), Some(walk))
        }
        Walked::Passed { stopped } => {
            let reason = sim.walks().passed(r.walks, stopped);
            let o = Outcome::Incomplete {
                reason,
                complete_depth: 0,
            };
            (o, None)
        }
    };
    SimReport {
        outcome,
        stats: r.stats,
        walks: r.walks,
        failing_walk,
    }
}
