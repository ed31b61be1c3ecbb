//! `rmapcheck repro TRACE [-o FILE]`: a C reproducer of a counterexample, a user-space program
//! that makes the trace's calls as system calls: of a model's trace (`oracle::repro`), or of
//! the document of `check --kernel --format json` (`ccheck::repro`).

use crate::cmd::load_model;
use crate::cmd::{CmdError, CmdResult, Exit};
use crate::oracle::repro;
use crate::trace::Trace;
use std::io::Write;
use std::path::Path;

/// `rmapcheck repro TRACE [-o FILE]`: Ok written, Found no reproducer possible (the reason on
/// standard error), an error on bad input.
pub fn repro_cmd(
    trace: &Path,
    output: Option<&Path>,
    baseline: &Path,
    out: &mut dyn Write,
    err: &mut dyn Write,
) -> CmdResult {
    let text = match std::fs::read_to_string(trace) {
        Ok(t) => t,
        Err(e) => {
            return Err(CmdError::line(format_args!("{}: {e}", trace.display())));
        }
    };
    if let Some(v) = serde_json::from_str::<serde_json::Value>(&text)
        .ok()
        .filter(crate::ccheck::repro::is_c_document)
    {
        return c_repro(&v, trace, output, baseline, out, err);
    }
    let t = match Trace::from_json(&text) {
        Ok(t) => t,
        Err(e) => {
            let interleaving = serde_json::from_str::<serde_json::Value>(&text)
                .ok()
                .is_some_and(|v| v.get("prefix").is_some() && v.get("steps").is_some());
            if interleaving {
                writeln!(err, "{}: no reproducer: the trace is an interleaving of a writer and walkers; its order of steps inside the kernel cannot be forced from user space", trace.display())?;
                return Ok(Exit::Found);
            }
            return Err(CmdError::line(format_args!("{}:{e}", trace.display())));
        }
    };
    write_repro(&t, trace, output, baseline, out, err)
}

/// Write the reproducer of `t` to `output` (standard output when None).
pub(crate) fn write_repro(
    t: &Trace,
    name: &Path,
    output: Option<&Path>,
    baseline: &Path,
    out: &mut dyn Write,
    err: &mut dyn Write,
) -> CmdResult {
    let base = match load_model(baseline) {
        Ok(p) => p,
        Err(d) => {
            return Err(CmdError::text(d));
        }
    };
    let c = match repro::reproducer(t, &base, &baseline.display().to_string()) {
        Ok(c) => c,
        Err(e) => {
            writeln!(err, "{}: {e}", name.display())?;
            return Ok(Exit::Found);
        }
    };
    emit_repro(&c, output, out)
}

/// Write a reproducer to `output` (standard output when None).
pub(crate) fn emit_repro(c: &str, output: Option<&Path>, out: &mut dyn Write) -> CmdResult {
    match output {
        None => {
            write!(out, "{c}")?;
            Ok(Exit::Ok)
        }
        Some(p) => match std::fs::write(p, c) {
            Ok(()) => {
                writeln!(out, "reproducer written to {}", p.display())?;
                Ok(Exit::Ok)
            }
            Err(e) => Err(CmdError::line(format_args!(
                "cannot write {}: {e}",
                p.display()
            ))),
        },
    }
}

/// `rmapcheck repro CEX.json` on the document of `check --kernel --format json`: Ok written,
/// Found no reproducer possible (the reason on standard error), an error on bad input (not a
/// C counterexample, a call with no system call).
fn c_repro(
    v: &serde_json::Value,
    file: &Path,
    output: Option<&Path>,
    baseline: &Path,
    out: &mut dyn Write,
    err: &mut dyn Write,
) -> CmdResult {
    use crate::ccheck::repro::{parse, reproducer, Refusal};
    let x = parse(v)
        .map_err(|e| CmdError::line(format_args!("rmapcheck repro: {}: {e}", file.display())))?;
    let base = load_model(baseline).map_err(CmdError::text)?;
    match reproducer(&x, &base, &baseline.display().to_string()) {
        Ok(c) => emit_repro(&c, output, out),
        Err(Refusal::Input(e)) => Err(CmdError::line(format_args!(
            "rmapcheck repro: {}: {e}",
            file.display()
        ))),
        Err(Refusal::None(e)) => {
            writeln!(err, "{}: {e}", file.display())?;
            Ok(Exit::Found)
        }
    }
}
