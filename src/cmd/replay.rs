//! `rmapcheck replay TRACE.json`: re-run a counterexample on its model (or another one, e.g. a
//! patch's next version) and say whether the same invariant fails at the same step. Given a
//! fuzzer input instead, decode it, minimise it and print the same text trace.

use super::load_model;
use crate::trace::{model_hash, replay as replay_trace, text, Trace};
use std::io::Write;
use std::path::{Path, PathBuf};

/// Exit status: 1 when the violation reproduces, 0 when it does not, 2 on bad input.
pub fn replay(
    file: &Path,
    model: Option<PathBuf>,
    minimise: bool,
    out: &mut dyn Write,
    err: &mut dyn Write,
) -> i32 {
    let bytes = match std::fs::read(file) {
        Ok(b) => b,
        Err(e) => {
            let _ = writeln!(err, "{}: {e}", file.display());
            return 2;
        }
    };
    // a JSON trace starts with `{`; anything else is a fuzzer input (a crash file)
    let text_in = match std::str::from_utf8(&bytes) {
        Ok(t) if t.trim_start().starts_with('{') => t.to_string(),
        _ => return super::fuzz::replay_crash_trace(file, model.as_deref(), out, err),
    };
    let t = match Trace::from_json(&text_in) {
        Ok(t) => t,
        Err(e) => {
            let _ = writeln!(err, "{}:{e}", file.display());
            return 2;
        }
    };
    let model_path = model.unwrap_or_else(|| PathBuf::from(&t.model));
    let prog = match load_model(&model_path) {
        Ok(p) => p,
        Err(d) => {
            let _ = write!(err, "{d}");
            return 2;
        }
    };
    if model_hash(&prog) != t.model_hash {
        let _ = writeln!(
            out,
            "note: {} differs from the model the trace was found on",
            model_path.display()
        );
    }
    match replay_trace(&prog, &t) {
        Ok(r) if r.reproduced => {
            let (initial, calls) = if minimise {
                crate::trace::minimise::minimise(&prog, &t.initial, &t.calls, t.invariant())
            } else {
                (t.initial.clone(), t.calls.clone())
            };
            if calls.len() < t.calls.len() {
                let _ = writeln!(out, "minimised: {} calls -> {}", t.calls.len(), calls.len());
            }
            let fresh = Trace::replay_build(
                &prog,
                &model_path.display().to_string(),
                &t.scope,
                &initial,
                &calls,
            );
            let _ = writeln!(out, "reproduced: {} at call {}", r.invariant, t.calls.len());
            let _ = write!(out, "\n{}", text::render(&fresh, &prog));
            1
        }
        Ok(r) => {
            let _ = writeln!(
                out,
                "does not reproduce: expected {} at call {}, got {}",
                t.invariant(),
                t.calls.len(),
                if r.invariant.is_empty() {
                    "no violation".to_string()
                } else {
                    format!("{} at call {:?}", r.invariant, r.call.map(|c| c + 1))
                }
            );
            0
        }
        Err(e) => {
            let _ = writeln!(err, "{}: {e}", file.display());
            2
        }
    }
}
