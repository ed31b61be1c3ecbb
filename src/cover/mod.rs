//! The tally of a patch's changed lines, whatever runs them: which lines a patch changed
//! ([`diff_text`], a line diff), which of them ran ([`tally`], on counts of executable lines
//! by file, [`Hits`]), and the words a verdict line carries ([`Tally::line`]):
//! `changed lines run: 5 of 7; never ran: mm/vma.c:1288-1289`. The C search counts lines with
//! gcov (src/ccheck/coverage.rs), the model search with marks in the compiled model
//! (src/explore/cover.rs); both tally here and deepen with [`deepen`].
//!
//! Which lines count, for each change (one run of differing lines):
//! - its new lines that are executable (listed in the counts), numbered as in the patched
//!   file, counted on the patched search;
//! - where none of its new lines is executable (a line removed, or replaced by a comment), its
//!   removed lines that were executable before the patch, numbered as before the patch,
//!   counted on a search of the unpatched code to the same bounds: the change is reached when
//!   the code it removed would have run.

pub mod deepen;

use std::collections::BTreeMap;

/// One change: a run of differing lines of one file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Change {
    /// The file, relative to the tree.
    pub file: String,
    /// Its lines in the patched file (1-based).
    pub new: Vec<u32>,
    /// The lines it replaced or removed, in the tree's file (1-based).
    pub old: Vec<u32>,
    /// The file `old` numbers, when not `file` (a model function redefined in a patch model
    /// replaces one written in the model it includes).
    pub old_file: Option<String>,
}

impl Change {
    /// The file the removed lines are numbered in.
    pub fn before_file(&self) -> &str {
        self.old_file.as_deref().unwrap_or(&self.file)
    }
}

/// The changes of every edited file.
#[derive(Clone, Debug, Default)]
pub struct Changes {
    pub changes: Vec<Change>,
}

/// Executable lines and their counts, by file relative to the tree.
pub type Hits = BTreeMap<String, BTreeMap<u32, u64>>;

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
                old_file: None,
            })
        })
        .collect()
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
    /// What the search before the patch searched, in words: empty for the C tree ("the
    /// tree"), "the model" for a patch model's included model.
    pub unpatched: &'static str,
    /// Changed lines in code that nothing the scope offers can call (a model function no
    /// entry point of the scope reaches): named, not counted.
    pub out_of_scope: Vec<(String, u32)>,
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
            let b = before
                .and_then(|b| b.get(c.before_file()))
                .unwrap_or(&empty);
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
        let file = if is_before { c.before_file() } else { &c.file };
        for (line, count) in lines {
            let accepted = count == 0
                && accept
                    .iter()
                    .any(|a| a.file == file && (a.first..=a.last).contains(&line));
            t.lines.push(Counted {
                file: file.to_string(),
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
    fn unpatched(&self) -> &'static str {
        if self.unpatched.is_empty() {
            "the tree"
        } else {
            self.unpatched
        }
    }

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
        if self.lines.is_empty() && self.uncounted_removed == 0 && self.out_of_scope.is_empty() {
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
                "; made no difference: {} (the search of {} before the patch saw the same {n} states)",
                Self::list(&idle),
                self.unpatched()
            );
        }
        let acc: Vec<&Counted> = self.lines.iter().filter(|l| l.accepted).collect();
        if !acc.is_empty() {
            s += &format!("; accepted unreached: {}", Self::list(&acc));
        }
        if self.uncounted_removed > 0 {
            s += &format!(
                "; {} removed line(s) not counted (a counterexample was found: {} before the patch was not searched)",
                self.uncounted_removed,
                self.unpatched()
            );
        }
        if !self.out_of_scope.is_empty() {
            let ls: Vec<(&str, u32)> = self
                .out_of_scope
                .iter()
                .map(|(f, l)| (f.as_str(), *l))
                .collect();
            s += &format!(
                "; not reachable from the scope's entry points: {}",
                ranges(&ls)
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
            "out_of_scope": self.out_of_scope.iter().map(|(f, l)| serde_json::json!({"file": f, "line": l})).collect::<Vec<_>>(),
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
        assert!("mm/vma.c".parse::<Accept>().is_err());
        assert!("mm/vma.c:9-3".parse::<Accept>().is_err());
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
}
