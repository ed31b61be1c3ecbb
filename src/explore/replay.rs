//! Re-running calls on a model: the counterexample traces a search hands out are built by
//! re-running the calls it found (the explorer keeps only parent links), a saved trace is
//! replayed to see whether its violation still occurs, and the kernel form of each call is
//! read in the world just before it. The traces themselves are plain data in [`crate::trace`].

use super::op::{apply, CheckOpts};
use crate::check::{Invariant, InvariantSet, Violation};
use crate::lang::Program;
use crate::scope::Scope;
use crate::trace::{self, calls::kernel_form, dot, Failure, StepRecord, Trace, TRACE_FORMAT};
use crate::world::scenario::{Call, Scenario, ScenarioError};
use crate::world::World;

/// Why a call of a trace cannot be applied to a model (see [`replay`]).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ReplayError {
    /// The initial world cannot be built.
    #[error("{0}")]
    Initial(#[from] ScenarioError),
    /// Call `index` (0-based) is not one the model can run in the world before it.
    #[error("call {} `{call}`: {reason}", index + 1)]
    Call {
        index: usize,
        call: Call,
        reason: String,
    },
}

/// Checks a call before it is applied: `Err` with the reason it cannot be.
pub(crate) type CallCheck<'a> = &'a dyn Fn(&World, &Call) -> Result<(), String>;

/// Result of re-running calls from an initial world.
pub struct Rerun {
    pub steps: Vec<StepRecord>,
    pub failure: Option<Failure>,
    /// Index of the call that failed.
    pub failed_call: Option<usize>,
    pub before: World,
    pub after: World,
}

/// Re-run `calls` from `initial`, canonicalising between calls as the explorer does; stops at
/// the first failing call.
pub fn rerun(
    prog: &Program,
    initial: &Scenario,
    calls: &[Call],
    invariants: InvariantSet,
) -> Result<Rerun, ReplayError> {
    rerun_checked(prog, initial, calls, invariants, None)
}

/// [`rerun`], with `check` (when given) asked about each call in the world just before it; a
/// call it refuses ends the re-run with [`ReplayError::Call`].
pub(crate) fn rerun_checked(
    prog: &Program,
    initial: &Scenario,
    calls: &[Call],
    invariants: InvariantSet,
    check: Option<CallCheck>,
) -> Result<Rerun, ReplayError> {
    let mut w = initial.build().map_err(ReplayError::Initial)?.canonical();
    let opts = CheckOpts {
        invariants,
        ..CheckOpts::default()
    };
    for (i, c) in calls.iter().enumerate() {
        if let Some(check) = check {
            check(&w, c).map_err(|reason| ReplayError::Call {
                index: i,
                call: c.clone(),
                reason,
            })?;
        }
        let before = w.clone();
        let out = apply(prog, &mut w, c, opts);
        if out.failure.is_some() {
            return Ok(Rerun {
                steps: out.steps,
                failure: out.failure,
                failed_call: Some(i),
                before,
                after: w,
            });
        }
        w = w.canonical();
    }
    Ok(Rerun {
        steps: Vec::new(),
        failure: None,
        failed_call: None,
        before: w.clone(),
        after: w,
    })
}

/// The kernel form of each call, each in the world just before it (re-running the calls from
/// `initial` on `prog`, canonical between calls as traces number objects).
pub(crate) fn kernel_forms(prog: &Program, initial: &Scenario, calls: &[Call]) -> Vec<String> {
    let mut w = initial.build().ok().map(|w| w.canonical());
    let mut out = Vec::with_capacity(calls.len());
    for c in calls {
        out.push(kernel_form(c, w.as_ref()));
        w = w.and_then(|mut w| {
            let r = apply(prog, &mut w, c, CheckOpts::default());
            r.failure.is_none().then(|| w.canonical())
        });
    }
    out
}

/// A failure found before any call ran or outside the calls: no step, no place.
fn failure_of(violations: Vec<Violation>) -> Failure {
    Failure {
        step: None,
        loc: None,
        violations,
    }
}

/// Re-run the calls a search found and build the trace (with every step recorded). A world
/// that cannot be built is reported in the trace as a model fault.
pub(crate) fn build_trace(
    prog: &Program,
    model: &str,
    scope: &Scope,
    initial: &Scenario,
    calls: &[Call],
) -> Trace {
    let r = rerun(prog, initial, calls, scope.invariant_set());
    let (steps, failure, before, after, calls) = match r {
        Ok(r) => {
            let n = r.failed_call.map_or(calls.len(), |i| i + 1);
            (r.steps, r.failure, r.before, r.after, calls[..n].to_vec())
        }
        Err(e) => (
            Vec::new(),
            Some(failure_of(vec![Violation::new(
                Invariant::ModelFault,
                e.to_string(),
            )])),
            World::new(),
            World::new(),
            calls.to_vec(),
        ),
    };
    Trace {
        format_version: TRACE_FORMAT,
        model: model.to_string(),
        model_hash: trace::model_hash(prog),
        scope: scope.clone(),
        initial: initial.clone(),
        calls_kernel: kernel_forms(prog, initial, &calls),
        calls,
        steps,
        failure,
        world_before: before.render(),
        world_after: after.render(),
        dot: dot::trees_dot(&after),
    }
}

/// A trace for an initial world that already violates an invariant. A world that cannot be
/// built (the search built it, so it can) is reported in the trace as a model fault.
pub(crate) fn initial_trace(
    prog: &Program,
    model: &str,
    scope: &Scope,
    initial: &Scenario,
    mut violations: Vec<Violation>,
) -> Trace {
    let w = match initial.build() {
        Ok(w) => w.canonical(),
        Err(e) => {
            violations.insert(0, Violation::new(Invariant::ModelFault, e.to_string()));
            World::new()
        }
    };
    Trace {
        format_version: TRACE_FORMAT,
        model: model.to_string(),
        model_hash: trace::model_hash(prog),
        scope: scope.clone(),
        initial: initial.clone(),
        calls: Vec::new(),
        calls_kernel: Vec::new(),
        steps: Vec::new(),
        failure: Some(failure_of(violations)),
        world_before: w.render(),
        world_after: w.render(),
        dot: dot::trees_dot(&w),
    }
}

/// What replaying a trace found.
#[derive(Debug, PartialEq, Eq)]
pub struct ReplayResult {
    /// Same invariant at the same call and step as recorded.
    pub reproduced: bool,
    pub invariant: Option<Invariant>,
    pub call: Option<usize>,
    pub step: Option<usize>,
}

/// Re-run a trace's calls on `prog` and compare with what it recorded; `check` is asked about
/// each call before it runs (the fuzzing harness's `validate_call` is the one the command line
/// uses). `Err` when the world cannot be built or a call cannot be applied to the model: that
/// is bad input, not "fixed".
pub fn replay(prog: &Program, t: &Trace, check: CallCheck) -> Result<ReplayResult, ReplayError> {
    let r = rerun_checked(
        prog,
        &t.initial,
        &t.calls,
        t.scope.invariant_set(),
        Some(check),
    )?;
    let invariant = r.failure.as_ref().and_then(|f| f.invariant());
    let step = r.failure.as_ref().and_then(|f| f.step);
    let want_call = t.calls.len().checked_sub(1);
    let want_step = t.failure.as_ref().and_then(|f| f.step);
    Ok(ReplayResult {
        reproduced: r.failure.is_some()
            && invariant == t.invariant()
            && step == want_step
            && (r.failed_call == want_call || t.calls.is_empty()),
        invariant,
        call: r.failed_call,
        step,
    })
}
