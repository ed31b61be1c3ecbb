//! Running a decoded case: build its world, concretise each abstract operation just before it
//! runs and apply it with every check on, stopping at the first failure. Also the differential
//! run of two models on one concretised sequence, the replayable scenario of a case, and
//! minimisation of a failing call list.

use super::concretise::{check_preconditions, concretise, Mode};
use super::input::Decoded;
use crate::check::{Invariant, Violation};
use crate::explore::op::{apply, CheckOpts, Failure, StepRecord};
use crate::lang::Program;
use crate::world::scenario::{Call, Scenario};

/// A call that failed, with what `apply` reported.
#[derive(Clone, Debug)]
pub struct CaseFailure {
    /// Index of the failing call in [`CaseResult::calls`].
    pub index: usize,
    pub call: Call,
    pub failure: Failure,
    /// Visible steps of the failing call (empty unless recording was on).
    pub steps: Vec<StepRecord>,
}

impl CaseFailure {
    /// The invariant that failed first.
    pub fn invariant(&self) -> Option<Invariant> {
        self.failure.invariant()
    }
}

/// What running a case did.
#[derive(Clone, Debug)]
pub struct CaseResult {
    /// Index of the model run, in the list given.
    pub model: usize,
    /// The concrete calls run, the failing one last.
    pub calls: Vec<Call>,
    pub failure: Option<CaseFailure>,
}

fn setup_failure(msg: String) -> CaseFailure {
    CaseFailure {
        index: 0,
        call: Call {
            func: "<initial world>".into(),
            args: vec![],
        },
        failure: Failure {
            step: None,
            loc: None,
            violations: vec![Violation::new(Invariant::FuzzSetup, msg)],
        },
        steps: vec![],
    }
}

fn mode(d: &Decoded, contract_allowed: bool) -> Mode {
    if d.contract && contract_allowed {
        Mode::Contract
    } else {
        Mode::Callers
    }
}

/// [`run_case_with`] with the structural checks after every step and no step recording.
pub fn run_case(models: &[super::FuzzModel], d: &Decoded) -> CaseResult {
    run_case_with(
        models,
        d,
        CheckOpts {
            record: false,
            per_step: true,
            ..CheckOpts::default()
        },
    )
}

/// Run case `d` on the model it selects. A world that does not build (a decoder bug, never
/// expected) is reported as a `fuzz-setup` failure.
pub fn run_case_with(models: &[super::FuzzModel], d: &Decoded, opts: CheckOpts) -> CaseResult {
    let model = d.model_index(models.len());
    let mut out = CaseResult {
        model,
        calls: vec![],
        failure: None,
    };
    let Some(super::FuzzModel { prog, contract, .. }) = models.get(model) else {
        out.failure = Some(setup_failure("no models loaded".into()));
        return out;
    };
    let mode = mode(d, *contract);
    // objects are renumbered canonically before and between calls, as in the explorer, traces
    // and `rmapcheck run`, so the concrete calls replay anywhere
    let mut w = match d.scenario.build() {
        Ok(w) => w.canonical(),
        Err(e) => {
            out.failure = Some(setup_failure(format!("initial world: {e}")));
            return out;
        }
    };
    for op in &d.ops {
        let Some(call) = concretise(op, &w, mode) else {
            continue;
        };
        let r = apply(prog, &mut w, &call, opts);
        out.calls.push(call.clone());
        if let Some(failure) = r.failure {
            out.failure = Some(CaseFailure {
                index: out.calls.len() - 1,
                call,
                failure,
                steps: r.steps,
            });
            return out;
        }
        w = w.canonical();
    }
    out
}

/// A replayable scenario: the case's initial world and the concrete calls, as text.
pub fn to_scenario(d: &Decoded, calls: &[Call]) -> Scenario {
    let mut s = d.scenario.clone();
    s.calls = calls.iter().map(|c| c.to_string()).collect();
    s
}

/// The equivalence check uses the reviewer's comparison of `rmapcheck compare`: the same VMA
/// layout and the same rmap walker answers.
pub use crate::explore::compare::{diff, observe, Observation};

/// Result of a differential run.
#[derive(Clone, Debug)]
pub struct EquivResult {
    /// The concrete calls run on both models, the last one where they parted, if they did.
    pub calls: Vec<Call>,
    /// A check failed on one side: (which side, 0 = first model, 1 = second; the failure).
    pub failure: Option<(usize, CaseFailure)>,
    /// The observations differ after the last call: the first difference, in words.
    pub divergence: Option<String>,
}

