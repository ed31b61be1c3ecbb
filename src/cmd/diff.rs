//! `rmapcheck diff PATCH [BASE]`: a patch model set against the baseline one function at a time,
//! so that a reviewer can hold it beside the C patch.
//!
//! Both models are loaded as `check` loads them (includes resolved, a later definition replacing
//! an earlier one), and for every function name the definition each program actually runs is
//! compared as source text: from its return type to its closing brace, comments inside
//! included, the comment above it not (patch models say "as the baseline, except ..." there).
//! A function that differs is printed as a unified diff with 3 lines of context whose hunk
//! line numbers are those of the model files; one defined in only one model is all added or
//! all removed. Model-local structs whose fields differ get a one-line note. The kernel file
//! named in a header comes from the function's `// kernel:` line (the baseline's for a patch
//! function without one), as the traces print it.

use super::load_model;
use super::{CmdError, CmdResult, Exit};
use crate::lang::Program;
use similar::TextDiff;
use std::collections::BTreeMap;
use std::io::Write;
use std::path::{Component, Path, PathBuf};

/// Arguments of `rmapcheck diff` (each field's doc comment is its `--help` text).
#[derive(clap::Args, Clone, Debug)]
pub struct DiffArgs {
    /// The patch model (a file, or a directory holding exactly one model).
    pub patch: PathBuf,
    /// The model to compare with.
    #[arg(default_value = crate::models::BASELINE)]
    pub base: PathBuf,
}

/// One function definition as a model uses it.
#[derive(Clone, Debug)]
struct Def {
    text: String,
    /// The model file, as a path relative to the working directory where it can be.
    file: String,
    line: u32,
    /// The kernel source file the function belongs to, when the model says so.
    kernel: Option<String>,
}

/// What the comparison found, for the summary line.
#[derive(Default)]
struct Counts {
    differ: usize,
    added: usize,
    removed: usize,
    unchanged: usize,
}

/// Runs `rmapcheck diff`. Exit status: 0 printed (differences or not), 2 bad input.
pub fn diff(args: &DiffArgs, out: &mut dyn Write) -> CmdResult {
    let mut progs = Vec::new();
    for p in [&args.base, &args.patch] {
        let loaded = match resolve_model(p) {
            Ok(file) => load_model(&file).map_err(|e| e.to_string()),
            Err(e) => Err(format!("rmapcheck diff: {e}\n")),
        };
        match loaded {
            Ok(prog) => progs.push(prog),
            Err(d) => {
                return Err(CmdError::text(d));
            }
        }
    }
    write!(out, "{}", render(&progs[0], &progs[1]))?;
    Ok(Exit::Ok)
}

/// The whole report: a diff per function that differs, struct notes, and the summary line.
pub fn render(base: &Program, patch: &Program) -> String {
    let old = definitions(base, None);
    let new = definitions(patch, Some(&old));
    let mut names: Vec<&String> = old.keys().chain(new.keys()).collect();
    names.sort();
    names.dedup();
    let mut s = String::new();
    let mut c = Counts::default();
    for name in names {
        match (old.get(name), new.get(name)) {
            (Some(a), Some(b)) if a.text == b.text => c.unchanged += 1,
            (a, b) => {
                match (a, b) {
                    (Some(_), Some(_)) => c.differ += 1,
                    (Some(_), None) => c.removed += 1,
                    _ => c.added += 1,
                }
                function_diff(&mut s, name, a, b);
            }
        }
    }
    let notes = struct_notes(base, patch);
    s.push_str(&notes);
    if c.differ + c.added + c.removed == 0 && notes.is_empty() {
        s.push_str("no differences\n");
    }
    s.push_str(&format!(
        "{} functions differ, {} added, {} removed, {} unchanged\n",
        c.differ, c.added, c.removed, c.unchanged
    ));
    s
}

