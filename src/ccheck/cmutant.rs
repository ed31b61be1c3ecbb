//! C mutants: edit specs we write ourselves, each injecting one bug into a copy of the tree's C
//! at build time (never a copy of kernel text: an anchor is a short fragment that identifies
//! the place, and the replacement is our edit). The format, one TOML file per mutant (see
//! `cmutants/` and docs/CHECK-C.md):
//!
//! ```toml
//! summary = "what is wrong, in one line"
//! model_mutant = "the model mutant of the same class (models/mutants/)"
//! caught_by = "the invariant the C search reports"
//!
//! [[edit]]
//! file = "mm/vma.c"      # relative to the tree
//! find = "..."           # must occur exactly once in the file (after earlier edits)
//! replace = "..."
//! ```
//!
//! An anchor that is not found, or found more than once, is an error naming the spec's line:
//! a future tree that no longer matches fails loudly instead of building an unmutated harness.

use super::overlay::{inside, Overlay};
use serde::Deserialize;
use std::path::{Path, PathBuf};

/// One text edit.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Edit {
    pub file: String,
    pub find: String,
    pub replace: String,
}

/// A C mutant's spec.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Spec {
    pub summary: String,
    pub model_mutant: String,
    pub caught_by: String,
    pub edit: Vec<Edit>,
    /// The spec file it was read from.
    #[serde(skip)]
    pub path: PathBuf,
}

impl Spec {
    /// The mutant's name: its file name without `.toml`.
    pub fn name(&self) -> String {
        self.path
            .file_stem()
            .map_or_else(String::new, |s| s.to_string_lossy().into_owned())
    }
}

/// Read a spec; errors read `FILE:LINE:COL: message`.
pub fn load(path: &Path) -> Result<Spec, String> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
    let mut s: Spec =
        crate::toml_diag::parse(&text).map_err(|e| format!("{}:{e}", path.display()))?;
    s.path = path.to_path_buf();
    if s.edit.is_empty() {
        return Err(format!(
            "{}:1:1: a C mutant needs at least one [[edit]]",
            path.display()
        ));
    }
    if crate::invariant::Invariant::from_name(&s.caught_by).is_none() {
        let at = crate::toml_diag::position_of(&text, "caught_by");
        return Err(format!(
            "{}:{at}: caught_by {:?} is not an invariant (see `rmapcheck list`)",
            path.display(),
            s.caught_by
        ));
    }
    Ok(s)
}

/// Every spec of a directory, by file name.
pub fn load_dir(dir: &Path) -> Result<Vec<Spec>, String> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .map_err(|e| format!("{}: {e}", dir.display()))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "toml"))
        .collect();
    files.sort();
    files.iter().map(|p| load(p)).collect()
}

/// Line (1-based) of the `k`-th `[[edit]]` header of a spec's text.
fn edit_line(text: &str, k: usize) -> usize {
    text.lines()
        .enumerate()
        .filter(|(_, l)| l.trim() == "[[edit]]")
        .nth(k)
        .map_or(1, |(i, _)| i + 1)
}

/// `text` (the tree's `e.file`, after earlier edits) with edit `k` (0-based) made: its anchor
/// must occur exactly once; `at` (`SPEC:LINE:1`) prefixes an error.
pub fn edit_text(text: &str, e: &Edit, k: usize, at: &str) -> Result<String, String> {
    if e.find.is_empty() {
        return Err(format!("{at}: an empty anchor"));
    }
    match text.matches(e.find.as_str()).count() {
        1 => Ok(text.replacen(&e.find, &e.replace, 1)),
        0 => Err(format!(
            "{at}: the anchor of edit {} is not in the tree's {} (a tree this spec was not written for)",
            k + 1,
            e.file
        )),
        n => Err(format!(
            "{at}: the anchor of edit {} occurs {n} times in the tree's {}: make it unique",
            k + 1,
            e.file
        )),
    }
}

/// Line (1-based) of the `k`-th `[[edit]]` header of a spec's text, as `SPEC:LINE:1`.
pub fn edit_at(path: &Path, text: &str, k: usize) -> String {
    format!("{}:{}:1", path.display(), edit_line(text, k))
}

/// Apply the spec's edits to the overlay, in order.
pub fn apply(o: &mut Overlay, s: &Spec) -> Result<(), String> {
    let spec_text = std::fs::read_to_string(&s.path).unwrap_or_default();
    for (k, e) in s.edit.iter().enumerate() {
        let at = edit_at(&s.path, &spec_text, k);
        let rel = inside(&e.file)
            .ok_or_else(|| format!("{at}: file {:?} is not a path inside the tree", e.file))?;
        let p = o.materialise(&rel)?;
        let text = std::fs::read_to_string(&p)
            .map_err(|err| format!("{at}: the tree's {}: {err}", e.file))?;
        std::fs::write(&p, edit_text(&text, e, k, &at)?)
            .map_err(|err| format!("{}: {err}", p.display()))?;
    }
    o.note(format!("c-mutant {}", s.name()), spec_text.as_bytes());
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn anchors_must_be_found_once() {
        let t = tempfile::tempdir().unwrap();
        std::fs::create_dir(t.path().join("mm")).unwrap();
        std::fs::write(t.path().join("mm/x.c"), "one();\ntwo();\ntwo();\n").unwrap();
        let d = tempfile::tempdir().unwrap();
        let spec = |find: &str| {
            let p = d.path().join("m.toml");
            std::fs::write(
                &p,
                format!(
                    "summary = \"s\"\nmodel_mutant = \"m\"\ncaught_by = \"augment\"\n\n[[edit]]\nfile = \"mm/x.c\"\nfind = {find:?}\nreplace = \"\"\n"
                ),
            )
            .unwrap();
            load(&p).unwrap()
        };
        let mut o = Overlay::new(t.path(), d.path()).unwrap();
        let e = apply(&mut o, &spec("three();\n")).unwrap_err();
        assert!(
            e.contains("m.toml:5:1: the anchor of edit 1 is not in"),
            "{e}"
        );
        let e = apply(&mut o, &spec("two();\n")).unwrap_err();
        assert!(e.contains("occurs 2 times"), "{e}");
        apply(&mut o, &spec("one();\n")).unwrap();
        assert_eq!(
            std::fs::read_to_string(o.root().join("mm/x.c")).unwrap(),
            "two();\ntwo();\n"
        );
        let p = d.path().join("bad.toml");
        std::fs::write(
            &p,
            "summary = \"s\"\nmodel_mutant = \"m\"\ncaught_by = \"nope\"\nedit = []\n",
        )
        .unwrap();
        let e = load(&p).unwrap_err();
        assert!(e.contains("bad.toml:"), "{e}");
    }
}
