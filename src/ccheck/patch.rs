//! Applying a reviewer's unified diff to an [`Overlay`] with the `patch` program (`-p1`, as
//! `git diff` and a posting's diff are written). The files the diff names are made real copies
//! first, so `patch` writes only into the copy. A diff that does not apply, wholly or in one
//! hunk, is an error naming the diff's file, the hunk's line in it, the file it patches and the
//! hunk's number, from what `patch` printed.

use super::overlay::{inside, Overlay};
use std::path::Path;
use std::process::Command;

/// One file section of a diff: the path it patches (after `-p1`) and the line of each hunk
/// header (`@@ ... @@`) in the diff, 1-based.
#[derive(Debug, PartialEq, Eq)]
pub struct Section {
    pub path: String,
    pub hunks: Vec<usize>,
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
    for (i, l) in text.lines().enumerate() {
        if let Some(n) = l.strip_prefix("--- ") {
            old = p1(n).map(str::to_string);
        } else if let Some(n) = l.strip_prefix("+++ ") {
            // a deleted file names /dev/null here: the old name is the file
            if let Some(path) = p1(n).map(str::to_string).or(old.take()) {
                out.push(Section {
                    path,
                    hunks: Vec::new(),
                });
            }
        } else if l.starts_with("@@ ") {
            if let Some(s) = out.last_mut() {
                s.hunks.push(i + 1);
            }
        }
    }
    out
}

/// Apply the diff `file` to the overlay.
pub fn apply(o: &mut Overlay, file: &Path) -> Result<(), String> {
    let text = std::fs::read_to_string(file).map_err(|e| format!("{}: {e}", file.display()))?;
    let secs = sections(&text);
    if secs.is_empty() {
        return Err(format!(
            "{}:1:1: not a unified diff (no `--- a/FILE` / `+++ b/FILE` header)",
            file.display()
        ));
    }
    for s in &secs {
        let rel = inside(&s.path).ok_or_else(|| {
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
        o.materialise(&rel)?;
    }
    let abs = file
        .canonicalize()
        .map_err(|e| format!("{}: {e}", file.display()))?;
    let out = Command::new("patch")
        .args(["-p1", "--batch", "--forward", "--no-backup-if-mismatch"])
        .arg("--reject-file=-")
        .arg("-d")
        .arg(o.root())
        .arg("-i")
        .arg(&abs)
        .output()
        .map_err(|e| {
            format!("cannot run `patch` ({e}): install it (Debian: apt-get install patch)")
        })?;
    let said = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    if out.status.success() {
        o.note(format!("patch {}", file.display()), text.as_bytes());
        return Ok(());
    }
    Err(failure(file, &secs, &said))
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
diff --git a/mm/x.c b/mm/x.c
--- a/mm/x.c
+++ b/mm/x.c
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
                path: "mm/x.c".into(),
                hunks: vec![4, 9]
            }]
        );
    }

    #[test]
    fn a_hunk_that_does_not_apply_is_named() {
        let t = tempfile::tempdir().unwrap();
        std::fs::create_dir(t.path().join("mm")).unwrap();
        let body: String = "abcdefghijklmnop"
            .chars()
            .map(|c| format!("{c}\n"))
            .collect();
        std::fs::write(t.path().join("mm/x.c"), body.replace("k\n", "z\n")).unwrap();
        let d = tempfile::tempdir().unwrap();
        let pf = d.path().join("p.diff");
        std::fs::write(&pf, DIFF).unwrap();
        let mut o = Overlay::new(t.path(), d.path()).unwrap();
        let e = apply(&mut o, &pf).unwrap_err();
        assert!(
            e.contains("p.diff:9:1: hunk #2 of mm/x.c does not apply"),
            "{e}"
        );
        // the tree is untouched
        assert!(std::fs::read_to_string(t.path().join("mm/x.c"))
            .unwrap()
            .starts_with("a\nb\n"));

        std::fs::write(t.path().join("mm/x.c"), &body).unwrap();
        let mut o = Overlay::new(t.path(), d.path()).unwrap();
        apply(&mut o, &pf).unwrap();
        let got = std::fs::read_to_string(o.root().join("mm/x.c")).unwrap();
        assert!(
            got.starts_with("a\nB\nc\n") && got.contains("j\nK\nl\n"),
            "{got}"
        );
        assert_eq!(
            std::fs::read_to_string(t.path().join("mm/x.c")).unwrap(),
            body
        );
    }
}
