//! Coverage of a patch's changed lines on the C search: which executable lines the patches and
//! C edits changed ([`changes`], a line diff of each edited file against the tree), which of
//! them the search ran ([`collect`], gcov's counts of a harness built with `--coverage`), and
//! the tally a verdict line carries ([`Tally`]): `changed lines run: 5 of 7; never ran:
//! mm/vma.c:1288-1289`.
//!
//! Which lines count, for each change (one run of differing lines in the diff):
//! - its new lines that gcov lists as executable (a comment or a blank line is not), numbered
//!   as in the patched file, counted on the patched harness;
//! - where none of its new lines is executable (a line removed, or replaced by a comment), its
//!   removed lines that were executable before the patch, numbered as in the tree, counted on
//!   a harness of the unpatched tree searched to the same bounds: the change is reached when
//!   the code it removed would have run.
//!
//! A changed file gcov does not report at all (mm/rmap.c and mm/interval_tree.c, whose
//! functions the harness compiles as a generated copy; a header of declarations) is "not
//! measured", named on the line, and not counted.

use std::collections::BTreeMap;
use std::path::{Component, Path, PathBuf};
use std::process::Command;

/// One change: a run of differing lines of one file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Change {
    /// The file, relative to the tree.
    pub file: String,
    /// Its lines in the patched file (1-based).
    pub new: Vec<u32>,
    /// The lines it replaced or removed, in the tree's file (1-based).
    pub old: Vec<u32>,
}

/// The changes of every edited file.
#[derive(Clone, Debug, Default)]
pub struct Changes {
    pub changes: Vec<Change>,
}

/// Executable lines and their counts, by file relative to the tree.
pub type Hits = BTreeMap<String, BTreeMap<u32, u64>>;

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

/// The changes from `old` to `new`, the text of `file`.
pub fn diff_text(file: &str, old: &str, new: &str) -> Vec<Change> {
    let d = similar::TextDiff::from_lines(old, new);
    let num = |r: std::ops::Range<usize>| r.map(|i| i as u32 + 1).collect::<Vec<u32>>();
    d.ops()
        .iter()
        .filter_map(|op| {
            let (tag, o, n) = op.as_tag_tuple();
            (tag != similar::DiffTag::Equal).then(|| Change {
                file: file.to_string(),
                new: num(n),
                old: num(o),
            })
        })
        .collect()
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

/// Lines a reviewer accepts as unreached (`--accept-unreached FILE:LINE[-LINE]`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Accept {
    pub file: String,
    pub first: u32,
    pub last: u32,
}

impl std::str::FromStr for Accept {
    type Err = String;
    fn from_str(s: &str) -> Result<Accept, String> {
        let bad = || format!("{s:?}: expected FILE:LINE or FILE:FIRST-LAST (mm/vma.c:1288-1289)");
        let (file, r) = s.rsplit_once(':').ok_or_else(bad)?;
        let (a, b) = r.split_once('-').unwrap_or((r, r));
        let (first, last) = (
            a.parse::<u32>().map_err(|_| bad())?,
            b.parse::<u32>().map_err(|_| bad())?,
        );
        if file.is_empty() || first == 0 || last < first {
            return Err(bad());
        }
        Ok(Accept {
            file: file.to_string(),
            first,
            last,
        })
    }
}

/// One counted line.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Counted {
    pub file: String,
    pub line: u32,
    /// Numbered as in the tree before the patch (a removed line, counted on the unpatched C).
    pub before: bool,
    pub count: u64,
    /// Accepted as unreached by the reviewer.
    pub accepted: bool,
}

/// The changed lines a search ran and did not.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Tally {
    pub lines: Vec<Counted>,
    /// Changed files gcov does not report.
    pub not_measured: Vec<String>,
    /// The search of the tree before the patch saw the very states of the patched search
    /// (their number here): a removed line that ran there made no difference, and counts as
    /// not reached.
    pub no_difference: Option<usize>,
    /// Removed lines left uncounted (a counterexample was found: the tree before the patch
    /// was not searched).
    pub uncounted_removed: usize,
}

/// Whether some change has no executable new line in a measured file, so that its removed
/// lines must be counted on the unpatched C.
pub fn needs_before(ch: &Changes, patched: &Hits) -> bool {
    ch.changes.iter().any(|c| {
        !c.old.is_empty()
            && patched
                .get(&c.file)
                .is_some_and(|h| !c.new.iter().any(|n| h.contains_key(n)))
    })
}

