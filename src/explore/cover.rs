//! Did the patch model run? The coverage of a patch model's changed lines on the model search,
//! the model side of `crate::cover` (whose tally and deepening the C search shares).
//!
//! A patch model (or a mutant) includes the model it changes (`#include
//! "../v7.3-rc4/baseline.rmap"`) and redefines functions. Its changes are found as `rmapcheck
//! diff` finds them: for each function, the definition each program runs, compared as text;
//! a function that differs gives a line diff, its new lines numbered in the patch model's file
//! and its removed lines in the included model's. A line counts when instructions were
//! compiled from it (a comment, a brace or a blank line is not counted).
//!
//! The search runs a copy of the patch model with marks on its changed lines
//! (`crate::lang::marks`); a change that only removes lines is counted on a search of the
//! included model, marked on the removed lines, to the same bounds, and when that search sees
//! the very states of the patched one (the same number and the same digest of their
//! fingerprints) the removed lines "made no difference". Each run is one of the shared
//! deepening loop's ([`crate::cover::deepen`]).

use super::search::{search_within, OnProgress, Outcome, Stats};
use crate::cover::deepen::{self, Deepened, Ended, Plan, Run};
use crate::cover::{diff_text, needs_before, tally, Change, Changes, Hits};
use crate::lang::marks::Line;
use crate::lang::program::{FuncId, Op};
use crate::lang::Program;
use crate::scope::Scope;
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// A patch model set against the model it includes, with both programs marked.
pub struct PatchCover {
    /// The included model, as the patch model names it.
    pub base_path: PathBuf,
    /// The included model, marked on the removed lines.
    base: Program,
    /// The patch model, marked on its new lines.
    patch: Program,
    pub changes: Changes,
    /// The function each change is in.
    funcs: Vec<String>,
    /// Lines the patch model itself accepts as unreached (an `accept-unreached: LINE[-LINE]`
    /// line in its comments, with the reason beside it).
    pub accepted: Vec<crate::cover::Accept>,
    /// The executable lines of the changed functions, by file as the tally names it.
    patch_lines: BTreeMap<String, Vec<Line>>,
    base_lines: BTreeMap<String, Vec<Line>>,
}

/// `name` relative to the working directory where it lies under it (the included files are
/// named by absolute paths once an include is resolved).
fn shown(name: &str) -> String {
    let (Ok(c), Ok(cwd)) = (
        std::fs::canonicalize(name),
        std::env::current_dir().and_then(std::fs::canonicalize),
    ) else {
        return name.to_string();
    };
    c.strip_prefix(&cwd)
        .map_or_else(|_| name.to_string(), |r| r.display().to_string())
}

/// The one model file `text` (the model at `path`) includes, if it includes exactly one.
fn included(path: &Path, text: &str) -> Option<PathBuf> {
    let incs: Vec<&str> = text
        .lines()
        .filter_map(|l| l.trim().strip_prefix("#include"))
        .filter_map(|r| r.trim().strip_prefix('"')?.strip_suffix('"'))
        .collect();
    match incs.as_slice() {
        [one] => Some(path.parent().unwrap_or(Path::new("")).join(one)),
        _ => None,
    }
}

/// The changes of `patch` against `base`, function by function: (changes, the changed
/// functions' executable lines in each program by file).
type Diffed = (
    Vec<(String, Change)>,
    BTreeMap<String, Vec<Line>>,
    BTreeMap<String, Vec<Line>>,
);

fn diff_programs(base: &Program, patch: &Program) -> Diffed {
    let mut changes = Vec::new();
    let mut plines: BTreeMap<String, Vec<Line>> = BTreeMap::new();
    let mut blines: BTreeMap<String, Vec<Line>> = BTreeMap::new();
    let name_of = |p: &Program, file: u16| shown(p.sources().name(file));
    for name in patch.function_names() {
        let Some(pid) = patch.function(name) else {
            continue;
        };
        let Some(ps) = patch.func_source(pid) else {
            continue;
        };
        let pfile = name_of(patch, ps.file);
        let bs = base
            .function(name)
            .and_then(|b| Some((b, base.func_source(b)?)));
        let (old_text, old_file, old_line) = match &bs {
            Some((_, s)) => {
                let f = name_of(base, s.file);
                if f == pfile && s.line == ps.line || s.text == ps.text {
                    continue;
                }
                (s.text, Some(f), s.line)
            }
            None => ("", None, 1),
        };
        for mut c in diff_text(&pfile, old_text, ps.text) {
            c.new.iter_mut().for_each(|n| *n += ps.line - 1);
            c.old.iter_mut().for_each(|n| *n += old_line - 1);
            c.old_file = old_file.clone().filter(|f| *f != pfile);
            changes.push((name.to_string(), c));
        }
        plines
            .entry(pfile)
            .or_default()
            .extend(patch.executable_lines(pid));
        if let (Some((bid, _)), Some(f)) = (&bs, old_file) {
            blines
                .entry(f)
                .or_default()
                .extend(base.executable_lines(*bid));
        }
    }
    (changes, plines, blines)
}