/// The model file `path` names: itself, or the only `*.rmap` file directly inside a directory.
pub fn resolve_model(path: &Path) -> Result<PathBuf, String> {
    if !path.is_dir() {
        return Ok(path.to_path_buf());
    }
    let mut found: Vec<PathBuf> = std::fs::read_dir(path)
        .map_err(|e| format!("cannot read directory {}: {e}", path.display()))?
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.is_file() && p.extension().is_some_and(|x| x == "rmap"))
        .collect();
    found.sort();
    match found.len() {
        1 => Ok(found.remove(0)),
        0 => Err(format!("no model (*.rmap) in {}", path.display())),
        n => Err(format!(
            "{} holds {n} models ({}): name one",
            path.display(),
            found
                .iter()
                .map(|p| p.display().to_string())
                .collect::<Vec<_>>()
                .join(", ")
        )),
    }
}

/// Every function of `prog` with its effective definition. For a patch, `base` gives the
/// kernel file of the functions both define.
fn definitions(prog: &Program, base: Option<&BTreeMap<String, Def>>) -> BTreeMap<String, Def> {
    let mut defs = BTreeMap::new();
    for name in prog.function_names() {
        let Some(id) = prog.function(name) else {
            continue;
        };
        let def = match prog.func_source(id) {
            Some(src) => {
                let from_base = base
                    .and_then(|b| b.get(name))
                    .and_then(|d| d.kernel.clone());
                Def {
                    text: src.text.to_string(),
                    file: display_path(prog.sources().name(src.file)),
                    line: src.line,
                    kernel: prog
                        .kernel_ref(name)
                        .filter(|k| !k.starts_with("none"))
                        .or(from_base),
                }
            }
            None => {
                let loc = prog.func(id).loc;
                Def {
                    text: "(source text not available)\n".into(),
                    file: display_path(prog.sources().name(loc.file)),
                    line: loc.line,
                    kernel: None,
                }
            }
        };
        defs.insert(name.to_string(), def);
    }
    defs
}

/// The `---`/`+++` header and the hunks of one function.
fn function_diff(s: &mut String, name: &str, old: Option<&Def>, new: Option<&Def>) {
    s.push_str(&header("---", "base", name, old.or(new), old));
    s.push_str(&header("+++", "patch", name, new.or(old), new));
    let (a, a_line) = old.map_or(("", 0), |d| (d.text.as_str(), d.line));
    let (b, b_line) = new.map_or(("", 0), |d| (d.text.as_str(), d.line));
    hunks(s, a, a_line, b, b_line);
}

/// `--- base: mm/vma.c vma_complete  (models/v7.3-rc4/lib/vma.rmap:120)`; `(not defined)` for
/// the side without it. `named` is where the kernel file is taken from.
fn header(mark: &str, side: &str, name: &str, named: Option<&Def>, def: Option<&Def>) -> String {
    let place = def.map_or("not defined".to_string(), |d| {
        format!("{}:{}", d.file, d.line)
    });
    // `mm/vma.c vma_complete` when the model function has the kernel's name, else
    // `sys_mmap (kernel: mm/vma.c __mmap_region)`
    let what = match named.and_then(|d| d.kernel.as_deref()) {
        Some(k) if k.split_whitespace().nth(1) == Some(name) => k.to_string(),
        Some(k) => format!("{name} (kernel: {k})"),
        None => name.to_string(),
    };
    format!("{mark} {side}: {what}  ({place})\n")
}

/// Unified-diff hunks of `a` against `b` (3 lines of context). Line numbers are file lines:
/// `a_line`/`b_line` are the first lines of the two texts (0 for an absent side).
fn hunks(s: &mut String, a: &str, a_line: u32, b: &str, b_line: u32) {
    let d = TextDiff::from_lines(a, b);
    for group in d.grouped_ops(3) {
        let (Some(first), Some(last)) = (group.first(), group.last()) else {
            continue;
        };
        let old = first.old_range().start..last.old_range().end;
        let new = first.new_range().start..last.new_range().end;
        s.push_str(&format!(
            "@@ -{} +{} @@\n",
            hunk_range(old, a_line),
            hunk_range(new, b_line)
        ));
        for op in &group {
            for change in d.iter_changes(op) {
                s.push_str(&format!("{}{}", change.tag(), change.value()));
                if change.missing_newline() {
                    s.push_str("\n\\ No newline at end of file\n");
                }
            }
        }
    }
}

