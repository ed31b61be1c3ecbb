//! Reads model files and resolves `#include`: each included path is relative to the directory of
//! the file that includes it, each file is read at most once (a second include of the same file
//! is skipped), and a file that includes itself, directly or not, is an include cycle.

use super::ast::Item;
use super::compile::compile;
use super::diag::{Diagnostic, SourceMap, SrcLoc};
use super::parser::parse;
use super::program::Program;
use super::types::Schema;
use std::collections::HashSet;
use std::path::{Path, PathBuf};

/// Loads, checks and compiles the model file at `path` and everything it includes.
pub fn load_file(path: &Path, schema: &Schema) -> Result<Program, Vec<Diagnostic>> {
    let text = std::fs::read_to_string(path).map_err(|e| {
        vec![Diagnostic {
            file: path.display().to_string(),
            line: 1,
            col: 1,
            message: format!("cannot read model file: {e}"),
            source_line: String::new(),
        }]
    })?;
    let base = path.parent().unwrap_or(Path::new(".")).to_path_buf();
    let canon = std::fs::canonicalize(path).ok();
    load_text(&path.display().to_string(), &text, &base, canon, schema)
}

/// Loads, checks and compiles model source held in memory. `name` is used in diagnostics and
/// `base_dir` is where its `#include`s are looked up.
pub fn load_str(
    name: &str,
    text: &str,
    base_dir: &Path,
    schema: &Schema,
) -> Result<Program, Vec<Diagnostic>> {
    load_text(name, text, base_dir, None, schema)
}

fn load_text(
    name: &str,
    text: &str,
    base_dir: &Path,
    canon: Option<PathBuf>,
    schema: &Schema,
) -> Result<Program, Vec<Diagnostic>> {
    let mut ld = Loader {
        sources: SourceMap::default(),
        done: HashSet::new(),
        active: Vec::new(),
        items: Vec::new(),
        errs: Vec::new(),
    };
    ld.file(name, text, base_dir, canon);
    if !ld.errs.is_empty() {
        let sources = ld.sources;
        return Err(ld
            .errs
            .into_iter()
            .map(|(l, m)| sources.diag(l, m))
            .collect());
    }
    compile(ld.items, ld.sources, schema)
}

struct Loader {
    sources: SourceMap,
    /// Canonical paths of files already read.
    done: HashSet<PathBuf>,
    /// Canonical paths of files being read (the include chain).
    active: Vec<PathBuf>,
    /// Items of all files in order, includes spliced in place.
    items: Vec<Item>,
    errs: Vec<(SrcLoc, String)>,
}

/// How deep includes may nest.
const MAX_INCLUDE_DEPTH: usize = 64;

impl Loader {
    fn file(&mut self, name: &str, text: &str, dir: &Path, canon: Option<PathBuf>) {
        let file = self.sources.add(name, text);
        if let Some(c) = &canon {
            self.done.insert(c.clone());
            self.active.push(c.clone());
        }
        match parse(file, text) {
            Err(e) => self.errs.push((e.loc, e.message)),
            Ok(items) => {
                for item in items {
                    if let Item::Include { path, loc } = &item {
                        self.include(path, *loc, dir);
                    }
                    self.items.push(item);
                }
            }
        }
        if canon.is_some() {
            self.active.pop();
        }
    }

    fn include(&mut self, path: &str, loc: SrcLoc, dir: &Path) {
        let full = dir.join(path);
        let canon = match std::fs::canonicalize(&full) {
            Ok(c) => c,
            Err(e) => {
                self.errs
                    .push((loc, format!("include file `{path}` not found: {e}")));
                return;
            }
        };
        if self.active.contains(&canon) {
            self.errs.push((
                loc,
                format!("include cycle: `{path}` is already being included"),
            ));
            return;
        }
        if self.done.contains(&canon) {
            return;
        }
        if self.active.len() >= MAX_INCLUDE_DEPTH {
            self.errs
                .push((loc, "includes nested too deeply".to_string()));
            return;
        }
        let text = match std::fs::read_to_string(&canon) {
            Ok(t) => t,
            Err(e) => {
                self.errs
                    .push((loc, format!("cannot read include file `{path}`: {e}")));
                return;
            }
        };
        let sub_dir = canon.parent().unwrap_or(Path::new(".")).to_path_buf();
        self.file(&full.display().to_string(), &text, &sub_dir, Some(canon));
    }
}
