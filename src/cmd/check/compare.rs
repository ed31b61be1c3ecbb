//! `rmapcheck compare BASE PATCH`: equivalence of a patch with the baseline over every call
//! sequence of a scope, and the critical-section work of each, per kind of call; or, with
//! `--scenario execl --procs N`, the work of exec's splits on a library mapped by N processes.
//! Exit status: 0 equivalent (or scenario measured), 1 a difference or violation, 2 bad input.

use super::args::{CheckArgs, ScopeOpts};
use super::scope::effective_scope;
use crate::cmd::load_model;
use crate::cmd::{CmdError, CmdResult, Exit};
use crate::explore::compare::{compare_within as run_compare, execl, Verdict, Work};
use std::io::Write;
use std::path::PathBuf;

/// Options of `rmapcheck compare` (each field's doc comment is its `--help` text).
#[derive(clap::Args, Clone, Debug)]
pub struct CompareArgs {
    pub base: PathBuf,
    pub patch: PathBuf,
    #[command(flatten)]
    pub scope: ScopeOpts,
    /// A measured scenario instead of the scope: `execl`.
    #[arg(long)]
    pub scenario: Option<String>,
    /// Processes mapping the library in the execl scenario.
    #[arg(long, default_value_t = 64)]
    pub procs: u32,
    /// Do not show progress.
    #[arg(long = "quiet", action = clap::ArgAction::SetFalse)]
    pub progress: bool,
}

impl CompareArgs {
    /// The `check` options whose scope the equivalence search runs at.
    fn check(&self) -> CheckArgs {
        CheckArgs {
            scope: self.scope.clone(),
            progress: self.progress,
            ..Default::default()
        }
    }
}

fn pct(a: u64, b: u64) -> String {
    if a == 0 {
        if b == 0 {
            "0.0%".into()
        } else {
            "new".into()
        }
    } else {
        format!("{:+.1}%", (b as f64 - a as f64) * 100.0 / a as f64)
    }
}

/// Rows of the work table for one kind of call (ASCII, under 80 columns).
pub(crate) fn work_rows(kind: &str, w: &Work) -> String {
    let rows = [
        ("file tree ops", w.base.file_ops, w.patch.file_ops),
        ("file visits", w.base.file.visits, w.patch.file.visits),
        (
            "file rotations",
            w.base.file.rotations,
            w.patch.file.rotations,
        ),
        (
            "file augments",
            w.base.file.augment_computes,
            w.patch.file.augment_computes,
        ),
        ("anon tree ops", w.base.anon_ops, w.patch.anon_ops),
        ("anon visits", w.base.anon.visits, w.patch.anon.visits),
        (
            "anon rotations",
            w.base.anon.rotations,
            w.patch.anon.rotations,
        ),
        (
            "anon augments",
            w.base.anon.augment_computes,
            w.patch.anon.augment_computes,
        ),
    ];
    let mut s = format!("{kind} ({} calls)\n", w.calls);
    for (name, a, b) in rows {
        if a == 0 && b == 0 {
            continue;
        }
        s += &format!("    {name:<16} {a:>12} {b:>12} {:>9}\n", pct(a, b));
    }
    s
}

const HEADER: &str = "    metric               baseline        patch    change\n";

