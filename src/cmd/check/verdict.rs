//! The verdict lines of `rmapcheck check`: one line per model with its verdict, the search's
//! figures (states, calls, depth, time, rate, memory per state, the collision estimate), the
//! line of a simulation, and the error of a search that made no call.

use crate::check::Invariant;
use crate::checker::budget;
use crate::explore::search::{Outcome, Stats};
use crate::explore::simulate::{SimReport, Simulation};
use crate::scope::Scope;
use std::path::Path;

/// Why a search that made no call is an error, not a verdict.
pub(crate) fn no_call(model: &Path, scope: &Scope) -> String {
    let entries = if scope.entries.is_empty() {
        "every entry point the model defines".to_string()
    } else {
        format!("entries = {:?}", scope.entries)
    };
    format!(
        "{}: the search made no call ({entries} offers none from the initial world): nothing was \
         checked, so there is no verdict. Does the model define the sys_* / do_*_fault / \
         contract_* entry points the scope names?",
        model.display()
    )
}

/// The verdict line of one model.
pub(crate) fn verdict_line(model: &Path, outcome: &Outcome, st: &Stats) -> String {
    let v = match outcome {
        Outcome::Holds { exhausted: true } => "holds (state space exhausted)".to_string(),
        Outcome::Holds { exhausted: false } => format!("holds up to depth {}", st.depth),
        Outcome::Counterexample(t) => format!(
            "COUNTEREXAMPLE {}",
            t.invariant().map_or("", Invariant::name)
        ),
        Outcome::Interleaving(t) => format!(
            "COUNTEREXAMPLE {} (interleaving)",
            t.invariant().map_or("", Invariant::name)
        ),
        Outcome::Incomplete {
            reason,
            complete_depth,
        } => format!("incomplete up to depth {complete_depth} ({reason})"),
    };
    let peak = budget::peak_resident_bytes();
    format!(
        "{}: {v}; {} states, {} calls, depth {}, {:.1}s, {:.0} states/s{}, process peak RSS {} \
         MiB, p(fingerprint collision) {:.1e}",
        model.display(),
        st.states,
        st.transitions,
        st.depth,
        st.seconds,
        st.states_per_second(),
        memory_per_state(peak, st),
        peak >> 20,
        st.collision_probability()
    )
}

/// What a state costs: the process's peak resident set over the states (the real figure),
/// and the search tables' own estimate beside it when there is one.
fn memory_per_state(peak: u64, st: &Stats) -> String {
    if st.states == 0 || peak == 0 {
        return String::new();
    }
    let real = peak / st.states as u64;
    if st.bytes_per_state > 0 {
        format!(
            ", memory {real} B/state (peak RSS / states; tables {})",
            st.bytes_per_state
        )
    } else {
        format!(", memory {real} B/state (peak RSS / states)")
    }
}

/// The memory figures of a search for the JSON document: the process's peak resident set, that
/// divided by the states (the real cost of a state), and the search tables' estimate (0 when
/// none was made).
pub(crate) fn memory_json(st: &Stats) -> serde_json::Value {
    let peak = budget::peak_resident_bytes();
    serde_json::json!({
        "peak_rss_bytes": peak,
        "peak_rss_bytes_per_state": peak.checked_div(st.states as u64).unwrap_or(0),
        "table_bytes_per_state": st.bytes_per_state,
    })
}

/// The verdict line of one model's simulation: the verdict with the walks, seed and depth, the
/// figures of the walks counted, then (after the last `; `) the time, rate and memory, which
/// alone differ between two runs with the same seed.
pub(crate) fn sim_verdict_line(model: &Path, sim: &Simulation, r: &SimReport) -> String {
    let st = &r.stats;
    let v = match &r.outcome {
        Outcome::Counterexample(t) => format!(
            "COUNTEREXAMPLE {} (walk {} of {}, depth {}, seed {})",
            t.invariant().map_or("", Invariant::name),
            r.failing_walk.map_or(0, |i| i + 1),
            sim.walks,
            sim.depth,
            sim.seed
        ),
        Outcome::Interleaving(t) => format!(
            "COUNTEREXAMPLE {} (interleaving; walk {} of {}, depth {}, seed {})",
            t.invariant().map_or("", Invariant::name),
            r.failing_walk.map_or(0, |i| i + 1),
            sim.walks,
            sim.depth,
            sim.seed
        ),
        Outcome::Incomplete { reason, .. } => format!("incomplete ({reason})"),
        Outcome::Holds { .. } => "holds".to_string(),
    };
    format!(
        "{}: {v}; {} walk{}, {} distinct states, {} calls, longest walk {}; {:.1}s, {:.0} calls/s, \
         process peak RSS {} MiB",
        model.display(),
        r.walks,
        if r.walks == 1 { "" } else { "s" },
        st.states,
        st.transitions,
        st.depth,
        st.seconds,
        st.transitions as f64 / st.seconds.max(1e-9),
        budget::peak_resident_bytes() >> 20,
    )
}
