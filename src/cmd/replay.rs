//! `rmapcheck replay TRACE.json`: re-run a counterexample on its model (or another one, e.g. a
//! patch's next version) and say whether the same invariant fails at the same step. A file that
//! is not a valid trace, or whose calls cannot be applied to the model, is an error (exit 2),
//! never "does not reproduce". Fuzzer inputs are decoded only with `--crash`, or when the file
//! is recognisably one (libFuzzer's `crash-`/`oom-`/`timeout-`/`leak-`/`slow-unit-` names, or
//! a file under `fuzz/artifacts/`). `--emit-scenario` prints the trace as a scenario for `run`.

use super::load_model;
use super::{CmdError, CmdResult, Exit};
use crate::check::Invariant;
use crate::explore::replay::replay as replay_trace;
use crate::trace::{model_hash, text, Trace};
use std::io::Write;
use std::path::{Path, PathBuf};

/// Options of `rmapcheck replay` (each field's doc comment is its `--help` text).
#[derive(clap::Args, Clone, Debug, Default)]
pub struct ReplayArgs {
    /// The trace file written by `check --trace-dir` or `--format json`.
    pub file: PathBuf,
    /// Run it on this model instead of the one it was found on (for a fuzzer input: the
    /// models directory to decode against).
    #[arg(long)]
    pub model: Option<PathBuf>,
    /// Drop calls and files that the failure does not need, and shrink the arguments of
    /// the calls left (pages, lengths, offsets, which mm, file or VMA), keeping the same
    /// invariant, before printing.
    #[arg(long)]
    pub minimise: bool,
    /// Also show the failing call's plain field reads, each with the value read.
    #[arg(long)]
    pub reads: bool,
    /// The file is a fuzzer input (a crash file): decode, minimise and print it as a trace.
    #[arg(long)]
    pub crash: bool,
    /// Print the trace as a scenario TOML that `rmapcheck run --ops` accepts.
    #[arg(long)]
    pub emit_scenario: bool,
}

/// Whether `path` is named as libFuzzer names its findings, or lies under `fuzz/artifacts/`.
pub(crate) fn looks_like_crash(path: &Path) -> bool {
    let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
    let named = ["crash-", "oom-", "timeout-", "leak-", "slow-unit-"]
        .iter()
        .any(|p| name.starts_with(p));
    let comps: Vec<&str> = path.iter().filter_map(|c| c.to_str()).collect();
    named || comps.windows(2).any(|w| w == ["fuzz", "artifacts"])
}

/// The trace as a scenario TOML that `rmapcheck run --ops` accepts: its initial world and calls.
pub(crate) fn scenario_toml(t: &Trace) -> Result<String, String> {
    let mut sc = t.initial.clone();
    sc.calls = Vec::new();
    let body = toml::to_string(&sc).map_err(|e| format!("cannot write the scenario: {e}"))?;
    // the calls as a multi-line array, each with its kernel form as a comment above it
    let mut calls = String::from("calls = [\n");
    let w0 = t.initial.build().ok().map(|w| w.canonical());
    for (i, c) in t.calls.iter().enumerate() {
        let k = t.calls_kernel.get(i).cloned().unwrap_or_else(|| {
            // a trace written without kernel forms: the file names are those of the start
            crate::trace::calls::kernel_form(c, w0.as_ref())
        });
        calls += &format!("    # {}. {k}\n    {:?},\n", i + 1, c.to_string());
    }
    calls += "]\n";
    let body = body.replace("calls = []\n", "");
    Ok(format!(
        "# scenario from a trace of {} ({}), scope {}\n# expected: {} at call {}\n\
         # run it with: rmapcheck run {} --ops FILE\n{calls}{body}",
        t.model,
        t.model_hash,
        t.scope.name,
        t.invariant().map_or("", Invariant::name),
        t.calls.len(),
        t.model
    ))
}

