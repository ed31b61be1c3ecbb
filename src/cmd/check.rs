//! `rmapcheck check`: exhaustive checking of models at a scope, one verdict line per model, a
//! text (or JSON) counterexample for each model that fails. Exit status: 0 all hold, 1 a
//! counterexample, 2 usage or model errors, 3 incomplete.

use super::{discover_models, load_model};
use crate::explore::scope::{Mode, Scope};
use crate::explore::search::{search, Outcome, Stats};
use crate::trace::text;
use std::io::{IsTerminal, Write};
use std::path::{Path, PathBuf};

/// How counterexamples are printed.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum TraceFormat {
    /// Plain text for a patch review (80 columns, ASCII).
    #[default]
    Text,
    /// JSON that `rmapcheck replay` re-runs.
    Json,
    /// The rmap trees at the failure as Graphviz DOT.
    Dot,
}

/// Options of `rmapcheck check`.
#[derive(Clone, Debug, Default)]
pub struct CheckArgs {
    pub models: Vec<PathBuf>,
    pub scope: Option<String>,
    pub mode: Option<Mode>,
    pub max_depth: Option<u32>,
    pub format: TraceFormat,
    /// Write each counterexample as JSON here (for `rmapcheck replay`).
    pub trace_dir: Option<PathBuf>,
    /// Write a C reproducer of each callers-mode counterexample here (`rmapcheck repro`).
    pub repro_dir: Option<PathBuf>,
    /// Show progress (a bar on a terminal, plain lines otherwise).
    pub progress: bool,
}

/// The scope after command-line overrides.
pub fn effective_scope(a: &CheckArgs) -> Result<Scope, String> {
    let mut s = Scope::load(a.scope.as_deref().unwrap_or("default"))?;
    if let Some(m) = a.mode {
        s.mode = m;
        if a.scope.is_none() {
            s.name = m.to_string();
        }
    }
    if let Some(d) = a.max_depth {
        s.max_depth = d;
    }
    s.validate()?;
    Ok(s)
}

/// Why a search that made no call is an error, not a verdict.
pub fn no_call(model: &Path, scope: &Scope) -> String {
    let entries = if scope.entries.is_empty() {
        "every entry point the model defines".to_string()
    } else {
        format!("entries = {:?}", scope.entries)
    };
    format!(
        "{}: the search made no call ({entries} offers none from the initial world): nothing was \
         checked, so there is no verdict. Does the model define the sys_* / do_*_fault / \
         contract_* entry points the scope names?",
        model.display()
    )
}

fn verdict_line(model: &Path, outcome: &Outcome, st: &Stats) -> String {
    let v = match outcome {
        Outcome::Holds { exhausted: true } => "holds (state space exhausted)".to_string(),
        Outcome::Holds { exhausted: false } => format!("holds up to depth {}", st.depth),
        Outcome::Counterexample(t) => format!("COUNTEREXAMPLE {}", t.invariant()),
        Outcome::Interleaving(t) => format!("COUNTEREXAMPLE {} (interleaving)", t.invariant()),
        Outcome::Incomplete {
            reason,
            complete_depth,
        } => format!("incomplete up to depth {complete_depth} ({reason})"),
    };
    let mem = if st.bytes_per_state > 0 {
        format!(", {} B/state", st.bytes_per_state)
    } else {
        String::new()
    };
    format!(
        "{}: {v}; {} states, {} calls, depth {}, {:.1}s, {:.0} states/s{mem}, p(fingerprint collision) {:.1e}",
        model.display(),
        st.states,
        st.transitions,
        st.depth,
        st.seconds,
        st.states_per_second(),
        st.collision_probability()
    )
}

