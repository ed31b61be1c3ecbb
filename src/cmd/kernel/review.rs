//! `rmapcheck review SERIES --kernel DIR [-o replies.mbox]`: the series read and ordered
//! (`review::mail`), its patches applied in order to one copy of the tree (`ccheck::overlay`,
//! `ccheck::patch`: a patch that does not apply stops the series there), and after each patch
//! that touches a file the harness builds, the C check of `check --kernel TREE --patch 1.patch
//! ... --patch k.patch` (the same preparation, with coverage of the changed lines, and the same
//! passes, deepened to the change and stopped at a counterexample: `cplan`; `--scope` narrows
//! it to one scope), and one reply per patch written (`review::reply`). Exit status: 0 every
//! checked patch holds, 1 a counterexample, 2 bad input (no series, no tree) or a patch that
//! does not apply or cannot be built, 3 a search incomplete.

use super::cargs::CcheckArgs;
use super::cpass::Ctx;
use super::cplan;
use crate::ccheck::deepen::Plan;
use crate::ccheck::{self, overlay::Overlay, patch, report};
use crate::charness::build;
use crate::cmd::formats::TraceFormat;
use crate::cmd::{load_model, CmdError, CmdResult, Exit};
use crate::invariant::Violation;
use crate::review::mail::{self, Posting};
use crate::review::reply::{self, Cex, Review, Run, Verdict};
use crate::scope::Scope;
use crate::trace::production;
use std::io::{IsTerminal, Write};
use std::path::{Path, PathBuf};

/// Options of `review` (each field's doc comment is its `--help` text).
#[derive(clap::Args, Clone, Debug)]
pub struct ReviewArgs {
    /// The series: an mbox, a directory of *.patch files, or one unified diff.
    pub series: PathBuf,
    /// The kernel source tree (only read; scripts/fetch-kernel.sh fetches one).
    #[arg(long)]
    pub kernel: PathBuf,
    /// Write the replies to this mbox (default: standard output).
    #[arg(short = 'o', long)]
    pub output: Option<PathBuf>,
    /// The model that chooses the calls offered and is compared at a failure (default: the
    /// model of the tree's generation, models/v7.2/v7.2.rmap for a 7.2 tree, else the baseline).
    #[arg(long)]
    pub model: Option<PathBuf>,
    /// A built-in scope or a scope TOML file (default: default).
    #[arg(long)]
    pub scope: Option<String>,
    /// Longest call sequence to search after each patch.
    #[arg(long)]
    pub max_depth: Option<u32>,
    /// Search threads, one harness process each (default: every core, at most 8).
    #[arg(id = "jobs", long = "jobs", value_name = "JOBS")]
    pub threads: Option<usize>,
    /// Seconds a pass may go on past the depth bound while a patch's changed lines have not
    /// run, and past the depth where they first ran (0: no deepening), as for `check`.
    #[arg(long, default_value_t = crate::cover::deepen::DEFAULT_BUDGET_S, value_name = "SECS")]
    pub deepen_budget: f64,
    /// Do not show progress.
    #[arg(long = "quiet", action = clap::ArgAction::SetFalse)]
    pub progress: bool,
}

fn bad(e: impl std::fmt::Display) -> CmdError {
    CmdError::line(format_args!("rmapcheck review: {e}"))
}

