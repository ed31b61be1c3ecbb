//! Bounded breadth-first search over call sequences. States are canonical worlds identified by
//! 64-bit fingerprints; the first counterexample found is a shortest one. A search stopped by a
//! time, memory or state bound is reported as incomplete up to the last depth it finished.

use super::alphabet;
use super::footprint::Table;
use super::interleave::{self, Config as InterleaveConfig, IOutcome, ITrace};
use super::op::{apply, apply_compiled, CheckOpts, OpOutcome};
use super::walkers;
use crate::check;
use crate::checker::budget::Budget;
use crate::checker::{self, Config, Expansion, FrontierTuning, Start, TransitionSystem, Verdict};
use crate::exec::compiled::Code;
use crate::exec::host::Value;
use crate::lang::Program;
use crate::scope::{Engine, Scope};
use crate::trace::Trace;
use crate::world::scenario::Call;
use crate::world::World;
use std::sync::Arc;

pub use super::call_step::{fingerprint, CallFailure, CallStep};
pub use crate::checker::{OnProgress, Progress, Stats};

/// How a search ended.
#[derive(Debug)]
pub enum Outcome {
    /// No violation in any state reachable within the scope. `exhausted` is true when no state
    /// was cut off by the depth or VMA bounds (the whole reachable space was seen).
    Holds { exhausted: bool },
    /// A violation, with a shortest trace.
    Counterexample(Box<Trace>),
    /// A violation found by the interleaving explorer (writer against walkers).
    Interleaving(Box<crate::explore::interleave::ITrace>),
    /// A time, memory or state bound stopped the search; no violation up to `complete_depth`.
    Incomplete { reason: String, complete_depth: u32 },
}

/// Run the search for `prog` in `scope`.
pub fn search(
    prog: &Program,
    model_name: &str,
    scope: &Scope,
    progress: OnProgress<'_>,
) -> (Outcome, Stats) {
    search_within(prog, model_name, scope, &scope.budget(), progress)
}

/// Call sequences as a [`TransitionSystem`]: states are canonical worlds, actions the calls
/// the alphabet offers, a step fails when a call violates an invariant (alone, or against the
/// scope's walkers).
pub struct CallSystem<'a> {
    pub prog: &'a Program,
    pub scope: &'a Scope,
    opts: CheckOpts,
    /// The search's budget, shared with the walker explorations it starts.
    budget: Arc<Budget>,
    /// The model decoded for the compiled engine; `None` with the reference engine (asked
    /// for, or a model the compiled one cannot run exactly: [`CallSystem::engine_note`]).
    code: Option<Arc<Code>>,
    /// Why the compiled engine was asked for but the reference one runs.
    engine_note: Option<String>,
    /// The program's footprints for the walker explorations (a scope with walkers).
    footprints: Option<Arc<Table>>,
}

impl<'a> CallSystem<'a> {
    pub fn new(prog: &'a Program, scope: &'a Scope, budget: Arc<Budget>) -> Self {
        let (code, engine_note) = match scope.engine {
            Engine::Reference => (None, None),
            Engine::Compiled => match Code::new(prog) {
                Ok(c) => (Some(Arc::new(c)), None),
                Err(e) => (
                    None,
                    Some(format!("the compiled engine cannot run it ({e})")),
                ),
            },
        };
        CallSystem {
            prog,
            scope,
            budget,
            code,
            engine_note,
            footprints: (scope.walkers > 0).then(|| Arc::new(Table::new(prog))),
            opts: CheckOpts {
                record: false,
                per_step: true,
                invariants: scope.invariant_set(),
            },
        }
    }

    /// The `index`-th successor of `w` as [`TransitionSystem::expand`] lists them (the call
    /// the alphabet offers at that position, applied with the same checks, canonical), without
    /// expanding the others: how a distributed search replays a path of successor indices.
    /// `None` when `w` offers fewer calls.
    pub fn step(&self, w: &World, index: usize) -> Option<(Call, World)> {
        let call = alphabet::calls(self.scope, self.prog, w)
            .into_iter()
            .nth(index)?;
        let mut w2 = spare_copy(w);
        self.apply(&mut w2, &call);
        Some((call, self.canonical_of_spare(w2)))
    }

