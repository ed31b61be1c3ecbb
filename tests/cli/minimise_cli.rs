//! `replay --minimise` shrinks arguments as well as dropping calls, keeping the same invariant
//! and every call one the trace's scope offers; `--reads` shows the plain field reads of the
//! failing call on `check` and `replay`.

use super::bin::rmapcheck;
use rmapcheck::check::Invariant;
use rmapcheck::cmd::load_model;
use rmapcheck::explore::minimise::minimise_within;
use rmapcheck::scope::Scope;
use rmapcheck::world::scenario::Call;
use std::path::Path;

const BASELINE: &str = "models/v7.3-rc4/baseline.rmap";
/// Caught at the default scope: a file VMA split by mprotect, its second part grown in place,
/// then split again; the VMA whose start moved is not put back in its file's tree.
const MUTANT: &str = "models/mutants/no-reinsert-adj-next.rmap";

fn calls(v: &[&str]) -> Vec<Call> {
    v.iter().map(|c| Call::parse(c).unwrap()).collect()
}

/// A counterexample one page up from where it could be, a shared mapping where a private one
/// does as well: the minimiser moves the whole trace down and clears the flag, and the result
/// still fails with `membership`, call for call in the scope's alphabet.
#[test]
fn the_arguments_of_a_mutant_counterexample_shrink() {
    let prog = load_model(Path::new(MUTANT)).unwrap();
    let scope = Scope::builtin("default").unwrap();
    let up = calls(&[
        "sys_mmap(mm#0, file#0, 1, 3, 1, true)",
        "sys_mprotect(mm#0, 1, 2, false)",
        "sys_mremap_expand(mm#0, 2, 4)",
        "sys_mprotect(mm#0, 2, 3, false)",
    ]);
    let init = scope.initial_scenario();
    let m = minimise_within(&prog, Some(&scope), &init, &up, Invariant::Membership);
    assert_eq!(m.guard, "every call one the scope offers");
    assert!(m.dropped_calls.is_empty(), "{:?}", m.dropped_calls);
    assert_eq!(
        m.calls,
        calls(&[
            "sys_mmap(mm#0, file#0, 0, 2, 0, false)",
            "sys_mprotect(mm#0, 0, 1, false)",
            "sys_mremap_expand(mm#0, 1, 3)",
            "sys_mprotect(mm#0, 1, 2, false)",
        ])
    );
    // every integer argument moved down by one page (9), and the shared flag cleared (1)
    assert_eq!(m.shrunk_args.len(), 10, "{:?}", m.shrunk_args);
    assert!(m
        .shrunk_args
        .iter()
        .any(|s| s.func == "sys_mmap" && s.arg == 5));
    // the minimised calls still fail the same way, and the baseline runs them clean
    let fails =
        rmapcheck::explore::replay::rerun(&prog, &init, &m.calls, scope.invariant_set()).unwrap();
    assert_eq!(fails.failed_call, Some(3));
    assert_eq!(
        fails.failure.and_then(|f| f.invariant()),
        Some(Invariant::Membership)
    );
    let base = load_model(Path::new(BASELINE)).unwrap();
    let clean =
        rmapcheck::explore::replay::rerun(&base, &init, &m.calls, scope.invariant_set()).unwrap();
    assert!(clean.failure.is_none());
}

/// An argument that the failure needs is kept: the same calls, already as small as they go,
/// come back unchanged (shrinking the grown end or the split points loses the failure).
#[test]
fn arguments_the_failure_needs_are_kept() {
    let prog = load_model(Path::new(MUTANT)).unwrap();
    let scope = Scope::builtin("default").unwrap();
    let small = calls(&[
        "sys_mmap(mm#0, file#0, 0, 2, 0, false)",
        "sys_mprotect(mm#0, 0, 1, false)",
        "sys_mremap_expand(mm#0, 1, 3)",
        "sys_mprotect(mm#0, 1, 2, false)",
    ]);
    let init = scope.initial_scenario();
    let m = minimise_within(&prog, Some(&scope), &init, &small, Invariant::Membership);
    assert_eq!(m.calls, small);
    assert!(m.shrunk_args.is_empty(), "{:?}", m.shrunk_args);
}

/// End to end: a random walk's counterexample (10 calls) minimises to 4 calls with 3 arguments
/// shrunk (a shared mapping made private, a shorter mprotect and growth), and says so.
#[test]
fn replay_minimise_says_which_arguments_it_shrank() {
    let dir = crate::scratch::scratch("minimise-args");
    let d = dir.to_str().unwrap();
    let (rc, out, err) = rmapcheck(&[
        "check",
        MUTANT,
        "--simulate",
        "300",
        "--seed",
        "1",
        "--quiet",
        "--trace-dir",
        d,
    ]);
    assert_eq!(rc, 1, "{out}{err}");
    let trace = dir.join("no-reinsert-adj-next.trace.json");
    let (rc, out, err) = rmapcheck(&["replay", trace.to_str().unwrap(), "--minimise"]);
    assert_eq!(rc, 1, "{out}{err}");
    assert!(
        out.contains(
            "minimised: 10 calls -> 4, 2 files -> 1, 3 arguments shrunk (every call one the \
             scope offers)"
        ),
        "{out}"
    );
    assert!(
        out.contains("shrunk call 5. sys_mmap: argument 6 true -> false"),
        "{out}"
    );
    assert!(out.contains("reproduced: membership at call 4"), "{out}");
    assert!(
        out.contains("= sys_mmap(mm#0, file#0, 0, 2, 0, false)"),
        "{out}"
    );
}

/// `--reads` lists the failing call's plain field reads with their values; without it they
/// are counted and left out.
#[test]
fn reads_shows_the_plain_field_reads_of_the_failing_call() {
    let (rc, plain, _) = rmapcheck(&["check", MUTANT, "--max-depth", "4", "--quiet"]);
    assert_eq!(rc, 1, "{plain}");
    assert!(plain.contains("plain field reads not shown"), "{plain}");
    assert!(!plain.contains(" read vma#"), "{plain}");
    let (rc, out, _) = rmapcheck(&["check", MUTANT, "--max-depth", "4", "--quiet", "--reads"]);
    assert_eq!(rc, 1, "{out}");
    assert!(!out.contains("plain field reads not shown"), "{out}");
    // a read with the value it read, at its model line
    let read = out
        .lines()
        .find(|l| l.contains(" read vma#") && l.contains("->vm_start = "))
        .unwrap_or_else(|| panic!("no read shown:\n{out}"));
    assert!(read.contains(".rmap:"), "{read}");
    // the steps shown without --reads (the last ones) are shown with it, in the same order
    let steps = |s: &str| -> Vec<String> {
        s.lines()
            .filter(|l| l.starts_with(' ') && l.contains(".rmap:") && !l.contains(" read "))
            .map(String::from)
            .collect()
    };
    let (few, all) = (steps(&plain), steps(&out));
    assert!(!few.is_empty() && all.ends_with(&few), "{few:?}\n{all:?}");
    // and replay takes the flag too
    let dir = crate::scratch::scratch("reads");
    let d = dir.to_str().unwrap();
    let (rc, _, _) = rmapcheck(&[
        "check",
        MUTANT,
        "--max-depth",
        "4",
        "--quiet",
        "--trace-dir",
        d,
    ]);
    assert_eq!(rc, 1);
    let t = dir.join("no-reinsert-adj-next.trace.json");
    let (rc, out, _) = rmapcheck(&["replay", t.to_str().unwrap(), "--reads"]);
    assert_eq!(rc, 1, "{out}");
    assert!(out.contains("->vm_start = "), "{out}");
}
