//! Interleaving exploration: one writer call (thread 0) and walker calls (threads 1..) run on
//! one world, every interleaving of their atomic steps (`Thread::step_visible`) explored
//! breadth-first with state hashing. A state is the world (with its ghost walk and read-lock
//! records) and every thread's stack; it is hashed as it is, without renumbering objects:
//! only the writer allocates, so every interleaving numbers new objects alike, and the Values
//! held in thread stacks stay valid.
//!
//! Checks after every step: what builtins raised (tree preconditions, lock discipline,
//! `walker-complete` at a walk's end, `vma-lock-stable` at a zap), the ghost observation
//! (`World::observe`: walks' required sets, read-lock holders' bounds), the structural checks
//! of unlocked trees; `deadlock` when every live thread is blocked; the whole-world checks
//! when every thread has returned. Lock-order edges of every step are collected.
//!
//! Partial-order reduction (`reduction`): in a state, if some live thread `t` can take a step
//! whose footprint (`footprint::op_footprint`) conflicts with the *remaining* footprint of no
//! other live thread (everything those threads may still do, over-approximated from where
//! each stands: `footprint::Table::remaining`, every instruction reachable from its frames'
//! positions; an exploration given no table uses their whole entry functions), only `t` is
//! stepped. Such a step is independent of every step the others can still take, so {t} is a
//! persistent set: every interleaving is equivalent to one that takes t's step first, and all
//! terminal states and deadlocks stay reachable (the state graph is acyclic: every step moves
//! a thread forward or finishes it). Persistent sets alone do not keep what is checked on the
//! states in between; that rests on the footprints: every step that changes what a per-step
//! check looks at (a tree, its keys, what a walk's oracle reads, whether a tree counts as
//! locked) conflicts with every step that looks at it or decides whether it is looked at, so
//! the two are never reordered away (see `footprint`). Otherwise every live thread is stepped:
//! threads switch only at steps that touch a class another thread also touches. A step that
//! is a field access of a VMA no other thread can reach is taken alone too (`private`). With
//! cross-checking on, each step's changes are audited against its footprint's writes
//! (`footprint_audit`), and each time the reduction steps one thread alone, the claim is
//! audited by taking that step and the others' steps in both orders (`independence`).
//!
//! A step copies its state into one the exploration is done with, shares the threads it does
//! not step with the parent and rehashes only the world and the stepped thread (`state`): the
//! states, their order and every verdict are those of plain copies, only cheaper.

use super::footprint::{conflict, op_footprint, static_footprint, Footprint, Table};
use crate::check::{self, Invariant, InvariantSet, Violation};
use crate::checker::budget::Budget;
use crate::checker::{
    self, Config as CheckerConfig, Expansion, FrontierTuning, Start, TransitionSystem, Verdict,
};
use crate::exec::host::ThreadId;
use crate::exec::{FaultKind, Step, Thread};
use crate::lang::Program;
use crate::world::conc::LockClass;
use crate::world::scenario::Call;
use crate::world::World;
use std::collections::BTreeSet;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

mod independence;
mod private;
mod state;
pub use independence::claims as independence_claims;
pub use state::IState;
use state::{recycle, spare_copy};

/// Options of an interleaving exploration.
#[derive(Clone, Debug)]
pub struct Config {
    /// Use the partial-order reduction.
    pub reduction: bool,
    /// States after which the exploration stops, incomplete.
    pub max_states: usize,
    pub invariants: InvariantSet,
    /// Run the structural tree checks after every step.
    pub per_step: bool,
    /// Time, memory and stop-request bounds (polled every few states); none: only a stop
    /// request.
    pub budget: Option<std::sync::Arc<crate::checker::budget::Budget>>,
    /// The program's footprints, worked out once for the many explorations of a search's
    /// walker phase, a proof's or a command's walker sets; none: an exploration works out
    /// those of its own threads as it goes.
    pub footprints: Option<Arc<Table>>,
}

impl Default for Config {
    fn default() -> Self {
        Config {
            reduction: true,
            max_states: 2_000_000,
            invariants: InvariantSet::all(),
            per_step: true,
            budget: None,
            footprints: None,
        }
    }
}

/// The steps and counterexamples of interleavings are trace data.
pub use crate::trace::interleaved::{IStep, ITrace};

