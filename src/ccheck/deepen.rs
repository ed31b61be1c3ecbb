//! The C search of a patch that goes to the patch: the bounded search is run on a harness built
//! with coverage ([`super::coverage`]); when changed lines did not run within the bound, the
//! search is run again one depth deeper (iterative deepening: each run a whole breadth-first
//! search from the initial state, so the deepest run's verdict covers every shallower depth),
//! until every changed line has run, at depth F, and the search has gone on to F plus the
//! scope's depth, or a printed time budget ends. docs/VERDICTS.md describes the verdicts.

use super::coverage::{self, Accept, Changes, Hits, Tally};
use super::{Outcome, Run};
use crate::charness::build;
use crate::checker::Verdict;
use crate::explore::scope::Scope;
use crate::lang::Program;
use std::path::Path;
use std::time::Instant;

/// How far to go past the bound.
#[derive(Clone, Debug, Default)]
pub struct Plan {
    /// Lines accepted as unreached.
    pub accept: Vec<Accept>,
    /// Seconds the runs past the bound may take in all (0: no deepening).
    pub budget_s: f64,
}

/// One run of the search.
#[derive(Clone, Debug)]
pub struct Step {
    pub depth: u32,
    pub states: usize,
    pub seconds: f64,
    /// The tally's line after the run.
    pub covered: String,
}

/// The deepened search.
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

/// The run of `run` at `scope`, with the counts of the lines its harness ran.
fn covered_run(
    prog: &Program,
    scope: &Scope,
    run: &Run<'_>,
    progress: &mut dyn FnMut(usize, u32, usize, f64),
) -> Result<(Outcome, Hits), String> {
    let prefix = tempfile::Builder::new()
        .prefix(".gcov.")
        .tempdir_in(build::cache_root())
        .map_err(|e| format!("{}: {e}", build::cache_root().display()))?;
    let env = vec![(
        "GCOV_PREFIX".to_string(),
        prefix.path().to_string_lossy().into_owned(),
    )];
    let covered = Run {
        env,
        walks: run.walks,
        ..*run
    };
    let o = covered.go(prog, scope, progress)?;
    let objdir = run.binary.parent().unwrap_or(Path::new("."));
    let hits = coverage::collect(prefix.path(), objdir)?;
    Ok((o, hits))
}

