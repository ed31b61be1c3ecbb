//! The consequence of a C counterexample, ranked as the model's are (`explore::consequence`:
//! missed rmap walk > use-after-free > broken tree > debug-only). After the C search found its
//! first violation, the C is searched again, once for each class more severe than the first
//! one's, most severe first: the same scope checking only that class's invariants (a state
//! where a milder invariant fails is no longer a stop), to the model's consequence bound (two
//! calls deeper than the counterexample, at most the scope's `consequence_depth`, each class
//! within `consequence_seconds`). The first class found is the worst consequence.

use super::system::CFailure;
use crate::checker::Verdict;
use crate::explore::consequence::Bound;
use crate::invariant::{Consequence, Invariant, InvariantSet, Violation};
use crate::lang::Program;
use crate::scope::Scope;
use crate::world::scenario::Call;
use std::path::Path;

/// What one class's C search found.
#[derive(Debug)]
pub enum CResult {
    /// A failure (of this class, or a crash or milder-ranked finding that ended the search).
    Found(Vec<Call>, Box<CFailure>),
    /// No violation of the class within the bound.
    NotReached,
    /// The search stopped at its bound before it finished.
    Incomplete(String),
}

/// The consequence search of one C counterexample.
#[derive(Debug)]
pub struct CReport {
    pub first: Invariant,
    pub first_class: Consequence,
    pub bound: Bound,
    pub searched: Vec<(Consequence, CResult)>,
}

/// A C failure as the model's violation type (for the production notes).
pub fn violation(f: &CFailure) -> Option<Violation> {
    Some(Violation::new(f.invariant?, f.what.clone()))
}

/// The consequence class of a C failure; a crash (a BUG, a sanitizer report, a hang) is a
/// broken kernel.
pub fn class_of(f: &CFailure) -> Consequence {
    violation(f).map_or(Consequence::BrokenTree, |v| {
        crate::trace::production::consequence_of(&v)
    })
}

impl CReport {
    /// The worst consequence found: its calls and failure, if more severe than the first.
    pub fn worst(&self) -> Option<(&[Call], &CFailure)> {
        self.searched
            .iter()
            .filter_map(|(_, r)| match r {
                CResult::Found(calls, f) => Some((calls.as_slice(), f.as_ref())),
                _ => None,
            })
            .filter(|(_, f)| class_of(f) < self.first_class)
            .min_by_key(|(_, f)| class_of(f))
    }

    /// The `consequence:` line, in the model's words.
    pub fn line(&self) -> String {
        let first = format!("first {} ({})", self.first.name(), self.first_class);
        let worst = match self.worst() {
            Some((calls, f)) => format!(
                "worst {} ({}), {} call{}",
                f.invariant.map_or("a crash", |i| i.name()),
                class_of(f),
                calls.len(),
                if calls.len() == 1 { "" } else { "s" }
            ),
            None if self.searched.is_empty() => "worst: the first (nothing ranks above it)".into(),
            None => "worst: the first".into(),
        };
        let mut notes = Vec::new();
        for (c, r) in &self.searched {
            match r {
                CResult::NotReached => notes.push(format!("no {c}")),
                CResult::Incomplete(reason) => notes.push(format!("{c}: incomplete ({reason})")),
                CResult::Found(_, f) if class_of(f) != *c => notes.push(format!(
                    "{c}: search ended by {} ({})",
                    f.invariant.map_or("a crash", |i| i.name()),
                    class_of(f)
                )),
                CResult::Found(..) => {}
            }
        }
        let notes = if notes.is_empty() {
            String::new()
        } else {
            format!(" ({})", notes.join("; "))
        };
        format!(
            "consequence: {first}; {worst}{notes}; searched the C in the same scope to depth {}, {}s a class",
            self.bound.depth, self.bound.seconds
        )
    }
}

/// Search the C of `binary` for consequences more severe than `first`'s, found after `calls`
/// calls in `scope`. `None` for a crash (no invariant to rank) or when the scope's consequence
/// time is 0.
pub fn search(
    prog: &Program,
    scope: &Scope,
    binary: &Path,
    baseline: Option<&Path>,
    threads: usize,
    first: &CFailure,
    calls: usize,
) -> Option<CReport> {
    let first_inv = first.invariant?;
    let first_class = class_of(first);
    if scope.consequence_seconds == 0.0 {
        return None;
    }
    let bound = Bound::of(scope, calls);
    let checked = scope.invariant_set();
    let mut searched = Vec::new();
    for &class in Consequence::ALL.iter().filter(|&&c| c < first_class) {
        let set: InvariantSet = class
            .invariants()
            .iter()
            .filter(|&i| checked.contains(i) && super::invariants::CHECKED.contains(&i))
            .collect();
        if set.is_empty() || crate::checker::budget::stop_requested() {
            continue;
        }
        let s = Scope {
            invariants: set.iter().collect(),
            max_depth: bound.depth,
            max_seconds: bound.seconds,
            ..scope.clone()
        };
        let r = match super::search(prog, &s, binary, baseline, threads, &mut |_| {}) {
            Err(e) => CResult::Incomplete(e),
            Ok(o) => match o.verdict {
                Verdict::Holds { .. } => CResult::NotReached,
                Verdict::Failed { path, failure } => CResult::Found(path, Box::new(failure)),
                Verdict::FailedInitial(f) => CResult::Found(Vec::new(), Box::new(f)),
                Verdict::Incomplete {
                    reason,
                    complete_depth,
                } => CResult::Incomplete(format!("up to depth {complete_depth}: {reason}")),
                Verdict::Error(e) => CResult::Incomplete(e),
            },
        };
        let reached = matches!(&r, CResult::Found(_, f) if class_of(f) == class);
        searched.push((class, r));
        if reached {
            break;
        }
    }
    Some(CReport {
        first: first_inv,
        first_class,
        bound,
        searched,
    })
}

/// The note under a C counterexample: what a production kernel does after the failure and
/// which configuration shows it (the model's words for the same invariant).
pub fn production_note(f: &CFailure) -> String {
    match violation(f) {
        Some(v) => format!(
            "On a production kernel ({}, {}): {}\nWhich kernel shows it: {}\n",
            v.invariant.name(),
            crate::trace::production::consequence_of(&v),
            crate::trace::production::production(&v),
            crate::trace::production::which_config(&v)
        ),
        None => "On a production kernel (a crash, broken tree): the C crashed (a BUG, a \
                 sanitizer report or a hang) on the calls above.\nWhich kernel shows it: any: \
                 the crash does not depend on a debug option.\n"
            .to_string(),
    }
}

/// The JSON object of a finding: its invariant, class and number of calls.
pub fn finding_json(f: &CFailure, calls: usize) -> serde_json::Value {
    serde_json::json!({
        "invariant": f.invariant.map(|i| i.name()),
        "consequence": class_of(f).name(),
        "calls": calls,
        "what": f.what,
    })
}
