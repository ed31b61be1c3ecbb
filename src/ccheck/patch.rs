//! Applying a reviewer's unified diff to an [`Overlay`] with the `patch` program (`-p1`, as
//! `git diff` and a posting's diff are written). The files the diff names are made real copies
//! first, so `patch` writes only into the copy. A diff that does not apply, wholly or in one
//! hunk, to a file the harness builds is an error naming the diff's file, the hunk's line in
//! it, the file it patches and the hunk's number, from what `patch` printed. A section for a
//! file the harness does not build (the userland tests' own tests, Documentation, MAINTAINERS,
//! the rest of mm/) is applied when the tree has the file, and otherwise, or when it does not
//! apply, left out and listed: never an error.

use super::overlay::{inside, Overlay};
use crate::charness::build;
use std::path::Path;
use std::process::Command;

/// One file section of a diff: the path it patches (after `-p1`) and the line of each hunk
/// header (`@@ ... @@`) in the diff, 1-based.
#[derive(Debug, PartialEq, Eq)]
pub struct Section {
    pub path: String,
    pub hunks: Vec<usize>,
    /// The section's lines in the diff, 0-based, from its `--- ` line up to the next
    /// section's `--- ` line (or the end).
    pub lines: std::ops::Range<usize>,
    /// The diff creates the file (`--- /dev/null`).
    pub created: bool,
}

/// Strip the first path component (`a/`, `b/`), as `patch -p1` does.
fn p1(name: &str) -> Option<&str> {
    let name = name.split('\t').next().unwrap_or(name).trim();
    if name == "/dev/null" {
        return None;
    }
    name.split_once('/').map(|(_, rest)| rest)
}

/// The file sections of a unified diff.
pub fn sections(text: &str) -> Vec<Section> {
    let mut out: Vec<Section> = Vec::new();
    let mut old: Option<String> = None;
    let mut start = 0;
    let n_lines = text.lines().count();
    for (i, l) in text.lines().enumerate() {
        if let Some(n) = l.strip_prefix("--- ") {
            old = p1(n).map(str::to_string);
            start = i;
        } else if let Some(n) = l.strip_prefix("+++ ") {
            // a deleted file names /dev/null here: the old name is the file
            let created = old.is_none();
            if let Some(path) = p1(n).map(str::to_string).or(old.take()) {
                if let Some(prev) = out.last_mut() {
                    prev.lines.end = start;
                }
                out.push(Section {
                    path,
                    hunks: Vec::new(),
                    lines: start..n_lines,
                    created,
                });
            }
        } else if l.starts_with("@@ ") {
            if let Some(s) = out.last_mut() {
                // `diff -N` names a new file on both sides (dated the epoch): its one hunk
                // starts from nothing
                if s.hunks.is_empty() && l.starts_with("@@ -0,0 ") {
                    s.created = true;
                }
                s.hunks.push(i + 1);
            }
        }
    }
    out
}

/// Apply the diff `file` to the overlay. Returns a line for each file the harness does not
/// build: applied, or left out and why.
pub fn apply(o: &mut Overlay, file: &Path) -> Result<Vec<String>, String> {
    let text = std::fs::read_to_string(file).map_err(|e| format!("{}: {e}", file.display()))?;
    let secs = sections(&text);
    if secs.is_empty() {
        return Err(format!(
            "{}:1:1: not a unified diff (no `--- a/FILE` / `+++ b/FILE` header)",
            file.display()
        ));
    }
    for s in &secs {
        inside(&s.path).ok_or_else(|| {
            format!(
                "{}: patches {:?}, which is not a path inside the tree",
                file.display(),
                s.path
            )
        })?;
        if s.hunks.is_empty() {
            return Err(format!(
                "{}: the section for {} has no hunk",
                file.display(),
                s.path
            ));
        }
    }
    let lines: Vec<&str> = text.lines().collect();
    let (built, other): (Vec<&Section>, Vec<&Section>) =
        secs.iter().partition(|s| build::reads(&s.path));
    if !built.is_empty() {
        for s in &built {
            o.materialise(Path::new(&s.path))?;
        }
        let said = run_patch(o, &lines, &built)?;
        if let Some(said) = said {
            return Err(failure(file, &secs, &said));
        }
    }
    let mut notes = Vec::new();
    for s in other {
        let rel = Path::new(&s.path);
        let parent = rel.parent().unwrap_or(Path::new(""));
        let there = o.tree().join(rel).is_file() || (s.created && o.tree().join(parent).is_dir());
        if !there {
            notes.push(format!(
                "{}: not in this tree, left out (the harness does not build it)",
                s.path
            ));
            continue;
        }
        o.materialise(rel)?;
        notes.push(match run_patch(o, &lines, &[s])? {
            None => format!("{}: applied (the harness does not build it)", s.path),
            Some(said) => format!(
                "{}: left out (the harness does not build it): {}",
                s.path,
                failure(file, &secs, &said)
            ),
        });
    }
    o.note(format!("patch {}", file.display()), text.as_bytes());
    Ok(notes)
}

