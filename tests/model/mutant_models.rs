//! Every mutant of models/mutants/ is caught: a small scenario on which `apply` reports the
//! invariant its header names, and which runs clean on the model the mutant is based on.
//! models/mutants/README.md has the same table in prose.

use crate::model_fixtures::*;
use rmapcheck::check::Invariant;
use rmapcheck::world::scenario::{Call, Scenario};

/// Private anonymous mapping [0, 8) that has faulted in its anon_vma.
const ANON_FAULTED: [&str; 2] = [
    "sys_mmap(mm#0, NULL, 0, 8, 0, false)",
    "do_anonymous_fault(mm#0, 0)",
];

struct Case {
    mutant: &'static str,
    base: &'static str,
    world: &'static str,
    calls: Vec<&'static str>,
    /// index of the call that must fail, and the invariant it must report first
    call: usize,
    invariant: Invariant,
}

fn m(name: &str) -> String {
    format!("models/mutants/{name}.rmap")
}

fn check(c: &Case) {
    let base = load(c.base);
    run_clean(&base, c.world, &c.calls);
    let mutant = load(&m(c.mutant));
    let s = run_fails(&mutant, c.world, &c.calls, c.call, c.invariant);
    println!("{}: {:?}", c.mutant, s.failure.violations[0]);
}

/// Callers mode.
#[test]
fn remove_vma_twice() {
    check(&Case {
        mutant: "remove-vma-twice",
        base: BASELINE,
        world: ONE_FILE_VMA,
        calls: vec!["sys_munmap(mm#0, 3, 5)"],
        call: 0,
        invariant: Invariant::TreePrecondition,
    });
}

/// Callers mode.
#[test]
fn no_reinsert_adj_next() {
    check(&Case {
        mutant: "no-reinsert-adj-next",
        base: BASELINE,
        world: THREE,
        calls: vec!["sys_mprotect(mm#0, 2, 4, false)"],
        call: 0,
        invariant: Invariant::Membership,
    });
}

/// Contract mode: only contract_adjust_next() with a new pgoff for middle reaches it.
#[test]
fn adj_next_before_rekey() {
    check(&Case {
        mutant: "adj-next-before-rekey",
        base: SPLIT_SKIP,
        world: MIDDLE_NEXT_AND_OTHER,
        calls: vec!["contract_adjust_next(mm#0, vma#0, 3, 50)"],
        call: 0,
        invariant: Invariant::StaleDescent,
    });
}

/// Callers mode.
#[test]
fn inplace_no_propagate() {
    check(&Case {
        mutant: "inplace-no-propagate",
        base: INPLACE,
        world: TWO_MMS,
        calls: vec!["sys_munmap(mm#0, 0, 6)"],
        call: 0,
        invariant: Invariant::Augment,
    });
}

/// Callers mode.
#[test]
fn inplace_pgoff_changes() {
    check(&Case {
        mutant: "inplace-pgoff-changes",
        base: INPLACE,
        world: ONE_FILE_VMA,
        calls: vec!["sys_munmap(mm#0, 3, 8)"],
        call: 0,
        invariant: Invariant::TreeOrder,
    });
}

/// Callers mode.
#[test]
fn anon_inplace_stale_cached_last() {
    check(&Case {
        mutant: "anon-inplace-stale-cached-last",
        base: INPLACE,
        world: EMPTY,
        calls: [&ANON_FAULTED[..], &["sys_mprotect(mm#0, 0, 6, false)"]].concat(),
        call: 2,
        invariant: Invariant::CachedKeys,
    });
}

/// Callers mode.
#[test]
fn skip_anon_unlink_only() {
    check(&Case {
        mutant: "skip-anon-unlink-only",
        // under v7.3-rc4's order the 004 patch itself behaves like this mutant (its link-side
        // skip never sees an anonymous VMA), so the clean side is the baseline
        base: BASELINE,
        world: EMPTY,
        calls: vec![
            "sys_mmap(mm#0, file#1, 0, 4, 0, false)",
            "sys_munmap(mm#0, 0, 4)",
        ],
        call: 1,
        invariant: Invariant::Membership,
    });
}

