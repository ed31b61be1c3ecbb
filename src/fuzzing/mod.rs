//! Fuzzing support: turning raw fuzzer bytes into an initial world, a model choice and a sequence
//! of abstract operations ([`input`]); making each abstract operation a concrete entry-point call
//! whose arguments satisfy that entry point's preconditions in the world as it is just before
//! the call ([`concretise`]); and running, comparing, replaying and minimising such cases
//! ([`case`]). The cargo-fuzz targets under `fuzz/`, the `fuzz-decode` / `replay-crash` commands
//! and the state-machine tests all go through these functions.
//!
//! It names nothing of the oracle, the report, the C harness or the commands.

pub mod case;
pub mod concretise;
pub mod input;

pub use case::{
    minimise, observe, replay, run_case, run_case_with, run_equivalence, to_scenario, CaseFailure,
    CaseResult, EquivResult, Observation, Replay,
};
pub use concretise::{check_preconditions, concretise, Mode};
pub use input::{decode, AbstractOp, Decoded};

use crate::lang::Program;
use crate::world::scenario::Call;
use crate::world::World;
use std::path::{Path, PathBuf};

/// Why the models the fuzzer picks from cannot be loaded.
#[derive(Debug, thiserror::Error)]
pub enum ModelsError {
    /// A folder under the models' root cannot be listed.
    #[error("{}: {error}", .dir.display())]
    Unreadable { dir: PathBuf, error: std::io::Error },
    /// A model does not load (its diagnostics).
    #[error("{0}")]
    Model(#[from] crate::models::ModelError),
    /// No model under the root defines the entry points.
    #[error("no model under {} defines `{ENTRY_MARKER}`", .0.display())]
    NoEntryPoints(PathBuf),
}

/// Why call `c` cannot be replayed on `prog` in world `w`: no such entry point, the wrong
/// number or type of arguments, an object that does not exist, or a precondition the entry
/// point's callers guarantee. The check `rmapcheck replay` and `interleave` make on a call
/// they did not generate themselves.
pub fn validate_call(prog: &Program, w: &World, c: &Call) -> Result<(), String> {
    if prog.function(&c.func).is_none() {
        return Err(format!("the model has no entry point `{}`", c.func));
    }
    crate::exec::thread::Thread::start(prog, &c.func, &c.args)?;
    check_preconditions(w, c)
}

/// The entry point a model file must define to be picked by the fuzzers.
pub(crate) const ENTRY_MARKER: crate::entry::EntryPoint = crate::entry::EntryPoint::Mmap;

/// Environment variable that overrides where the fuzz targets and commands look for models.
pub(crate) const MODELS_ENV: &str = "RMAPCHECK_MODELS";

/// The models directory: `$RMAPCHECK_MODELS` when set, else `default`.
pub fn models_dir(default: &Path) -> PathBuf {
    match std::env::var_os(MODELS_ENV) {
        Some(d) if !d.is_empty() => PathBuf::from(d),
        _ => default.to_path_buf(),
    }
}

/// Every `*.rmap` file under `root` outside directories named `lib` (and `mutants`), sorted by
/// path, but the models of older trees ([`crate::models::OLDER_TREES`]). These are the candidate
/// top-level models; `lib/` holds the pieces they include.
pub fn model_files(root: &Path) -> Result<Vec<PathBuf>, ModelsError> {
    fn walk(dir: &Path, out: &mut Vec<PathBuf>) -> Result<(), ModelsError> {
        let unreadable = |error| ModelsError::Unreadable {
            dir: dir.to_path_buf(),
            error,
        };
        let rd = std::fs::read_dir(dir).map_err(unreadable)?;
        for ent in rd {
            let ent = ent.map_err(unreadable)?;
            let p = ent.path();
            if p.is_dir() {
                // lib/ holds included parts; mutants/ are wrong on purpose (fuzz them by
                // pointing $RMAPCHECK_MODELS at the folder)
                if p.file_name().is_some_and(|n| n == "lib" || n == "mutants") {
                    continue;
                }
                walk(&p, out)?;
            } else if p.extension().is_some_and(|e| e == "rmap")
                && !crate::models::is_older_trees_model(&p)
            {
                // an older tree's model is left out: the decoded worlds are v7.3's
                out.push(p);
            }
        }
        Ok(())
    }
    let mut out = Vec::new();
    walk(root, &mut out)?;
    // the baseline first (model byte 0), then the rest by path
    out.sort_by_key(|p| {
        (
            p.file_name().is_none_or(|n| n != "baseline.rmap"),
            p.clone(),
        )
    });
    Ok(out)
}

/// Models (joined to the repository root) that `proofs/*.toml` beside `root` expects to violate
/// an invariant, with the mode of the obligation: known findings, which the fuzzers leave out
/// (a callers-mode finding: the whole model; a contract-mode one: its contract operations) so
/// that a campaign looks for new ones. Empty when there is no such folder.
pub(crate) fn known_findings(root: &Path) -> Vec<(PathBuf, crate::scope::Mode)> {
    let Some(repo) = root.parent() else {
        return Vec::new();
    };
    let Ok(rd) = std::fs::read_dir(repo.join("proofs")) else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for e in rd.flatten() {
        let Ok(text) = std::fs::read_to_string(e.path()) else {
            continue;
        };
        let Ok(p) = crate::explore::proof::ProofFile::parse(&text) else {
            continue;
        };
        for o in &p.obligation {
            if o.violates.is_some() && o.interleave.is_none() {
                out.push((repo.join(&p.model), o.mode));
            }
        }
    }
    out
}

/// A model the fuzz targets run cases on.
#[derive(Clone, Debug)]
pub struct FuzzModel {
    pub path: PathBuf,
    pub prog: Program,
    /// Contract-mode operations may run on it (false for a model with a known contract-mode
    /// finding, recorded by [`load_models`] from the proof files).
    pub contract: bool,
}

/// Load every model under `root` that defines the entry points ([`ENTRY_MARKER`]), in the
/// order the model selector byte indexes (baseline first), skipping mutants and models with a
/// known callers-mode finding ([`known_findings`]). A model that does not load is an error (with
/// its diagnostics); one that loads but lacks the entry points is skipped.
pub fn load_models(root: &Path) -> Result<Vec<FuzzModel>, ModelsError> {
    let mut out = Vec::new();
    let known = known_findings(root);
    for p in model_files(root)? {
        let finding = |mode| {
            known
                .iter()
                .any(|(k, m)| *m == mode && crate::models::same_file(k, &p))
        };
        if finding(crate::scope::Mode::Callers) {
            continue;
        }
        let contract = !finding(crate::scope::Mode::Contract);
        let prog = crate::models::load_model(&p)?;
        if prog.function(ENTRY_MARKER.name()).is_some() {
            out.push(FuzzModel {
                path: p,
                prog,
                contract,
            });
        }
    }
    if out.is_empty() {
        return Err(ModelsError::NoEntryPoints(root.to_path_buf()));
    }
    Ok(out)
}

/// Index of the baseline model (a path ending in `baseline.rmap`, the first such) in `models`.
pub fn baseline_index(models: &[FuzzModel]) -> Option<usize> {
    models
        .iter()
        .position(|m| m.path.file_name().is_some_and(|n| n == "baseline.rmap"))
}

/// Indices of the patch models: those under a `patches` directory.
pub fn patch_indices(models: &[FuzzModel]) -> Vec<usize> {
    models
        .iter()
        .enumerate()
        .filter(|(_, m)| m.path.components().any(|c| c.as_os_str() == "patches"))
        .map(|(i, _)| i)
        .collect()
}