/// `start,len` of a hunk side in file lines (`start` alone when `len` is 1; for an empty range
/// the line before it, as diff(1) writes it).
fn hunk_range(r: std::ops::Range<usize>, first_line: u32) -> String {
    let off = first_line.saturating_sub(1) as usize;
    let len = r.end - r.start;
    match len {
        0 if first_line == 0 => "0,0".to_string(),
        0 => format!("{},0", off + r.start),
        1 => format!("{}", off + r.start + 1),
        _ => format!("{},{}", off + r.start + 1, len),
    }
}

/// One line for each model-local struct whose fields differ (or that only one model has).
fn struct_notes(base: &Program, patch: &Program) -> String {
    let fields = |p: &Program| -> BTreeMap<String, Vec<String>> {
        p.structs()
            .iter()
            .map(|s| {
                let f = s
                    .fields
                    .iter()
                    .map(|(n, t)| format!("{n}: {t:?}"))
                    .collect();
                (s.name.clone(), f)
            })
            .collect()
    };
    let (old, new) = (fields(base), fields(patch));
    let mut names: Vec<&String> = old.keys().chain(new.keys()).collect();
    names.sort();
    names.dedup();
    let mut s = String::new();
    for name in names {
        let line = match (old.get(name), new.get(name)) {
            (Some(a), Some(b)) if a == b => continue,
            (Some(a), Some(b)) => {
                let name_of = |f: &String| f.split(':').next().unwrap_or("").to_string();
                let gone = a
                    .iter()
                    .filter(|f| !b.contains(f))
                    .map(|f| format!("-{}", name_of(f)));
                let come = b
                    .iter()
                    .filter(|f| !a.contains(f))
                    .map(|f| format!("+{}", name_of(f)));
                let changes: Vec<String> = gone.chain(come).collect();
                if changes.is_empty() {
                    format!("struct {name}: fields reordered")
                } else {
                    format!("struct {name}: fields {}", changes.join(" "))
                }
            }
            (Some(_), None) => format!("struct {name}: only in the base"),
            _ => format!("struct {name}: only in the patch"),
        };
        s.push_str(&format!("note: {line}\n"));
    }
    s
}

/// A model file name for display: relative to the working directory when inside it, with
/// `.` and `dir/..` taken out.
fn display_path(name: &str) -> String {
    let p = Path::new(name);
    let cwd = std::env::current_dir().and_then(std::fs::canonicalize);
    let rel = match &cwd {
        Ok(c) if p.is_absolute() => p.strip_prefix(c).unwrap_or(p),
        _ => p,
    };
    let mut parts: Vec<Component> = Vec::new();
    for comp in rel.components() {
        match comp {
            Component::CurDir => {}
            Component::ParentDir if matches!(parts.last(), Some(Component::Normal(_))) => {
                parts.pop();
            }
            c => parts.push(c),
        }
    }
    let out: PathBuf = parts.iter().collect();
    out.display().to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hunk_ranges_are_file_lines() {
        assert_eq!(hunk_range(0..3, 120), "120,3");
        assert_eq!(hunk_range(2..3, 120), "122");
        assert_eq!(hunk_range(0..0, 0), "0,0");
        assert_eq!(hunk_range(4..4, 10), "13,0");
    }

    #[test]
    fn display_paths_drop_parent_steps() {
        assert_eq!(
            display_path("models/patches/../v7.3-rc4/baseline.rmap"),
            "models/v7.3-rc4/baseline.rmap"
        );
    }
}