/// How an exploration ended.
#[derive(Debug)]
pub enum IOutcome {
    Holds,
    Violation(Box<ITrace>),
    Incomplete(String),
}

/// Numbers an exploration reports.
#[derive(Clone, Debug, Default)]
pub struct IStats {
    /// Distinct states.
    pub states: usize,
    /// Steps taken (edges, including into known states).
    pub transitions: usize,
    /// Distinct final states (every thread returned).
    pub terminals: usize,
    /// States where the reduction stepped one thread only.
    pub reduced: usize,
    pub seconds: f64,
}

/// Result of [`explore`].
#[derive(Debug)]
pub struct IResult {
    pub outcome: IOutcome,
    pub stats: IStats,
    /// The outcome of every final state reached (see [`outcomes_of`]).
    pub outcomes: BTreeSet<Vec<String>>,
    /// Lock-order edges (held, acquired) seen on any step.
    pub lock_edges: BTreeSet<(LockClass, LockClass)>,
}

/// Fingerprint of a state.
pub(crate) fn state_fingerprint(s: &IState) -> u64 {
    crate::world::fingerprint::stable_hash(s)
}

/// What the threads computed in a final state: each thread's return value and each walk's
/// found set. Two explorers agree on the interleavings they cover when they report the same
/// set of these.
pub fn outcomes_of(prog: &Program, s: &IState) -> Vec<String> {
    let _ = prog;
    let mut out: Vec<String> = s
        .threads
        .iter()
        .enumerate()
        .map(|(i, t)| format!("T{i} {}", t.result().map_or("?".into(), |v| v.to_string())))
        .collect();
    for w in &s.world.walks {
        let f: Vec<String> = w.found.iter().map(|v| format!("vma#{v}")).collect();
        out.push(format!("T{} found {{{}}}", w.tid, f.join(", ")));
    }
    out
}

/// The initial state: ghosts set from the trees, one thread per call.
pub fn initial_state(prog: &Program, world: &World, calls: &[Call]) -> Result<IState, String> {
    if calls.is_empty() || calls.len() > 16 {
        return Err(format!("{} threads: need 1 to 16", calls.len()));
    }
    let mut w = world.clone();
    w.init_ghosts();
    w.take_violations();
    w.take_lock_edges();
    let threads = calls
        .iter()
        .map(|c| Thread::start(prog, &c.func, &c.args).map_err(|e| format!("{c}: {e}")))
        .collect::<Result<Vec<_>, _>>()?;
    Ok(IState::new(w, threads))
}

/// What one step of one thread led to.
pub enum Next {
    /// A successor state, the step, and what the checks found (empty: fine).
    Step(Box<IState>, IStep, Vec<Violation>, Footprint),
    /// The thread waits for a lock; nothing changed.
    Blocked,
}

