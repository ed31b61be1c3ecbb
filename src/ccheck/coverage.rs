//! Coverage of a patch's changed lines on the C search: which lines the patches and C edits
//! changed ([`changes`], a line diff of each edited file against the tree) and which
//! executable lines the search ran ([`collect`], gcov's counts of a harness built with
//! `--coverage`). The tally and its verdict words are `crate::cover`'s, shared with the model
//! search.
//!
//! A changed file gcov does not report at all (mm/rmap.c and mm/interval_tree.c, whose
//! functions the harness compiles as a generated copy; a header of declarations) is "not
//! measured", named on the line, and not counted.

use std::path::{Component, Path, PathBuf};
use std::process::Command;

pub use crate::cover::{diff_text, needs_before, tally, Change, Changes, Hits};

/// The changes between the tree's text of each file in `files` and the patched copy's.
pub fn changes(tree: &Path, copy: &Path, files: &[PathBuf]) -> Result<Changes, String> {
    let mut out = Changes::default();
    for f in files {
        let read = |root: &Path| match std::fs::read(root.join(f)) {
            Ok(b) => Ok(String::from_utf8_lossy(&b).into_owned()),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(String::new()),
            Err(e) => Err(format!("{}: {e}", root.join(f).display())),
        };
        let (old, new) = (read(tree)?, read(copy)?);
        out.changes
            .extend(diff_text(&f.to_string_lossy(), &old, &new));
    }
    Ok(out)
}

/// `dir/name` resolved lexically (`..` removes a component), or `None` when it leaves the
/// top or `name` is absolute.
fn resolve(dir: &str, name: &str) -> Option<String> {
    if name.starts_with('/') {
        return None;
    }
    let mut parts: Vec<String> = Vec::new();
    for c in Path::new(dir).join(name).components() {
        match c {
            Component::Normal(s) => parts.push(s.to_string_lossy().into_owned()),
            Component::ParentDir => {
                parts.pop()?;
            }
            Component::CurDir => {}
            _ => return None,
        }
    }
    Some(parts.join("/"))
}

/// Where the harness's objects are compiled, relative to the tree (gcov names sources from
/// there).
const OBJDIR: &str = "tools/testing/vma";

/// Add gcov's JSON document `doc` (one object file's counts) to `hits`.
pub fn add_gcov_json(doc: &serde_json::Value, hits: &mut Hits) {
    let Some(files) = doc["files"].as_array() else {
        return;
    };
    for f in files {
        let Some(name) = f["file"].as_str().and_then(|n| resolve(OBJDIR, n)) else {
            continue;
        };
        let lines = hits.entry(name).or_default();
        for l in f["lines"].as_array().into_iter().flatten() {
            let (Some(n), Some(c)) = (l["line_number"].as_u64(), l["count"].as_u64()) else {
                continue;
            };
            *lines.entry(n as u32).or_default() += c;
        }
    }
}

fn gcda_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(rd) = std::fs::read_dir(dir) else {
        return;
    };
    for e in rd.flatten() {
        let p = e.path();
        if p.is_dir() {
            gcda_files(&p, out);
        } else if p.extension().is_some_and(|x| x == "gcda") {
            out.push(p);
        }
    }
}

/// The counts the harness processes wrote under `prefix` (their `GCOV_PREFIX`), read by gcov
/// with the notes beside the objects in `objdir` (the harness binary's directory). An object
/// with no counts (no process exited normally) reports nothing; its changed lines then count
/// as never run.
pub fn collect(prefix: &Path, objdir: &Path) -> Result<Hits, String> {
    let mut data = Vec::new();
    gcda_files(prefix, &mut data);
    let mut hits = Hits::new();
    for gcda in data {
        let (Some(dir), Some(stem)) = (gcda.parent(), gcda.file_stem()) else {
            continue;
        };
        let notes = objdir.join(stem).with_extension("gcno");
        if !notes.is_file() {
            continue;
        }
        let beside = dir.join(notes.file_name().unwrap_or_default());
        std::fs::copy(&notes, &beside).map_err(|e| format!("{}: {e}", beside.display()))?;
        let out = Command::new("gcov")
            .args(["--json-format", "--stdout"])
            .arg(gcda.file_name().unwrap_or_default())
            .current_dir(dir)
            .output()
            .map_err(|e| format!("cannot run gcov ({e}): it comes with gcc"))?;
        if !out.status.success() {
            return Err(format!(
                "gcov {} failed: {}",
                gcda.display(),
                String::from_utf8_lossy(&out.stderr).trim()
            ));
        }
        for l in String::from_utf8_lossy(&out.stdout).lines() {
            if let Ok(doc) = serde_json::from_str::<serde_json::Value>(l) {
                add_gcov_json(&doc, &mut hits);
            }
        }
    }
    // every object's notes, even one no process wrote counts for: its lines then exist with
    // count 0 rather than being "not measured"
    if let Ok(rd) = std::fs::read_dir(objdir) {
        for e in rd.flatten() {
            let p = e.path();
            if p.extension().is_some_and(|x| x == "gcno") {
                add_notes_only(&p, &mut hits)?;
            }
        }
    }
    Ok(hits)
}

/// The executable lines of the object whose notes are `gcno`, with count 0, added where
/// `hits` has none for the file.
fn add_notes_only(gcno: &Path, hits: &mut Hits) -> Result<(), String> {
    let t = tempfile::tempdir().map_err(|e| e.to_string())?;
    let name = gcno.file_name().unwrap_or_default();
    std::fs::copy(gcno, t.path().join(name)).map_err(|e| format!("{}: {e}", gcno.display()))?;
    let out = Command::new("gcov")
        .args(["--json-format", "--stdout"])
        .arg(Path::new(name).with_extension("gcda"))
        .current_dir(t.path())
        .output()
        .map_err(|e| format!("cannot run gcov ({e}): it comes with gcc"))?;
    let mut zero = Hits::new();
    for l in String::from_utf8_lossy(&out.stdout).lines() {
        if let Ok(doc) = serde_json::from_str::<serde_json::Value>(l) {
            add_gcov_json(&doc, &mut zero);
        }
    }
    for (f, lines) in zero {
        let have = hits.entry(f).or_default();
        for (n, _) in lines {
            have.entry(n).or_insert(0);
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn gcov_names_resolve_from_the_object_directory() {
        let doc = serde_json::json!({"files": [
            {"file": "../../../mm/vma.c", "lines": [{"line_number": 7, "count": 2}]},
            {"file": "/usr/include/stdio.h", "lines": [{"line_number": 1, "count": 1}]},
            {"file": "harness.c", "lines": [{"line_number": 3, "count": 0}]},
        ]});
        let mut h = Hits::new();
        add_gcov_json(&doc, &mut h);
        assert_eq!(h["mm/vma.c"][&7], 2);
        assert_eq!(h["tools/testing/vma/harness.c"][&3], 0);
        assert_eq!(h.len(), 2);
    }
}
