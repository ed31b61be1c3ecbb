//! One pass of `check --kernel`: one scope searched on the C (breadth-first, walks or the
//! distributed search, deepened to a patch's changed lines), its verdict line, the
//! counterexample with its consequence search, or the divergence, written as text, JSON or the
//! parts of an HTML page.

use super::cargs::CcheckArgs;
use crate::ccheck::deepen::{self, Plan};
use crate::ccheck::{self, report};
use crate::checker::Verdict;
use crate::cmd::formats::TraceFormat;
use crate::cmd::CmdError;
use crate::explore::simulate::Simulation;
use crate::scope::Scope;
use crate::world::scenario::Call;
use crate::world::World;
use std::io::Write;

/// What every pass of one run shares.
pub(crate) struct Ctx<'a> {
    pub a: &'a CcheckArgs,
    /// The model in use (named, or the tree generation's).
    pub model: &'a std::path::Path,
    pub prog: &'a crate::lang::Program,
    pub prep: &'a ccheck::Prepared,
    pub plan: Plan,
    pub threads: usize,
}

/// A pass's result: its class, and what the HTML page and the JSON document take from it.
pub(crate) struct PassOut {
    pub class: report::Class,
    pub line: String,
    pub notes: Vec<String>,
    pub json: serde_json::Value,
    /// The counterexample in kernel form, for the HTML page.
    pub cex: Option<(Vec<report::KernelCall>, ccheck::system::CFailure)>,
}

fn bad(e: impl std::fmt::Display) -> CmdError {
    CmdError::line(format_args!("rmapcheck check --kernel: {e}"))
}

/// Run `scope` on the C. `label` names the pass in its verdict line when the run has several.
/// Text goes to `out` as it is found (the notes and verdict line to `err` in JSON and HTML).
pub(crate) fn run_pass(
    cx: &Ctx,
    scope: &Scope,
    label: Option<&str>,
    out: &mut dyn Write,
    err: &mut dyn Write,
) -> Result<PassOut, CmdError> {
    let (a, prog, prep) = (cx.a, cx.prog, cx.prep);
    let bar = crate::cmd::progress::Bar::new(a.progress, "check --kernel");
    let name = format!("C{}", label.map(|l| format!(" [{l}]")).unwrap_or_default());
    let mut report_progress = |p: &crate::checker::Progress| bar.search(&name, p);
    let run = ccheck::Run {
        binary: &prep.built.binary,
        baseline: prep.baseline.as_ref().map(|b| b.binary.as_path()),
        threads: cx.threads,
        env: Vec::new(),
        walks: a.simulate.as_ref().map(Simulation::walks),
        cluster: a.cluster.as_ref(),
    };
    let searched = match &prep.changes {
        None => run.go(prog, scope, &mut report_progress).map(|o| (o, None)),
        Some(ch) => deepen::search(
            prog,
            scope,
            &a.kernel,
            &run,
            ch,
            &cx.plan,
            &mut report_progress,
        )
        .map(|(o, d)| (o, Some(d))),
    };
    bar.finish();
    let (o, deep) = searched.map_err(bad)?;
    if o.stats.transitions == 0 && !matches!(o.verdict, Verdict::FailedInitial(_)) {
        if let Verdict::Error(e) = &o.verdict {
            return Err(bad(e));
        }
        return Err(bad(format!(
            "the search made no call on the C{}",
            label.map(|l| format!(" in pass {l}")).unwrap_or_default()
        )));
    }
    let depth = deep.as_ref().map_or(scope.max_depth, |d| d.depth);
    let (mut line, mut class) = report::verdict(&o, depth);
    if let Some(d) = deep.as_ref().filter(|_| class != report::Class::Diverges) {
        let found = matches!(
            o.verdict,
            Verdict::Failed { .. } | Verdict::FailedInitial(_)
        );
        let (l, inc) = deepen::verdict_line(found, d, scope.max_depth, cx.plan.budget_s, &line);
        line = l;
        class = if found {
            report::Class::Found
        } else if inc {
            report::Class::Incomplete
        } else {
            report::Class::Holds
        };
    }
    let mut notes = Vec::new();
    for l in deep.iter().flat_map(|d| d.step_lines(scope.max_depth)) {
        notes.push(format!("  {l}"));
    }
    for (why, n) in &o.skipped {
        notes.push(format!(
            "  calls offered but not reachable by the harness: {n} x {why}"
        ));
    }
    if o.divergences.count > 0 {
        notes.push(format!(
            "  states where the model's world left the C's: {}, none searched further (the model \
             chooses the calls; see the divergence below)",
            o.divergences.count
        ));
    }
    if let Some(n) = o.shrunk_from {
        notes.push(format!(
            "  the failing walk made {n} calls; shrunk to the {} the failure needs",
            match &o.verdict {
                Verdict::Failed { path, .. } => path.len(),
                _ => 0,
            }
        ));
    }
    if o.checkpoints_over > 0 {
        notes.push(format!(
            "  walker checkpoints over the bound of {} a call: up to {} in one sequence not run",
            crate::ccheck::pages::CHECKPOINTS_PER_CALL,
            o.checkpoints_over
        ));
    }
    let (calls, failure): (Vec<Call>, _) = match &o.verdict {
        Verdict::Failed { path, failure } => (path.clone(), Some(failure)),
        Verdict::FailedInitial(f) => (Vec::new(), Some(f)),
        _ => (Vec::new(), None),
    };
    let kcalls = failure.map(|_| kernel_calls(prog, scope, &calls));
    // the consequence search: the C again, for each class more severe than the first's (the
    // HTML page does not show it)
    let text = matches!(a.format, TraceFormat::Text);
    let who = match label {
        Some(l) => format!("{} [{l}]", a.kernel.display()),
        None => a.kernel.display().to_string(),
    };
    let html = matches!(a.format, TraceFormat::Html);
    let conseq = failure.filter(|_| !html).and_then(|f| {
        crate::ccheck::consequence::search(
            prog,
            scope,
            &prep.built.binary,
            prep.baseline.as_ref().map(|b| b.binary.as_path()),
            cx.threads,
            f,
            calls.len(),
        )
    });
    if text {
        for s in &notes {
            writeln!(out, "{s}")?;
        }
        writeln!(out, "{who}: {line}")?;
        if let (Some(f), Some(k)) = (failure, &kcalls) {
            write!(out, "{}", report::text(k, f))?;
            write!(out, "{}", crate::ccheck::consequence::production_note(f))?;
        }
        if let Some(r) = &conseq {
            writeln!(out, "{}", r.line())?;
            if let Some((wcalls, wf)) = r.worst() {
                writeln!(
                    out,
                    "\nWorst consequence found by the same bug: {} ({}), {} calls:",
                    wf.invariant.map_or("a crash", |i| i.name()),
                    crate::ccheck::consequence::class_of(wf),
                    wcalls.len()
                )?;
                let wk = kernel_calls(prog, scope, wcalls);
                write!(out, "{}", report::text(&wk, wf))?;
                write!(out, "{}", crate::ccheck::consequence::production_note(wf))?;
            }
        }
        if let Some(d) = o.divergences.kept.first() {
            write!(
                out,
                "{}",
                divergence_text(prog, scope, d, prep.baseline.is_some())
            )?;
            let (_, c, m) = d.first_difference();
            if let Some(v) = prep.built.generation.explain_for(cx.model, c, m) {
                write!(out, "{}", prep.built.generation.difference_text(v))?;
            }
        }
    } else {
        for s in &notes {
            writeln!(err, "{s}")?;
        }
        writeln!(err, "{who}: {line}")?;
    }
    let json = serde_json::json!({
        "pass": label,
        "scope": scope.summary(),
        "scope_spec": scope,
        "verdict": line,
        "states": o.stats.states,
        "transitions": o.stats.transitions,
        "c_calls": o.c_calls,
        "seconds": o.stats.seconds,
        "depth": depth,
        "coverage": deep.as_ref().map(|d| d.json(cx.plan.budget_s)),
        "counterexample": match (failure, &kcalls) {
            (Some(f), Some(k)) => report::json(k, f),
            _ => serde_json::Value::Null,
        },
        "divergences": o.divergences.count,
        "divergence": o.divergences.kept.first().map(|d| serde_json::json!({
            "calls": d.calls.iter().map(|c| c.to_string()).collect::<Vec<_>>(),
            "c_world": d.c,
            "model_world": d.model,
            "version_difference": version_difference(prep.built.generation, cx.model, d),
        })),
        "first": failure.map_or(serde_json::Value::Null, |f| {
            crate::ccheck::consequence::finding_json(f, calls.len())
        }),
        "worst": match (conseq.as_ref().and_then(|r| r.worst()), failure) {
            (Some((wc, wf)), _) => {
                let mut j = crate::ccheck::consequence::finding_json(wf, wc.len());
                if let Some(o) = j.as_object_mut() {
                    o.insert(
                        "counterexample".into(),
                        report::json(&kernel_calls(prog, scope, wc), wf),
                    );
                }
                j
            }
            (None, Some(f)) => crate::ccheck::consequence::finding_json(f, calls.len()),
            (None, None) => serde_json::Value::Null,
        },
        "consequence_search": conseq.as_ref().map(|r| r.line()),
    });
    Ok(PassOut {
        class,
        line,
        notes,
        json,
        cex: failure.cloned().zip(kcalls).map(|(f, k)| (k, f)),
    })
}