/// The lines of `lines` (by file) that `want` names, as marks.
fn to_mark(lines: &BTreeMap<String, Vec<Line>>, want: &[(String, u32)]) -> BTreeSet<Line> {
    want.iter()
        .flat_map(|(f, n)| {
            lines
                .get(f)
                .into_iter()
                .flatten()
                .filter(move |l| l.1 == *n)
                .copied()
        })
        .collect()
}

/// The counts of one marked program as the tally reads them.
fn hits(prog: &Program, lines: &BTreeMap<String, Vec<Line>>) -> Hits {
    let counts = prog.mark_counts();
    lines
        .iter()
        .map(|(f, ls)| {
            let by_line = ls
                .iter()
                .map(|l| (l.1, counts.get(l).copied().unwrap_or(0)))
                .collect();
            (f.clone(), by_line)
        })
        .collect()
}

/// The model functions a search in `scope` can run: those the entry points it offers and (with
/// walkers) the walker functions call, directly or not.
fn reachable(prog: &Program, scope: &Scope) -> BTreeSet<String> {
    let mut work: Vec<FuncId> = crate::entry::EntryPoint::all()
        .filter(|p| super::alphabet::offered(scope, prog, *p))
        .filter_map(|p| prog.function(p.name()))
        .collect();
    if scope.walkers > 0 {
        work.extend(WALKERS.iter().filter_map(|n| prog.function(n)));
    }
    let mut seen: BTreeSet<FuncId> = BTreeSet::new();
    while let Some(f) = work.pop() {
        if !seen.insert(f) {
            continue;
        }
        for i in &prog.func(f).code {
            if let Op::Call(g, _) = i.op {
                work.push(g);
            }
        }
    }
    seen.iter()
        .map(|f| prog.func(*f).sig.name.clone())
        .collect()
}

/// The model functions the walkers run (`super::walkers`).
const WALKERS: [&str; 6] = [
    "rmap_walk_file",
    "rmap_walk_anon",
    "flush_dcache_walk",
    "uprobe_register_walk",
    "madvise_dontneed",
    "do_anonymous_fault_vma_lock",
];

impl PatchCover {
    /// The changes a search in a scope reaching the functions `reach` can run, and the
    /// executable lines of the others (none of whose lines ran, by the counts `ph`).
    fn in_scope(&self, reach: &BTreeSet<String>, ph: &Hits) -> (Changes, Vec<(String, u32)>) {
        let mut kept = Vec::new();
        let mut out = Vec::new();
        for (c, f) in self.changes.changes.iter().zip(&self.funcs) {
            let ran = ph
                .get(&c.file)
                .is_some_and(|h| c.new.iter().any(|n| h.get(n).is_some_and(|k| *k > 0)));
            if reach.contains(f) || ran {
                kept.push(c.clone());
                continue;
            }
            let exec = |file: &str, lines: &BTreeMap<String, Vec<Line>>, n: &u32| {
                lines
                    .get(file)
                    .is_some_and(|ls| ls.iter().any(|l| l.1 == *n))
            };
            let new: Vec<(String, u32)> = c
                .new
                .iter()
                .filter(|n| exec(&c.file, &self.patch_lines, n))
                .map(|n| (c.file.clone(), *n))
                .collect();
            if new.is_empty() {
                let f = c.before_file();
                out.extend(
                    c.old
                        .iter()
                        .filter(|n| exec(f, &self.base_lines, n))
                        .map(|n| (f.to_string(), *n)),
                );
            } else {
                out.extend(new);
            }
        }
        (Changes { changes: kept }, out)
    }