/// The tally of `ch` on the counts of the patched search and, for removed lines, of the
/// unpatched one (`before`; `None` counts them as never run).
pub fn tally(ch: &Changes, patched: &Hits, before: Option<&Hits>, accept: &[Accept]) -> Tally {
    let mut t = Tally::default();
    for c in &ch.changes {
        let Some(h) = patched.get(&c.file) else {
            if !t.not_measured.contains(&c.file) {
                t.not_measured.push(c.file.clone());
            }
            continue;
        };
        let new: Vec<u32> = c
            .new
            .iter()
            .copied()
            .filter(|n| h.contains_key(n))
            .collect();
        let (lines, is_before) = if new.is_empty() {
            let empty = BTreeMap::new();
            let b = before.and_then(|b| b.get(&c.file)).unwrap_or(&empty);
            let old: Vec<(u32, u64)> = c
                .old
                .iter()
                .filter_map(|n| match before {
                    // counted on the unpatched C: executable there, or not counted
                    Some(_) => b.get(n).map(|k| (*n, *k)),
                    None => Some((*n, 0)),
                })
                .collect();
            (old, true)
        } else {
            (new.iter().map(|n| (*n, h[n])).collect(), false)
        };
        for (line, count) in lines {
            let accepted = count == 0
                && accept
                    .iter()
                    .any(|a| a.file == c.file && (a.first..=a.last).contains(&line));
            t.lines.push(Counted {
                file: c.file.clone(),
                line,
                before: is_before,
                count,
                accepted,
            });
        }
    }
    t
}

/// `mm/vma.c:1288-1289, mm/vma.c:1300` from (file, line) pairs in order.
pub fn ranges(lines: &[(&str, u32)]) -> String {
    let mut out: Vec<String> = Vec::new();
    let mut i = 0;
    while i < lines.len() {
        let (f, a) = lines[i];
        let mut b = a;
        while i + 1 < lines.len() && lines[i + 1].0 == f && lines[i + 1].1 == b + 1 {
            b += 1;
            i += 1;
        }
        out.push(if a == b {
            format!("{f}:{a}")
        } else {
            format!("{f}:{a}-{b}")
        });
        i += 1;
    }
    out.join(", ")
}

impl Tally {
    /// Leave the removed lines (counted on the tree before the patch) out.
    pub fn drop_before(&mut self) {
        let n = self.lines.len();
        self.lines.retain(|l| !l.before);
        self.uncounted_removed += n - self.lines.len();
    }

    /// The changed lines that never ran and are not accepted.
    pub fn unreached(&self) -> Vec<&Counted> {
        self.lines
            .iter()
            .filter(|l| !l.accepted && (l.count == 0 || self.idle(l)))
            .collect()
    }

    /// A removed line that ran before the patch with no difference to the search.
    fn idle(&self, l: &Counted) -> bool {
        l.before && l.count > 0 && self.no_difference.is_some()
    }

    /// Every counted line ran or is accepted.
    pub fn all_ran(&self) -> bool {
        self.unreached().is_empty()
    }

    fn list(ls: &[&Counted]) -> String {
        let mut parts = Vec::new();
        let now: Vec<(&str, u32)> = ls
            .iter()
            .filter(|l| !l.before)
            .map(|l| (l.file.as_str(), l.line))
            .collect();
        if !now.is_empty() {
            parts.push(ranges(&now));
        }
        let before: Vec<(&str, u32)> = ls
            .iter()
            .filter(|l| l.before)
            .map(|l| (l.file.as_str(), l.line))
            .collect();
        if !before.is_empty() {
            parts.push(format!(
                "{} (removed; numbered as before the patch)",
                ranges(&before)
            ));
        }
        parts.join(", ")
    }

    /// `changed lines run: 5 of 7; never ran: mm/vma.c:1288-1289`.
    pub fn line(&self) -> String {
        let ran = self.lines.iter().filter(|l| l.count > 0).count();
        let mut s = format!("changed lines run: {ran} of {}", self.lines.len());
        if self.lines.is_empty() && self.uncounted_removed == 0 {
            s += " (no executable line changed)";
        }
        let never: Vec<&Counted> = self
            .unreached()
            .into_iter()
            .filter(|l| !self.idle(l))
            .collect();
        if !never.is_empty() {
            s += &format!("; never ran: {}", Self::list(&never));
        }
        let idle: Vec<&Counted> = self.lines.iter().filter(|l| self.idle(l)).collect();
        if let (false, Some(n)) = (idle.is_empty(), self.no_difference) {
            s += &format!(
                "; made no difference: {} (the search of the tree before the patch saw the same {n} states)",
                Self::list(&idle)
            );
        }
        let acc: Vec<&Counted> = self.lines.iter().filter(|l| l.accepted).collect();
        if !acc.is_empty() {
            s += &format!("; accepted unreached: {}", Self::list(&acc));
        }
        if self.uncounted_removed > 0 {
            s += &format!(
                "; {} removed line(s) not counted (a counterexample was found: the tree before the patch was not searched)",
                self.uncounted_removed
            );
        }
        if !self.not_measured.is_empty() {
            s += &format!(
                "; not measured: {} (the harness compiles no line of it as itself)",
                self.not_measured.join(", ")
            );
        }
        s
    }

