//! `rmapcheck check` with no flags covers every path: each mutant under models/mutants/ (every
//! file present, so a new mutant is enforced without editing this test) is caught by one of the
//! passes `check` runs with no flags ([`every_path`]), searched as `check` searches them; and a
//! counterexample's consequence search reports the worst consequence the same bug reaches.
//!
//! The mutant test is long: the passes run in order until one catches the mutant (as `check`
//! skips a failing model's later passes), each search on every core, the mutants one after
//! another. Each pass keeps its scope's bounds (`max_seconds`), so the test ends.

use crate::model_fixtures::*;
use rmapcheck::explore::consequence;
use rmapcheck::explore::plan::every_path;
use rmapcheck::explore::search::{search, Outcome};
use rmapcheck::invariant::{Consequence, Invariant};

fn mutants() -> Vec<String> {
    let mut v: Vec<String> = std::fs::read_dir("models/mutants")
        .expect("models/mutants")
        .filter_map(|e| e.ok())
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "rmap"))
        .map(|p| p.display().to_string())
        .collect();
    v.sort();
    v
}

/// The pass that catches `path` and its first invariant, or why none does.
fn caught(path: &str) -> Result<(String, Invariant), String> {
    let prog = load(path);
    for scope in every_path() {
        let (o, _) = search(&prog, path, &scope, &mut |_| {});
        match &o {
            Outcome::Holds { .. } => continue,
            Outcome::Incomplete { reason, .. } => {
                return Err(format!("{path}: pass {} incomplete: {reason}", scope.name))
            }
            _ => {
                let inv = consequence::invariant_of(&o).expect("a counterexample names one");
                return Ok((scope.name.clone(), inv));
            }
        }
    }
    Err(format!(
        "{path}: holds in every pass of `check` with no flags"
    ))
}

#[test]
fn every_mutant_is_caught_by_check_with_no_flags() {
    let all = mutants();
    assert!(all.len() >= 37, "the mutants are there: {all:?}");
    let start = std::time::Instant::now();
    let mut missed = Vec::new();
    for m in &all {
        let t = std::time::Instant::now();
        match caught(m) {
            Ok((pass, inv)) => println!(
                "{m}: caught by pass {pass} ({inv}) in {:.1}s",
                t.elapsed().as_secs_f64()
            ),
            Err(e) => missed.push(e),
        }
    }
    println!(
        "{} mutants in {:.0}s",
        all.len(),
        start.elapsed().as_secs_f64()
    );
    assert!(missed.is_empty(), "not caught:\n{}", missed.join("\n"));
}

/// A mutant whose first violation is debug-only (cached-keys) reaches a missed rmap walk within
/// the consequence search's bound; the first pass of `check` with no flags reports both.
#[test]
fn a_debug_only_first_finding_goes_on_to_the_missed_walk() {
    let path = "models/mutants/merge-next-skips-anon-rekey.rmap";
    let prog = load(path);
    let scope = &every_path()[0];
    let (first, _) = search(&prog, path, scope, &mut |_| {});
    assert_eq!(
        consequence::invariant_of(&first),
        Some(Invariant::CachedKeys)
    );
    let budget = rmapcheck::checker::budget::Budget::unlimited();
    let rep = consequence::search(&prog, path, scope, &first, &budget).expect("searched");
    let (inv, class, worst) = rep.worst().expect("a worse consequence");
    assert_eq!(class, Consequence::MissedWalk, "{}", rep.line());
    assert!(
        matches!(inv, Invariant::WalkerComplete | Invariant::RmapComplete),
        "{inv}"
    );
    assert!(consequence::calls_of(worst) <= rep.bound.depth as usize);
    let line = rep.line();
    assert!(line.contains("first cached-keys (debug-only)"), "{line}");
    assert!(line.contains("(missed rmap walk)"), "{line}");
    assert!(
        line.contains(&format!("depth {}", rep.bound.depth)),
        "{line}"
    );
}

/// Without the consequence search's worse class the same mutant's report names only the first.
#[test]
fn a_finding_at_the_top_class_searches_nothing_more() {
    let path = "models/mutants/merge-left-no-dup-anon-vma.rmap";
    let prog = load(path);
    let scope = &every_path()[0];
    let (first, _) = search(&prog, path, scope, &mut |_| {});
    assert_eq!(consequence::class_of(&first), Some(Consequence::MissedWalk));
    let budget = rmapcheck::checker::budget::Budget::unlimited();
    let rep = consequence::search(&prog, path, scope, &first, &budget).expect("searched");
    assert!(rep.searched.is_empty());
    assert!(rep.worst().is_none());
}

/// Every mutant is a patch model of the model it includes, with changed lines the verdict
/// counts: `check` says of each what ran of its change (`changed lines run: N of M`, and
/// which lines never ran). A mutant of a patch model is set against that patch model.
#[test]
fn every_mutant_has_changed_lines_its_verdict_counts() {
    use rmapcheck::explore::cover::PatchCover;
    for m in mutants() {
        let prog = load(&m);
        let c = PatchCover::of(&prog, std::path::Path::new(&m))
            .unwrap_or_else(|e| panic!("{m}: {e}"))
            .unwrap_or_else(|| panic!("{m}: no change against the model it includes"));
        assert!(!c.changes.changes.is_empty(), "{m}");
        // the new lines are the mutant's own
        let stem = std::path::Path::new(&m)
            .file_name()
            .unwrap()
            .to_str()
            .unwrap();
        for ch in &c.changes.changes {
            assert!(ch.file.ends_with(stem), "{m}: {ch:?}");
        }
        let t = c.tally_now(true);
        assert!(
            t.line().starts_with("changed lines run: 0 of "),
            "{m}: before any search nothing ran: {}",
            t.line()
        );
    }
    // the baseline changes nothing: no coverage line
    let base = "models/v7.3-rc4/baseline.rmap";
    let prog = load(base);
    assert!(PatchCover::of(&prog, std::path::Path::new(base))
        .unwrap()
        .is_none());
}
