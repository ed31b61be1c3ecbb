//! Counterexample traces: the initial world, the calls, and inside the last call the steps up to
//! the failing one. Built by re-running the calls (the explorer keeps only parent links), kept as
//! JSON for `rmapcheck replay`, rendered as plain text for patch reviews and as DOT for the trees,
//! and minimised by dropping calls and files while the same invariant still fails.

pub mod calls;
pub mod dot;
pub mod interleaved;
pub mod minimise;
pub mod text;

use crate::check::{Invariant, InvariantSet, Violation};
use crate::exec::host::Value;
use crate::explore::op::{apply, CheckOpts, Failure, StepRecord};
use crate::explore::scope::Scope;
use crate::lang::Program;
use crate::world::scenario::{Call, Scenario};
use crate::world::World;
use serde::{Deserialize, Serialize};

/// The version of the trace format this build writes and reads. A trace of another version
/// (or none) is refused on load rather than misread.
pub const TRACE_FORMAT: u32 = 1;

/// Largest initial world and call list a trace may hold (a search never makes bigger ones).
pub const MAX_TRACE_OBJECTS: usize = 64;
pub const MAX_TRACE_CALLS: usize = 256;

/// A counterexample.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Trace {
    /// [`TRACE_FORMAT`] of the writer; 0 when absent.
    #[serde(default)]
    pub format_version: u32,
    /// Path of the model file.
    pub model: String,
    /// Fingerprint of the model's sources, so a replay knows it runs the same model.
    pub model_hash: String,
    pub scope: Scope,
    /// The initial world (ids renumbered canonically before the first call).
    pub initial: Scenario,
    /// The calls; the last one fails. Object ids refer to the canonical world before each call.
    pub calls: Vec<Call>,
    /// The same calls as a kernel developer reads them (`mmap(mm#0, [0,1), f0 (file#0), pgoff
    /// 0, MAP_PRIVATE)`); for people, not read back.
    #[serde(default)]
    pub calls_kernel: Vec<String>,
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
                    violations: vec![Violation::new(Invariant::ModelFault, e)],
                }),
                World::new(),
                World::new(),
                calls.to_vec(),
            ),
        };
        Trace {
            format_version: TRACE_FORMAT,
            model: model.to_string(),
            model_hash: model_hash(prog),
            scope: scope.clone(),
            initial: initial.clone(),
            calls_kernel: calls::kernel_forms(prog, initial, &calls),
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
            format_version: TRACE_FORMAT,
            model: model.to_string(),
            model_hash: model_hash(prog),
            scope: scope.clone(),
            initial: initial.clone(),
            calls: Vec::new(),
            calls_kernel: Vec::new(),
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
    pub fn invariant(&self) -> Option<Invariant> {
        self.failure.as_ref().and_then(|f| f.invariant())
    }

    pub fn to_json(&self) -> String {
        // a Trace holds only strings, numbers and plain containers: serialising cannot fail
        serde_json::to_string_pretty(self).expect("a trace serialises")
    }

    /// Read a trace: a file written by `check --trace-dir`, or a `check --format json` report
    /// holding exactly one replayable counterexample. The format version and the sizes are
    /// checked; errors read `line:col: message` where the JSON parser gives a place.
    pub fn from_json(text: &str) -> Result<Trace, String> {
        let v: serde_json::Value = serde_json::from_str(text)
            .map_err(|e| format!("{}:{}: not JSON: {e}", e.line(), e.column()))?;
        let v = match v.get("results").and_then(|r| r.as_array()) {
            Some(results) if v.get("rmapcheck").is_some() => {
                let traces: Vec<&serde_json::Value> = results
                    .iter()
                    .filter_map(|r| r.get("trace"))
                    .filter(|t| t.get("calls").is_some())
                    .collect();
                match traces.as_slice() {
                    [one] => (*one).clone(),
                    [] => {
                        return Err("1:1: a check report with no replayable counterexample".into())
                    }
                    many => {
                        return Err(format!(
                            "1:1: a check report with {} counterexamples; save them one per file \
                             with `check --trace-dir DIR`",
                            many.len()
                        ))
                    }
                }
            }
            _ => v,
        };
        if !v.is_object() || v.get("calls").is_none() || v.get("initial").is_none() {
            return Err("1:1: not an rmapcheck trace (no `initial` world and `calls`)".into());
        }
        match v.get("format_version").and_then(|f| f.as_u64()) {
            Some(f) if f == TRACE_FORMAT as u64 => {}
            Some(f) => {
                return Err(format!(
                    "1:1: trace format version {f}; this rmapcheck reads version {TRACE_FORMAT}"
                ))
            }
            None => {
                return Err(format!(
                    "1:1: the trace has no format_version (written before version \
                     {TRACE_FORMAT}); re-run the check to write it again"
                ))
            }
        }
        let t: Trace = serde_json::from_value(v).map_err(|e| format!("1:1: {e}"))?;
        t.validate().map_err(|e| format!("1:1: {e}"))?;
        Ok(t)
    }

    /// Sizes a search could have made: the scope's bounds, the initial world, the calls.
    pub fn validate(&self) -> Result<(), String> {
        self.scope.validate().map_err(|e| format!("scope: {e}"))?;
        let objects = self.initial.file.len()
            + self.initial.anon_vma.len()
            + self
                .initial
                .mm
                .iter()
                .map(|m| m.vma.len() + 1)
                .sum::<usize>();
        if objects > MAX_TRACE_OBJECTS {
            return Err(format!(
                "initial world with {objects} objects (at most {MAX_TRACE_OBJECTS})"
            ));
        }
        if self.calls.len() > MAX_TRACE_CALLS {
            return Err(format!(
                "{} calls (at most {MAX_TRACE_CALLS})",
                self.calls.len()
            ));
        }
        let limit = self.scope.pages.max(64) as i64 * 4;
        for (i, c) in self.calls.iter().enumerate() {
            for a in &c.args {
                if let Value::Int(n) = a {
                    if !(-limit..=limit).contains(n) {
                        return Err(format!("call {}: {c}: argument {n} out of range", i + 1));
                    }
                }
            }
        }
        Ok(())
    }
}

/// Why call `c` cannot be replayed on `prog` in world `w`: no such entry point, the wrong
/// number or type of arguments, an object that does not exist, or a precondition the entry
/// point's callers guarantee.
pub fn validate_call(prog: &Program, w: &World, c: &Call) -> Result<(), String> {
    if prog.function(&c.func).is_none() {
        return Err(format!("the model has no entry point `{}`", c.func));
    }
    crate::exec::thread::Thread::start(prog, &c.func, &c.args)?;
    crate::fuzzing::concretise::check_preconditions(w, c)
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

/// Re-run a trace's calls on `prog` and compare with what it recorded. `Err` when a call
/// cannot be applied to the model (see [`validate_call`]): that is bad input, not "fixed".
pub fn replay(prog: &Program, t: &Trace) -> Result<ReplayResult, String> {
    let mut w = t.initial.build()?.canonical();
    for (i, c) in t.calls.iter().enumerate() {
        validate_call(prog, &w, c).map_err(|e| format!("call {} `{c}`: {e}", i + 1))?;
        let mut w2 = w.clone();
        let out = apply(prog, &mut w2, c, CheckOpts::default());
        if out.failure.is_some() {
            break;
        }
        w = w2.canonical();
    }
    let r = rerun(prog, &t.initial, &t.calls, t.scope.invariant_set())?;
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
