//! `rmapcheck check --kernel DIR [--patch FILE]... [--c-mutant SPEC]...`: the kernel tree's
//! own C, with the reviewer's diffs applied to a copy, searched exhaustively within a scope
//! with the sequential invariants checked after every call (docs/CHECK-C.md).

use crate::ccheck::deepen::{self, Plan};
use crate::ccheck::{self, cmutant, report, Source};
use crate::checker::Verdict;
use crate::cmd::formats::TraceFormat;
use crate::cmd::load_model;
use crate::cmd::{CmdError, CmdResult, Exit};
use crate::cover::Accept;
use crate::explore::scope::Scope;
use crate::explore::simulate::Simulation;
use crate::world::scenario::Call;
use crate::world::World;
use std::io::Write;
use std::path::PathBuf;

/// Options of `check --kernel`.
#[derive(Clone, Debug)]
pub struct CcheckArgs {
    /// The model that chooses the calls offered and is compared at a failure.
    pub model: PathBuf,
    pub kernel: PathBuf,
    pub patches: Vec<PathBuf>,
    /// C mutant specs (files, or directories of `*.toml`).
    pub mutants: Vec<PathBuf>,
    pub scope: Option<String>,
    pub max_depth: Option<u32>,
    pub format: TraceFormat,
    pub threads: Option<usize>,
    /// `FILE:LINE[-LINE]` changed lines accepted as unreached.
    pub accept_unreached: Vec<String>,
    /// Seconds the search may go on past the bound for the changed lines (0: none).
    pub deepen_budget: f64,
    pub progress: bool,
    /// Seeded random walks on the C instead of the breadth-first search (`--simulate`).
    pub simulate: Option<Simulation>,
    /// The breadth-first search on timely workers, threads or processes (`--workers`, ...).
    pub cluster: Option<crate::explore::distributed::Cluster>,
}

fn bad(e: impl std::fmt::Display) -> CmdError {
    CmdError::line(format_args!("rmapcheck check --kernel: {e}"))
}