/// The known version difference of the tree's generation that explains divergence `d`, as
/// JSON (null when none does).
fn version_difference(
    g: &crate::charness::generation::Generation,
    model: &std::path::Path,
    d: &ccheck::diverge::Divergence,
) -> serde_json::Value {
    let (_, c, m) = d.first_difference();
    g.explain_for(model, c, m).map_or(
        serde_json::Value::Null,
        |v| serde_json::json!({"name": v.name, "tree_generation": g.name, "what": v.what}),
    )
}

/// The first divergence: the calls in kernel form and cdiff of the two worlds.
fn divergence_text(
    prog: &crate::lang::Program,
    scope: &Scope,
    d: &ccheck::diverge::Divergence,
    patched: bool,
) -> String {
    let mut s = format!(
        "\nDIVERGENCE: the model diverges from the kernel's C after call {}{}. This is a \
         fidelity failure of the model, not a finding about the C: the search takes its calls \
         from the model's world, so it stops there. `rmapcheck cdiff --sequence` replays it.\n",
        d.calls.len(),
        if patched {
            " (shown on the unpatched tree's C, which diverges too)"
        } else {
            ""
        }
    );
    s += &report::calls_text(&kernel_calls(prog, scope, &d.calls));
    s += &d.render();
    s
}

/// The calls of a counterexample in kernel form, along the model's worlds.
pub(crate) fn kernel_calls(
    prog: &crate::lang::Program,
    scope: &Scope,
    calls: &[Call],
) -> Vec<report::KernelCall> {
    let sys = crate::explore::search::CallSystem::new(
        prog,
        scope,
        crate::checker::budget::Budget::unlimited(),
    );
    let w0: World = match crate::charness::initial_world(scope) {
        Ok(w) => sys.canonical(&w),
        Err(_) => World::default(),
    };
    report::kernel_calls(&w0, calls, &|w, c| {
        let _ = sys.apply(w, c);
        *w = sys.canonical(w);
    })
}
