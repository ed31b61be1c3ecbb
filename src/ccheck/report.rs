//! The C search's report: the verdict line, what was checked and not, and a counterexample
//! with the calls in kernel form (the model call, the harness request and the kernel path it
//! takes), the C world at the failure and what the model says after the same calls (cdiff at
//! the failing sequence), as text or one JSON document.

use super::invariants::{not_checked, CHECKED};
use super::system::CFailure;
use super::Outcome;
use crate::charness::calls::{drive, COMPARED};
use crate::checker::Verdict;
use crate::entry::EntryPoint;
use crate::invariant::Invariant;
use crate::oracle::sequences::Drive;
use crate::world::scenario::Call;
use crate::world::World;
use serde_json::json;

/// The scope line's part on invariants: which the C search checks, which not and why.
pub fn invariants_line() -> String {
    let on: Vec<&str> = CHECKED.iter().map(|i| i.name()).collect();
    let mut off: Vec<String> = Vec::new();
    let mut why: Vec<(&str, Vec<&str>)> = Vec::new();
    for i in Invariant::ALL {
        if let Some(w) = not_checked(*i) {
            match why.iter_mut().find(|(x, _)| *x == w) {
                Some((_, v)) => v.push(i.name()),
                None => why.push((w, vec![i.name()])),
            }
        }
    }
    for (w, names) in why {
        off.push(format!("{} ({w})", names.join(", ")));
    }
    format!(
        "checked on the C: {}; walker checkpoints: every walker kind of the model that can \
         run at the moment (file and uprobe: i_mmap_rwsem free; flush: the flush_dcache lock \
         free; anon: the anon_vma root lock free; fault and madv: every attached VMA not \
         write-locked keeps its bounds) and the trees whose lock is free, at every acquire and \
         release of an rmap lock and of the mmap lock and before every vma_start_write(), at \
         most {} a call; not checked: {}",
        on.join(", "),
        super::pages::CHECKPOINTS_PER_CALL,
        off.join("; ")
    )
}

/// A call in kernel form: the model call, its harness request and the kernel path.
pub struct KernelCall {
    pub call: String,
    pub request: String,
    pub path: String,
}

/// The calls of a path in kernel form, from the model's worlds along it (`w0` the initial).
pub fn kernel_calls(
    w0: &World,
    calls: &[Call],
    step: &dyn Fn(&mut World, &Call),
) -> Vec<KernelCall> {
    let mut w = w0.clone();
    let mut out = Vec::new();
    for c in calls {
        let request = match drive(&w, c) {
            Ok(Drive::Op(Some(r))) => r,
            Ok(Drive::Op(None)) => "(no request)".into(),
            Ok(Drive::Skip(r)) => format!("(not run: {r})"),
            Err(e) => format!("(error: {e})"),
        };
        let path = EntryPoint::from_name(&c.func)
            .and_then(|p| COMPARED.iter().find(|(q, _)| *q == p))
            .map_or("?", |(_, h)| h)
            .to_string();
        out.push(KernelCall {
            call: c.to_string(),
            request,
            path,
        });
        step(&mut w, c);
    }
    out
}

/// The model's verdict on the C world at a failure, in words.
pub fn model_says(f: &CFailure) -> (bool, String) {
    let agrees = !f.c.is_empty() && f.c == f.model;
    let world = if f.c.is_empty() {
        "the C crashed; the model ran the same calls".to_string()
    } else if agrees {
        "the model's world after the same calls is the C's, line for line (cdiff agrees)"
            .to_string()
    } else {
        let k =
            f.c.iter()
                .zip(&f.model)
                .position(|(a, b)| a != b)
                .unwrap_or_else(|| f.c.len().min(f.model.len()));
        format!(
            "the model's world after the same calls differs from the C's (cdiff), first at line {}:\n      C:     {}\n      model: {}",
            k + 1,
            f.c.get(k).map_or("(none)", String::as_str),
            f.model.get(k).map_or("(none)", String::as_str)
        )
    };
    let own = match &f.model_failed {
        Some(i) => format!("the model's own checks fail on the same call ({i})"),
        None => "the model's own checks pass on the same calls".to_string(),
    };
    (agrees, format!("{world}; {own}"))
}

/// The figures line.
pub fn figures(o: &Outcome) -> String {
    let s = &o.stats;
    let per = if s.seconds > 0.0 {
        o.c_calls as f64 / s.seconds
    } else {
        0.0
    };
    format!(
        "{} states, {} transitions ({} sequences replayed on the C, {} C calls), depth {}, {:.1}s, {per:.0} C calls/s, {} harness processes",
        s.states, s.transitions, o.replays, o.c_calls, s.depth, s.seconds, o.harnesses
    )
}

