//! `check --symmetry` (on by default, `--unreduced` off): the scope line says so, a counterexample found with the reduction is
//! written as a trace that `replay` (which never reduces) reproduces, and the combinations the
//! reduction cannot serve (`--simulate`, walkers) exit 2 with a message.

use super::bin::rmapcheck_joined as rmapcheck;

#[test]
fn a_reduced_counterexample_replays_unreduced() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path().to_str().unwrap();
    // the mutant fails after a fork: a state the reduction merges with its mirror image
    let model = "models/mutants/fork-no-anon-vma-clone.rmap";
    let (rc, out) = rmapcheck(&["check", model, "--symmetry", "--quiet", "--trace-dir", d]);
    assert_eq!(rc, 1, "{out}");
    assert!(out.contains(", symmetry on"), "{out}");
    assert!(out.contains("COUNTEREXAMPLE rmap-complete"), "{out}");
    let trace = dir.path().join("fork-no-anon-vma-clone.trace.json");
    let (rc, out) = rmapcheck(&["replay", trace.to_str().unwrap()]);
    assert_eq!(rc, 1, "{out}");
    assert!(out.contains("reproduced: rmap-complete"), "{out}");
}

#[test]
fn symmetry_refuses_simulate_and_walkers() {
    let base = "models/v7.3-rc4/baseline.rmap";
    let (rc, out) = rmapcheck(&["check", base, "--symmetry", "--simulate", "3", "--quiet"]);
    assert_eq!(rc, 2, "{out}");
    assert!(out.contains("no --symmetry"), "{out}");
    let (rc, out) = rmapcheck(&["check", base, "--symmetry", "--scope", "walkers", "--quiet"]);
    assert_eq!(rc, 2, "{out}");
    assert!(out.contains("symmetry: not with walkers"), "{out}");
}

#[test]
fn the_default_scope_line_names_symmetry_and_unreduced_does_not() {
    let base = "models/v7.3-rc4/baseline.rmap";
    let (rc, out) = rmapcheck(&["check", base, "--max-depth", "2", "--quiet"]);
    assert_eq!(rc, 0, "{out}");
    assert!(out.contains(", symmetry on;"), "{out}");
    let reduced = states(&out);
    let (rc, out) = rmapcheck(&["check", base, "--max-depth", "2", "--quiet", "--unreduced"]);
    assert_eq!(rc, 0, "{out}");
    assert!(!out.contains("symmetry"), "{out}");
    // fork at depth 1 makes two mms; their orders merge at depth 2
    assert!(states(&out) > reduced, "{out}");
    // a flag that settles the reductions is refused beside --unreduced
    let (rc, out) = rmapcheck(&["check", base, "--unreduced", "--symmetry"]);
    assert_eq!(rc, 2, "{out}");
}

/// The state count of the first verdict line.
fn states(out: &str) -> usize {
    let line = out
        .lines()
        .find(|l| l.contains(" states, "))
        .unwrap_or_else(|| panic!("a verdict line: {out}"));
    let before = line.split(" states, ").next().unwrap();
    before
        .rsplit(' ')
        .next()
        .unwrap()
        .parse()
        .unwrap_or_else(|e| panic!("{line}: {e}"))
}
