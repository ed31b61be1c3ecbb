//! `rmapcheck fuzz-decode CRASH_FILE` and `rmapcheck replay-crash CRASH_FILE`: turn a fuzzer
//! input (typically a crash libFuzzer saved) back into a scenario, and re-run, minimise and
//! explain a failing one. The work is done by [`crate::fuzzing`]; this only reads files and
//! prints.

use super::{CmdError, CmdResult, Exit};
use crate::check::Invariant;
use crate::explore::op::CheckOpts;
use crate::fuzzing::{self, CaseResult, Decoded};
use crate::world::scenario::Scenario;
use std::io::Write;
use std::path::Path;

struct Loaded {
    models: Vec<fuzzing::FuzzModel>,
    decoded: Decoded,
    result: CaseResult,
}

fn load(crash: &Path, models: Option<&Path>) -> Result<Loaded, CmdError> {
    let bytes = std::fs::read(crash)
        .map_err(|e| CmdError::line(format_args!("{}: {e}", crash.display())))?;
    let decoded = fuzzing::decode(&bytes)
        .map_err(|e| CmdError::line(format_args!("{}: {e}", crash.display())))?;
    let dir = match models {
        Some(d) => d.to_path_buf(),
        None => fuzzing::models_dir(Path::new("models")),
    };
    let models = fuzzing::load_models(&dir).map_err(CmdError::line)?;
    let result = fuzzing::run_case_with(&models, &decoded, CheckOpts::default());
    Ok(Loaded {
        models,
        decoded,
        result,
    })
}

fn toml_text(s: &Scenario) -> Result<String, CmdError> {
    toml::to_string(s)
        .map_err(|e| CmdError::line(format_args!("cannot write the scenario as TOML: {e}")))
}

/// `models`: the models directory; `None` means `$RMAPCHECK_MODELS`, else `models`.
///
/// Print the case as a scenario (initial world and the concrete calls it runs), preceded by
/// comments naming the model and, when it fails, the failing call. Exit 0, or an error on bad input.
pub fn fuzz_decode(crash: &Path, models: Option<&Path>, out: &mut dyn Write) -> CmdResult {
    let l = load(crash, models)?;
    let fm = &l.models[l.result.model];
    let model = &fm.path;
    let s = fuzzing::to_scenario(&l.decoded, &l.result.calls);
    let text = toml_text(&s)?;
    writeln!(
        out,
        "# model: {} (model {} of {})",
        model.display(),
        l.result.model + 1,
        l.models.len()
    )?;
    // a model with a known contract-mode finding runs callers-mode cases only
    let mode = if l.decoded.contract && fm.contract {
        "contract (contract_* calls included)"
    } else {
        "callers"
    };
    writeln!(out, "# mode: {mode}")?;
    match &l.result.failure {
        Some(f) => {
            writeln!(
                out,
                "# call {} fails: {}",
                f.index + 1,
                f.invariant().map_or("", Invariant::name)
            )?;
        }
        None => {
            writeln!(out, "# every call runs clean")?;
        }
    }
    writeln!(
        out,
        "# run it: rmapcheck run {} --ops THIS_FILE",
        model.display()
    )?;
    write!(out, "{text}")?;
    Ok(Exit::Ok)
}

/// Decode, re-run with every check on, minimise, and print the failing call, the model step it
/// failed at, the violations and the minimised scenario. Found when the failure reproduces,
/// Ok when the case runs clean, an error on bad input.
pub fn replay_crash(crash: &Path, models: Option<&Path>, out: &mut dyn Write) -> CmdResult {
    let l = load(crash, models)?;
    let fuzzing::FuzzModel { path, prog, .. } = &l.models[l.result.model];
    writeln!(out, "model: {}", path.display())?;
    if l.result.failure.is_none() {
        writeln!(
            out,
            "no failure: all {} calls run clean",
            l.result.calls.len()
        )?;
        return Ok(Exit::Ok);
    }
    let full = fuzzing::to_scenario(&l.decoded, &l.result.calls);
    let small = fuzzing::minimise(prog, &full);
    writeln!(
        out,
        "minimised from {} to {} calls",
        full.calls.len(),
        small.calls.len()
    )?;
    // the minimised scenario replays with its preconditions checked; fall back to the full run
    let failure = match fuzzing::replay(prog, &small) {
        Ok(r) if r.failure.is_some() => r.failure,
        _ => l.result.failure.clone(),
    };
    let Some(f) = failure else {
        return Ok(Exit::Ok);
    };
    writeln!(out, "failing call {}: {}", f.index + 1, f.call)?;
    match (f.failure.step.and_then(|i| f.steps.get(i)), f.failure.loc) {
        (Some(s), _) => {
            writeln!(
                out,
                "  at {} in {}: {}",
                prog.loc_text(s.loc),
                s.func,
                s.what
            )?;
        }
        (None, Some(loc)) => {
            writeln!(out, "  at {}", prog.loc_text(loc))?;
        }
        (None, None) => {
            writeln!(out, "  when the call returned")?;
        }
    }
    for v in &f.failure.violations {
        writeln!(out, "  {v}")?;
    }
    let t = toml_text(&small)?;
    writeln!(
        out,
        "\nminimised scenario (rmapcheck run MODEL --ops FILE):"
    )?;
    write!(out, "{t}")?;
    Ok(Exit::Found)
}

/// `rmapcheck replay CRASH_FILE` for a fuzzer input: decode, re-run, minimise, and print the
/// same text trace as the exhaustive checker. Found when the failure reproduces, Ok when the
/// case runs clean, an error on bad input.
pub(crate) fn replay_crash_trace(
    crash: &Path,
    models: Option<&Path>,
    out: &mut dyn Write,
) -> CmdResult {
    let l = load(crash, models)?;
    let fuzzing::FuzzModel {
        path,
        prog,
        contract,
    } = &l.models[l.result.model];
    if l.result.failure.is_none() {
        writeln!(
            out,
            "{}: no failure: all {} calls run clean",
            path.display(),
            l.result.calls.len()
        )?;
        return Ok(Exit::Ok);
    }
    let small = fuzzing::minimise(prog, &fuzzing::to_scenario(&l.decoded, &l.result.calls));
    let calls = match small.parsed_calls() {
        Ok(c) => c,
        Err(e) => {
            return Err(CmdError::line(format_args!("{}: {e}", crash.display())));
        }
    };
    let initial = Scenario {
        calls: Vec::new(),
        ..small
    };
    let scope = crate::scope::Scope {
        name: "fuzz case".into(),
        mode: if l.decoded.contract && *contract {
            crate::scope::Mode::Contract
        } else {
            crate::scope::Mode::Callers
        },
        max_depth: calls.len() as u32,
        ..Default::default()
    };
    let t = crate::explore::replay::build_trace(
        prog,
        &path.display().to_string(),
        &scope,
        &initial,
        &calls,
    );
    if t.failure.is_none() {
        writeln!(out, "{}: the minimised case runs clean", path.display())?;
        return Ok(Exit::Ok);
    }
    write!(out, "{}", crate::trace::text::render(&t, prog))?;
    Ok(Exit::Found)
}