/// Found when the violation reproduces, Ok when the calls ran and it did not, an error on bad
/// input (including calls the model cannot run).
pub fn replay(a: &ReplayArgs, out: &mut dyn Write) -> CmdResult {
    let file = a.file.as_path();
    let bytes = match std::fs::read(file) {
        Ok(b) => b,
        Err(e) => {
            return Err(CmdError::line(format_args!(
                "rmapcheck replay: {}: {e}",
                file.display()
            )));
        }
    };
    if a.crash || looks_like_crash(file) {
        if a.emit_scenario {
            return super::fuzz::fuzz_decode(file, a.model.as_deref(), out);
        }
        return super::fuzz::replay_crash_trace(file, a.model.as_deref(), out);
    }
    let t = match std::str::from_utf8(&bytes)
        .map_err(|_| crate::trace::TraceError::NotText)
        .and_then(Trace::from_json)
    {
        Ok(t) => t,
        Err(e) => {
            return Err(CmdError::line(format_args!(
                "rmapcheck replay: {}:{e}",
                file.display()
            )));
        }
    };
    if a.emit_scenario {
        return match scenario_toml(&t) {
            Ok(s) => {
                write!(out, "{s}")?;
                Ok(Exit::Ok)
            }
            Err(e) => Err(CmdError::line(format_args!("rmapcheck replay: {e}"))),
        };
    }
    let model_path = a.model.clone().unwrap_or_else(|| PathBuf::from(&t.model));
    let prog = match load_model(&model_path) {
        Ok(p) => p,
        Err(d) => {
            return Err(CmdError::text(d));
        }
    };
    if model_hash(&prog) != t.model_hash {
        writeln!(
            out,
            "note: {} differs from the model the trace was found on",
            model_path.display()
        )?;
    }
    match replay_trace(&prog, &t, &|w, c| {
        crate::fuzzing::validate_call(&prog, w, c)
    }) {
        Ok(r) if r.reproduced => {
            reproduced(&prog, &t, &model_path, a, out)?;
            Ok(Exit::Found)
        }
        Ok(r) => {
            writeln!(
                out,
                "does not reproduce: all {} calls ran on {}; expected {} at call {}, got {}",
                t.calls.len(),
                model_path.display(),
                t.invariant().map_or("", Invariant::name),
                t.calls.len(),
                match r.call {
                    None => "no violation".to_string(),
                    Some(c) => format!(
                        "{} at call {}",
                        r.invariant.map_or("", Invariant::name),
                        c + 1
                    ),
                }
            )?;
            Ok(Exit::Ok)
        }
        Err(e) => Err(CmdError::line(format_args!(
            "rmapcheck replay: {}: cannot be applied to {}: {e}",
            file.display(),
            model_path.display()
        ))),
    }
}

/// Print a reproduced trace, minimised first when asked (saying what was dropped and shrunk).
fn reproduced(
    prog: &crate::lang::Program,
    t: &Trace,
    model_path: &Path,
    a: &ReplayArgs,
    out: &mut dyn Write,
) -> std::io::Result<()> {
    let (initial, calls) = if let (true, Some(inv)) = (a.minimise, t.invariant()) {
        let m = crate::explore::minimise::minimise_within(
            prog,
            Some(&t.scope),
            &t.initial,
            &t.calls,
            inv,
        );
        writeln!(
            out,
            "minimised: {} calls -> {}, {} files -> {}, {} arguments shrunk ({})",
            t.calls.len(),
            m.calls.len(),
            t.initial.file.len(),
            m.initial.file.len(),
            m.shrunk_args.len(),
            m.guard
        )?;
        for &i in &m.dropped_calls {
            writeln!(out, "  dropped call {}. {}", i + 1, t.calls[i])?;
        }
        for f in &m.dropped_files {
            writeln!(out, "  dropped file {f}")?;
        }
        for s in &m.shrunk_args {
            writeln!(
                out,
                "  shrunk call {}. {}: argument {} {} -> {}",
                s.call + 1,
                s.func,
                s.arg + 1,
                s.from,
                s.to
            )?;
        }
        if m.dropped_calls.is_empty() && m.dropped_files.is_empty() && m.shrunk_args.is_empty() {
            writeln!(out, "  nothing could be dropped or shrunk")?;
        }
        (m.initial, m.calls)
    } else {
        (t.initial.clone(), t.calls.clone())
    };
    let fresh = crate::explore::replay::build_trace(
        prog,
        &model_path.display().to_string(),
        &t.scope,
        &initial,
        &calls,
    );
    writeln!(
        out,
        "reproduced: {} at call {}",
        t.invariant().map_or("", Invariant::name),
        fresh.calls.len()
    )?;
    write!(out, "\n{}", text::render_with(&fresh, prog, a.reads))
}