    /// Apply `call` to `w` with the system's engine and checks.
    pub fn apply(&self, w: &mut World, call: &Call) -> OpOutcome {
        self.apply_with(w, call, self.opts)
    }

    /// Apply `call` to `w` with the system's engine and the checks `opts` asks for.
    fn apply_with(&self, w: &mut World, call: &Call, opts: CheckOpts) -> OpOutcome {
        match &self.code {
            Some(code) => apply_compiled(code, self.prog, w, call, opts),
            None => apply(self.prog, w, call, opts),
        }
    }

    /// The same system with every check off: calls run to their end and nothing is reported
    /// (what an engine costs on its own, for the engine benchmark).
    pub fn without_checks(mut self) -> Self {
        self.opts = CheckOpts {
            record: false,
            per_step: false,
            invariants: crate::invariant::InvariantSet::empty(),
        };
        self
    }

    /// Why the reference engine runs although the compiled one was asked for.
    pub fn engine_note(&self) -> Option<&str> {
        self.engine_note.as_deref()
    }

    /// The search's budget.
    pub(crate) fn budget(&self) -> &Budget {
        &self.budget
    }

    /// The state a world stands for: its canonical form, up to the numbering of its mms and of
    /// its regular files when the scope asks for the symmetry reductions (`world::symmetry`).
    pub fn canonical(&self, w: &World) -> World {
        w.canonical_up_to(self.scope.symmetry, self.scope.file_symmetry)
    }

    /// [`CallSystem::canonical`] of a world from [`spare_copy`], which goes back to the spares.
    fn canonical_of_spare(&self, w: World) -> World {
        let mut out = spare_world();
        w.canonical_up_to_into(self.scope.symmetry, self.scope.file_symmetry, &mut out);
        recycle_world(w);
        out
    }
}

/// Worlds a thread is done with, kept so that the next copy or canonical form overwrites one
/// (keeping its vectors' allocations) instead of allocating a new world: a call costs two
/// worlds, its copy of the parent and the canonical successor, both dropped soon after.
const SPARES: usize = 256;

thread_local! {
    static SPARE_WORLDS: std::cell::RefCell<Vec<World>> = const {
        std::cell::RefCell::new(Vec::new())
    };
}

/// A world to overwrite: a spare one, or a new one.
fn spare_world() -> World {
    SPARE_WORLDS
        .with(|s| s.borrow_mut().pop())
        .unwrap_or_default()
}

/// A copy of `w`, made in a spare world.
fn spare_copy(w: &World) -> World {
    let mut c = spare_world();
    c.clone_from(w);
    c
}

/// Keep `w` as a spare (up to [`SPARES`] a thread; the rest are dropped).
fn recycle_world(w: World) {
    SPARE_WORLDS.with(|s| {
        let mut s = s.borrow_mut();
        if s.len() < SPARES {
            s.push(w);
        }
    });
}

impl TransitionSystem for CallSystem<'_> {
    type State = World;
    type Action = Call;
    type Failure = CallFailure;

    fn initial(&self) -> Result<World, Start<CallFailure>> {
        let w = self
            .scope
            .initial_scenario()
            .build()
            .map_err(|e| Start::Error(format!("bad initial world: {e}")))?;
        let w = self.canonical(&w);
        let v0 = check::at_boundary(&w, self.scope.invariant_set());
        if !v0.is_empty() {
            return Err(Start::Failure(CallFailure::Initial(v0)));
        }
        Ok(w)
    }

    fn fingerprint(&self, w: &World) -> u64 {
        fingerprint(w)
    }

    fn expand(&self, w: &World, depth: u32, _: &Budget) -> Expansion<Call, World, CallFailure> {
        expand(self, w, depth)
    }
}

