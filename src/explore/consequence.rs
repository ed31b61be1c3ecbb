//! The consequence of a counterexample: after a search found its first violation, the same
//! model is searched again, bounded, for the most severe thing the same bug does to a production
//! kernel. Invariants are ranked by [`Consequence`] in the invariant table (missed rmap walk >
//! use-after-free > broken tree > debug-only). For each class more severe than the first
//! violation's, most severe first, one breadth-first search runs the same scope checking only
//! that class's invariants (a state where a milder invariant fails is no longer a stop: the
//! search goes on past it, as a production kernel would) up to the consequence depth, within a
//! time bound. The first class that fails is the worst consequence found, with its shortest
//! trace (the search is breadth-first); a class whose search holds was not reached within the
//! bound; a search cut by its bound says so.
//!
//! Model faults and model assertions (`model-fault`, `model-assert`) end a run whatever the
//! invariants checked: when one ends a consequence search it is reported as what that search
//! found (ranked by its own class), not as the class searched for.

use super::search::{search_within, Outcome, Stats};
use crate::checker::budget::Budget;
use crate::invariant::{Consequence, Invariant, InvariantSet};
use crate::lang::Program;
use crate::scope::Scope;

/// The bound of a consequence search, as its line prints it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Bound {
    /// Longest call sequence searched (the scope's `consequence_depth`, or the pass's own depth
    /// for a pass with walkers, whose window is the walker bound).
    pub depth: u32,
    /// Time bound of each class's search (the scope's `consequence_seconds`).
    pub seconds: f64,
}

impl Bound {
    /// The bound for a counterexample of `calls` calls found in `scope`: two calls deeper than
    /// the counterexample, at most the scope's `consequence_depth` and at least the
    /// counterexample's own length; against walkers (whose window is the pass's walker bound)
    /// the counterexample's own length.
    pub fn of(scope: &Scope, calls: usize) -> Bound {
        let calls = calls as u32;
        let depth = if scope.walkers > 0 {
            calls
        } else {
            (calls + 2).min(scope.consequence_depth).max(calls)
        };
        Bound {
            depth,
            seconds: scope.consequence_seconds.min(scope.max_seconds),
        }
    }
}

/// What one class's search found.
#[derive(Debug)]
pub enum ClassResult {
    /// A violation (of this class, or a model fault/assertion that ended the search).
    Found(Box<Outcome>, Stats),
    /// No violation of the class within the bound.
    NotReached(Stats),
    /// The search stopped at its bound before it finished.
    Incomplete(String, u32),
}

/// The consequence search of one counterexample.
#[derive(Debug)]
pub struct Report {
    /// The first violation's invariant and class.
    pub first: Invariant,
    pub first_class: Consequence,
    pub bound: Bound,
    /// The classes searched, most severe first, with what each search found.
    pub searched: Vec<(Consequence, ClassResult)>,
}

impl Report {
    /// The worst consequence found (its invariant, class and the outcome holding its shortest
    /// trace), if a search found one more severe than the first violation.
    pub fn worst(&self) -> Option<(Invariant, Consequence, &Outcome)> {
        self.searched
            .iter()
            .filter_map(|(_, r)| match r {
                ClassResult::Found(o, _) => Some((invariant_of(o)?, class_of(o)?, o.as_ref())),
                _ => None,
            })
            .filter(|(_, c, _)| *c < self.first_class)
            .min_by_key(|(_, c, _)| *c)
    }

