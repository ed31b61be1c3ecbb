//! `rmapcheck creplay CALLS --kernel DIR [--patch FILE]... [--c-mutant SPEC]...`: a calls file
//! (one model call per line, `#` comments; what the C fuzz target writes when it finds
//! something) run again on the model and on the tree's C, every check of `check --kernel`
//! made after every call (`ccheck::fuzz`). Exit status: 0 every call passed, 1 a
//! counterexample in the C, 2 bad input (a call the model refuses, a file that does not
//! parse, a tree the harness cannot be built from, a sequence that could not be judged),
//! 4 the model diverged from the C.

use crate::ccheck::fuzz::{self, read_calls};
use crate::ccheck::system::Ended;
use crate::ccheck::{self, cmutant, Source};
use crate::cmd::{CmdError, CmdResult, Exit};
use std::io::Write;
use std::path::PathBuf;

/// What `creplay` runs (each field's doc comment is its `--help` text).
#[derive(clap::Args, Clone, Debug)]
pub struct Args {
    /// The calls file.
    pub calls: PathBuf,
    /// The kernel source tree (only read).
    #[arg(long)]
    pub kernel: PathBuf,
    /// Apply this unified diff (-p1) to a copy of the tree first (repeatable, in order).
    #[arg(id = "patch", long = "patch", value_name = "PATCH")]
    pub patches: Vec<PathBuf>,
    /// Inject this C mutant (an edit spec, or a directory of them) after the patches.
    #[arg(id = "c_mutant", long = "c-mutant", value_name = "C_MUTANT")]
    pub mutants: Vec<PathBuf>,
    /// The model whose worlds the calls are checked in and compared with (default: the model
    /// of the tree's generation, models/v7.2/v7.2.rmap for a 7.2 tree, else the baseline).
    #[arg(long)]
    pub model: Option<PathBuf>,
}

fn bad(msg: impl std::fmt::Display) -> CmdError {
    CmdError::line(format_args!("rmapcheck creplay: {msg}"))
}

/// Run `a.calls` on the C and print what it finds.
pub fn creplay(a: &Args, out: &mut dyn Write) -> CmdResult {
    let text = std::fs::read_to_string(&a.calls)
        .map_err(|e| bad(format_args!("{}: {e}", a.calls.display())))?;
    let calls = read_calls(&text).map_err(|e| bad(format_args!("{}: {e}", a.calls.display())))?;
    let mut mutants = Vec::new();
    for m in &a.mutants {
        if m.is_dir() {
            mutants.extend(cmutant::load_dir(m).map_err(bad)?);
        } else {
            mutants.push(cmutant::load(m).map_err(bad)?);
        }
    }
    let src = Source {
        kernel: a.kernel.clone(),
        patches: a.patches.clone(),
        mutants,
    };
    let prepared = ccheck::prepare(&src).map_err(bad)?;
    let model = crate::charness::generation::model_or_default(a.model.as_deref(), &a.kernel);
    let prog = crate::models::load_model(&model).map_err(bad)?;
    let scope = crate::scope::Scope::builtin("default").expect("the default scope");
    let sys = fuzz::system(&prog, &scope, &prepared, Vec::new()).map_err(bad)?;
    let mut refused = None;
    let mut todo = calls.iter();
    let n = calls.len();
    let ran = sys.run_sequence(n, &mut |w| {
        let c = todo.next()?;
        match crate::fuzzing::validate_call(&prog, w, c) {
            Ok(()) => Some(c.clone()),
            Err(e) => {
                refused = Some(e);
                None
            }
        }
    });
    if let Some(e) = refused {
        return Err(bad(format_args!("{}: {e}", a.calls.display())));
    }
    if let Some((c, why)) = ran.skipped.first() {
        return Err(bad(format_args!(
            "{}: {c} has no harness request ({why})",
            a.calls.display()
        )));
    }
    writeln!(
        out,
        "creplay: {} calls of {} on the C of {} ({}{})",
        ran.calls.len(),
        a.calls.display(),
        a.kernel.display(),
        prepared.built.release,
        applied(&prepared.applied)
    )?;
    if let Some(text) = fuzz::found(&sys, &ran) {
        write!(out, "{text}")?;
    }
    match ran.ended {
        Ended::Passed => {
            writeln!(
                out,
                "passed: every check after each of the {} calls ({})",
                ran.calls.len(),
                ccheck::report::invariants_line()
            )?;
            Ok(Exit::Ok)
        }
        Ended::Failed(_) => Ok(Exit::Found),
        Ended::Diverged(_) => Ok(Exit::Diverges),
        Ended::Stopped(why) => Err(bad(why)),
    }
}

fn applied(a: &[String]) -> String {
    if a.is_empty() {
        String::new()
    } else {
        format!("; applied: {}", a.join(", "))
    }
}