/// Run `patch` on the sections `secs` of the diff `lines`: None when they applied, else
/// what `patch` said.
fn run_patch(o: &Overlay, lines: &[&str], secs: &[&Section]) -> Result<Option<String>, String> {
    let mut part = String::new();
    for s in secs {
        for l in &lines[s.lines.clone()] {
            part.push_str(l);
            part.push('\n');
        }
    }
    let mut tmp = tempfile::NamedTempFile::new().map_err(|e| format!("a temporary file: {e}"))?;
    std::io::Write::write_all(&mut tmp, part.as_bytes())
        .map_err(|e| format!("a temporary file: {e}"))?;
    let out = Command::new("patch")
        .args(["-p1", "--batch", "--forward", "--no-backup-if-mismatch"])
        .arg("--reject-file=-")
        .arg("-d")
        .arg(o.root())
        .arg("-i")
        .arg(tmp.path())
        .output()
        .map_err(|e| {
            format!("cannot run `patch` ({e}): install it (Debian: apt-get install patch)")
        })?;
    if out.status.success() {
        return Ok(None);
    }
    Ok(Some(format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    )))
}

/// The error for a diff `patch` refused, from its output `said`.
fn failure(file: &Path, secs: &[Section], said: &str) -> String {
    let mut current: Option<&str> = None;
    let mut lines = Vec::new();
    for l in said.lines() {
        if let Some(f) = l.strip_prefix("patching file ") {
            current = Some(f.trim().trim_matches(['\'', '`']));
            continue;
        }
        let hunk = l
            .strip_prefix("Hunk #")
            .and_then(|r| r.split_once(' '))
            .filter(|(_, rest)| rest.starts_with("FAILED"));
        if let Some((n, rest)) = hunk {
            let path = current.unwrap_or("?");
            let at = n
                .parse::<usize>()
                .ok()
                .and_then(|n| {
                    secs.iter()
                        .find(|s| s.path == path)
                        .and_then(|s| s.hunks.get(n - 1))
                })
                .map_or(String::new(), |l| format!(":{l}:1"));
            lines.push(format!(
                "{}{at}: hunk #{n} of {path} does not apply to the tree's {path} ({})",
                file.display(),
                rest.trim_end_matches('.')
            ));
        }
    }
    if lines.is_empty() {
        let tail: Vec<&str> = said.lines().rev().take(6).collect();
        lines.push(format!(
            "{}: does not apply; `patch` said:\n    {}",
            file.display(),
            tail.into_iter().rev().collect::<Vec<_>>().join("\n    ")
        ));
    }
    lines.join("\n")
}

#[cfg(test)]
mod tests {
    use super::*;

    const DIFF: &str = "\
diff --git a/mm/vma.c b/mm/vma.c
--- a/mm/vma.c
+++ b/mm/vma.c
@@ -1,3 +1,3 @@
 a
-b
+B
 c
@@ -10,3 +10,3 @@
 j
-k
+K
 l
";

    #[test]
    fn sections_and_hunk_lines() {
        assert_eq!(
            sections(DIFF),
            vec![Section {
                path: "mm/vma.c".into(),
                hunks: vec![4, 9],
                lines: 1..13,
                created: false,
            }]
        );
    }

