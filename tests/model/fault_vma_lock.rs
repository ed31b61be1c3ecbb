//! The write fault under the per-VMA lock (issue 14, `do_anonymous_fault_vma_lock`): alone it
//! ends as the mmap-lock fault does; next to a writer it takes the mmap lock (trylock, else a
//! retry) before `__anon_vma_prepare()`; the two mutants of that discipline are caught.
//!
//! Assumptions kept from models/v7.3-rc4/lib/fault.rmap: RCU is not modelled (vma_lookup() is
//! the lockless lookup), and sequentially the trylock always succeeds, so the retry is reached
//! only in interleavings.

use crate::model_fixtures::*;
use rmapcheck::check::{Invariant, InvariantSet};
use rmapcheck::explore::interleave::{explore, setup, Config, IOutcome, IResult};
use rmapcheck::world::scenario::Call;

const NO_MMAP_LOCK: &str = "models/mutants/fault-vma-lock-no-mmap-lock.rmap";
const NO_PTL: &str = "models/mutants/anon-prepare-no-page-table-lock.rmap";

/// Two anonymous VMAs, then a write fault at each page of the first.
fn faults(f: &str) -> Vec<String> {
    vec![
        "sys_mmap(mm#0, NULL, 0, 2, 0, false)".into(),
        "sys_mmap(mm#0, NULL, 3, 5, 3, false)".into(),
        format!("{f}(mm#0, 0)"),
        format!("{f}(mm#0, 1)"),
        format!("{f}(mm#0, 4)"),
    ]
}

#[test]
fn alone_it_ends_as_the_mmap_lock_fault() {
    let p = load(BASELINE);
    let a = faults("do_anonymous_fault");
    let b = faults("do_anonymous_fault_vma_lock");
    let a: Vec<&str> = a.iter().map(|s| s.as_str()).collect();
    let b: Vec<&str> = b.iter().map(|s| s.as_str()).collect();
    let (wa, wb) = (run_clean(&p, EMPTY, &a), run_clean(&p, EMPTY, &b));
    assert_eq!(wa.render(), wb.render());
    assert_eq!(wb.mms[0].ptes.len(), 3);
    assert!(wb
        .vmas
        .iter()
        .filter(|v| !v.freed)
        .all(|v| v.anon_vma.is_some()));
}

/// A fault on a VMA that has no write permission is refused under the VMA lock, which it drops.
#[test]
fn an_access_error_drops_the_vma_lock() {
    let p = load(BASELINE);
    let calls = [
        "sys_mmap(mm#0, NULL, 0, 2, 0, false)",
        "sys_mprotect(mm#0, 0, 2, false)",
        "do_anonymous_fault_vma_lock(mm#0, 0)",
    ];
    let w = run_clean(&p, EMPTY, &calls);
    assert!(w.mms[0].ptes.is_empty());
}

#[test]
fn no_mmap_lock_is_caught_only_on_the_per_vma_path() {
    let p = load(NO_MMAP_LOCK);
    let v = faults("do_anonymous_fault_vma_lock");
    let v: Vec<&str> = v.iter().map(|s| s.as_str()).collect();
    let s = run_fails(&p, EMPTY, &v, 2, Invariant::LockDiscipline);
    assert!(
        format!("{:?}", s.failure.violations).contains("mmap_assert_locked"),
        "{:?}",
        s.failure.violations
    );
    let m = faults("do_anonymous_fault");
    let m: Vec<&str> = m.iter().map(|s| s.as_str()).collect();
    run_clean(&p, EMPTY, &m);
}

#[test]
fn no_page_table_lock_is_caught_on_both_fault_paths() {
    let p = load(NO_PTL);
    for f in ["do_anonymous_fault", "do_anonymous_fault_vma_lock"] {
        let v = faults(f);
        let v: Vec<&str> = v.iter().map(|s| s.as_str()).collect();
        let s = run_fails(&p, EMPTY, &v, 2, Invariant::LockDiscipline);
        assert!(
            format!("{:?}", s.failure.violations).contains("page_table_lock"),
            "{f}: {:?}",
            s.failure.violations
        );
    }
}

/// The writer of `example` against `walker`, in every interleaving, with `invariants`.
fn interleave(model: &str, example: &str, walker: &str, invariants: InvariantSet) -> IResult {
    let p = load(model);
    let text = std::fs::read_to_string(format!("examples/interleave/{example}")).unwrap();
    let (w, writer) = setup(&p, &text).unwrap();
    let calls = vec![writer, Call::parse(walker).unwrap()];
    let cfg = Config {
        invariants,
        ..Config::default()
    };
    explore(&p, model, &w, &calls, &cfg).unwrap()
}

fn outcome(r: &IResult) -> Result<Invariant, String> {
    match &r.outcome {
        IOutcome::Violation(t) => t.invariant().ok_or_else(|| format!("{t:?}")),
        o => Err(format!("{o:?}")),
    }
}

const MERGE: &str = "fault-vma-lock-merge.toml";
const TWO: &str = "two-faults-one-vma.toml";
const FAULT_B: &str = "do_anonymous_fault_vma_lock(mm#0, 3)";

#[test]
fn the_baseline_holds_against_a_merge_and_against_another_fault() {
    let all = InvariantSet::all();
    for (ex, walker) in [
        (MERGE, FAULT_B),
        (TWO, "do_anonymous_fault_vma_lock(mm#0, 1)"),
        (TWO, "do_anonymous_fault(mm#0, 1)"),
    ] {
        let r = interleave(BASELINE, ex, walker, all);
        assert!(
            matches!(r.outcome, IOutcome::Holds),
            "{ex} / {walker}: {:?}",
            r.outcome
        );
        // every interleaving ends with both faults done, each page mapped once
        assert!(r.stats.terminals > 1, "{ex}: {:?}", r.stats);
    }
}

/// The mutant is caught by lock-discipline first; without it, the merge shows why the trylock is
/// there: the fault's page is lost to the rmap.
#[test]
fn no_mmap_lock_races_with_a_merge() {
    let all = InvariantSet::all();
    let r = interleave(NO_MMAP_LOCK, MERGE, FAULT_B, all);
    assert_eq!(outcome(&r), Ok(Invariant::LockDiscipline));
    let r = interleave(
        NO_MMAP_LOCK,
        MERGE,
        FAULT_B,
        all.without(Invariant::LockDiscipline),
    );
    assert_eq!(outcome(&r), Ok(Invariant::RmapComplete));
}

#[test]
fn no_page_table_lock_links_one_vma_twice() {
    let r = interleave(
        NO_PTL,
        TWO,
        "do_anonymous_fault(mm#0, 1)",
        InvariantSet::all().without(Invariant::LockDiscipline),
    );
    assert_eq!(outcome(&r), Ok(Invariant::RmapExact));
}