/// Exit 0 holds, 1 a counterexample in the C, 2 bad input (a diff that does not apply, an
/// anchor not found, no tree), 3 incomplete, 4 the model diverged from the kernel's C (no
/// verdict on the C past the divergence).
pub fn ccheck(a: &CcheckArgs, out: &mut dyn Write, err: &mut dyn Write) -> CmdResult {
    if !matches!(
        a.format,
        TraceFormat::Text | TraceFormat::Json | TraceFormat::Html
    ) {
        return Err(bad("--format: the C search writes text, json or html"));
    }
    let prog = load_model(&a.model).map_err(CmdError::text)?;
    let mut scope = Scope::load(a.scope.as_deref().unwrap_or("default")).map_err(bad)?;
    if let Some(d) = a.max_depth {
        scope.max_depth = d;
    }
    if let Some(sim) = &a.simulate {
        sim.validate().map_err(bad)?;
        // the walks' depth is the depth every verdict and coverage line names
        scope.max_depth = sim.depth;
    }
    if scope.max_depth == 0 {
        return Err(bad("depth 0 makes no call"));
    }
    let mut mutants = Vec::new();
    for m in &a.mutants {
        if m.is_dir() {
            mutants.extend(cmutant::load_dir(m).map_err(bad)?);
        } else {
            mutants.push(cmutant::load(m).map_err(bad)?);
        }
    }
    let accept = a
        .accept_unreached
        .iter()
        .map(|s| {
            s.parse::<Accept>()
                .map_err(|e| bad(format!("--accept-unreached {e}")))
        })
        .collect::<Result<Vec<_>, _>>()?;
    if !(a.deepen_budget >= 0.0 && a.deepen_budget.is_finite()) {
        return Err(bad("--deepen-budget: seconds, 0 or more"));
    }
    let src = Source {
        kernel: a.kernel.clone(),
        patches: a.patches.clone(),
        mutants,
    };
    let prep = ccheck::prepare_covered(&src).map_err(bad)?;
    let release = &prep.built.release;
    let mut head = vec![format!(
        "check --kernel {} ({release}){}",
        a.kernel.display(),
        if prep.applied.is_empty() {
            String::new()
        } else {
            format!(" with {}", prep.applied.join(", "))
        }
    )];
    head.push(format!(
        "  {}; model {} chooses the calls",
        scope.summary(),
        a.model.display()
    ));
    head.push(format!("  {}", report::invariants_line()));
    if let Some(sim) = &a.simulate {
        head.push(format!(
            "  deep random search: {} of up to {} calls, seed {} (never holds; a \
             counterexample is shrunk to the calls it needs)",
            if sim.walks == 1 {
                "1 walk".to_string()
            } else {
                format!("{} walks", sim.walks)
            },
            sim.depth,
            sim.seed
        ));
    }
    head.push(format!(
        "  harness {} ({} in {:.1} s)",
        prep.built.binary.display(),
        if prep.built.compiled {
            "built"
        } else {
            "cached"
        },
        prep.built.seconds
    ));
    head.extend(scope_notes(&prep));
    let text = matches!(a.format, TraceFormat::Text);
    {
        let w: &mut dyn Write = if text { out } else { err };
        for l in &head {
            writeln!(w, "{l}")?;
        }
    }
    let bar = crate::cmd::progress::Bar::new(a.progress, "check --kernel");
    let threads = a.threads.unwrap_or_else(ccheck::default_threads);
    let mut report_progress = |s: usize, d: u32, f: usize, secs: f64| {
        bar.report(&format!(
            "C: {s} states, depth {d}, frontier {f}, {secs:.0}s"
        ))
    };
    let plan = Plan {
        accept,
        budget_s: a.deepen_budget,
    };
    let run = ccheck::Run {
        binary: &prep.built.binary,
        baseline: prep.baseline.as_ref().map(|b| b.binary.as_path()),
        threads,
        env: Vec::new(),
        walks: a.simulate.as_ref().map(Simulation::walks),
        cluster: a.cluster.as_ref(),
    };
    let searched = match &prep.changes {
        None => run
            .go(&prog, &scope, &mut report_progress)
            .map(|o| (o, None)),
        Some(ch) => deepen::search(
            &prog,
            &scope,
            &a.kernel,
            &run,
            ch,
            &plan,
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
        return Err(bad("the search made no call on the C"));
    }
    let depth = deep.as_ref().map_or(scope.max_depth, |d| d.depth);
    let (mut line, mut class) = report::verdict(&o, depth);
    if let Some(d) = deep.as_ref().filter(|_| class != report::Class::Diverges) {
        let found = matches!(
            o.verdict,
            Verdict::Failed { .. } | Verdict::FailedInitial(_)
        );
        let (l, inc) = deepen::verdict_line(found, d, scope.max_depth, plan.budget_s, &line);
        line = l;
        class = if found {
            report::Class::Found
        } else if inc {
            report::Class::Incomplete
        } else {
            report::Class::Holds
        };
    }
    let mut skipped = Vec::new();
    for l in deep.iter().flat_map(|d| d.step_lines(scope.max_depth)) {
        skipped.push(format!("  {l}"));
    }
    for (why, n) in &o.skipped {
        skipped.push(format!(
            "  calls offered but not reachable by the harness: {n} x {why}"
        ));
    }
    if o.divergences.count > 0 {
        skipped.push(format!(
            "  states where the model's world left the C's: {}, none searched further (the model \
             chooses the calls; see the divergence below)",
            o.divergences.count
        ));
    }
    if let Some(n) = o.shrunk_from {
        skipped.push(format!(
            "  the failing walk made {n} calls; shrunk to the {} the failure needs",
            match &o.verdict {
                Verdict::Failed { path, .. } => path.len(),
                _ => 0,
            }
        ));
    }
    if o.checkpoints_over > 0 {
        skipped.push(format!(
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
    let kcalls = failure.map(|_| kernel_calls(&prog, &scope, &calls));
    // the consequence search: the C again, for each class more severe than the first's (the
    // HTML page does not show it)
    let html = matches!(a.format, TraceFormat::Html);
    let conseq = failure.filter(|_| !html).and_then(|f| {
        crate::ccheck::consequence::search(
            &prog,
            &scope,
            &prep.built.binary,
            prep.baseline.as_ref().map(|b| b.binary.as_path()),
            threads,
            f,
            calls.len(),
        )
    });
    if text {
        for s in &skipped {
            writeln!(out, "{s}")?;
        }
        writeln!(out, "{}: {line}", a.kernel.display())?;
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
                let wk = kernel_calls(&prog, &scope, wcalls);
                write!(out, "{}", report::text(&wk, wf))?;
                write!(out, "{}", crate::ccheck::consequence::production_note(wf))?;
            }
        }
        if let Some(d) = o.divergences.kept.first() {
            write!(
                out,
                "{}",
                divergence_text(&prog, &scope, d, prep.baseline.is_some())
            )?;
        }
    } else {
        for s in &skipped {
            writeln!(err, "{s}")?;
        }
        writeln!(err, "{}: {line}", a.kernel.display())?;
    }
    if matches!(a.format, TraceFormat::Html) {
        let cex = failure.zip(kcalls.as_deref()).map(|(f, k)| (k, f));
        write!(
            out,
            "{}",
            crate::ccheck::html::page(&head, &skipped, &line, cex)
        )?;
    } else if !text {
        let doc = serde_json::json!({
            "kernel": a.kernel.display().to_string(),
            "release": release,
            "applied": prep.applied,
            "model": a.model.display().to_string(),
            "scope": scope.summary(),
            "scope_spec": scope,
            "invariants": report::invariants_line(),
            "verdict": line,
            "states": o.stats.states,
            "transitions": o.stats.transitions,
            "c_calls": o.c_calls,
            "seconds": o.stats.seconds,
            "depth": depth,
            "coverage": deep.as_ref().map(|d| d.json(plan.budget_s)),
            "counterexample": match (failure, &kcalls) {
                (Some(f), Some(k)) => report::json(k, f),
                _ => serde_json::Value::Null,
            },
            "divergences": o.divergences.count,
            "divergence": o.divergences.kept.first().map(|d| serde_json::json!({
                "calls": d.calls.iter().map(|c| c.to_string()).collect::<Vec<_>>(),
                "c_world": d.c,
                "model_world": d.model,
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
                            report::json(&kernel_calls(&prog, &scope, wc), wf),
                        );
                    }
                    j
                }
                (None, Some(f)) => crate::ccheck::consequence::finding_json(f, calls.len()),
                (None, None) => serde_json::Value::Null,
            },
            "consequence_search": conseq.as_ref().map(|r| r.line()),
        });
        writeln!(
            out,
            "{}",
            serde_json::to_string_pretty(&doc).unwrap_or_default()
        )?;
    }
    Ok(match class {
        report::Class::Found => Exit::Found,
        report::Class::Diverges => Exit::Diverges,
        report::Class::Incomplete => Exit::Incomplete,
        report::Class::Holds => Exit::Ok,
    })
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

/// What the diffs touched outside the harness, and the userland tests' stubs that gave way to
/// the real functions the harness compiles.
pub(crate) fn scope_notes(prep: &ccheck::Prepared) -> Vec<String> {
    let mut v: Vec<String> = prep.outside.iter().map(|l| format!("  {l}")).collect();
    for s in &prep.built.superseded {
        v.push(format!(
            "  stub superseded by the tree's real function: {s}"
        ));
    }
    v
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
