//! The C search of a patch that goes to the patch: each run of the shared deepening loop
//! ([`crate::cover::deepen`]) is a search of a harness built with coverage
//! ([`super::coverage`]), with gcov's counts read when its processes exit, and, for a change
//! that only removes lines, a search of the unpatched tree to the same bounds. Random walks
//! (`--simulate`) are not deepened: their verdict is incomplete already, and says which changed
//! lines they ran. docs/VERDICTS.md describes the verdicts.

use super::coverage::{self, Changes, Hits};
use super::{Outcome, Run};
use crate::charness::build;
use crate::checker::{OnProgress, Verdict};
use crate::cover::deepen::{self as shared, Ended};
pub use crate::cover::deepen::{verdict_line, Deepened, Plan};
use crate::lang::Program;
use crate::scope::Scope;
use std::path::Path;

/// The run of `run` at `scope`, with the counts of the lines its harness ran.
fn covered_run(
    prog: &Program,
    scope: &Scope,
    run: &Run<'_>,
    progress: OnProgress<'_>,
) -> Result<(Outcome, Hits), String> {
    let prefix = tempfile::Builder::new()
        .prefix(".gcov.")
        .tempdir_in(build::cache_root())
        .map_err(|e| format!("{}: {e}", build::cache_root().display()))?;
    let env = vec![(
        "GCOV_PREFIX".to_string(),
        prefix.path().to_string_lossy().into_owned(),
    )];
    let covered = Run { env, ..*run };
    let o = covered.go(prog, scope, progress)?;
    let objdir = run.binary.parent().unwrap_or(Path::new("."));
    let hits = coverage::collect(prefix.path(), objdir)?;
    Ok((o, hits))
}

/// Run `run` on the patched harness (built with coverage, from `tree` with `changes`) within
/// `scope`, deeper as [`Plan`] allows while changed lines have not run.
pub fn search(
    prog: &Program,
    scope: &Scope,
    tree: &Path,
    run: &Run<'_>,
    changes: &Changes,
    plan: &Plan,
    progress: OnProgress<'_>,
) -> Result<(Outcome, Deepened), String> {
    let mut before_binary: Option<std::path::PathBuf> = None;
    shared::search(scope.max_depth, plan, |depth, left| {
        let mut s = scope.clone();
        s.max_depth = depth;
        if let Some(left) = left {
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
            Some(covered_run(prog, &s, &before, &mut |_| {})?)
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
        let ended = match &o.verdict {
            Verdict::Holds { exhausted } => Ended::Holds {
                exhausted: *exhausted,
            },
            Verdict::Incomplete { reason, .. } => Ended::Incomplete(reason.clone()),
            Verdict::Failed { .. } | Verdict::FailedInitial(_) => Ended::Failed,
            _ => Ended::Other,
        };
        Ok(shared::Run {
            states: o.stats.states,
            seconds: o.stats.seconds,
            outcome: o,
            ended,
            tally,
        })
    })
}
