//! `rmapcheck report TRACE.json [-o report.html] [--model M]`: write a counterexample trace as
//! one self-contained HTML page (see [`crate::report`]) to a file or standard output.

use super::load_model;
use super::{CmdError, CmdResult, Exit};
use crate::trace::Trace;
use std::io::Write;
use std::path::{Path, PathBuf};

/// Ok: the page was written; an error on bad input (an unreadable file, not a trace, a model
/// that does not load, a trace that cannot be re-run) or the output cannot be written.
pub fn report(
    file: &Path,
    output: Option<&Path>,
    model: Option<&Path>,
    out: &mut dyn Write,
) -> CmdResult {
    let text = match std::fs::read_to_string(file) {
        Ok(t) => t,
        Err(e) => {
            return Err(CmdError::line(format_args!(
                "rmapcheck report: cannot read {}: {e}",
                file.display()
            )));
        }
    };
    let t = match Trace::from_json(&text) {
        Ok(t) => t,
        Err(e) => {
            return Err(CmdError::line(not_a_trace(file, &text, &e.to_string())));
        }
    };
    let model_path = model.map_or_else(|| PathBuf::from(&t.model), Path::to_path_buf);
    let prog = match load_model(&model_path) {
        Ok(p) => p,
        Err(d) => {
            return Err(CmdError::text(format_args!(
                "rmapcheck report: {}: the model {} does not load:\n{d}",
                file.display(),
                model_path.display()
            )));
        }
    };
    let page = match crate::report::build(&t, &prog, &model_path.display().to_string()) {
        Ok(p) => p,
        Err(e) => {
            return Err(CmdError::line(format_args!(
                "rmapcheck report: {}: cannot re-run the trace: {e}",
                file.display()
            )));
        }
    };
    match output {
        None => match out.write_all(page.as_bytes()) {
            Ok(()) => Ok(Exit::Ok),
            Err(e) => Err(CmdError::line(format_args!(
                "rmapcheck report: cannot write the page: {e}"
            ))),
        },
        Some(p) => match std::fs::write(p, page) {
            Ok(()) => {
                writeln!(out, "report written to {}", p.display())?;
                Ok(Exit::Ok)
            }
            Err(e) => Err(CmdError::line(format_args!(
                "rmapcheck report: cannot write {}: {e}",
                p.display()
            ))),
        },
    }
}

/// The message for a file that does not parse as a trace: an interleaving trace is named as
/// such (the report draws single-thread traces only).
fn not_a_trace(file: &Path, text: &str, e: &str) -> String {
    let value = serde_json::from_str::<serde_json::Value>(text).ok();
    let interleaving = value
        .as_ref()
        .is_some_and(|v| v.get("prefix").is_some() && v.get("steps").is_some());
    if interleaving {
        format!(
            "rmapcheck report: {}: an interleaving trace (a writer against walkers); report \
             draws the traces of `rmapcheck check` only",
            file.display()
        )
    } else {
        format!(
            "rmapcheck report: {}: not a counterexample trace (JSON from `rmapcheck check \
             --format json` or --trace-dir): {e}",
            file.display()
        )
    }
}