/// Run `run` on the patched harness (built with coverage, from `tree` with `changes`) within
/// `scope`, deeper as [`Plan`] allows while changed lines have not run. Random walks are not
/// deepened: they are incomplete already, and say which changed lines they ran.
pub fn search(
    prog: &Program,
    scope: &Scope,
    tree: &Path,
    run: &Run<'_>,
    changes: &Changes,
    plan: &Plan,
    progress: &mut dyn FnMut(usize, u32, usize, f64),
) -> Result<(Outcome, Deepened), String> {
    let bound = scope.max_depth;
    let t0 = Instant::now();
    let mut before_binary: Option<std::path::PathBuf> = None;
    let mut steps = Vec::new();
    let mut first_ran = None;
    let mut target = None;
    let mut depth = bound;
    loop {
        let mut s = scope.clone();
        s.max_depth = depth;
        let past = depth > bound;
        if past {
            let left = plan.budget_s - t0.elapsed().as_secs_f64();
            s.max_seconds = if s.max_seconds > 0.0 {
                s.max_seconds.min(left)
            } else {
                left
            };
        }
        let (o, hits) = covered_run(prog, &s, run, progress)?;
        let failed = matches!(
            o.verdict,
            Verdict::Failed { .. } | Verdict::FailedInitial(_)
        );
        // a counterexample needs no search of the tree before the patch: its removed lines
        // are left out of the tally and said to be
        let before = if !failed && coverage::needs_before(changes, &hits) {
            if before_binary.is_none() {
                before_binary = Some(build::build_covered(tree, &[])?.binary);
            }
            let before = Run {
                binary: before_binary.as_deref().unwrap_or(run.binary),
                baseline: None,
                env: Vec::new(),
                ..*run
            };
            Some(covered_run(prog, &s, &before, &mut |_, _, _, _| {})?)
        } else {
            None
        };
        let mut tally = coverage::tally(
            changes,
            &hits,
            before.as_ref().map(|(_, h)| h),
            &plan.accept,
        );
        if failed && coverage::needs_before(changes, &hits) {
            tally.drop_before();
        }
        if let Some((b, _)) = &before {
            let same = b.digest == o.digest && b.stats.states == o.stats.states;
            tally.no_difference = same.then_some(o.stats.states);
        }
        steps.push(Step {
            depth,
            states: o.stats.states,
            seconds: o.stats.seconds,
            covered: tally.line(),
        });
        if first_ran.is_none() && tally.all_ran() {
            first_ran = Some(depth);
            target = Some(if past { depth + bound } else { depth });
        }
        let deepening_s = if past {
            t0.elapsed().as_secs_f64()
        } else {
            0.0
        };
        let done = |outcome: Outcome, tally: Tally, stopped: Option<String>, steps: Vec<Step>| {
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
        let exhausted = match &o.verdict {
            Verdict::Holds { exhausted } => *exhausted,
            Verdict::Incomplete { reason, .. } => {
                let why = if past {
                    format!(
                        "the deepening budget ({:.0} s) ended: {reason}",
                        plan.budget_s
                    )
                } else {
                    reason.clone()
                };
                return done(o, tally, Some(why), steps);
            }
            // a counterexample, or an error: reported as it is
            _ => return done(o, tally, None, steps),
        };
        if target.is_some_and(|t| depth >= t) {
            return done(o, tally, None, steps);
        }
        if exhausted {
            let why = (!tally.all_ran())
                .then(|| "every reachable state of the scope was seen".to_string());
            return done(o, tally, why, steps);
        }
        if plan.budget_s <= 0.0 {
            return done(
                o,
                tally,
                Some("no deepening (--deepen-budget 0)".into()),
                steps,
            );
        }
        if t0.elapsed().as_secs_f64() >= plan.budget_s {
            let why = format!("the deepening budget ({:.0} s) ended", plan.budget_s);
            return done(o, tally, Some(why), steps);
        }
        depth += 1;
    }
}

/// A plain search's verdict line with "holds" said as what it is inside a longer verdict.
fn plain(base: &str) -> String {
    if let Some(rest) = base.strip_prefix("holds up to depth ") {
        return format!("no failure up to depth {rest}");
    }
    if let Some(rest) = base.strip_prefix("holds (every reachable state seen)") {
        return format!("no failure in any reachable state{rest}");
    }
    base.to_string()
}

/// The verdict of a deepened search in words, with its exit class: (line, found, incomplete).
/// `base` is the plain search's verdict line for the last run.
pub fn verdict_line(
    o: &Outcome,
    d: &Deepened,
    bound: u32,
    budget_s: f64,
    base: &str,
) -> (String, bool, bool) {
    let covered = d.tally.line();
    let found = matches!(
        o.verdict,
        Verdict::Failed { .. } | Verdict::FailedInitial(_)
    );
    let deepened = if d.depth > bound {
        format!(
            " (searched past the bound {bound} to depth {}; deepening budget {budget_s:.0} s)",
            d.depth
        )
    } else {
        String::new()
    };
    if found {
        return (format!("{base}; {covered}{deepened}"), true, false);
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
            false,
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
        return (format!("{base}; {covered}{ran_at}{deepened}"), false, true);
    }
    if d.depth < target || d.stopped.is_some() {
        let why = d.stopped.as_deref().unwrap_or("the search stopped");
        return (
            format!(
                "incomplete: the change first ran at depth {first}; the search past it reached depth {} of {target} when {why}; {}; {covered}",
                d.depth,
                plain(base)
            ),
            false,
            true,
        );
    }
    (format!("{base}; {covered}{ran_at}{deepened}"), false, false)
}