/// Run `d` on models `a` and `b` side by side in callers mode (contract operations are
/// skipped: those are checked per model by [`run_case`]). Each call is concretised against
/// `a`'s world and applied to both; after each, both worlds are observed and compared.
pub fn run_equivalence(a: &Program, b: &Program, d: &Decoded) -> EquivResult {
    let mut out = EquivResult {
        calls: vec![],
        failure: None,
        divergence: None,
    };
    let (mut wa, mut wb) = match (d.scenario.build(), d.scenario.build()) {
        (Ok(x), Ok(y)) => (x.canonical(), y.canonical()),
        (Err(e), _) | (_, Err(e)) => {
            out.failure = Some((0, setup_failure(format!("initial world: {e}"))));
            return out;
        }
    };
    let opts = CheckOpts {
        record: false,
        per_step: true,
        ..CheckOpts::default()
    };
    for op in &d.ops {
        let Some(call) = concretise(op, &wa, Mode::Callers) else {
            continue;
        };
        out.calls.push(call.clone());
        for (side, prog, w) in [(0, a, &mut wa), (1, b, &mut wb)] {
            let r = apply(prog, w, &call, opts);
            if let Some(failure) = r.failure {
                out.failure = Some((
                    side,
                    CaseFailure {
                        index: out.calls.len() - 1,
                        call,
                        failure,
                        steps: r.steps,
                    },
                ));
                return out;
            }
        }
        if let Some(why) = diff(&observe(&wa), &observe(&wb)) {
            out.divergence = Some(why);
            return out;
        }
        wa = wa.canonical();
        wb = wb.canonical();
    }
    out
}

/// Result of replaying a scenario's calls.
#[derive(Clone, Debug)]
pub struct Replay {
    /// Calls that ran (the failing one last).
    pub ran: usize,
    pub failure: Option<CaseFailure>,
    /// A call broke its entry point's preconditions: the call index and why. Replay stops there.
    pub misuse: Option<(usize, String)>,
}

/// Replay a scenario's calls on `prog` with every check on and steps recorded, checking each
/// call's preconditions first.
pub fn replay(prog: &Program, s: &Scenario) -> Result<Replay, String> {
    let mut w = s.build().map_err(|e| e.to_string())?.canonical();
    let calls = s.parsed_calls().map_err(|e| e.to_string())?;
    let mut out = Replay {
        ran: 0,
        failure: None,
        misuse: None,
    };
    for (i, call) in calls.iter().enumerate() {
        if let Err(e) = check_preconditions(&w, call) {
            out.misuse = Some((i, e));
            return Ok(out);
        }
        let r = apply(prog, &mut w, call, CheckOpts::default());
        out.ran = i + 1;
        if let Some(failure) = r.failure {
            out.failure = Some(CaseFailure {
                index: i,
                call: call.clone(),
                failure,
                steps: r.steps,
            });
            return Ok(out);
        }
        w = w.canonical();
    }
    Ok(out)
}

/// Shrink a failing scenario: drop calls one at a time (last first, repeating until nothing more
/// can go) while the replay still fails on the same invariant at the same model location with
/// every remaining call inside its preconditions. Returns the scenario unchanged when it does
/// not fail to begin with.
pub fn minimise(prog: &Program, s: &Scenario) -> Scenario {
    let target = match replay(prog, s) {
        Ok(Replay {
            failure: Some(f), ..
        }) => (f.invariant(), f.failure.loc),
        _ => return s.clone(),
    };
    let mut cur = s.clone();
    // calls after the failing one never matter
    if let Ok(Replay { ran, .. }) = replay(prog, &cur) {
        cur.calls.truncate(ran);
    }
    loop {
        let mut shrunk = false;
        let mut i = cur.calls.len();
        while i > 0 {
            i -= 1;
            let mut cand = cur.clone();
            cand.calls.remove(i);
            if let Ok(Replay {
                failure: Some(f),
                misuse: None,
                ran,
            }) = replay(prog, &cand)
            {
                if (f.invariant(), f.failure.loc) == target {
                    cand.calls.truncate(ran);
                    cur = cand;
                    shrunk = true;
                    i = i.min(cur.calls.len());
                }
            }
        }
        if !shrunk {
            return cur;
        }
    }
}
