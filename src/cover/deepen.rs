//! A search that goes to the patch, for the C search and the model search alike: the bounded
//! search runs first; when changed lines did not run within the bound, it runs again one depth
//! deeper (iterative deepening: each run a whole breadth-first search from the initial state,
//! so the deepest run's verdict covers every shallower depth), until every changed line has
//! run, at depth F, and the search has gone on to F plus the scope's depth, or a printed time
//! budget ends. What one run is (the C harness with gcov, the model with marks) is the
//! caller's; the loop and the verdict's words are here. docs/VERDICTS.md describes the
//! verdicts.

use super::{Accept, Tally};
use std::time::Instant;

/// Seconds a search may spend past its depth bound for a patch's changed lines unless told
/// otherwise (`check --deepen-budget`, `review --deepen-budget`).
pub const DEFAULT_BUDGET_S: f64 = 300.0;

/// A `--deepen-budget` as given: seconds, 0 or more and finite, or what is wrong with it (for
/// the command to prefix with its name).
pub fn budget(secs: f64) -> Result<f64, &'static str> {
    if secs >= 0.0 && secs.is_finite() {
        Ok(secs)
    } else {
        Err("--deepen-budget: seconds, 0 or more")
    }
}

/// How far to go past the bound.
#[derive(Clone, Debug, Default)]
pub struct Plan {
    /// Lines accepted as unreached.
    pub accept: Vec<Accept>,
    /// Seconds the runs past the bound may take in all (0: no deepening).
    pub budget_s: f64,
}

/// How one run of the search ended, as the loop needs to know it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Ended {
    /// A counterexample (or a failing initial state): reported as it is.
    Failed,
    /// No failure; `exhausted` when every reachable state was seen.
    Holds { exhausted: bool },
    /// A bound other than the depth cut the run (time, memory, a stop request).
    Incomplete(String),
    /// An error or another verdict the caller reports as it is.
    Other,
}

/// One run's result: the caller's outcome and what the loop reads of it.
pub struct Run<O> {
    pub outcome: O,
    pub ended: Ended,
    /// The changed lines of this run.
    pub tally: Tally,
    pub states: usize,
    pub seconds: f64,
}

/// One run of the search, as the deepening lines print it.
#[derive(Clone, Debug)]
pub struct Step {
    pub depth: u32,
    pub states: usize,
    pub seconds: f64,
    /// The tally's line after the run.
    pub covered: String,
}

/// The deepened search.
#[derive(Clone, Debug)]
pub struct Deepened {
    /// The depth bound of the last run (the failing run when one failed).
    pub depth: u32,
    /// The changed lines of the last run.
    pub tally: Tally,
    /// The depth of the first run in which every changed line had run.
    pub first_ran: Option<u32>,
    /// The depth the search had to reach: `first_ran` plus the scope's depth (the scope's
    /// own depth when the change ran within it).
    pub target: Option<u32>,
    pub steps: Vec<Step>,
    /// Why the deepening ended before every changed line ran or before `target`.
    pub stopped: Option<String>,
    /// Seconds of the runs past the bound.
    pub deepening_s: f64,
}

impl Deepened {
    /// The deepening as JSON: the last run's changed lines, the depths, the budget and every
    /// run.
    pub fn json(&self, budget_s: f64) -> serde_json::Value {
        serde_json::json!({
            "changed_lines": self.tally.json(),
            "first_ran_at_depth": self.first_ran,
            "target_depth": self.target,
            "deepening_budget_s": budget_s,
            "deepening_s": self.deepening_s,
            "stopped": self.stopped,
            "runs": self.steps.iter().map(|s| serde_json::json!({
                "depth": s.depth, "states": s.states, "seconds": s.seconds,
                "changed_lines": s.covered,
            })).collect::<Vec<_>>(),
        })
    }

    /// The lines a reviewer reads for the runs past the bound:
    /// `deepening: depth 5: 166631 states in 6.8 s; changed lines run: 2 of 2`.
    pub fn step_lines(&self, bound: u32) -> Vec<String> {
        self.steps
            .iter()
            .filter(|s| s.depth > bound)
            .map(|s| {
                format!(
                    "deepening: depth {}: {} states in {:.1} s; {}",
                    s.depth, s.states, s.seconds, s.covered
                )
            })
            .collect()
    }
}

