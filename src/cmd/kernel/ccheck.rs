//! `rmapcheck check --kernel DIR [--patch FILE]... [--c-mutant SPEC]...`: the kernel tree's
//! own C, with the reviewer's diffs applied to a copy, searched exhaustively within a scope
//! with the sequential invariants checked after every call (docs/CHECK-C.md).

use super::cpass::Ctx;
use super::cplan;
use crate::ccheck::deepen::Plan;
use crate::ccheck::{self, cmutant, report, Source};
use crate::cmd::formats::TraceFormat;
use crate::cmd::load_model;
use crate::cmd::{CmdError, CmdResult};
use crate::cover::Accept;
use crate::scope::Scope;
use std::io::Write;

pub use super::cargs::CcheckArgs;

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
    let model = a.model_path();
    let prog = load_model(&model).map_err(CmdError::text)?;
    let passes = c_passes(a)?;
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
    crate::cover::deepen::budget(a.deepen_budget).map_err(bad)?;
    let src = Source {
        kernel: a.kernel.clone(),
        patches: a.patches.clone(),
        mutants,
    };
    let prep = ccheck::prepare_covered(&src).map_err(bad)?;
    let release = &prep.built.release;
    let mut head = vec![format!(
        "check --kernel {} ({release}){}; model {} ({})",
        a.kernel.display(),
        if prep.applied.is_empty() {
            String::new()
        } else {
            format!(" with {}", prep.applied.join(", "))
        },
        model.display(),
        prep.built
            .generation
            .model_origin(&model, a.model.is_some())
    )];
    let plan_line = (passes.len() > 1).then(|| {
        let left = crate::ccheck::plan::left_out_by_all(&passes);
        format!(
            "  every path on the C, {} passes ({}); left out by all of them (bounds aside, each \
             in its pass's scope line): {}",
            passes.len(),
            passes
                .iter()
                .map(|p| p.name.as_str())
                .collect::<Vec<_>>()
                .join(", "),
            if left.is_empty() {
                "nothing".to_string()
            } else {
                left.join("; ")
            }
        )
    });
    match &plan_line {
        Some(l) => head.push(format!("{l}; model {} chooses the calls", model.display())),
        None => head.push(format!(
            "  {}; model {} chooses the calls",
            passes[0].summary(),
            model.display()
        )),
    }
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
    let cx = Ctx {
        a,
        model: &model,
        prog: &prog,
        prep: &prep,
        plan: Plan {
            accept,
            budget_s: a.deepen_budget,
        },
        threads: a.threads.unwrap_or_else(ccheck::default_threads),
    };
    let several = passes.len() > 1;
    let ran = cplan::run_passes(&cx, &passes, text, &mut |_| {}, out, err)?;
    let status = ran.status;
    let decided = ran.decided();
    let lines = ran.lines;
    let notes = ran.notes;
    let cex = ran.cex.map(|(_, k, f)| (k, f));
    let docs: Vec<serde_json::Value> = ran.docs.into_iter().map(|(_, d)| d).collect();
    if matches!(a.format, TraceFormat::Html) {
        let c = cex.as_ref().map(|(k, f)| (k.as_slice(), f));
        write!(
            out,
            "{}",
            crate::ccheck::html::page(&head, &notes, &lines.join("\n"), c)
        )?;
    } else if !text {
        let mut doc = serde_json::json!({
            "kernel": a.kernel.display().to_string(),
            "release": release,
            "applied": prep.applied,
            "model": model.display().to_string(),
            "invariants": report::invariants_line(),
        });
        // the top level carries the pass that decided the exit status (the first
        // counterexample or divergence, else the first incomplete pass, else the last), and
        // with several passes every pass's document too
        if let Some(o) = doc.as_object_mut() {
            if let Some(serde_json::Value::Object(one)) = docs.get(decided) {
                o.extend(
                    one.clone()
                        .into_iter()
                        .filter(|(k, _)| k != "pass" || several),
                );
            }
            if several {
                o.insert(
                    "plan".into(),
                    serde_json::json!(plan_line.map(|l| l.trim().to_string())),
                );
                o.insert("passes".into(), serde_json::Value::Array(docs));
            }
        }
        writeln!(
            out,
            "{}",
            serde_json::to_string_pretty(&doc).unwrap_or_default()
        )?;
    }
    Ok(status)
}

/// The scopes `check --kernel` runs: the C's passes ([`crate::ccheck::plan`]) when no flag
/// narrows the run (no `--scope`, `--mode`, `--simulate` or distributed search), each at
/// `--max-depth` when given; else the one scope the flags name.
fn c_passes(a: &CcheckArgs) -> Result<Vec<Scope>, CmdError> {
    let narrowed =
        a.scope.is_some() || a.mode.is_some() || a.simulate.is_some() || a.cluster.is_some();
    let mut passes = if narrowed {
        let mut scope = Scope::load(a.scope.as_deref().unwrap_or("default")).map_err(bad)?;
        if let Some(m) = a.mode {
            if a.scope.is_none() && m == crate::entry::Mode::Contract {
                // as the model's contract pass: non-linear file mappings too
                scope = crate::ccheck::plan::passes()
                    .into_iter()
                    .find(|p| p.mode == m)
                    .unwrap_or(scope);
            }
            scope.mode = m;
        }
        if let Some(d) = a.max_depth {
            scope.max_depth = d;
        }
        vec![scope]
    } else {
        let mut passes = crate::ccheck::plan::passes();
        for s in &mut passes {
            if let Some(d) = a.max_depth {
                crate::ccheck::plan::set_depth(s, d);
            }
        }
        passes
    };
    if let Some(sim) = &a.simulate {
        sim.validate().map_err(bad)?;
        // the walks' depth is the depth every verdict and coverage line names
        passes[0].max_depth = sim.depth;
    }
    for s in &passes {
        if s.max_depth == 0 {
            return Err(bad("depth 0 makes no call"));
        }
        s.validate().map_err(bad)?;
    }
    Ok(passes)
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
