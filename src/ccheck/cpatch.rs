//! C patches as edit specs: a patch to the kernel's C that we write ourselves (an idea posted
//! to linux-mm, re-done in our words), kept in the repository as a TOML edit spec in the format
//! of the C mutants ([`super::cmutant`]: `file`, a short `find` anchor that must occur exactly
//! once, `replace`) and turned into a unified diff against a given tree at run time, so that no
//! kernel text is stored with it. `rmapcheck cpatch --kernel DIR SPEC > x.diff` prints the
//! diff; `rmapcheck check --kernel DIR --patch x.diff` checks it. The format (see `cpatches/`):
//!
//! ```toml
//! summary = "what the patch does, in one line"
//! model = "models/patches/NAME.rmap"   # the model of the same patch, if there is one
//!
//! [[edit]]
//! file = "mm/vma.c"
//! find = "..."
//! replace = "..."
//! ```
//!
//! The diff has `a/FILE` and `b/FILE` headers (apply with `patch -p1`), one section per file
//! the edits touch, in the order the edits first name them, made by `diff -u`.

use super::cmutant::{edit_at, edit_text, Edit};
use super::overlay::inside;
use serde::Deserialize;
use std::path::Path;
use std::process::Command;

/// A C patch's spec.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Spec {
    pub summary: String,
    #[serde(default)]
    pub model: Option<String>,
    pub edit: Vec<Edit>,
}

/// Read a spec; errors read `FILE:LINE:COL: message`.
pub fn load(path: &Path) -> Result<(Spec, String), String> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
    let s: Spec = crate::toml_diag::parse(&text).map_err(|e| format!("{}:{e}", path.display()))?;
    if s.edit.is_empty() {
        return Err(format!(
            "{}:1:1: a C patch needs at least one [[edit]]",
            path.display()
        ));
    }
    Ok((s, text))
}

/// The unified diff that makes the spec at `path`'s edits to `tree` (which is only read).
pub fn diff(tree: &Path, path: &Path) -> Result<String, String> {
    let (spec, text) = load(path)?;
    // each touched file: its name, the tree's text, the edited text
    let mut files: Vec<(String, String, String)> = Vec::new();
    for (k, e) in spec.edit.iter().enumerate() {
        let at = edit_at(path, &text, k);
        let rel = inside(&e.file)
            .ok_or_else(|| format!("{at}: file {:?} is not a path inside the tree", e.file))?;
        let i = match files.iter().position(|f| f.0 == e.file) {
            Some(i) => i,
            None => {
                let p = tree.join(&rel);
                let t = std::fs::read_to_string(&p)
                    .map_err(|err| format!("{at}: the tree's {}: {err}", e.file))?;
                files.push((e.file.clone(), t.clone(), t));
                files.len() - 1
            }
        };
        files[i].2 = edit_text(&files[i].2, e, k, &at)?;
    }
    let tmp = tempfile::tempdir().map_err(|e| format!("a temporary directory: {e}"))?;
    let mut out = String::new();
    for (name, old, new) in &files {
        let (a, b) = (tmp.path().join("a"), tmp.path().join("b"));
        for (p, t) in [(&a, old), (&b, new)] {
            std::fs::write(p, t).map_err(|e| format!("{}: {e}", p.display()))?;
        }
        let o = Command::new("diff")
            .arg("-u")
            .arg("--label")
            .arg(format!("a/{name}"))
            .arg("--label")
            .arg(format!("b/{name}"))
            .arg(&a)
            .arg(&b)
            .output()
            .map_err(|e| format!("cannot run diff: {e}"))?;
        // diff exits 1 when the files differ, 0 when they do not (an edit that changes nothing)
        match o.status.code() {
            Some(0) | Some(1) => out.push_str(&String::from_utf8_lossy(&o.stdout)),
            _ => {
                return Err(format!(
                    "diff of {name} failed: {}",
                    String::from_utf8_lossy(&o.stderr)
                ))
            }
        }
    }
    if out.is_empty() {
        return Err(format!("{}:1:1: the edits change nothing", path.display()));
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_spec_becomes_a_diff_that_patch_applies() {
        let t = tempfile::tempdir().unwrap();
        std::fs::create_dir(t.path().join("mm")).unwrap();
        std::fs::write(t.path().join("mm/x.c"), "one();\ntwo();\nthree();\n").unwrap();
        std::fs::write(t.path().join("mm/y.h"), "void one(void);\n").unwrap();
        let d = tempfile::tempdir().unwrap();
        let p = d.path().join("p.toml");
        std::fs::write(
            &p,
            "summary = \"s\"\n\n[[edit]]\nfile = \"mm/x.c\"\nfind = \"two();\\nthree();\\n\"\nreplace = \"two();\\nfour();\\nthree();\\n\"\n\n[[edit]]\nfile = \"mm/y.h\"\nfind = \"void one(void);\\n\"\nreplace = \"void one(void);\\nvoid four(void);\\n\"\n",
        )
        .unwrap();
        let text = diff(t.path(), &p).unwrap();
        assert!(text.starts_with("--- a/mm/x.c\n+++ b/mm/x.c\n"), "{text}");
        assert!(text.contains("--- a/mm/y.h\n+++ b/mm/y.h\n"), "{text}");
        assert!(text.contains("\n+four();\n"), "{text}");
        let df = d.path().join("p.diff");
        std::fs::write(&df, &text).unwrap();
        let st = Command::new("patch")
            .arg("-p1")
            .arg("-s")
            .arg("-i")
            .arg(&df)
            .current_dir(t.path())
            .status()
            .unwrap();
        assert!(st.success());
        assert_eq!(
            std::fs::read_to_string(t.path().join("mm/x.c")).unwrap(),
            "one();\ntwo();\nfour();\nthree();\n"
        );
        // the anchor is gone now: the same spec no longer applies to the patched tree
        let e = diff(t.path(), &p).unwrap_err();
        assert!(
            e.contains("p.toml:3:1: the anchor of edit 1 is not in"),
            "{e}"
        );
    }
}