/// Step thread `tid` of `s` once, with every check on; lock-order edges go to `edges`.
pub fn step_thread(
    prog: &Program,
    s: &IState,
    tid: usize,
    cfg: &Config,
    edges: &mut BTreeSet<(LockClass, LockClass)>,
) -> Next {
    let mut n = spare_copy(s);
    // the object this step's field access touches, if any (`private`)
    n.world.scratch.last_field = None;
    let t = tid as ThreadId;
    let step = n.step_with(tid, |thread, world| thread.step_visible(prog, world, t));
    // a thread that does not describe its steps (the exploration's) records no text: the
    // steps of a counterexample are described when its path is replayed (`described_steps`)
    let describe = n.threads[tid].describes();
    let func = if describe {
        n.threads[tid]
            .backtrace(prog)
            .first()
            .map(|(f, _)| f.clone())
            .unwrap_or_default()
    } else {
        String::new()
    };
    let (rec, mut v, fp) = match step {
        Step::Blocked => {
            recycle(n);
            return Next::Blocked;
        }
        Step::Ran(ev) => {
            let fp = match &cfg.footprints {
                Some(table) => n.threads[tid].last_pc(prog).map(|(f, pc)| table.op(f, pc)),
                None => n.threads[tid]
                    .last_op(prog)
                    .map(|op| op_footprint(prog, op)),
            }
            .unwrap_or_default();
            (
                IStep {
                    tid: t,
                    loc: Some(ev.loc),
                    func,
                    what: ev.what,
                },
                Vec::new(),
                fp,
            )
        }
        Step::Finished(val) => (
            IStep {
                tid: t,
                loc: None,
                func: String::new(),
                what: if describe {
                    format!("returns {val}")
                } else {
                    String::new()
                },
            },
            Vec::new(),
            Footprint::new(),
        ),
        Step::Failed(f) => {
            let inv = match f.kind {
                FaultKind::Assertion { .. } => Invariant::ModelAssert,
                _ => Invariant::ModelFault,
            };
            (
                IStep {
                    tid: t,
                    loc: Some(f.loc),
                    func,
                    what: f.message.clone(),
                },
                vec![Violation::new(inv, f.message.clone())],
                Footprint::new(),
            )
        }
    };
    if check::crosscheck::on() && !n.threads[tid].is_failed() {
        audit_footprint(prog, s, &n, tid, fp);
    }
    v.extend(check::from_world(&mut n.world));
    n.world.observe();
    v.extend(check::from_world(&mut n.world));
    if cfg.per_step {
        v.extend(check::after_step(&mut n.world, cfg.invariants));
    }
    edges.extend(n.world.take_lock_edges());
    let mut v = cfg.invariants.filter(v);
    if n.threads[tid].is_failed() && v.is_empty() {
        // the thread cannot go on, whatever is checked
        v.push(Violation::new(Invariant::ModelFault, rec.what.clone()));
    }
    if v.is_empty() && n.threads.iter().all(|t| t.is_finished()) {
        v = check::at_boundary(&n.world, cfg.invariants);
    }
    Next::Step(n, rec, v, fp)
}

/// With cross-checking on: record a step that changed a class its footprint does not write
/// (`footprint_audit`).
#[cold]
fn audit_footprint(prog: &Program, before: &IState, after: &IState, tid: usize, fp: Footprint) {
    let changed = super::footprint_audit::written(&before.world, &after.world, tid as ThreadId);
    let missing = super::footprint_audit::unaccounted(changed, fp);
    let difference = (!missing.is_empty()).then(|| {
        let at = after.threads[tid]
            .last_pc(prog)
            .map(|(f, pc)| {
                let i = &prog.func(f).code[pc];
                format!("{:?} at {}", i.op, prog.loc_text(i.loc))
            })
            .unwrap_or_default();
        format!("footprint of thread {tid}'s step {at} lacks the writes {missing:?}")
    });
    check::crosscheck::record(difference);
}

fn live(s: &IState) -> Vec<usize> {
    (0..s.threads.len())
        .filter(|&i| !s.threads[i].is_finished() && !s.threads[i].is_failed())
        .collect()
}

/// The interleavings of one thread set as a [`TransitionSystem`]: states are worlds with
/// every thread's stack, actions the steps of one thread, a step fails when a check finds a
/// violation, and a state fails when every live thread waits (a deadlock). Final states'
/// outcomes, lock-order edges and reduction counts are collected on the side.
struct Threads<'a> {
    prog: &'a Program,
    cfg: &'a Config,
    statics: Vec<Footprint>,
    outcomes: Mutex<BTreeSet<Vec<String>>>,
    edges: Mutex<BTreeSet<(LockClass, LockClass)>>,
    terminals: AtomicUsize,
    reduced: AtomicUsize,
    /// Expansions so far (for [`POLL_EVERY`]).
    expansions: AtomicUsize,
    s0: Mutex<Option<IState>>,
}

/// Expansions of an exploration per poll of its budget.
const POLL_EVERY: usize = 16;

/// What failed: the violations and the world they were found in.
struct ThreadFailure {
    violations: Vec<Violation>,
    world: World,
}

