//! Counterexample traces as plain data: the initial world, the calls, and inside the last call
//! the steps up to the failing one; kept as JSON for `rmapcheck replay`, rendered as plain text
//! for patch reviews and as DOT for the trees. This module names nothing of the explorer: the
//! explorer builds traces by re-running calls (`explore::replay`) and minimises them
//! (`explore::minimise`).

pub mod calls;
pub mod dot;
pub mod interleaved;
pub mod production;
pub mod text;

use crate::check::{Invariant, Violation};
use crate::exec::host::Value;
use crate::lang::{Program, SrcLoc};
use crate::scope::Scope;
use crate::world::scenario::{Call, Scenario};
use serde::{Deserialize, Serialize};

/// The version of the trace format this build writes and reads. A trace of another version
/// (or none) is refused on load rather than misread.
pub(crate) const TRACE_FORMAT: u32 = 1;

/// Largest initial world and call list a trace may hold (a search never makes bigger ones).
pub(crate) const MAX_TRACE_OBJECTS: usize = 64;
pub(crate) const MAX_TRACE_CALLS: usize = 256;

/// One visible (world-touching) step of a call, for traces.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct StepRecord {
    pub loc: SrcLoc,
    /// The model function the step ran in.
    pub func: String,
    /// What it did, e.g. `mapping_rmap_tree_insert(vma#2, mapping#0)`.
    pub what: String,
}

/// Where and how a call failed.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Failure {
    /// Index into the call's steps of the failing step; `None` when found at the call's end.
    pub step: Option<usize>,
    pub loc: Option<SrcLoc>,
    pub violations: Vec<Violation>,
}

impl Failure {
    /// The invariant that failed first (the one a trace names).
    pub fn invariant(&self) -> Option<Invariant> {
        self.violations.first().map(|v| v.invariant)
    }
}

/// Why a file is not a trace this build can replay. Each message starts with the `line:col:`
/// it refers to (1:1 when the JSON parser gives no place).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum TraceError {
    #[error("{line}:{column}: not JSON: {message}")]
    NotJson {
        line: usize,
        column: usize,
        message: String,
    },
    /// The file is not text (a fuzzer input, most likely).
    #[error("1:1: not a trace: the file is not text (a fuzzer input? use --crash)")]
    NotText,
    #[error("1:1: a check report with no replayable counterexample")]
    NoCounterexample,
    #[error(
        "1:1: a check report with {0} counterexamples; save them one per file with \
         `check --trace-dir DIR`"
    )]
    ManyCounterexamples(usize),
    #[error("1:1: not an rmapcheck trace (no `initial` world and `calls`)")]
    NotATrace,
    #[error("1:1: trace format version {0}; this rmapcheck reads version {TRACE_FORMAT}")]
    Version(u64),
    #[error(
        "1:1: the trace has no format_version (written before version {TRACE_FORMAT}); re-run \
         the check to write it again"
    )]
    NoVersion,
    /// A field of the wrong type, or a size no search makes.
    #[error("1:1: {0}")]
    Invalid(String),
}

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
pub(crate) fn model_hash(prog: &Program) -> String {
    use std::hash::{Hash, Hasher};
    #[allow(deprecated)]
    let mut h = std::hash::SipHasher::new();
    for f in prog.sources().files() {
        f.text.hash(&mut h);
    }
    format!("{:016x}", h.finish())
}

impl Trace {
    /// The invariant the trace shows failing.
    pub fn invariant(&self) -> Option<Invariant> {
        self.failure.as_ref().and_then(|f| f.invariant())
    }

    pub fn to_json(&self) -> String {
        // a Trace holds only strings, numbers and plain containers: serialising cannot fail
        serde_json::to_string_pretty(self).expect("a trace serialises")
    }

    /// The trace as a JSON value (the `trace` of a `check --format json` result).
    pub(crate) fn to_json_value(&self) -> serde_json::Value {
        // as for to_json: strings, numbers and plain containers (no map with non-string keys)
        serde_json::to_value(self).expect("a trace serialises")
    }

    /// Read a trace: a file written by `check --trace-dir`, or a `check --format json` report
    /// holding exactly one replayable counterexample. The format version and the sizes are
    /// checked; errors read `line:col: message` where the JSON parser gives a place.
    pub fn from_json(text: &str) -> Result<Trace, TraceError> {
        let v: serde_json::Value = serde_json::from_str(text).map_err(|e| TraceError::NotJson {
            line: e.line(),
            column: e.column(),
            message: e.to_string(),
        })?;
        let v = match v.get("results").and_then(|r| r.as_array()) {
            Some(results) if v.get("rmapcheck").is_some() => {
                let traces: Vec<&serde_json::Value> = results
                    .iter()
                    .filter_map(|r| r.get("trace"))
                    .filter(|t| t.get("calls").is_some())
                    .collect();
                match traces.as_slice() {
                    [one] => (*one).clone(),
                    [] => return Err(TraceError::NoCounterexample),
                    many => return Err(TraceError::ManyCounterexamples(many.len())),
                }
            }
            _ => v,
        };
        if !v.is_object() || v.get("calls").is_none() || v.get("initial").is_none() {
            return Err(TraceError::NotATrace);
        }
        match v.get("format_version").and_then(|f| f.as_u64()) {
            Some(f) if f == TRACE_FORMAT as u64 => {}
            Some(f) => return Err(TraceError::Version(f)),
            None => return Err(TraceError::NoVersion),
        }
        let t: Trace = serde_json::from_value(v).map_err(|e| TraceError::Invalid(e.to_string()))?;
        t.validate().map_err(TraceError::Invalid)?;
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