pub fn compare(a: &CompareArgs, out: &mut dyn Write, err: &mut dyn Write) -> CmdResult {
    let (base, patch) = match (load_model(&a.base), load_model(&a.patch)) {
        (Ok(b), Ok(p)) => (b, p),
        (Err(d), _) | (_, Err(d)) => {
            return Err(CmdError::text(d));
        }
    };
    writeln!(
        out,
        "baseline {}\npatch    {}",
        a.base.display(),
        a.patch.display()
    )?;
    match a.scenario.as_deref() {
        Some("execl") => {
            writeln!(
                out,
                "scenario execl: libc.so (8 pages) mapped by {} processes, 3 VMAs each;\n\
                 a new process maps it and splits it as exec's loader does\n",
                a.procs
            )?;
            match execl(&base, &patch, a.procs) {
                Ok(rows) => {
                    write!(out, "{HEADER}")?;
                    for (label, w) in rows {
                        write!(out, "{}", work_rows(&label, &w))?;
                    }
                    Ok(Exit::Ok)
                }
                Err(e) => {
                    writeln!(out, "violation: {e}")?;
                    Ok(Exit::Found)
                }
            }
        }
        Some(other) => Err(CmdError::line(format_args!(
            "unknown scenario {other:?} (known: execl)"
        ))),
        None => {
            let scope = match effective_scope(&a.check()) {
                Ok(s) => s,
                Err(e) => {
                    return Err(CmdError::line(format_args!("rmapcheck compare: {e}")));
                }
            };
            writeln!(out, "{}", scope.summary())?;
            let budget = scope.budget();
            let bar = crate::cmd::progress::Bar::new(a.progress, "compare");
            // the patch model marked on its changed lines, and the model it includes on the
            // removed ones when it is the base compared with
            let cover = crate::explore::cover::PatchCover::of(&patch, &a.patch)
                .map_err(|e| CmdError::line(format_args!("rmapcheck compare: {e}")))?;
            let same_base = cover.as_ref().is_some_and(|c| {
                std::fs::canonicalize(&c.base_path).ok() == std::fs::canonicalize(&a.base).ok()
            });
            let (base_run, patch_run) = match &cover {
                Some(c) if same_base => (c.base(), c.patch()),
                Some(c) => (&base, c.patch()),
                None => (&base, &patch),
            };
            let r = run_compare(base_run, patch_run, &scope, &budget, &mut |p| {
                bar.search("compare (state pairs)", p)
            });
            bar.finish();
            let status = match &r.verdict {
                Verdict::Equivalent {
                    states: _,
                    calls: 0,
                } => {
                    writeln!(
                        err,
                        "rmapcheck compare: the comparison made no call: nothing was compared, \
                         so there is no verdict"
                    )?;
                    Exit::BadInput
                }
                Verdict::Equivalent { states, calls } => {
                    writeln!(
                        out,
                        "equivalent: same VMA layout and walker answers after every call \
                         ({states} state pairs, {calls} calls, up to depth {})",
                        scope.max_depth
                    )?;
                    Exit::Ok
                }
                Verdict::Incomplete {
                    reason,
                    complete_depth,
                    states,
                } => {
                    writeln!(
                        out,
                        "incomplete up to depth {complete_depth} ({reason}): no difference in \
                         {states} state pairs"
                    )?;
                    Exit::Incomplete
                }
                Verdict::Differs { calls, what } => {
                    writeln!(out, "DIFFERENT after:")?;
                    for (i, c) in calls.iter().enumerate() {
                        writeln!(out, "  {}. {c}", i + 1)?;
                    }
                    writeln!(out, "  {what}")?;
                    Exit::Found
                }
                Verdict::Violation {
                    which,
                    calls,
                    invariant,
                    message,
                } => {
                    writeln!(out, "the {which} violates {invariant} after:")?;
                    for (i, c) in calls.iter().enumerate() {
                        writeln!(out, "  {}. {c}", i + 1)?;
                    }
                    writeln!(out, "  {message}")?;
                    Exit::Found
                }
            };
            if let Some(c) = &cover {
                writeln!(
                    out,
                    "changed code: {}; the changed lines ran {} times in all",
                    c.tally_now(same_base).line(),
                    c.runs_now()
                )?;
            }
            writeln!(
                out,
                "\ncritical-section work over the calls compared, per kind of call:"
            )?;
            write!(out, "{HEADER}")?;
            for (k, w) in &r.work {
                write!(out, "{}", work_rows(k, w))?;
            }
            Ok(status)
        }
    }
}