impl TransitionSystem for Threads<'_> {
    /// Boxed: states move between the frontier, the expansion and the spares ([`recycle`]).
    type State = Box<IState>;
    /// The thread that takes the step: a counterexample's steps are described by replaying
    /// its path ([`described_steps`]), so that the search keeps no text per state.
    type Action = u8;
    type Failure = ThreadFailure;

    fn initial(&self) -> Result<Box<IState>, Start<ThreadFailure>> {
        let s = self.s0.lock().ok().and_then(|mut g| g.take()).map(Box::new);
        s.ok_or_else(|| Start::Error("the initial state was taken twice".into()))
    }

    fn fingerprint(&self, s: &Box<IState>) -> u64 {
        state_fingerprint(s)
    }

    fn expand(
        &self,
        s: &Box<IState>,
        _: u32,
        budget: &Budget,
    ) -> Expansion<u8, Box<IState>, ThreadFailure> {
        let mut ex = Expansion::default();
        // a step takes microseconds: every POLL_EVERY-th expansion polls the budget (a
        // clock read), besides the search's poll after every batch it merges
        if self
            .expansions
            .fetch_add(1, Ordering::Relaxed)
            .is_multiple_of(POLL_EVERY)
        {
            if let Some(reason) = budget.poll() {
                ex.stopped = Some(reason);
                return ex;
            }
        }
        let alive = live(s);
        if alive.is_empty() {
            self.terminals.fetch_add(1, Ordering::Relaxed);
            if let Ok(mut o) = self.outcomes.lock() {
                o.insert(outcomes_of(self.prog, s));
            }
            return ex;
        }
        // what each thread may still touch: from where it stands when the program's table is
        // at hand, else (an exploration on its own) its whole entry function
        // (at most 16 threads: `initial_state`)
        let mut rests = [Footprint::default(); 16];
        for (u, rest) in rests.iter_mut().enumerate().take(s.threads.len()) {
            *rest = match (&self.cfg.footprints, self.cfg.reduction) {
                (Some(table), true) => table.remaining(s.threads[u].frame_positions()),
                _ => self.statics[u],
            };
        }
        let mut edges = BTreeSet::new();
        let mut blocked = 0;
        for &t in &alive {
            match step_thread(self.prog, s, t, self.cfg, &mut edges) {
                Next::Blocked => blocked += 1,
                Next::Step(n, _, v, fp) => {
                    if !v.is_empty() {
                        ex.failure = Some((
                            Some(t as u8),
                            ThreadFailure {
                                violations: v,
                                world: n.world,
                            },
                        ));
                        break;
                    }
                    // a field access of a VMA only `t` can reach touches nothing the others
                    // can (`private`)
                    let independent = alive
                        .iter()
                        .filter(|&&u| u != t)
                        .all(|&u| !conflict(&fp, &rests[u]))
                        || (self.cfg.reduction && private::on_private_vma(self.prog, s, &n, t));
                    if self.cfg.reduction && independent {
                        if check::crosscheck::on() {
                            independence::audit(self.prog, s, t, &alive, self.cfg);
                        }
                        for (_, other) in ex.succs.drain(..) {
                            recycle(other);
                        }
                        ex.succs.push((t as u8, n));
                        self.reduced.fetch_add(1, Ordering::Relaxed);
                        break;
                    }
                    ex.succs.push((t as u8, n));
                }
            }
        }
        if let Ok(mut e) = self.edges.lock() {
            e.extend(edges);
        }
        if ex.failure.is_none() && blocked == alive.len() {
            let who: Vec<String> = alive
                .iter()
                .map(|&t| {
                    let at = s.threads[t]
                        .loc(self.prog)
                        .map(|l| self.prog.loc_text(l))
                        .unwrap_or_default();
                    format!("thread {t} at {at}")
                })
                .collect();
            let v = vec![Violation::new(
                Invariant::Deadlock,
                format!("every live thread waits for a lock: {}", who.join("; ")),
            )];
            ex.failure = Some((
                None,
                ThreadFailure {
                    violations: v,
                    world: s.world.clone(),
                },
            ));
        }
        ex
    }
}

/// Whole states, handed back to the spares when the search is done with them.
impl FrontierTuning for Threads<'_> {
    fn recycle(&self, s: Box<IState>) {
        recycle(s);
    }

    /// The walker phase of a search runs thousands of explorations; none reports it.
    const MEMORY_FIGURE: bool = false;
}

