//! Apply one entry-point call to a world with every check on: the step-local violations the
//! builtins raise, the structural tree checks after each visible step, and the whole-world checks
//! when the call returns. Used by `rmapcheck run`, the explorer, replay and minimisation.
//!
//! Two engines run the call: the reference interpreter ([`apply`], which can record every step
//! for traces) and the compiled engine ([`apply_compiled`], the explorer's default), with the
//! same checks at the same steps.

use crate::check::{self, Invariant, InvariantSet, Violation};
use crate::exec::compiled::Code;
use crate::exec::machine::{run_call, Ended, Site};
use crate::exec::thread::entry_args;
use crate::exec::{Fault, FaultKind, Step, Thread};
use crate::lang::{Program, SrcLoc};
use crate::world::scenario::Call;
use crate::world::World;

/// Visible steps one call may take before it is reported as not terminating.
pub(crate) const MAX_STEPS_PER_CALL: usize = 200_000;

/// The steps and failures a call records are trace data.
pub use crate::trace::{Failure, StepRecord};

/// Result of applying one call.
#[derive(Clone, Debug)]
pub struct OpOutcome {
    pub steps: Vec<StepRecord>,
    pub failure: Option<Failure>,
}

/// Options for a call's checks.
#[derive(Clone, Copy, Debug)]
pub struct CheckOpts {
    /// Record every visible step (needed for traces; the explorer turns it off).
    pub record: bool,
    /// Run the structural tree checks after every visible step.
    pub per_step: bool,
    /// The invariants to check.
    pub invariants: InvariantSet,
}

impl Default for CheckOpts {
    fn default() -> Self {
        CheckOpts {
            record: true,
            per_step: true,
            invariants: InvariantSet::all(),
        }
    }
}

/// Apply `call` to `world` (single thread 0) with the reference interpreter. The world is
/// left as the call left it, also when it failed.
pub fn apply(prog: &Program, world: &mut World, call: &Call, opts: CheckOpts) -> OpOutcome {
    let mut steps = Vec::new();
    world.take_violations();
    let preserved = preserved(world, call, opts);
    let fail = |steps: &Vec<StepRecord>, loc: Option<SrcLoc>, violations: Vec<Violation>| {
        Some(Failure {
            step: steps.len().checked_sub(1),
            loc,
            violations,
        })
    };
    let mut thread = match Thread::start(prog, &call.func, &call.args) {
        Ok(t) => t,
        Err(e) => return start_failure(call, e),
    };
    thread.set_describe(opts.record);
    for _ in 0..MAX_STEPS_PER_CALL {
        let step = thread.step_visible(prog, world, 0);
        // the function the step ran in: the visible instructions never leave their frame
        let func = if opts.record {
            thread
                .backtrace(prog)
                .first()
                .map(|(f, _)| f.clone())
                .unwrap_or_else(|| call.func.clone())
        } else {
            String::new()
        };
        match step {
            Step::Ran(ev) => {
                if opts.record {
                    steps.push(StepRecord {
                        loc: ev.loc,
                        func,
                        what: ev.what,
                    });
                }
                let v = step_violations(world, opts);
                if !v.is_empty() {
                    return OpOutcome {
                        failure: fail(&steps, Some(ev.loc), v),
                        steps,
                    };
                }
            }
            Step::Blocked => {
                let loc = thread.loc(prog);
                // a deadlocked call cannot go on, whatever is checked
                return OpOutcome {
                    failure: fail(&steps, loc, vec![deadlock()]),
                    steps,
                };
            }
            Step::Finished(_) => {
                let failure = finished(world, opts, &preserved);
                return OpOutcome { steps, failure };
            }
            Step::Failed(f) => {
                if opts.record {
                    steps.push(StepRecord {
                        loc: f.loc,
                        func,
                        what: f.message.clone(),
                    });
                }
                let v = fault_violations(world, opts, &f);
                return OpOutcome {
                    failure: fail(&steps, Some(f.loc), v),
                    steps,
                };
            }
        }
    }
    let loc = thread.loc(prog);
    OpOutcome {
        failure: fail(&steps, loc, vec![step_limit(call)]),
        steps,
    }
}

/// What mapping-preserved compares the call's end with: the page tables it starts from and
/// the change it may make to them (when that invariant is checked).
type Preserved = Option<(Vec<crate::world::pages::PageTable>, check::pages::PteChange)>;

fn preserved(world: &World, call: &Call, opts: CheckOpts) -> Preserved {
    opts.invariants
        .contains(Invariant::MappingPreserved)
        .then(|| {
            (
                check::pages::page_tables(world),
                check::pages::pte_change(call, world),
            )
        })
}

