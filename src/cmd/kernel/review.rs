//! `rmapcheck review SERIES --kernel DIR [-o replies.mbox]`: the series read and ordered
//! (`review::mail`), its patches applied in order to one copy of the tree (`ccheck::overlay`,
//! `ccheck::patch`), the harness built and every C pass of `check --kernel` run after each
//! patch that touches a file the harness builds (`ccheck::plan`, `ccheck::search`; `--scope`
//! narrows it to one scope), and one reply per patch
//! written (`review::reply`). Exit status: 0 every checked patch holds, 1 a counterexample,
//! 2 bad input (no series, no tree) or a patch that does not apply or cannot be built,
//! 3 a search incomplete.

use crate::ccheck::{self, overlay::Overlay, patch, report};
use crate::charness::build;
use crate::checker::Verdict as CVerdict;
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
    /// The model that chooses the calls offered and is compared at a failure.
    #[arg(long, default_value = crate::models::BASELINE)]
    pub model: PathBuf,
    /// A built-in scope or a scope TOML file (default: default).
    #[arg(long)]
    pub scope: Option<String>,
    /// Longest call sequence to search after each patch.
    #[arg(long)]
    pub max_depth: Option<u32>,
    /// Search threads, one harness process each (default: every core, at most 8).
    #[arg(id = "jobs", long = "jobs", value_name = "JOBS")]
    pub threads: Option<usize>,
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
    let prog = load_model(&a.model).map_err(CmdError::text)?;
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
    let release = build::release(&a.kernel).map_err(bad)?;
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
            a.model.display()
        ),
        invariants: report::invariants_line(),
        model: a.model.display().to_string(),
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
            check_one(
                &run, p, &mut o, &files, &mut r, &prog, &passes, threads, &bar,
            )?;
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
    } else if any(&|v| matches!(v, Verdict::DoesNotApply(_) | Verdict::BuildFailed(_))) {
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

/// Apply patch `p` to the copy `o`, and check the C when it touches a file the harness builds.
#[allow(clippy::too_many_arguments)]
fn check_one(
    run: &Run,
    p: &Posting,
    o: &mut Overlay,
    dir: &Path,
    r: &mut Review,
    prog: &crate::lang::Program,
    passes: &[Scope],
    threads: usize,
    bar: &Option<indicatif::ProgressBar>,
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
    if let Some(b) = bar {
        b.set_message(format!("patch {}: building the harness", p.numbered()));
    }
    let built = match build::build_salted(o.root(), o.salt()) {
        Ok(b) => b,
        Err(e) => {
            r.verdict = Verdict::BuildFailed(e);
            return Ok(());
        }
    };
    r.superseded = built.superseded.clone();
    // the unpatched tree's harness: where the patched C's layout leaves the model's, the
    // search replays the calls on it (a divergence of the model, or the patch's own change)
    let baseline = match build::build(o.tree()) {
        Ok(b) => b,
        Err(e) => {
            r.verdict = Verdict::BuildFailed(e);
            return Ok(());
        }
    };
    let label = p.numbered();
    let base = Some(baseline.binary.as_path());
    // every pass in turn, as `check --kernel` runs them; a counterexample ends the patch's
    // check, and its verdict names the pass
    let several = passes.len() > 1;
    let mut lines = Vec::new();
    let mut any_incomplete = false;
    let mut failed = None;
    for scope in passes {
        let name = scope.name.clone();
        let outcome = ccheck::search(prog, scope, &built.binary, base, threads, &mut |p| {
            if let Some(b) = bar {
                b.set_message(format!("patch {label}: C search [{name}], {p}"));
            }
        });
        let outcome = match outcome {
            Ok(x) => x,
            Err(e) => {
                r.verdict = Verdict::BuildFailed(e);
                return Ok(());
            }
        };
        let (line, class) = report::verdict(&outcome, scope.max_depth);
        let line = if several {
            format!("[{name}] {line}")
        } else {
            line
        };
        match class {
            report::Class::Found => {
                failed = Some((scope, outcome, line));
                break;
            }
            report::Class::Incomplete | report::Class::Diverges => any_incomplete = true,
            report::Class::Holds => {}
        }
        lines.push(line);
    }
    let Some((scope, outcome, line)) = failed else {
        let all = lines.join("; ");
        r.verdict = if any_incomplete {
            Verdict::Incomplete(all)
        } else {
            Verdict::Holds(all)
        };
        return Ok(());
    };
    let (calls, f) = match &outcome.verdict {
        CVerdict::Failed { path, failure } => (path.clone(), failure),
        CVerdict::FailedInitial(f) => (Vec::new(), f),
        _ => unreachable!("the verdict says found"),
    };
    r.verdict = {
        let kcalls = super::cpass::kernel_calls(prog, scope, &calls);
        let doc = serde_json::json!({
            "kernel": run.tree,
            "release": run.release,
            "applied": (1..=p.index).map(|i| format!("patch {i}.patch")).collect::<Vec<_>>(),
            "scope_spec": scope,
            "invariants": run.invariants,
            "verdict": line,
            "counterexample": report::json(&kcalls, f),
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
