//! `rmapcheck prove proofs/X.toml ...`: run proof obligations and print their certificates, as
//! text or as KTAP / JUnit / Markdown (one test case per obligation). Exit status: 0 when every
//! verdict is the expected one, 1 otherwise, 2 on bad input, 3 when an obligation was
//! incomplete (a bound or SIGINT/SIGTERM) and none failed.

use super::command::TraceFormat;
use crate::cmd::formats::{self, Case, Status};
use crate::cmd::load_model;
use crate::cmd::{CmdError, CmdResult, Exit};
use crate::explore::proof::{prove_with as run_proofs, Certificate, ProofFile};
use crate::explore::search::Outcome;
use crate::trace::{interleaved, text};
use std::io::Write;
use std::path::{Path, PathBuf};

/// The repository root for a proof file: the parent of its `proofs/` directory, else the
/// current directory.
pub(crate) fn root_of(proof: &Path) -> PathBuf {
    let dir = proof.parent().unwrap_or(Path::new("."));
    if dir.file_name().and_then(|n| n.to_str()) == Some("proofs") {
        dir.parent()
            .map(Path::to_path_buf)
            .filter(|p| !p.as_os_str().is_empty())
            .unwrap_or_else(|| PathBuf::from("."))
    } else {
        PathBuf::from(".")
    }
}

/// Options of `rmapcheck prove` (each field's doc comment is its `--help` text; `--format`
/// takes text, ktap, junit or markdown: json, dot and html are not certificate formats).
#[derive(clap::Args, Clone, Debug, Default)]
pub struct ProveArgs {
    /// Proof files.
    #[arg(required = true)]
    pub files: Vec<PathBuf>,
    /// Also print the counterexample of obligations that expect one.
    #[arg(long)]
    pub verbose: bool,
    /// Certificates as text, or one test case per obligation as ktap, junit or markdown.
    #[arg(long, value_enum, default_value = "text")]
    pub format: TraceFormat,
    /// Do not show progress.
    #[arg(long = "quiet", action = clap::ArgAction::SetFalse)]
    pub progress: bool,
}

pub fn prove(a: &ProveArgs, out: &mut dyn Write, err: &mut dyn Write) -> CmdResult {
    if matches!(
        a.format,
        TraceFormat::Json | TraceFormat::Dot | TraceFormat::Html
    ) {
        return Err(CmdError::line(format_args!(
            "rmapcheck prove: --format {:?} is not a certificate format (text, ktap, junit, \
             markdown)",
            a.format
        )));
    }
    let text_out = a.format == TraceFormat::Text;
    let mut status = Exit::Ok;
    let mut cases = Vec::new();
    let worsen = |status: &mut Exit, s: Exit| *status = status.worse(s);
    for f in &a.files {
        let parsed = std::fs::read_to_string(f)
            .map_err(|e| format!("{}: cannot read the proof file: {e}", f.display()))
            .and_then(|t| ProofFile::parse(&t).map_err(|e| format!("{}:{e}", f.display())));
        let pf = match parsed {
            Ok(p) => p,
            Err(e) => {
                writeln!(err, "rmapcheck prove: {e}")?;
                cases.push(error_case(f, &e));
                worsen(&mut status, Exit::BadInput);
                continue;
            }
        };
        let root = root_of(f);
        let bar = crate::cmd::progress::Bar::new(a.progress, &f.display().to_string());
        let r = run_proofs(&pf, &root, &|p| load_model(p), &mut |l| bar.report(l));
        bar.finish();
        match r {
            Ok(certs) => {
                for (i, c) in certs.iter().enumerate() {
                    let detail = counterexample(c, &root.join(&pf.model));
                    let show = a.verbose || !c.passed();
                    if text_out {
                        writeln!(out, "== {}", f.display())?;
                        write!(out, "{}", c.render())?;
                        if show && !detail.is_empty() {
                            writeln!(out, "\n{detail}")?;
                        }
                        writeln!(out)?;
                    }
                    let st = case_status(c);
                    worsen(
                        &mut status,
                        match st {
                            Status::Pass => Exit::Ok,
                            Status::Fail => Exit::Found,
                            Status::Incomplete => Exit::Incomplete,
                            Status::Error => Exit::BadInput,
                        },
                    );
                    cases.push(Case {
                        name: format!("{} obligation {}", f.display(), i + 1),
                        status: st,
                        summary: one_line(&c.render()),
                        detail: if show { detail } else { String::new() },
                        seconds: c.stats.seconds,
                    });
                }
            }
            Err(e) => {
                writeln!(err, "rmapcheck prove: {}: {e}", f.display())?;
                cases.push(error_case(f, &e.to_string()));
                worsen(&mut status, Exit::BadInput);
            }
        }
    }
    let doc = match a.format {
        TraceFormat::Ktap => formats::ktap("rmapcheck prove", "proof obligations", &cases),
        TraceFormat::Junit => formats::junit("rmapcheck prove", "proof obligations", &cases),
        TraceFormat::Markdown => formats::markdown("prove", "proof obligations", &cases),
        _ => String::new(),
    };
    write!(out, "{doc}")?;
    Ok(status)
}

/// The certificate's verdict, expectation, state count and result on one line.
fn one_line(render: &str) -> String {
    render
        .lines()
        .filter(|l| {
            ["verdict", "expected", "states", "result"]
                .iter()
                .any(|k| l.starts_with(k))
        })
        .map(|l| l.split_whitespace().collect::<Vec<_>>().join(" "))
        .collect::<Vec<_>>()
        .join("; ")
}

fn error_case(f: &Path, e: &str) -> Case {
    Case {
        name: f.display().to_string(),
        status: Status::Error,
        summary: e.lines().next().unwrap_or("").to_string(),
        detail: if e.trim_end().contains('\n') {
            e.to_string()
        } else {
            String::new()
        },
        seconds: 0.0,
    }
}

/// Pass when the verdict is the expected one; an incomplete search is neither.
fn case_status(c: &Certificate) -> Status {
    if c.passed() {
        Status::Pass
    } else if matches!(c.outcome, Outcome::Incomplete { .. }) {
        Status::Incomplete
    } else {
        Status::Fail
    }
}

/// The counterexample of a certificate as text, if it has one.
fn counterexample(c: &Certificate, model: &Path) -> String {
    let Ok(prog) = load_model(model) else {
        return String::new();
    };
    match &c.outcome {
        Outcome::Counterexample(t) => text::render(t, &prog),
        Outcome::Interleaving(t) => interleaved::render(t, &prog),
        _ => String::new(),
    }
}