/// The steps of `path` (the thread of each step) from `s`, whose threads describe their
/// steps: the same steps the exploration took (the interpreter is deterministic), now with
/// their text.
fn described_steps(prog: &Program, mut s: IState, path: &[u8], cfg: &Config) -> Vec<IStep> {
    let mut steps = Vec::with_capacity(path.len());
    let mut edges = BTreeSet::new();
    for &tid in path {
        match step_thread(prog, &s, tid as usize, cfg, &mut edges) {
            Next::Step(n, rec, _, _) => {
                steps.push(rec);
                s = *n;
            }
            // never on a path the exploration took: a blocked step is not an edge
            Next::Blocked => break,
        }
    }
    steps
}

/// A scenario's world after its setup calls (all but the last, run one at a time), and the
/// last call: the writer of an interleaving.
pub fn setup(prog: &Program, text: &str) -> Result<(World, Call), String> {
    let s = crate::world::scenario::Scenario::parse(text).map_err(|e| e.to_string())?;
    let mut w = s.build().map_err(|e| e.to_string())?.canonical();
    let mut calls = s.parsed_calls().map_err(|e| e.to_string())?;
    let Some(writer) = calls.pop() else {
        return Err("the scenario has no calls: the last one is the writer".into());
    };
    for c in &calls {
        let r =
            crate::explore::op::apply(prog, &mut w, c, crate::explore::op::CheckOpts::default());
        if let Some(f) = r.failure {
            return Err(format!("setup call {c} fails: {:?}", f.violations));
        }
        w = w.canonical();
    }
    Ok((w, writer))
}

/// Explore every interleaving of `calls` (thread i runs calls[i]) from `world`.
pub fn explore(
    prog: &Program,
    model: &str,
    world: &World,
    calls: &[Call],
    cfg: &Config,
) -> Result<IResult, String> {
    // the threads of `described` describe their steps, for a counterexample's replay; the
    // exploration's do not
    let described = initial_state(prog, world, calls)?;
    let mut s0 = described.clone();
    for t in 0..s0.threads.len() {
        s0.step_with(t, |thread, _| thread.set_describe(false));
    }
    let statics = calls
        .iter()
        .map(|c| {
            let f = prog.function(&c.func).expect("checked at start");
            match &cfg.footprints {
                Some(table) => table.of_function(f),
                None => static_footprint(prog, f),
            }
        })
        .collect();
    let sys = Threads {
        prog,
        cfg,
        statics,
        outcomes: Mutex::new(BTreeSet::new()),
        edges: Mutex::new(BTreeSet::new()),
        terminals: AtomicUsize::new(0),
        reduced: AtomicUsize::new(0),
        expansions: AtomicUsize::new(0),
        s0: Mutex::new(Some(s0)),
    };
    let budget = cfg.budget.clone().unwrap_or_else(Budget::unlimited);
    let ccfg = CheckerConfig {
        // every step moves a thread forward: the graph is finite and acyclic
        max_depth: u32::MAX,
        max_states: cfg.max_states,
        threads: 1,
        batch: 64,
    };
    let (verdict, st) = checker::bfs(&sys, &ccfg, &budget, &mut |_| {});
    let stats = IStats {
        states: st.states,
        transitions: st.transitions,
        terminals: sys.terminals.load(Ordering::Relaxed),
        reduced: sys.reduced.load(Ordering::Relaxed),
        seconds: st.seconds,
    };
    let outcome = match verdict {
        Verdict::Holds { .. } => IOutcome::Holds,
        Verdict::Incomplete { reason, .. } => IOutcome::Incomplete(reason),
        Verdict::Error(e) => return Err(e),
        Verdict::FailedInitial(f) => IOutcome::Violation(Box::new(ITrace {
            model: model.to_string(),
            prefix: Vec::new(),
            world_before: described.world.render(),
            calls: calls.to_vec(),
            steps: Vec::new(),
            violations: f.violations,
            world_after: f.world.render(),
        })),
        Verdict::Failed { path, failure } => IOutcome::Violation(Box::new(ITrace {
            model: model.to_string(),
            prefix: Vec::new(),
            world_before: described.world.render(),
            calls: calls.to_vec(),
            steps: described_steps(prog, described, &path, cfg),
            violations: failure.violations,
            world_after: failure.world.render(),
        })),
    };
    Ok(IResult {
        outcome,
        stats,
        outcomes: sys.outcomes.into_inner().unwrap_or_default(),
        lock_edges: sys.edges.into_inner().unwrap_or_default(),
    })
}
