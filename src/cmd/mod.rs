//! Implementations of the command-line subcommands, in the library so tests can drive them.
//! Each takes its arguments, writes its report to the given writers and returns the exit status.

pub mod check;
pub mod compare;
pub mod fuzz;
pub mod interleave;
pub mod kdiff;
pub mod list;
pub mod locks;
pub mod prove;
pub mod replay;
pub mod report;
pub mod run;

use crate::lang::{self, Program};
use std::path::Path;

/// Load a model file against the world's schema; on failure the rendered diagnostics.
pub fn load_model(path: &Path) -> Result<Program, String> {
    lang::load_file(path, &crate::world::schema()).map_err(|d| lang::render_diagnostics(&d))
}

/// Model files under `root` that can be checked: `*.rmap` files in its subdirectories, except
/// `lib/` folders (parts meant to be included). `mutants` includes `models/mutants/`.
pub fn discover_models(root: &Path, mutants: bool) -> Vec<std::path::PathBuf> {
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
                if name != "lib" && (mutants || name != "mutants") {
                    dirs.push(p);
                }
            } else if name.ends_with(".rmap") {
                out.push(p);
            }
        }
    }
    out.sort();
    out
}