/// Run the review; the replies go to `-o FILE` (a summary line per patch then on `out`) or to
/// `out`.
pub fn review(a: &ReviewArgs, out: &mut dyn Write, err: &mut dyn Write) -> CmdResult {
    let series = mail::read(&a.series).map_err(bad)?;
    let model = crate::charness::generation::model_or_default(a.model.as_deref(), &a.kernel);
    let prog = load_model(&model).map_err(CmdError::text)?;
    // every C pass, as `check --kernel` runs them, unless a scope narrows the review
    let mut passes = match &a.scope {
        Some(s) => vec![Scope::load(s).map_err(bad)?],
        None => ccheck::plan::passes(),
    };
    for s in &mut passes {
        if let Some(d) = a.max_depth {
            ccheck::plan::set_depth(s, d);
        }
        if s.max_depth == 0 {
            return Err(bad("depth 0 makes no call"));
        }
    }
    if !a.kernel.join("mm/vma.c").is_file() {
        return Err(bad(format_args!(
            "{}: not a kernel source tree with mm/vma.c (scripts/fetch-kernel.sh fetches one)",
            a.kernel.display()
        )));
    }
    crate::cover::deepen::budget(a.deepen_budget).map_err(bad)?;
    let release = build::release(&a.kernel).map_err(bad)?;
    // refused as named, before any copy is patched (the refusal names the tree)
    build::refuse_older(&a.kernel).map_err(bad)?;
    for l in &series.left_out {
        writeln!(err, "rmapcheck review: left out {l}")?;
    }
    let mut flags = Vec::new();
    if let Some(s) = &a.scope {
        flags.extend(["--scope".to_string(), s.clone()]);
    }
    if let Some(d) = a.max_depth {
        flags.extend(["--max-depth".to_string(), d.to_string()]);
    }
    // `check --kernel` takes the same budget, so the commands in a reply re-derive the verdict
    #[allow(clippy::float_cmp)]
    if a.deepen_budget != crate::cover::deepen::DEFAULT_BUDGET_S {
        flags.extend(["--deepen-budget".to_string(), a.deepen_budget.to_string()]);
    }
    let run = Run {
        tool: format!("rmapcheck {}", env!("CARGO_PKG_VERSION")),
        tree: a.kernel.display().to_string(),
        release,
        series: a.series.display().to_string(),
        scope: format!(
            "{}; model {} chooses the calls",
            if passes.len() > 1 {
                format!(
                    "every path on the C, {} passes: {}; left out by all of them: {}",
                    passes.len(),
                    passes
                        .iter()
                        .map(Scope::summary)
                        .collect::<Vec<_>>()
                        .join("; "),
                    ccheck::plan::left_out_by_all(&passes).join("; ")
                )
            } else {
                passes[0].summary()
            },
            model.display()
        ),
        invariants: report::invariants_line(),
        model: model.display().to_string(),
        flags,
    };
    // the patches as files, in a directory named by their text, so that the harness builds
    // (keyed by the patches applied, their paths included) are reused by a second review
    let mut h = xxhash_rust::xxh3::Xxh3::new();
    for p in &series.patches {
        h.update(p.diff().as_bytes());
        h.update(b"\0");
    }
    let files = build::cache_root()
        .with_file_name("review")
        .join(format!("{:016x}", h.digest()));
    std::fs::create_dir_all(&files).map_err(|e| bad(format_args!("{}: {e}", files.display())))?;
    let mut o =
        Overlay::new(&a.kernel, &build::cache_root().with_file_name("patched")).map_err(bad)?;
    let bar = progress_bar(a.progress, series.patches.len());
    let threads = a.threads.unwrap_or_else(ccheck::default_threads);
    let mut stopped: Option<usize> = None;
    let mut reviews = Vec::new();
    for p in &series.patches {
        let k = p.index;
        if let Some(b) = &bar {
            b.set_message(format!("patch {}: applying", p.numbered()));
        }
        let mut r = Review {
            posting: p.clone(),
            built: Vec::new(),
            outside: Vec::new(),
            superseded: Vec::new(),
            verdict: Verdict::NotInScope,
        };
        if let Some(s) = stopped {
            r.verdict = Verdict::NotChecked(s);
        } else {
            let cx = Check {
                a,
                model: &model,
                prog: &prog,
                passes: &passes,
                threads,
                bar: &bar,
            };
            check_one(&cx, &run, p, &mut o, &files, &mut r)?;
            if matches!(r.verdict, Verdict::DoesNotApply(_)) {
                stopped = Some(k);
            }
        }
        if let Some(b) = &bar {
            b.inc(1);
        }
        writeln!(err, "patch {}: {}", p.numbered(), r.verdict.short())?;
        reviews.push(r);
    }
    if let Some(b) = &bar {
        b.finish_and_clear();
    }
    let mut mails = vec![reply::cover_reply(&run, series.cover.as_ref(), &reviews)];
    for (i, r) in reviews.iter().enumerate() {
        mails.push(reply::patch_reply(&run, r, i + 1));
    }
    let text = reply::mbox(&mails);
    match &a.output {
        Some(f) => {
            std::fs::write(f, &text).map_err(|e| bad(format_args!("{}: {e}", f.display())))?;
            writeln!(out, "{} replies written to {}", mails.len(), f.display())?;
        }
        None => out.write_all(text.as_bytes())?,
    }
    let any = |f: &dyn Fn(&Verdict) -> bool| reviews.iter().any(|r| f(&r.verdict));
    Ok(if any(&|v| matches!(v, Verdict::Counterexample(_))) {
        Exit::Found
    } else if any(&|v| {
        matches!(
            v,
            Verdict::DoesNotApply(_) | Verdict::BuildFailed(_) | Verdict::CheckFailed(_)
        )
    }) {
        Exit::BadInput
    } else if any(&|v| matches!(v, Verdict::Incomplete(_))) {
        Exit::Incomplete
    } else {
        Exit::Ok
    })
}

fn progress_bar(enabled: bool, n: usize) -> Option<indicatif::ProgressBar> {
    (enabled && std::io::stderr().is_terminal()).then(|| {
        let b = indicatif::ProgressBar::new(n as u64);
        if let Ok(s) = indicatif::ProgressStyle::with_template("{bar:30} {pos}/{len} {msg}") {
            b.set_style(s);
        }
        b.enable_steady_tick(std::time::Duration::from_millis(200));
        b
    })
}

/// What every patch's check shares.
struct Check<'a> {
    a: &'a ReviewArgs,
    /// The model in use (named, or the tree generation's).
    model: &'a Path,
    prog: &'a crate::lang::Program,
    passes: &'a [Scope],
    threads: usize,
    bar: &'a Option<indicatif::ProgressBar>,
}