/// A call that cannot start (no such function, arguments that do not fit).
fn start_failure(call: &Call, e: String) -> OpOutcome {
    OpOutcome {
        steps: Vec::new(),
        failure: Some(Failure {
            step: None,
            loc: None,
            violations: vec![Violation::new(
                Invariant::ModelFault,
                format!("{call}: {e}"),
            )],
        }),
    }
}

/// The checks after a visible step: the violations the builtins raised, then the structural
/// checks of the trees the step may have changed.
fn step_violations(world: &mut World, opts: CheckOpts) -> Vec<Violation> {
    let mut v = opts.invariants.filter(check::from_world(world));
    if opts.per_step {
        v.extend(check::after_step(world, opts.invariants));
    }
    v
}

fn deadlock() -> Violation {
    Violation::new(
        Invariant::LockDiscipline,
        "deadlock: the call waits for a lock that only it could release",
    )
}

/// The checks when the call has returned (the structural ones on the trees the call marked,
/// `check::at_call_end`); a call that passes them leaves no tree marked.
fn finished(world: &mut World, opts: CheckOpts, preserved: &Preserved) -> Option<Failure> {
    if opts.invariants.is_empty() {
        // every check below would be filtered out, and the tree marks stay as they are
        return None;
    }
    let mut v = check::at_call_end(world, opts.invariants);
    if let (true, Some((before, change))) = (v.is_empty(), preserved) {
        v = check::pages::check_mapping_preserved(before, *change, world);
    }
    if v.is_empty() {
        check::passed(world, opts.invariants);
    }
    (!v.is_empty()).then_some(Failure {
        step: None,
        loc: None,
        violations: v,
    })
}

/// The violations of a call that faulted: the fault's own (an assertion or a model fault)
/// first, then those the builtins raised; the fault's alone when none of them is checked
/// (the run cannot go on anyway).
fn fault_violations(world: &mut World, opts: CheckOpts, f: &Fault) -> Vec<Violation> {
    let inv = match f.kind {
        FaultKind::Assertion { .. } => Invariant::ModelAssert,
        _ => Invariant::ModelFault,
    };
    let mut v = check::from_world(world);
    v.insert(0, Violation::new(inv, f.message.clone()));
    let v = opts.invariants.filter(v);
    if v.is_empty() {
        vec![Violation::new(inv, f.message.clone())]
    } else {
        v
    }
}

fn step_limit(call: &Call) -> Violation {
    Violation::new(
        Invariant::ModelFault,
        format!("{call} did not return within {MAX_STEPS_PER_CALL} steps"),
    )
}

/// [`apply`] with the compiled engine (`exec::machine`): the same world and the same failure
/// (invariants, messages, location). Steps are not recorded: with `opts.record` the reference
/// interpreter runs the call, so traces always come from it.
pub fn apply_compiled(
    code: &Code,
    prog: &Program,
    world: &mut World,
    call: &Call,
    opts: CheckOpts,
) -> OpOutcome {
    if opts.record {
        return apply(prog, world, call, opts);
    }
    world.take_violations();
    let preserved = preserved(world, call, opts);
    let (entry, args) = match entry_args(prog, &call.func, &call.args) {
        Ok(x) => x,
        Err(e) => return start_failure(call, e),
    };
    let mut failed = None;
    let mut visible = |w: &mut World, site: Site| {
        if w.scratch.violations.is_empty() && !w.scratch.trees_dirty {
            return false;
        }
        let v = step_violations(w, opts);
        if v.is_empty() {
            return false;
        }
        failed = Some(Failure {
            step: None,
            loc: Some(site.loc(prog)),
            violations: v,
        });
        true
    };
    let ended = run_call(
        code,
        prog,
        world,
        entry,
        &args,
        MAX_STEPS_PER_CALL,
        &mut visible,
    );
    let at = |loc: Option<SrcLoc>, violations| {
        Some(Failure {
            step: None,
            loc,
            violations,
        })
    };
    let failure = match ended {
        Ended::Stopped => failed,
        Ended::Finished => finished(world, opts, &preserved),
        Ended::Blocked(loc) => at(Some(loc), vec![deadlock()]),
        Ended::Failed(f) => at(Some(f.loc), fault_violations(world, opts, &f)),
        Ended::Limit(loc) => at(loc, vec![step_limit(call)]),
    };
    OpOutcome {
        steps: Vec::new(),
        failure,
    }
}
