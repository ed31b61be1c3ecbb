//! Counterexample traces: the initial world, the calls, and inside the last call the steps up to
//! the failing one. Built by re-running the calls (the explorer keeps only parent links), kept as
//! JSON for `rmapcheck replay`, rendered as plain text for patch reviews and as DOT for the trees,
//! and minimised by dropping calls and files while the same invariant still fails.

pub mod dot;
pub mod interleaved;
pub mod minimise;
pub mod text;

use crate::check::{InvariantSet, Violation};
use crate::explore::op::{apply, CheckOpts, Failure, StepRecord};
use crate::explore::scope::Scope;
use crate::lang::Program;
use crate::world::scenario::{Call, Scenario};
use crate::world::World;
use serde::{Deserialize, Serialize};

/// A counterexample.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Trace {
    /// Path of the model file.
    pub model: String,
    /// Fingerprint of the model's sources, so a replay knows it runs the same model.
    pub model_hash: String,
    pub scope: Scope,
    /// The initial world (ids renumbered canonically before the first call).
    pub initial: Scenario,
    /// The calls; the last one fails. Object ids refer to the canonical world before each call.
    pub calls: Vec<Call>,
    /// Visible steps of the last call up to the failing one.
    pub steps: Vec<StepRecord>,
    /// Where and what failed; `None` if re-running did not reproduce a failure.
    pub failure: Option<Failure>,
    /// The world before the last call and at the failure, rendered.
    pub world_before: String,
    pub world_after: String,
    /// DOT of the trees at the failure.
    pub dot: String,
}

/// Fingerprint of a program's sources (all included files).
pub fn model_hash(prog: &Program) -> String {
    use std::hash::{Hash, Hasher};
    #[allow(deprecated)]
    let mut h = std::hash::SipHasher::new();
    for f in prog.sources().files() {
        f.text.hash(&mut h);
    }
    format!("{:016x}", h.finish())
}

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
) -> Result<Rerun, String> {
    let mut w = initial.build()?.canonical();
    let opts = CheckOpts {
        invariants,
        ..CheckOpts::default()
    };
    for (i, c) in calls.iter().enumerate() {
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

impl Trace {
    /// Re-run the calls a search found and build the trace (with every step recorded).
    pub fn replay_build(
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
                Some(Failure {
                    step: None,
                    loc: None,
                    violations: vec![Violation::new("model-fault", e)],
                }),
                World::new(),
                World::new(),
                calls.to_vec(),
            ),
        };
        Trace {
            model: model.to_string(),
            model_hash: model_hash(prog),
            scope: scope.clone(),
            initial: initial.clone(),
            calls,
            steps,
            failure,
            world_before: before.render(),
            world_after: after.render(),
            dot: dot::trees_dot(&after),
        }
    }

    /// A trace for an initial world that already violates an invariant.
    pub fn from_initial(
        prog: &Program,
        model: &str,
        scope: &Scope,
        initial: &Scenario,
        violations: Vec<Violation>,
    ) -> Trace {
        let w = initial.build().map(|w| w.canonical()).unwrap_or_default();
        Trace {
            model: model.to_string(),
            model_hash: model_hash(prog),
            scope: scope.clone(),
            initial: initial.clone(),
            calls: Vec::new(),
            steps: Vec::new(),
            failure: Some(Failure {
                step: None,
                loc: None,
                violations,
            }),
            world_before: w.render(),
            world_after: w.render(),
            dot: dot::trees_dot(&w),
        }
    }

    /// The invariant the trace shows failing.
    pub fn invariant(&self) -> &str {
        self.failure.as_ref().map_or("", |f| f.invariant())
    }

    pub fn to_json(&self) -> String {
        serde_json::to_string_pretty(self).unwrap_or_default()
    }

    pub fn from_json(text: &str) -> Result<Trace, String> {
        serde_json::from_str(text).map_err(|e| format!("{}:{}: {e}", e.line(), e.column()))
    }
}

/// What replaying a trace found.
#[derive(Debug, PartialEq, Eq)]
pub struct ReplayResult {
    /// Same invariant at the same call and step as recorded.
    pub reproduced: bool,
    pub invariant: String,
    pub call: Option<usize>,
    pub step: Option<usize>,
}

/// Re-run a trace's calls on `prog` and compare with what it recorded.
pub fn replay(prog: &Program, t: &Trace) -> Result<ReplayResult, String> {
    let r = rerun(prog, &t.initial, &t.calls, t.scope.invariant_set())?;
    let invariant = r
        .failure
        .as_ref()
        .map_or(String::new(), |f| f.invariant().to_string());
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