    /// A new file as git writes it (the old side /dev/null) and as `diff -N` writes it (both
    /// sides named, the old one dated the epoch, its hunk from `-0,0`).
    #[test]
    fn a_new_file_is_created_however_the_diff_names_it() {
        let git = "--- /dev/null\n+++ b/mm/note.c\n@@ -0,0 +1 @@\n+one\n";
        let gnu = "--- a/mm/note.c\t1970-01-01 00:00:00.000000000 +0000\n\
+++ b/mm/note.c\t2026-12-06 20:00:42.617951215 +0000\n@@ -0,0 +1 @@\n+one\n";
        for d in [git, gnu] {
            let s = sections(d);
            assert_eq!(s.len(), 1, "{d}");
            assert_eq!(s[0].path, "mm/note.c");
            assert!(s[0].created, "{d}");
        }
        assert!(!sections(DIFF)[0].created);
    }

    #[test]
    fn a_hunk_that_does_not_apply_is_named() {
        let t = tempfile::tempdir().unwrap();
        std::fs::create_dir(t.path().join("mm")).unwrap();
        let body: String = "abcdefghijklmnop"
            .chars()
            .map(|c| format!("{c}\n"))
            .collect();
        std::fs::write(t.path().join("mm/vma.c"), body.replace("k\n", "z\n")).unwrap();
        let d = tempfile::tempdir().unwrap();
        let pf = d.path().join("p.diff");
        std::fs::write(&pf, DIFF).unwrap();
        let mut o = Overlay::new(t.path(), d.path()).unwrap();
        let e = apply(&mut o, &pf).unwrap_err();
        assert!(
            e.contains("p.diff:9:1: hunk #2 of mm/vma.c does not apply"),
            "{e}"
        );
        // the tree is untouched
        assert!(std::fs::read_to_string(t.path().join("mm/vma.c"))
            .unwrap()
            .starts_with("a\nb\n"));

        std::fs::write(t.path().join("mm/vma.c"), &body).unwrap();
        let mut o = Overlay::new(t.path(), d.path()).unwrap();
        apply(&mut o, &pf).unwrap();
        let got = std::fs::read_to_string(o.root().join("mm/vma.c")).unwrap();
        assert!(
            got.starts_with("a\nB\nc\n") && got.contains("j\nK\nl\n"),
            "{got}"
        );
        assert_eq!(
            std::fs::read_to_string(t.path().join("mm/vma.c")).unwrap(),
            body
        );
    }

    #[test]
    fn sections_outside_the_harness_are_applied_or_listed_never_fatal() {
        let t = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(t.path().join("tools/testing/vma/tests")).unwrap();
        std::fs::create_dir(t.path().join("mm")).unwrap();
        std::fs::write(t.path().join("mm/vma.c"), "a\nb\nc\n").unwrap();
        std::fs::write(t.path().join("mm/mmap.c"), "x\ny\nz\n").unwrap();
        std::fs::write(t.path().join("tools/testing/vma/tests/t.c"), "p\nq\nr\n").unwrap();
        let diff = "\
--- a/mm/vma.c
+++ b/mm/vma.c
@@ -1,3 +1,3 @@
 a
-b
+B
 c
--- a/Documentation/mm/x.rst
+++ b/Documentation/mm/x.rst
@@ -1,1 +1,1 @@
-old
+new
--- a/tools/testing/vma/tests/t.c
+++ b/tools/testing/vma/tests/t.c
@@ -1,3 +1,3 @@
 p
-NOT THERE
+Q
 r
--- a/mm/mmap.c
+++ b/mm/mmap.c
@@ -1,3 +1,3 @@
 x
-y
+Y
 z
";
        let d = tempfile::tempdir().unwrap();
        let pf = d.path().join("p.diff");
        std::fs::write(&pf, diff).unwrap();
        let mut o = Overlay::new(t.path(), d.path()).unwrap();
        let notes = apply(&mut o, &pf).unwrap();
        assert_eq!(notes.len(), 3, "{notes:?}");
        assert!(notes[0].starts_with("Documentation/mm/x.rst: not in this tree, left out"));
        assert!(
            notes[1].starts_with("tools/testing/vma/tests/t.c: left out")
                && notes[1].contains("p.diff:15:1: hunk #1 of tools/testing/vma/tests/t.c"),
            "{notes:?}"
        );
        assert_eq!(
            notes[2],
            "mm/mmap.c: applied (the harness does not build it)"
        );
        let read = |f: &str| std::fs::read_to_string(o.root().join(f)).unwrap();
        assert_eq!(read("mm/vma.c"), "a\nB\nc\n");
        assert_eq!(read("mm/mmap.c"), "x\nY\nz\n");
    }
}