impl FrontierTuning for CallSystem<'_> {
    fn action_bytes(&self, c: &Call) -> usize {
        c.func.capacity() + c.args.capacity() * std::mem::size_of::<Value>()
    }

    /// The frontier of call sequences is compact: a world is rebuilt from its parent by the
    /// same call with the same checks, canonical, as [`CallSystem::call_step`] made it.
    fn rebuilds(&self) -> bool {
        true
    }

    fn successor(&self, w: &World, call: &Call) -> Option<World> {
        // A rebuilt state was reached by a call that passed every check when the search
        // found it, and checks only read the world (and what they mark for later checks,
        // which is not part of a state): run it again unchecked. The search compares the
        // rebuilt state's fingerprint with the one it was found with.
        let unchecked = CheckOpts {
            record: false,
            per_step: false,
            invariants: crate::invariant::InvariantSet::empty(),
        };
        let mut w2 = spare_copy(w);
        self.apply_with(&mut w2, call, unchecked);
        Some(self.canonical_of_spare(w2))
    }

    fn recycle(&self, w: World) {
        recycle_world(w);
    }
}

/// What the sleep-set search (`commute`) needs of the call system.
impl super::call_step::CallSteps for CallSystem<'_> {
    fn program(&self) -> &Program {
        self.prog
    }

    fn scope(&self) -> &Scope {
        self.scope
    }

    fn cut(&self, w: &World) -> bool {
        CallSystem::cut(self, w)
    }

    fn budget(&self) -> &Budget {
        CallSystem::budget(self)
    }

    fn call_step(&self, w: &World, call: &Call, depth: u32) -> CallStep {
        CallSystem::call_step(self, w, call, depth)
    }
}

/// One call at a time, for the expansion and the simulation (`explore::simulate`).
impl CallSystem<'_> {
    /// Whether `w` is over the scope's VMA bound: it is not expanded (the search is bounded).
    pub fn cut(&self, w: &World) -> bool {
        w.mms
            .iter()
            .any(|m| !m.freed && m.vmas.len() > self.scope.max_vmas)
    }

    /// One call from `w`, a state found at `depth`: the canonical successor, or how the call
    /// failed (alone, or against the scope's walkers while `depth` is below `walker_depth`),
    /// or why a walker exploration stopped short.
    pub fn call_step(&self, w: &World, call: &Call, depth: u32) -> CallStep {
        let mut w2 = spare_copy(w);
        let out = self.apply(&mut w2, call);
        if out.failure.is_some() {
            recycle_world(w2);
            return CallStep::Failed(CallFailure::Call);
        }
        if self.scope.walkers > 0 && depth < self.scope.walker_depth {
            match against_walkers(self, w, call) {
                WalkerRun::Holds => {}
                WalkerRun::Violation(t) => return CallStep::Failed(CallFailure::Interleaving(t)),
                WalkerRun::Incomplete(reason) => return CallStep::Stopped(reason),
            }
        }
        CallStep::Next(self.canonical_of_spare(w2))
    }
}

/// [`search`] within an existing budget (time, memory, stop requests); the state bound is the
/// scope's.
pub(crate) fn search_within(
    prog: &Program,
    model_name: &str,
    scope: &Scope,
    budget: &Arc<Budget>,
    progress: OnProgress<'_>,
) -> (Outcome, Stats) {
    let sys = CallSystem::new(prog, scope, Arc::clone(budget));
    let cfg = Config {
        max_depth: scope.max_depth,
        max_states: scope.max_states,
        threads: Config::cores(),
        batch: BATCH,
    };
    let (verdict, stats) = if scope.commute {
        let sys = super::commute::CommuteSystem { calls: sys };
        checker::bfs(&sys, &cfg, budget, progress)
    } else {
        checker::bfs(&sys, &cfg, budget, progress)
    };
    (outcome_of(prog, model_name, scope, verdict), stats)
}