    /// The coverage set-up of the model `prog` loaded from `path`: `None` when it includes no
    /// single model or changes no function of it (the baseline itself, a model of its own).
    pub fn of(prog: &Program, path: &Path) -> Result<Option<PatchCover>, String> {
        let Some(root) = prog.sources().files().first() else {
            return Ok(None);
        };
        let Some(base_path) = included(path, &root.text) else {
            return Ok(None);
        };
        let base = crate::models::load_model(&base_path)
            .map_err(|e| format!("the model it includes, {}: {e}", base_path.display()))?;
        let (changes, patch_lines, base_lines) = diff_programs(&base, prog);
        let (funcs, changes): (Vec<String>, Vec<Change>) = changes.into_iter().unzip();
        if changes.is_empty() {
            return Ok(None);
        }
        let new: Vec<(String, u32)> = changes
            .iter()
            .flat_map(|c| c.new.iter().map(|n| (c.file.clone(), *n)))
            .collect();
        let old: Vec<(String, u32)> = changes
            .iter()
            .flat_map(|c| c.old.iter().map(|n| (c.before_file().to_string(), *n)))
            .collect();
        let file = shown(&root.name);
        let accepted = root
            .text
            .lines()
            .filter_map(|l| l.split_once("accept-unreached:"))
            .filter_map(|(_, r)| r.split_whitespace().next())
            .map(|r| format!("{file}:{}", r.trim_end_matches([',', ';', '.', ')'])).parse())
            .collect::<Result<Vec<_>, _>>()
            .map_err(|e| format!("accept-unreached: {e}"))?;
        Ok(Some(PatchCover {
            accepted,
            base: base.with_marks(&to_mark(&base_lines, &old)),
            patch: prog.with_marks(&to_mark(&patch_lines, &new)),
            base_path,
            changes: Changes { changes },
            funcs,
            patch_lines,
            base_lines,
        }))
    }

    /// The search of the patch model within `scope`, deeper as `plan` allows while changed
    /// lines have not run: the last run's outcome and figures, and the deepening.
    pub fn search(
        &self,
        name: &str,
        scope: &Scope,
        plan: &Plan,
        progress: OnProgress<'_>,
    ) -> Result<((Outcome, Stats), Deepened), String> {
        let base_name = self.base_path.display().to_string();
        let mut accept = plan.accept.clone();
        accept.extend(self.accepted.iter().cloned());
        let mut reach = reachable(&self.patch, scope);
        reach.extend(reachable(&self.base, scope));
        deepen::search(scope.max_depth, plan, |depth, left| {
            let mut s = scope.clone();
            crate::explore::plan::set_depth(&mut s, depth);
            if let Some(left) = left {
                s.max_seconds = if s.max_seconds > 0.0 {
                    s.max_seconds.min(left)
                } else {
                    left
                };
            }
            self.patch.reset_marks();
            let (o, st) = search_within(&self.patch, name, &s, &s.budget(), progress);
            let ph = hits(&self.patch, &self.patch_lines);
            let (changes, out_of_scope) = self.in_scope(&reach, &ph);
            let failed = matches!(o, Outcome::Counterexample(_) | Outcome::Interleaving(_));
            // a counterexample needs no search of the model before the patch
            let before = if !failed && needs_before(&changes, &ph) {
                self.base.reset_marks();
                let (_, bst) = search_within(&self.base, &base_name, &s, &s.budget(), &mut |_| {});
                Some((bst, hits(&self.base, &self.base_lines)))
            } else {
                None
            };
            // after a counterexample the removed lines are only counted as lines (which of
            // them are executable the included model says without a search), not as run
            let lines_only =
                (failed && needs_before(&changes, &ph)).then(|| hits(&self.base, &self.base_lines));
            let mut t = tally(
                &changes,
                &ph,
                before.as_ref().map(|(_, h)| h).or(lines_only.as_ref()),
                &accept,
            );
            t.unpatched = "the model";
            t.out_of_scope = out_of_scope;
            if lines_only.is_some() {
                t.drop_before();
            }
            if let Some((b, _)) = &before {
                let same = b.digest == st.digest && b.states == st.states;
                t.no_difference = same.then_some(st.states);
            }
            let ended = match &o {
                Outcome::Holds { exhausted } => Ended::Holds {
                    exhausted: *exhausted,
                },
                Outcome::Incomplete { reason, .. } => Ended::Incomplete(reason.clone()),
                Outcome::Counterexample(_) | Outcome::Interleaving(_) => Ended::Failed,
            };
            Ok(Run {
                states: st.states,
                seconds: st.seconds,
                outcome: (o, st),
                ended,
                tally: t,
            })
        })
    }

    /// The marked patch model (for a search run by the caller, as `compare` does).
    pub fn patch(&self) -> &Program {
        &self.patch
    }

    /// The marked included model.
    pub fn base(&self) -> &Program {
        &self.base
    }

    /// The tally of the marks' counts as they stand, after a search run by the caller on
    /// [`PatchCover::patch`] and, when `base_too`, on [`PatchCover::base`] (otherwise the
    /// removed lines count as never run).
    pub fn tally_now(&self, base_too: bool) -> crate::cover::Tally {
        let ph = hits(&self.patch, &self.patch_lines);
        let bh = hits(&self.base, &self.base_lines);
        let mut t = tally(&self.changes, &ph, base_too.then_some(&bh), &[]);
        t.unpatched = "the model";
        t
    }

    /// How often the changed lines ran in all (new lines on the patch model, removed ones on
    /// the included model), after a search run by the caller.
    pub fn runs_now(&self) -> u64 {
        self.tally_now(true).lines.iter().map(|l| l.count).sum()
    }
}