/// Callers mode.
#[test]
fn adj_next_avcs_not_reinserted() {
    check(&Case {
        mutant: "adj-next-avcs-not-reinserted",
        base: BASELINE,
        world: EMPTY,
        calls: [
            &ANON_FAULTED[..],
            &[
                "sys_mprotect(mm#0, 2, 4, false)",
                "sys_mprotect(mm#0, 2, 3, true)",
            ],
        ]
        .concat(),
        call: 3,
        invariant: Invariant::Membership,
    });
}

/// Callers mode.
#[test]
fn remove2_left_in_file_tree() {
    check(&Case {
        mutant: "remove2-left-in-file-tree",
        base: BASELINE,
        world: THREE,
        calls: vec!["sys_mprotect(mm#0, 2, 6, false)"],
        call: 0,
        invariant: Invariant::Membership,
    });
}

/// Callers mode.
#[test]
fn fork_insert_after_new_pgoff() {
    check(&Case {
        mutant: "fork-insert-after-new-pgoff",
        base: BASELINE,
        world: ONE_FILE_VMA,
        calls: vec!["sys_fork(mm#0)"],
        call: 0,
        invariant: Invariant::TreePrecondition,
    });
}

/// Callers mode.
#[test]
fn split_no_vma_start_write() {
    check(&Case {
        mutant: "split-no-vma-start-write",
        base: BASELINE,
        world: ONE_FILE_VMA,
        calls: vec!["sys_munmap(mm#0, 3, 5)"],
        call: 0,
        invariant: Invariant::LockDiscipline,
    });
}

/// adj-next-before-rekey is reachable only in contract mode: every callers-mode scenario runs
/// clean on it (whenever adj_next is set, today's callers keep vp->vma's pgoff).
#[test]
fn adj_next_before_rekey_is_clean_in_callers_mode() {
    let p = load(&m("adj-next-before-rekey"));
    for (name, world, calls) in baseline_scenarios().into_iter().chain(extra_scenarios()) {
        if calls.iter().any(|c| c.starts_with("contract_")) {
            continue;
        }
        let (_, stop) = run(&p, world, &calls);
        assert!(stop.is_none(), "{name}: {stop:?}");
    }
}

/// The scenario for lock-dropped-between: a munmap in the middle of a file VMA. Its split
/// unlinks the VMA, drops i_mmap_rwsem while the range changes, and relinks it.
const LOCK_DROP_CALLS: [&str; 1] = ["sys_munmap(mm#0, 3, 5)"];

/// lock-dropped-between is a GAP for single-call checks: the same scenario runs clean on it,
/// because every tree operation is still under the lock, the unlocked tree is well formed (only
/// missing the VMA), and all is back in place when the call returns.
#[test]
fn lock_dropped_between_is_not_caught_by_one_call() {
    let p = load(&m("lock-dropped-between"));
    run_clean(&p, ONE_FILE_VMA, &LOCK_DROP_CALLS);
    run_clean(&load(BASELINE), ONE_FILE_VMA, &LOCK_DROP_CALLS);
}

/// What catches lock-dropped-between: a concurrent rmap walk of the file between
/// vma_prepare() and vma_complete() misses the VMA (walker-complete), found by the interleaving
/// explorer; the baseline holds on the same threads.
#[test]
fn lock_dropped_between() {
    use rmapcheck::explore::interleave::{explore, Config, IOutcome};
    let w = Scenario::parse(ONE_FILE_VMA).unwrap().build().unwrap();
    let calls: Vec<Call> = [LOCK_DROP_CALLS[0], "rmap_walk_file(mapping#0, 105)"]
        .iter()
        .map(|c| Call::parse(c).unwrap())
        .collect();
    let cfg = Config::default();
    let base = explore(&load(BASELINE), BASELINE, &w, &calls, &cfg).unwrap();
    assert!(
        matches!(base.outcome, IOutcome::Holds),
        "{:?}",
        base.outcome
    );
    let p = load(&m("lock-dropped-between"));
    let r = explore(&p, "lock-dropped-between", &w, &calls, &cfg).unwrap();
    match r.outcome {
        IOutcome::Violation(t) => assert_eq!(t.invariant(), Some(Invariant::WalkerComplete)),
        o => panic!("not caught: {o:?}"),
    }
}