/// The [`Outcome`] of a search of `prog` over call sequences that ended in `verdict`: a failing
/// path is re-run from the scope's initial world into a trace.
pub(crate) fn outcome_of(
    prog: &Program,
    model_name: &str,
    scope: &Scope,
    verdict: Verdict<Call, CallFailure>,
) -> Outcome {
    let initial = scope.initial_scenario();
    match verdict {
        Verdict::Holds { exhausted } => Outcome::Holds { exhausted },
        Verdict::Incomplete {
            reason,
            complete_depth,
        } => Outcome::Incomplete {
            reason,
            complete_depth,
        },
        Verdict::Error(reason) => Outcome::Incomplete {
            reason,
            complete_depth: 0,
        },
        Verdict::FailedInitial(f) => {
            let v0 = match f {
                CallFailure::Initial(v) => v,
                _ => Vec::new(),
            };
            Outcome::Counterexample(Box::new(super::replay::initial_trace(
                prog, model_name, scope, &initial, v0,
            )))
        }
        Verdict::Failed { path, failure } => match failure {
            CallFailure::Interleaving(mut t) => {
                t.model = model_name.to_string();
                t.prefix = path[..path.len().saturating_sub(1)].to_vec();
                Outcome::Interleaving(t)
            }
            _ => {
                let path = if scope.symmetry || scope.file_symmetry {
                    match super::symmetric::unreduced_path(prog, scope, &path) {
                        Ok(p) => p,
                        Err(reason) => {
                            return Outcome::Incomplete {
                                reason,
                                complete_depth: path.len().saturating_sub(1) as u32,
                            }
                        }
                    }
                } else {
                    path
                };
                Outcome::Counterexample(Box::new(super::replay::build_trace(
                    prog, model_name, scope, &initial, &path,
                )))
            }
        },
    }
}

/// Frontier states expanded together (in parallel, merged in order so results are the same as
/// a sequential search).
const BATCH: usize = 256;

/// What running one call against the walkers found.
enum WalkerRun {
    Holds,
    Violation(Box<ITrace>),
    /// An exploration stopped short (a bound, or a walker set that could not be set up).
    Incomplete(String),
}

/// Run `call` from `w` against every set of `scope.walkers` walkers, in every interleaving;
/// the first violation found. An exploration that stops short makes the whole run incomplete:
/// it is never read as "no violation".
fn against_walkers(sys: &CallSystem<'_>, w: &World, call: &Call) -> WalkerRun {
    let (scope, prog) = (sys.scope, sys.prog);
    let cands = walkers::against(call, walkers::walker_calls(prog, w, &scope.walker_kinds));
    let cfg = InterleaveConfig {
        invariants: scope.invariant_set(),
        budget: Some(Arc::clone(&sys.budget)),
        footprints: sys.footprints.clone(),
        ..InterleaveConfig::default()
    };
    for set in walkers::combinations(&cands, scope.walkers as usize) {
        let mut calls = vec![call.clone()];
        calls.extend(set);
        match interleave::explore(prog, "", w, &calls, &cfg) {
            Ok(r) => match r.outcome {
                IOutcome::Violation(t) => return WalkerRun::Violation(t),
                IOutcome::Holds => {}
                IOutcome::Incomplete(r) => {
                    return WalkerRun::Incomplete(format!("walkers against {}: {r}", call.func))
                }
            },
            Err(e) => {
                return WalkerRun::Incomplete(format!(
                    "walkers against {} could not be set up: {e}",
                    call.func
                ))
            }
        }
    }
    WalkerRun::Holds
}

fn expand(sys: &CallSystem<'_>, w: &World, depth: u32) -> Expansion<Call, World, CallFailure> {
    let mut ex = Expansion::default();
    if sys.cut(w) {
        ex.cut = true;
        return ex;
    }
    let calls = alphabet::calls(sys.scope, sys.prog, w);
    ex.succs.reserve_exact(calls.len());
    for call in calls {
        if let Some(reason) = sys.budget.poll() {
            ex.stopped = Some(reason);
            return ex;
        }
        match sys.call_step(w, &call, depth) {
            CallStep::Next(w2) => ex.succs.push((call, w2)),
            CallStep::Failed(f) => {
                ex.failure = Some((Some(call), f));
                return ex;
            }
            CallStep::Stopped(reason) => {
                ex.stopped = Some(reason);
                return ex;
            }
        }
    }
    ex
}