pub fn check(a: &CheckArgs, out: &mut dyn Write, err: &mut dyn Write) -> i32 {
    let scope = match effective_scope(a) {
        Ok(s) => s,
        Err(e) => {
            let _ = writeln!(err, "rmapcheck check: {e}");
            return 2;
        }
    };
    let models = if a.models.is_empty() {
        let found = discover_models(Path::new("models"), false);
        if found.is_empty() {
            let _ = writeln!(
                err,
                "rmapcheck check: no models given and none found under ./models"
            );
            return 2;
        }
        found
    } else {
        a.models.clone()
    };
    let _ = writeln!(out, "{}", scope.summary());
    let mut status = 0;
    for m in &models {
        let prog = match load_model(m) {
            Ok(p) => p,
            Err(d) => {
                let _ = write!(err, "{d}");
                status = 2;
                continue;
            }
        };
        let name = m.display().to_string();
        let tty = std::io::stderr().is_terminal();
        let bar = (a.progress && tty).then(|| {
            let b = indicatif::ProgressBar::new_spinner();
            b.set_message(name.clone());
            b
        });
        let mut report = |states: usize, depth: u32, frontier: usize, secs: f64| {
            let line = format!(
                "{name}: {states} states, depth {depth}, frontier {frontier}, {:.0} states/s",
                states as f64 / secs.max(1e-9)
            );
            match &bar {
                Some(b) => b.set_message(line),
                None if a.progress => eprintln!("{line}"),
                None => {}
            }
        };
        let (outcome, stats) = search(&prog, &name, &scope, &mut report);
        if let Some(b) = bar {
            b.finish_and_clear();
        }
        if stats.transitions == 0 && matches!(outcome, Outcome::Holds { .. }) {
            let _ = writeln!(err, "rmapcheck check: {}", no_call(m, &scope));
            status = 2;
            continue;
        }
        let _ = writeln!(out, "{}", verdict_line(m, &outcome, &stats));
        match &outcome {
            Outcome::Counterexample(t) => {
                match a.format {
                    TraceFormat::Json => {
                        let _ = writeln!(out, "{}", t.to_json());
                    }
                    TraceFormat::Dot => {
                        let _ = write!(out, "{}", t.dot);
                    }
                    TraceFormat::Text => {
                        let _ = writeln!(out, "\n{}", text::render(t, &prog));
                    }
                }
                if let Some(dir) = &a.trace_dir {
                    let stem = m.file_stem().and_then(|s| s.to_str()).unwrap_or("model");
                    let path = dir.join(format!("{stem}.trace.json"));
                    let saved = std::fs::create_dir_all(dir)
                        .and_then(|_| std::fs::write(&path, t.to_json()));
                    match saved {
                        Ok(()) => {
                            let _ = writeln!(out, "trace saved to {}", path.display());
                        }
                        Err(e) => {
                            let _ = writeln!(err, "cannot write {}: {e}", path.display());
                        }
                    }
                }
                if let Some(dir) = &a.repro_dir {
                    save_repro(t, m, dir, out, err);
                }
                if status != 2 {
                    status = 1;
                }
            }
            Outcome::Interleaving(t) => {
                let _ = writeln!(out, "\n{}", crate::trace::interleaved::render(t, &prog));
                if a.repro_dir.is_some() {
                    let _ = writeln!(out, "no reproducer: an interleaving of a writer and walkers cannot be forced from user space");
                }
                if status != 2 {
                    status = 1;
                }
            }
            Outcome::Incomplete { .. } if status == 0 => status = 3,
            _ => {}
        }
    }
    status
}

/// Write `dir/MODEL.repro.c` for a counterexample of model `m`, or say why there is none.
fn save_repro(
    t: &crate::trace::Trace,
    m: &Path,
    dir: &Path,
    out: &mut dyn Write,
    err: &mut dyn Write,
) {
    let stem = m.file_stem().and_then(|s| s.to_str()).unwrap_or("model");
    let path = dir.join(format!("{stem}.repro.c"));
    if let Err(e) = std::fs::create_dir_all(dir) {
        let _ = writeln!(err, "cannot create {}: {e}", dir.display());
        return;
    }
    let base = Path::new(super::kdiff::BASELINE);
    let _ = super::kdiff::write_repro(t, m, Some(&path), base, out, err);
}