/// Run the search at the depth `bound`, deeper as `plan` allows while changed lines have not
/// run. `run(depth, left)` runs one whole search to `depth`; `left` is the time the deepening
/// budget has left for a run past the bound (its time bound), `None` for the bounded run.
pub fn search<O>(
    bound: u32,
    plan: &Plan,
    mut run: impl FnMut(u32, Option<f64>) -> Result<Run<O>, String>,
) -> Result<(O, Deepened), String> {
    let t0 = Instant::now();
    let mut steps = Vec::new();
    let mut first_ran = None;
    let mut target = None;
    let mut depth = bound;
    loop {
        let past = depth > bound;
        let left = past.then(|| plan.budget_s - t0.elapsed().as_secs_f64());
        let r = run(depth, left)?;
        steps.push(Step {
            depth,
            states: r.states,
            seconds: r.seconds,
            covered: r.tally.line(),
        });
        if first_ran.is_none() && r.tally.all_ran() {
            first_ran = Some(depth);
            target = Some(if past { depth + bound } else { depth });
        }
        let deepening_s = if past {
            t0.elapsed().as_secs_f64()
        } else {
            0.0
        };
        let done = |outcome: O, tally: Tally, stopped: Option<String>, steps: Vec<Step>| {
            Ok((
                outcome,
                Deepened {
                    depth,
                    tally,
                    first_ran,
                    target,
                    steps,
                    stopped,
                    deepening_s,
                },
            ))
        };
        let exhausted = match &r.ended {
            Ended::Holds { exhausted } => *exhausted,
            Ended::Incomplete(reason) => {
                let why = if past {
                    format!(
                        "the deepening budget ({:.0} s) ended: {reason}",
                        plan.budget_s
                    )
                } else {
                    reason.clone()
                };
                return done(r.outcome, r.tally, Some(why), steps);
            }
            // a counterexample, or an error: reported as it is
            Ended::Failed | Ended::Other => return done(r.outcome, r.tally, None, steps),
        };
        if target.is_some_and(|t| depth >= t) {
            return done(r.outcome, r.tally, None, steps);
        }
        if exhausted {
            let why = (!r.tally.all_ran())
                .then(|| "every reachable state of the scope was seen".to_string());
            return done(r.outcome, r.tally, why, steps);
        }
        if plan.budget_s <= 0.0 {
            return done(
                r.outcome,
                r.tally,
                Some("no deepening (--deepen-budget 0)".into()),
                steps,
            );
        }
        if t0.elapsed().as_secs_f64() >= plan.budget_s {
            let why = format!("the deepening budget ({:.0} s) ended", plan.budget_s);
            return done(r.outcome, r.tally, Some(why), steps);
        }
        depth += 1;
    }
}

/// A plain search's verdict with "holds" said as what it is inside a longer verdict.
fn plain(base: &str) -> String {
    for (holds, said) in [
        ("holds up to depth ", "no failure up to depth "),
        (
            "holds (every reachable state seen)",
            "no failure in any reachable state",
        ),
        (
            "holds (state space exhausted)",
            "no failure in any reachable state",
        ),
    ] {
        if let Some(rest) = base.strip_prefix(holds) {
            return format!("{said}{rest}");
        }
    }
    base.to_string()
}

