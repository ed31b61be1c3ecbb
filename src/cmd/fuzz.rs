//! `rmapcheck fuzz-decode CRASH_FILE` and `rmapcheck replay-crash CRASH_FILE`: turn a fuzzer
//! input (typically a crash libFuzzer saved) back into a scenario, and re-run, minimise and
//! explain a failing one. The work is done by [`crate::fuzzing`]; this only reads files and
//! prints.

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

fn load(crash: &Path, models: Option<&Path>, err: &mut dyn Write) -> Result<Loaded, i32> {
    let bytes = std::fs::read(crash).map_err(|e| {
        let _ = writeln!(err, "{}: {e}", crash.display());
        2
    })?;
    let decoded = fuzzing::decode(&bytes).map_err(|e| {
        let _ = writeln!(err, "{}: {e}", crash.display());
        2
    })?;
    let dir = match models {
        Some(d) => d.to_path_buf(),
        None => fuzzing::models_dir(Path::new("models")),
    };
    let models = fuzzing::load_models(&dir).map_err(|e| {
        let _ = writeln!(err, "{e}");
        2
    })?;
    let result = fuzzing::run_case_with(&models, &decoded, CheckOpts::default());
    Ok(Loaded {
        models,
        decoded,
        result,
    })
}

fn toml_text(s: &Scenario, err: &mut dyn Write) -> Result<String, i32> {
    toml::to_string(s).map_err(|e| {
        let _ = writeln!(err, "cannot write the scenario as TOML: {e}");
        2
    })
}

/// `models`: the models directory; `None` means `$RMAPCHECK_MODELS`, else `models`.
///
/// Print the case as a scenario (initial world and the concrete calls it runs), preceded by
/// comments naming the model and, when it fails, the failing call. Returns 0, or 2 on bad input.
pub fn fuzz_decode(
    crash: &Path,
    models: Option<&Path>,
    out: &mut dyn Write,
    err: &mut dyn Write,
) -> i32 {
    let l = match load(crash, models, err) {
        Ok(l) => l,
        Err(c) => return c,
    };
    let fm = &l.models[l.result.model];
    let model = &fm.path;
    let s = fuzzing::to_scenario(&l.decoded, &l.result.calls);
    let text = match toml_text(&s, err) {
        Ok(t) => t,
        Err(c) => return c,
    };
    let _ = writeln!(
        out,
        "# model: {} (model {} of {})",
        model.display(),
        l.result.model + 1,
        l.models.len()
    );
    // a model with a known contract-mode finding runs callers-mode cases only
    let mode = if l.decoded.contract && fm.contract {
        "contract (contract_* calls included)"
    } else {
        "callers"
    };
    let _ = writeln!(out, "# mode: {mode}");
    match &l.result.failure {
        Some(f) => {
            let _ = writeln!(
                out,
                "# call {} fails: {}",
                f.index + 1,
                f.invariant().map_or("", Invariant::name)
            );
        }
        None => {
            let _ = writeln!(out, "# every call runs clean");
        }
    }
    let _ = writeln!(
        out,
        "# run it: rmapcheck run {} --ops THIS_FILE",
        model.display()
    );
    let _ = write!(out, "{text}");
    0
}

/// Decode, re-run with every check on, minimise, and print the failing call, the model step it
/// failed at, the violations and the minimised scenario. Returns 1 when the failure reproduces,
/// 0 when the case runs clean, 2 on bad input.
pub fn replay_crash(
    crash: &Path,
    models: Option<&Path>,
    out: &mut dyn Write,
    err: &mut dyn Write,
) -> i32 {
    let l = match load(crash, models, err) {
        Ok(l) => l,
        Err(c) => return c,
    };
    let fuzzing::FuzzModel { path, prog, .. } = &l.models[l.result.model];
    let _ = writeln!(out, "model: {}", path.display());
    if l.result.failure.is_none() {
        let _ = writeln!(
            out,
            "no failure: all {} calls run clean",
            l.result.calls.len()
        );
        return 0;
    }
    let full = fuzzing::to_scenario(&l.decoded, &l.result.calls);
    let small = fuzzing::minimise(prog, &full);
    let _ = writeln!(
        out,
        "minimised from {} to {} calls",
        full.calls.len(),
        small.calls.len()
    );
    // the minimised scenario replays with its preconditions checked; fall back to the full run
    let failure = match fuzzing::replay(prog, &small) {
        Ok(r) if r.failure.is_some() => r.failure,
        _ => l.result.failure.clone(),
    };
    let Some(f) = failure else {
        return 0;
    };
    let _ = writeln!(out, "failing call {}: {}", f.index + 1, f.call);
    match (f.failure.step.and_then(|i| f.steps.get(i)), f.failure.loc) {
        (Some(s), _) => {
            let _ = writeln!(
                out,
                "  at {} in {}: {}",
                prog.loc_text(s.loc),
                s.func,
                s.what
            );
        }
        (None, Some(loc)) => {
            let _ = writeln!(out, "  at {}", prog.loc_text(loc));
        }
        (None, None) => {
            let _ = writeln!(out, "  when the call returned");
        }
    }
    for v in &f.failure.violations {
        let _ = writeln!(out, "  {v}");
    }
    match toml_text(&small, err) {
        Ok(t) => {
            let _ = writeln!(
                out,
                "\nminimised scenario (rmapcheck run MODEL --ops FILE):"
            );
            let _ = write!(out, "{t}");
        }
        Err(c) => return c,
    }
    1
}

/// `rmapcheck replay CRASH_FILE` for a fuzzer input: decode, re-run, minimise, and print the
/// same text trace as the exhaustive checker. Returns 1 when the failure reproduces, 0 when the
/// case runs clean, 2 on bad input.
pub fn replay_crash_trace(
    crash: &Path,
    models: Option<&Path>,
    out: &mut dyn Write,
    err: &mut dyn Write,
) -> i32 {
    let l = match load(crash, models, err) {
        Ok(l) => l,
        Err(c) => return c,
    };
    let fuzzing::FuzzModel {
        path,
        prog,
        contract,
    } = &l.models[l.result.model];
    if l.result.failure.is_none() {
        let _ = writeln!(
            out,
            "{}: no failure: all {} calls run clean",
            path.display(),
            l.result.calls.len()
        );
        return 0;
    }
    let small = fuzzing::minimise(prog, &fuzzing::to_scenario(&l.decoded, &l.result.calls));
    let calls = match small.parsed_calls() {
        Ok(c) => c,
        Err(e) => {
            let _ = writeln!(err, "{}: {e}", crash.display());
            return 2;
        }
    };
    let initial = Scenario {
        calls: Vec::new(),
        ..small
    };
    let scope = crate::explore::scope::Scope {
        name: "fuzz case".into(),
        mode: if l.decoded.contract && *contract {
            crate::explore::scope::Mode::Contract
        } else {
            crate::explore::scope::Mode::Callers
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
        let _ = writeln!(out, "{}: the minimised case runs clean", path.display());
        return 0;
    }
    let _ = write!(out, "{}", crate::trace::text::render(&t, prog));
    1
}
