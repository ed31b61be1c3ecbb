//! Every pass of one C check in turn, as `check --kernel` and `review` both run them: a pass
//! after a counterexample or a divergence is `not run`, a pass after an interrupt is `not run`
//! and the run incomplete, and the exit status is the worst of the passes' (a counterexample,
//! then a divergence, then incomplete).

use super::cpass::{self, Ctx};
use crate::ccheck::{report, system::CFailure};
use crate::cmd::CmdError;
use crate::cmd::Exit;
use crate::scope::Scope;
use std::io::Write;

/// What the passes found together.
pub(crate) struct Passes {
    /// The exit status the passes decide.
    pub status: Exit,
    /// One line a pass: its verdict (`[NAME] ...` when there are several), or why it did not
    /// run (`TREE [NAME]: not run: ...`).
    pub lines: Vec<String>,
    /// Each pass's scope line (when there are several) and notes, in order.
    pub notes: Vec<String>,
    /// Each pass that ran: its class and JSON document.
    pub docs: Vec<(report::Class, serde_json::Value)>,
    /// The first counterexample: its pass (an index into the passes), the calls in kernel
    /// terms, the failure.
    pub cex: Option<(usize, Vec<report::KernelCall>, CFailure)>,
}

impl Passes {
    /// The pass that decided the exit status: the first counterexample or divergence, else
    /// the first incomplete pass, else the last (an index into `docs`).
    pub fn decided(&self) -> usize {
        let first = |c: report::Class| self.docs.iter().position(|(k, _)| *k == c);
        first(report::Class::Found)
            .into_iter()
            .chain(first(report::Class::Diverges))
            .min()
            .or_else(|| first(report::Class::Incomplete))
            .unwrap_or(self.docs.len().saturating_sub(1))
    }
}

/// Run `passes` on the C of `cx`. The verdicts and notes go to `out` as text when `text`,
/// else to `err` (the caller writes its document to `out`); `on_pass` hears each pass before
/// it runs.
pub(crate) fn run_passes(
    cx: &Ctx,
    passes: &[Scope],
    text: bool,
    on_pass: &mut dyn FnMut(&Scope),
    out: &mut dyn Write,
    err: &mut dyn Write,
) -> Result<Passes, CmdError> {
    let kernel = cx.a.kernel.display();
    let several = passes.len() > 1;
    let mut r = Passes {
        status: Exit::Ok,
        lines: Vec::new(),
        notes: Vec::new(),
        docs: Vec::new(),
        cex: None,
    };
    let mut stopped: Option<(String, &str)> = None;
    for (i, scope) in passes.iter().enumerate() {
        let label = several.then_some(scope.name.as_str());
        if several {
            let l = format!("  pass {}: {}", scope.name, scope.summary());
            let w: &mut dyn Write = if text { &mut *out } else { &mut *err };
            writeln!(w, "{l}")?;
            r.notes.push(l);
        }
        let not_run = if let Some((pass, why)) = &stopped {
            Some(format!("{why} in pass {pass}"))
        } else if crate::checker::budget::stop_requested() {
            r.status = worse(r.status, Exit::Incomplete);
            Some("the run was interrupted (incomplete)".to_string())
        } else {
            None
        };
        if let Some(why) = not_run {
            let l = format!("{kernel} [{}]: not run: {why}", scope.name);
            let w: &mut dyn Write = if text { &mut *out } else { &mut *err };
            writeln!(w, "{l}")?;
            r.lines.push(l);
            continue;
        }
        on_pass(scope);
        let p = cpass::run_pass(cx, scope, label, out, err)?;
        r.notes.extend(p.notes);
        r.lines.push(match label {
            Some(l) => format!("[{l}] {}", p.line),
            None => p.line,
        });
        r.status = worse(r.status, exit_of(p.class));
        match p.class {
            report::Class::Found => {
                stopped = Some((scope.name.clone(), "a counterexample (above)"));
                if r.cex.is_none() {
                    r.cex = p.cex.map(|(k, f)| (i, k, f));
                }
            }
            report::Class::Diverges => {
                stopped = Some((scope.name.clone(), "the model diverged from the C (above)"));
            }
            _ => {}
        }
        r.docs.push((p.class, p.json));
    }
    Ok(r)
}

fn exit_of(c: report::Class) -> Exit {
    match c {
        report::Class::Found => Exit::Found,
        report::Class::Diverges => Exit::Diverges,
        report::Class::Incomplete => Exit::Incomplete,
        report::Class::Holds => Exit::Ok,
    }
}

/// The exit status of several passes: a counterexample first, then a divergence, then
/// incomplete.
fn worse(a: Exit, b: Exit) -> Exit {
    let rank = |e: Exit| match e {
        Exit::Found => 3,
        Exit::Diverges => 2,
        Exit::Incomplete => 1,
        _ => 0,
    };
    if rank(b) > rank(a) {
        b
    } else {
        a
    }
}