/// How a C search ended, for its exit status.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Class {
    Holds,
    Found,
    Incomplete,
    /// The model left the kernel's C: no verdict on the C (exit 4).
    Diverges,
}

/// The verdict in words and its class. A counterexample stands whatever diverged elsewhere
/// (every state on its path agreed with the model); otherwise a divergence replaces `holds`
/// and `incomplete`, since the states past it were never searched.
pub fn verdict(o: &Outcome, depth: u32) -> (String, Class) {
    let (line, found, incomplete) = verdict_line(o, depth);
    let d = &o.divergences;
    if found {
        return (line, Class::Found);
    }
    if let Some(first) = d.kept.first() {
        let (k, c, m) = first.first_difference();
        return (
            format!(
                "DIVERGES: the model diverges from the kernel's C after call {} ({} state(s) \
                 where the worlds differ, none searched further; first at line {k}: C `{}`, \
                 model `{}`); no verdict on the C past them; {}",
                first.calls.len(),
                d.count,
                c.trim(),
                m.trim(),
                figures(o)
            ),
            Class::Diverges,
        );
    }
    let class = if incomplete {
        Class::Incomplete
    } else {
        Class::Holds
    };
    (line, class)
}

/// The verdict in words and its exit class: (line, found, incomplete).
pub fn verdict_line(o: &Outcome, depth: u32) -> (String, bool, bool) {
    match &o.verdict {
        Verdict::Holds { exhausted } => (
            format!(
                "holds {}; {}",
                if *exhausted {
                    "(every reachable state seen)".to_string()
                } else {
                    format!("up to depth {depth}")
                },
                figures(o)
            ),
            false,
            false,
        ),
        Verdict::Failed { failure, .. } | Verdict::FailedInitial(failure) => (
            format!(
                "COUNTEREXAMPLE: {}; {}",
                failure.invariant.map_or("the C crashed", |i| i.name()),
                figures(o)
            ),
            true,
            false,
        ),
        // random walks: no depth was searched whole
        Verdict::Incomplete { reason, .. } if reason.starts_with("simulated ") => (
            format!("incomplete: {reason}; no walk failed; {}", figures(o)),
            false,
            true,
        ),
        Verdict::Incomplete {
            reason,
            complete_depth,
        } => (
            format!(
                "incomplete: {reason}; no failure up to depth {complete_depth}; {}",
                figures(o)
            ),
            false,
            true,
        ),
        Verdict::Error(e) => (format!("error: {e}"), false, true),
    }
}

/// The calls of a path in kernel form, one numbered entry each, under their heading.
pub fn calls_text(calls: &[KernelCall]) -> String {
    let mut s = String::from("  calls (model call -> harness request: kernel path):\n");
    for (i, c) in calls.iter().enumerate() {
        s += &format!(
            "  {:>2}. {}\n      -> {}: {}\n",
            i + 1,
            c.call,
            c.request,
            c.path
        );
    }
    s
}

/// The counterexample as text.
pub fn text(calls: &[KernelCall], f: &CFailure) -> String {
    let mut s = String::new();
    s += &format!(
        "\nCOUNTEREXAMPLE in the C: {} after call {} of {}\n",
        f.invariant.map_or("the C crashed", |i| i.name()),
        calls.len(),
        calls.len()
    );
    s += &calls_text(calls);
    s += &format!("  violation: {}\n", f.what);
    if !f.c.is_empty() {
        s += "  the C world after the failing call:\n";
        for l in &f.c {
            s += &format!("    {l}\n");
        }
    }
    s += &format!("  model: {}\n", model_says(f).1);
    s
}

/// The counterexample as JSON.
pub fn json(calls: &[KernelCall], f: &CFailure) -> serde_json::Value {
    let (agrees, says) = model_says(f);
    json!({
        "invariant": f.invariant.map(|i| i.name()),
        "crashed": f.invariant.is_none(),
        "what": f.what,
        "calls": calls.iter().map(|c| json!({
            "call": c.call, "request": c.request, "kernel_path": c.path,
        })).collect::<Vec<_>>(),
        "c_world": f.c,
        "model_world": f.model,
        "model_agrees": agrees,
        "model_failed": f.model_failed,
        "model_says": says,
    })
}