/// Apply patch `p` to the copy `o` (its file written to `dir`), and check the C when it touches
/// a file the harness builds, as `check --kernel` with every patch applied so far would.
fn check_one(
    cx: &Check,
    run: &Run,
    p: &Posting,
    o: &mut Overlay,
    dir: &Path,
    r: &mut Review,
) -> Result<(), CmdError> {
    let diff = p.diff();
    if diff.is_empty() {
        r.outside.push("no diff in this mail".into());
        return Ok(());
    }
    let file = dir.join(format!("{}.patch", p.index));
    std::fs::write(&file, &diff).map_err(bad)?;
    r.built = patch::sections(&diff)
        .into_iter()
        .map(|s| s.path)
        .filter(|f| build::reads(f))
        .collect();
    match patch::apply(o, &file) {
        Err(e) => {
            r.verdict = Verdict::DoesNotApply(
                e.replace(&file.display().to_string(), &format!("{}.patch", p.index)),
            );
            return Ok(());
        }
        Ok(notes) => r.outside = notes,
    }
    if r.built.is_empty() {
        return Ok(());
    }
    let label = p.numbered();
    if let Some(b) = cx.bar {
        b.set_message(format!("patch {label}: building the harness"));
    }
    // the copy, patched up to this patch, as `check --kernel --patch 1.patch ... --patch
    // k.patch` prepares it: its harness with coverage of the changed lines, and the unpatched
    // one (where the patched C's layout leaves the model's, the search replays the calls on it)
    let prep = match ccheck::prepare_covered_copy(o, r.outside.clone()) {
        Ok(x) => x,
        Err(e) => {
            r.verdict = Verdict::BuildFailed(e);
            return Ok(());
        }
    };
    r.superseded = prep.built.superseded.clone();
    let args = CcheckArgs {
        model: Some(cx.model.to_path_buf()),
        kernel: cx.a.kernel.clone(),
        // the copy is patched already (`prep`)
        patches: Vec::new(),
        mutants: Vec::new(),
        scope: cx.a.scope.clone(),
        mode: None,
        max_depth: cx.a.max_depth,
        format: TraceFormat::Json,
        threads: Some(cx.threads),
        accept_unreached: Vec::new(),
        deepen_budget: cx.a.deepen_budget,
        progress: false,
        simulate: None,
        cluster: None,
    };
    let ctx = Ctx {
        a: &args,
        model: cx.model,
        prog: cx.prog,
        prep: &prep,
        plan: Plan {
            accept: Vec::new(),
            budget_s: args.deepen_budget,
        },
        threads: cx.threads,
    };
    let mut on_pass = |s: &Scope| {
        if let Some(b) = cx.bar {
            b.set_message(format!("patch {label}: C search [{}]", s.name));
        }
    };
    // the passes' own lines go to a sink: the reply says what they found
    let (mut sink_out, mut sink_err) = (Vec::new(), Vec::new());
    let ran = match cplan::run_passes(
        &ctx,
        cx.passes,
        false,
        &mut on_pass,
        &mut sink_out,
        &mut sink_err,
    ) {
        Ok(x) => x,
        Err(CmdError::Input(e)) => {
            r.verdict = Verdict::CheckFailed(e.trim_end().to_string());
            return Ok(());
        }
        Err(e) => return Err(e),
    };
    let Some((i, kcalls, f)) = ran.cex.as_ref() else {
        let all = ran.lines.join("; ");
        r.verdict = if ran.status == Exit::Ok {
            Verdict::Holds(all)
        } else {
            Verdict::Incomplete(all)
        };
        return Ok(());
    };
    let (scope, line) = (&cx.passes[*i], ran.lines[*i].clone());
    r.verdict = {
        let doc = serde_json::json!({
            "kernel": run.tree,
            "release": run.release,
            "applied": (1..=p.index).map(|i| format!("patch {i}.patch")).collect::<Vec<_>>(),
            "scope_spec": scope,
            "invariants": run.invariants,
            "verdict": line,
            "counterexample": report::json(kcalls, f),
        });
        let repro = ccheck::repro::parse(&doc)
            .map_err(|e| format!("no reproducer: {e}"))
            .and_then(|x| {
                let base = load_model(Path::new(&run.model)).map_err(|e| e.to_string())?;
                ccheck::repro::reproducer(&x, &base, &run.model).map_err(|e| match e {
                    ccheck::repro::Refusal::Input(s) | ccheck::repro::Refusal::None(s) => s,
                })
            });
        Verdict::Counterexample(Box::new(Cex {
            line,
            invariant: f.invariant.map(|i| {
                let v = Violation::new(i, f.what.clone());
                (
                    i.name().to_string(),
                    i.description().to_string(),
                    format!(
                        "{}: {}",
                        production::consequence_of(&v).name(),
                        production::production(&v)
                    ),
                )
            }),
            violation: f.what.clone(),
            calls: kcalls
                .iter()
                .map(|c| (c.call.clone(), c.request.clone(), c.path.clone()))
                .collect(),
            model: report::model_says(f).1,
            repro,
        }))
    };
    Ok(())
}