    /// Where the first unreached change is, as `mm/vma.c:1288` (with "(removed)" for a line
    /// numbered as before the patch).
    pub fn first_unreached(&self) -> Option<String> {
        self.unreached().first().map(|l| {
            format!(
                "{}:{}{} {}",
                l.file,
                l.line,
                if l.before { " (removed)" } else { "" },
                if self.idle(l) {
                    "made no difference"
                } else {
                    "never ran"
                }
            )
        })
    }

    /// The tally as JSON.
    pub fn json(&self) -> serde_json::Value {
        let ls = |f: &dyn Fn(&Counted) -> bool| -> Vec<serde_json::Value> {
            self.lines
                .iter()
                .filter(|l| f(l))
                .map(|l| {
                    serde_json::json!({"file": l.file, "line": l.line, "before_patch": l.before, "count": l.count})
                })
                .collect()
        };
        serde_json::json!({
            "changed": self.lines.len(),
            "ran": self.lines.iter().filter(|l| l.count > 0).count(),
            "lines": ls(&|_| true),
            "never_ran": ls(&|l| l.count == 0 && !l.accepted),
            "made_no_difference": ls(&|l| self.idle(l) && !l.accepted),
            "accepted_unreached": ls(&|l| l.accepted),
            "not_measured": self.not_measured,
            "no_difference_states": self.no_difference,
            "uncounted_removed": self.uncounted_removed,
            "text": self.line(),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hits(file: &str, lines: &[(u32, u64)]) -> Hits {
        let mut h = Hits::new();
        h.insert(file.into(), lines.iter().copied().collect());
        h
    }

    #[test]
    fn a_changed_comment_is_not_counted_and_a_line_never_run_is_named() {
        let old = "a\nb\nc\nd\n";
        let new = "a\nB\n/* note */\nc\nX\nY\n";
        let ch = Changes {
            changes: diff_text("mm/vma.c", old, new),
        };
        // 2 (B) ran, 3 is a comment (not executable), 5-6 never ran
        let p = hits("mm/vma.c", &[(1, 4), (2, 4), (4, 4), (5, 0), (6, 0)]);
        assert!(!needs_before(&ch, &p));
        let t = tally(&ch, &p, None, &[]);
        assert_eq!(
            t.line(),
            "changed lines run: 1 of 3; never ran: mm/vma.c:5-6"
        );
        assert_eq!(t.first_unreached().as_deref(), Some("mm/vma.c:5 never ran"));
        let acc: Accept = "mm/vma.c:5-6".parse().unwrap();
        let t = tally(&ch, &p, None, &[acc]);
        assert!(t.all_ran());
        assert_eq!(
            t.line(),
            "changed lines run: 1 of 3; accepted unreached: mm/vma.c:5-6"
        );
    }

    #[test]
    fn a_removed_line_is_counted_on_the_unpatched_c() {
        let old = "a\nif (x)\n\tf();\nb\n";
        let new = "a\nb\n";
        let ch = Changes {
            changes: diff_text("mm/vma.c", old, new),
        };
        let p = hits("mm/vma.c", &[(1, 3), (2, 3)]);
        assert!(needs_before(&ch, &p));
        let base = hits("mm/vma.c", &[(1, 3), (2, 3), (3, 0), (4, 3)]);
        let t = tally(&ch, &p, Some(&base), &[]);
        assert_eq!(
            t.line(),
            "changed lines run: 1 of 2; never ran: mm/vma.c:3 (removed; numbered as before the patch)"
        );
        assert_eq!(
            t.first_unreached().as_deref(),
            Some("mm/vma.c:3 (removed) never ran")
        );
        // a removed line that ran before the patch, when both searches saw the same states
        let base = hits("mm/vma.c", &[(1, 3), (2, 3), (3, 2), (4, 3)]);
        let mut t = tally(&ch, &p, Some(&base), &[]);
        assert!(t.all_ran());
        t.no_difference = Some(9);
        assert!(!t.all_ran());
        assert_eq!(
            t.first_unreached().as_deref(),
            Some("mm/vma.c:2 (removed) made no difference")
        );
        assert!(
            t.line()
                .starts_with("changed lines run: 2 of 2; made no difference: mm/vma.c:2-3"),
            "{}",
            t.line()
        );
        // a file gcov does not report is named, not counted
        let ch = Changes {
            changes: diff_text("mm/rmap.c", "a\n", "b\n"),
        };
        let t = tally(&ch, &p, None, &[]);
        assert!(t.all_ran());
        assert!(t.line().contains("not measured: mm/rmap.c"), "{}", t.line());
    }

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
        assert!("mm/vma.c".parse::<Accept>().is_err());
        assert!("mm/vma.c:9-3".parse::<Accept>().is_err());
    }
}
