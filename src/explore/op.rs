//! Apply one entry-point call to a world with every check on: the step-local violations the
//! builtins raise, the structural tree checks after each visible step, and the whole-world checks
//! when the call returns. Used by `rmapcheck run`, the explorer, replay and minimisation.

use crate::check::{self, Invariant, InvariantSet, Violation};
use crate::exec::{FaultKind, Step, Thread};
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

/// Apply `call` to `world` (single thread 0). The world is left as the call left it, also when
/// it failed.
pub fn apply(prog: &Program, world: &mut World, call: &Call, opts: CheckOpts) -> OpOutcome {
    let mut steps = Vec::new();
    world.take_violations();
    // mapping-preserved compares the page tables a call leaves with those it started from
    let preserved = opts
        .invariants
        .contains(Invariant::MappingPreserved)
        .then(|| {
            (
                check::pages::page_tables(world),
                check::pages::pte_change(call, world),
            )
        });
    let fail = |steps: &Vec<StepRecord>, loc: Option<SrcLoc>, violations: Vec<Violation>| {
        Some(Failure {
            step: steps.len().checked_sub(1),
            loc,
            violations,
        })
    };
    let mut thread = match Thread::start(prog, &call.func, &call.args) {
        Ok(t) => t,
        Err(e) => {
            return OpOutcome {
                steps,
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
                let mut v = opts.invariants.filter(check::from_world(world));
                if opts.per_step {
                    v.extend(check::after_step(world, opts.invariants));
                }
                if !v.is_empty() {
                    return OpOutcome {
                        failure: fail(&steps, Some(ev.loc), v),
                        steps,
                    };
                }
            }
            Step::Blocked => {
                let loc = thread.loc(prog);
                let v = Violation::new(
                    Invariant::LockDiscipline,
                    "deadlock: the call waits for a lock that only it could release",
                );
                // a deadlocked call cannot go on, whatever is checked
                return OpOutcome {
                    failure: fail(&steps, loc, vec![v]),
                    steps,
                };
            }
            Step::Finished(_) => {
                let mut v = check::at_boundary(world, opts.invariants);
                if let (true, Some((before, change))) = (v.is_empty(), &preserved) {
                    v = check::pages::check_mapping_preserved(before, *change, world);
                }
                let failure = (!v.is_empty()).then_some(Failure {
                    step: None,
                    loc: None,
                    violations: v,
                });
                return OpOutcome { steps, failure };
            }
            Step::Failed(f) => {
                let inv = match f.kind {
                    FaultKind::Assertion { .. } => Invariant::ModelAssert,
                    _ => Invariant::ModelFault,
                };
                if opts.record {
                    steps.push(StepRecord {
                        loc: f.loc,
                        func,
                        what: f.message.clone(),
                    });
                }
                let mut v = check::from_world(world);
                v.insert(0, Violation::new(inv, f.message.clone()));
                let v = opts.invariants.filter(v);
                if v.is_empty() {
                    // the invariant is not checked: the run still cannot go on
                    let v = vec![Violation::new(inv, f.message.clone())];
                    return OpOutcome {
                        failure: fail(&steps, Some(f.loc), v),
                        steps,
                    };
                }
                return OpOutcome {
                    failure: fail(&steps, Some(f.loc), v),
                    steps,
                };
            }
        }
    }
    let loc = thread.loc(prog);
    OpOutcome {
        failure: fail(
            &steps,
            loc,
            vec![Violation::new(
                Invariant::ModelFault,
                format!("{call} did not return within {MAX_STEPS_PER_CALL} steps"),
            )],
        ),
        steps,
    }
}