/// The verdict of a deepened search in words, with its exit class: (line, incomplete).
/// `base` is the plain search's verdict for the last run (from `holds ...`,
/// `COUNTEREXAMPLE ...` or `incomplete ...` on), `found` whether it is a counterexample.
pub fn verdict_line(
    found: bool,
    d: &Deepened,
    bound: u32,
    budget_s: f64,
    base: &str,
) -> (String, bool) {
    let covered = d.tally.line();
    let deepened = if d.depth > bound {
        format!(
            " (searched past the bound {bound} to depth {}; deepening budget {budget_s:.0} s)",
            d.depth
        )
    } else {
        String::new()
    };
    if found {
        return (format!("{base}; {covered}{deepened}"), false);
    }
    if let (true, 0, Some((f, l))) = (
        d.tally.lines.is_empty(),
        d.tally.uncounted_removed,
        d.tally.out_of_scope.first(),
    ) {
        return (
            format!(
                "incomplete: the change at {f}:{l} is reachable from no entry point the scope \
                 offers; {}; {covered}",
                plain(base)
            ),
            true,
        );
    }
    if let Some(at) = d.tally.first_unreached() {
        let why = d
            .stopped
            .as_deref()
            .map_or(String::new(), |w| format!(" ({w})"));
        return (
            format!(
                "incomplete: the change at {at} within depth {}{why}; {}; {covered}",
                d.depth,
                plain(base)
            ),
            true,
        );
    }
    let first = d.first_ran.unwrap_or(d.depth);
    let target = d.target.unwrap_or(d.depth);
    let ran_at = if first > bound {
        format!("; the change first ran at depth {first}")
    } else {
        String::new()
    };
    if base.starts_with("incomplete") {
        return (format!("{base}; {covered}{ran_at}{deepened}"), true);
    }
    if d.depth < target || d.stopped.is_some() {
        let why = d.stopped.as_deref().unwrap_or("the search stopped");
        return (
            format!(
                "incomplete: the change first ran at depth {first}; the search past it reached depth {} of {target} when {why}; {}; {covered}",
                d.depth,
                plain(base)
            ),
            true,
        );
    }
    (format!("{base}; {covered}{ran_at}{deepened}"), false)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cover::{diff_text, tally, Changes, Hits};

    #[test]
    fn a_budget_is_finite_seconds_from_zero() {
        assert_eq!(budget(0.0), Ok(0.0));
        assert_eq!(budget(DEFAULT_BUDGET_S), Ok(DEFAULT_BUDGET_S));
        for bad in [-1.0, f64::NAN, f64::INFINITY] {
            assert_eq!(
                budget(bad),
                Err("--deepen-budget: seconds, 0 or more"),
                "{bad}"
            );
        }
    }

    /// A run whose one changed line first runs at depth `at`, holding at every depth.
    fn runs(at: u32) -> impl FnMut(u32, Option<f64>) -> Result<Run<u32>, String> {
        let ch = Changes {
            changes: diff_text("m.rmap", "a\n", "b\n"),
        };
        move |depth, _| {
            let mut h = Hits::new();
            h.insert("m.rmap".into(), [(1, u64::from(depth >= at))].into());
            Ok(Run {
                outcome: depth,
                ended: Ended::Holds { exhausted: false },
                tally: tally(&ch, &h, None, &[]),
                states: depth as usize * 10,
                seconds: 0.0,
            })
        }
    }

    #[test]
    fn the_search_goes_past_the_change_by_the_bound() {
        let plan = Plan {
            accept: vec![],
            budget_s: 60.0,
        };
        let (o, d) = search(2, &plan, runs(3)).unwrap();
        assert_eq!((o, d.first_ran, d.target), (5, Some(3), Some(5)));
        let (line, inc) = verdict_line(false, &d, 2, 60.0, "holds up to depth 5");
        assert!(!inc);
        assert_eq!(
            line,
            "holds up to depth 5; changed lines run: 1 of 1; the change first ran at depth 3 \
             (searched past the bound 2 to depth 5; deepening budget 60 s)"
        );
        assert_eq!(d.step_lines(2).len(), 3);
        // no deepening: the change never ran within the bound
        let plan = Plan::default();
        let (_, d) = search(2, &plan, runs(3)).unwrap();
        let (line, inc) = verdict_line(false, &d, 2, 0.0, "holds up to depth 2");
        assert!(inc);
        assert!(
            line.starts_with(
                "incomplete: the change at m.rmap:1 never ran within depth 2 (no deepening \
                 (--deepen-budget 0)); no failure up to depth 2; changed lines run: 0 of 1"
            ),
            "{line}"
        );
    }
}
