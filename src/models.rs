//! Finding and loading model files: a model file or a directory holding one, compiled against
//! the world's schema. Every layer that needs a model (the commands, the fuzzing harness, the
//! proofs) loads it here, so a path means the same thing everywhere.
//!
//! It names nothing above the world and the checks.

use crate::lang::{self, Diagnostic, Program};
use std::path::{Path, PathBuf};

/// The baseline model: the kernel as it is (v7.3-rc4's mm/vma.c), which patch models, the
/// oracle, the reproducers and the C search's model side default to.
pub const BASELINE: &str = "models/v7.3-rc4/baseline.rmap";

/// The model of v7.2 trees (one page offset keys both rmap trees), compared with a 7.2 tree's C.
pub const V7_2_MODEL: &str = "models/v7.2/v7.2.rmap";

/// The models of trees older than the baseline's. They are checked when named, and against
/// their own trees' C; `check` with no model and the fuzzers (whose worlds are v7.3's, with an
/// anonymous page offset of its own) leave them out.
pub const OLDER_TREES: &[&str] = &[V7_2_MODEL];

/// Whether `model` is one of [`OLDER_TREES`]: the same file, or a file at the same place in
/// another models directory (a copy of `models/`, such as the fuzz targets' `rmapcheck-models/`).
pub fn is_older_trees_model(model: &Path) -> bool {
    OLDER_TREES.iter().any(|o| {
        let own = Path::new(o);
        same_file(model, own) || own.strip_prefix("models").is_ok_and(|r| model.ends_with(r))
    })
}

/// Whether `a` and `b` name the same file: the same canonical path, or (where either cannot
/// be resolved) the same path.
pub fn same_file(a: &Path, b: &Path) -> bool {
    match (a.canonicalize(), b.canonicalize()) {
        (Ok(x), Ok(y)) => x == y,
        _ => a == b,
    }
}

/// Why a model cannot be found or loaded. The messages of a single model argument
/// ([`resolve_model`], [`load_model`]) end their own lines, like rendered diagnostics.
#[derive(Debug, Clone, thiserror::Error)]
pub enum ModelError {
    /// A single model argument that names nothing.
    #[error("{}: no such model file or directory\n", .0.display())]
    Missing(PathBuf),
    /// A single model argument naming a directory without a model.
    #[error("{}: a directory with no model (*.rmap outside lib/ and mutants/)\n", .0.display())]
    NoModel(PathBuf),
    /// A single model argument naming a directory with several models.
    #[error(
        "{}: a directory with {} models; name one: {}\n",
        .dir.display(),
        .models.len(),
        .models.iter().map(|p| p.display().to_string()).collect::<Vec<_>>().join(", ")
    )]
    Several { dir: PathBuf, models: Vec<PathBuf> },
    /// The model file does not compile against the world's schema: its diagnostics.
    #[error("{}", lang::render_diagnostics(.0))]
    Diagnostics(Vec<Diagnostic>),
    /// One of several model arguments names nothing.
    #[error("{}: no such model file or directory", .0.display())]
    MissingArgument(PathBuf),
    /// One of several model arguments is a directory without a model.
    #[error("{}: a directory with no model (*.rmap outside lib/)", .0.display())]
    EmptyArgument(PathBuf),
}

/// Load a model against the world's schema: a model file, or a directory holding exactly one
/// model (outside its `lib/` and `mutants/` folders). On failure the rendered diagnostics.
pub fn load_model(path: &Path) -> Result<Program, ModelError> {
    let file = resolve_model(path)?;
    lang::load_file(&file, &crate::world::schema()).map_err(ModelError::Diagnostics)
}

/// The model file a command-line argument names: the file itself, or the one model in a
/// directory. Every subcommand that takes one model resolves it this way.
pub fn resolve_model(path: &Path) -> Result<PathBuf, ModelError> {
    if !path.is_dir() {
        if !path.exists() {
            return Err(ModelError::Missing(path.to_path_buf()));
        }
        return Ok(path.to_path_buf());
    }
    let mut found = discover_models(path, false);
    match found.len() {
        1 => Ok(found.remove(0)),
        0 => Err(ModelError::NoModel(path.to_path_buf())),
        _ => Err(ModelError::Several {
            dir: path.to_path_buf(),
            models: found,
        }),
    }
}

/// The models a list of arguments names, for commands that check several: a file is itself, a
/// directory every model under it (outside `lib/` and `mutants/` folders, unless the directory
/// is itself a mutants folder).
pub fn expand_model_args(args: &[PathBuf]) -> Result<Vec<PathBuf>, ModelError> {
    let mut out = Vec::new();
    for a in args {
        if a.is_dir() {
            let mutants = a.file_name().and_then(|n| n.to_str()) == Some("mutants");
            let found = discover_models(a, mutants);
            if found.is_empty() {
                return Err(ModelError::EmptyArgument(a.clone()));
            }
            out.extend(found);
        } else if a.exists() {
            out.push(a.clone());
        } else {
            return Err(ModelError::MissingArgument(a.clone()));
        }
    }
    Ok(out)
}

/// Model files under `root` that can be checked: `*.rmap` files in its subdirectories, except
/// `lib/` folders (parts meant to be included). `mutants` includes `models/mutants/`.
pub fn discover_models(root: &Path, mutants: bool) -> Vec<std::path::PathBuf> {
    files_under(
        root,
        |dir| dir != "lib" && (mutants || dir != "mutants"),
        |file| file.ends_with(".rmap"),
    )
}

/// The files under `root` whose names `keep` accepts, sorted, descending only into folders whose
/// names `descend` accepts. Unreadable folders are skipped.
pub(crate) fn files_under(
    root: &Path,
    descend: impl Fn(&str) -> bool,
    keep: impl Fn(&str) -> bool,
) -> Vec<std::path::PathBuf> {
    let mut out = Vec::new();
    let mut dirs = vec![root.to_path_buf()];
    while let Some(d) = dirs.pop() {
        let Ok(rd) = std::fs::read_dir(&d) else {
            continue;
        };
        for e in rd.flatten() {
            let p = e.path();
            let name = p.file_name().and_then(|n| n.to_str()).unwrap_or("");
            if p.is_dir() {
                if descend(name) {
                    dirs.push(p);
                }
            } else if keep(name) {
                out.push(p);
            }
        }
    }
    out.sort();
    out
}