    /// The report's line for the verdict: what was first found, the worst consequence and the
    /// bound, e.g. `first cached-keys (debug-only); worst rmap-complete (missed rmap walk), 5
    /// calls; searched to depth 5, 30s a class`.
    pub fn line(&self) -> String {
        let first = format!("first {} ({})", self.first.name(), self.first_class);
        let worst = match self.worst() {
            Some((inv, c, o)) => format!(
                "worst {} ({c}), {} call{}",
                inv.name(),
                calls_of(o),
                if calls_of(o) == 1 { "" } else { "s" }
            ),
            None if self.searched.is_empty() => "worst: the first (nothing ranks above it)".into(),
            None => "worst: the first".into(),
        };
        let mut notes = Vec::new();
        for (c, r) in &self.searched {
            match r {
                ClassResult::NotReached(_) => notes.push(format!("no {c}")),
                ClassResult::Incomplete(reason, d) => {
                    notes.push(format!("{c}: incomplete up to depth {d} ({reason})"))
                }
                ClassResult::Found(o, _) => {
                    if class_of(o) != Some(*c) {
                        let i = invariant_of(o).map_or("", Invariant::name);
                        let k = class_of(o).map_or("", Consequence::name);
                        notes.push(format!("{c}: search ended by {i} ({k})"));
                    }
                }
            }
        }
        let notes = if notes.is_empty() {
            String::new()
        } else {
            format!(" ({})", notes.join("; "))
        };
        format!(
            "consequence: {first}; {worst}{notes}; searched the same scope to depth {}, {}s a class",
            self.bound.depth, self.bound.seconds
        )
    }
}

/// The consequence class of an outcome's first violation
/// ([`crate::trace::production::consequence_of`]).
pub fn class_of(o: &Outcome) -> Option<Consequence> {
    let v = match o {
        Outcome::Counterexample(t) => t.failure.as_ref()?.violations.first()?,
        Outcome::Interleaving(t) => t.violations.first()?,
        _ => return None,
    };
    Some(crate::trace::production::consequence_of(v))
}

/// The invariant an outcome shows failing first.
pub fn invariant_of(o: &Outcome) -> Option<Invariant> {
    match o {
        Outcome::Counterexample(t) => t.invariant(),
        Outcome::Interleaving(t) => t.invariant(),
        _ => None,
    }
}

/// The number of calls of a counterexample (its last fails).
pub fn calls_of(o: &Outcome) -> usize {
    match o {
        Outcome::Counterexample(t) => t.calls.len(),
        Outcome::Interleaving(t) => t.prefix.len() + 1,
        _ => 0,
    }
}

/// Search `prog` in `scope` for consequences more severe than `first`'s (the invariant of a
/// counterexample the search of `scope` found, `first_outcome`). `parent` is the run's budget: a stop request
/// (SIGINT) ends the consequence search too. `None` when `first` is not a counterexample.
pub fn search(
    prog: &Program,
    model_name: &str,
    scope: &Scope,
    first_outcome: &Outcome,
    parent: &Budget,
) -> Option<Report> {
    let first = invariant_of(first_outcome)?;
    let first_class = class_of(first_outcome)?;
    if scope.consequence_seconds == 0.0 {
        return None;
    }
    let bound = Bound::of(scope, calls_of(first_outcome));
    let checked = scope.invariant_set();
    let mut searched = Vec::new();
    for &class in Consequence::ALL.iter().filter(|&&c| c < first_class) {
        let set: InvariantSet = class
            .invariants()
            .iter()
            .filter(|&i| checked.contains(i))
            .collect();
        if set.is_empty() || crate::checker::budget::stop_requested() || parent.poll().is_some() {
            continue;
        }
        let s = Scope {
            invariants: set.iter().collect(),
            max_depth: bound.depth,
            max_seconds: bound.seconds,
            ..scope.clone()
        };
        let budget = s.budget();
        let (o, st) = search_within(prog, model_name, &s, &budget, &mut |_| {});
        let found_here = class_of(&o).map(|k| k == class);
        let r = match o {
            Outcome::Holds { .. } => ClassResult::NotReached(st),
            Outcome::Incomplete {
                reason,
                complete_depth,
            } => ClassResult::Incomplete(reason, complete_depth),
            o => ClassResult::Found(Box::new(o), st),
        };
        searched.push((class, r));
        if found_here == Some(true) {
            // the most severe class still open was reached: nothing milder can be worse
            break;
        }
    }
    Some(Report {
        first,
        first_class,
        bound,
        searched,
    })
}
