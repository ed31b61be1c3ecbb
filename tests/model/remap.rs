//! mremap move (issue 14): the baseline's `sys_mremap_move` on small scenarios (ptes move with
//! their folios, the copy merges at the destination, an unfaulted anonymous VMA takes its new
//! address as pgoff) and the three mutants only it reaches, each caught and each clean without
//! the move.

use crate::model_fixtures::*;
use rmapcheck::check::Invariant;
use rmapcheck::explore::interleave::{explore, Config, IOutcome};
use rmapcheck::world::scenario::{Call, Scenario};
use rmapcheck::world::Folio;

fn m(name: &str) -> String {
    format!("models/mutants/{name}.rmap")
}

const ANON_MOVE: [&str; 3] = [
    "sys_mmap(mm#0, NULL, 0, 1, 0, false)",
    "do_anonymous_fault(mm#0, 0)",
    "sys_mremap_move(mm#0, 0, 1, 1, 2)",
];

const FILE_MOVE: [&str; 2] = [
    "sys_mmap(mm#0, file#0, 0, 1, 0, false)",
    "sys_mremap_move(mm#0, 0, 1, 1, 2)",
];

/// The faulted anonymous page moves with its folio; the copy keeps the old pgoff.
#[test]
fn an_anonymous_page_moves_with_its_vma() {
    let w = run_clean(&load(BASELINE), EMPTY, &ANON_MOVE);
    assert_eq!(layout(&w, 0), vec![(2, 3, 0)]);
    let ptes: Vec<u64> = w.mms[0].ptes.keys().copied().collect();
    assert_eq!(ptes, vec![2]);
    assert!(matches!(w.mms[0].ptes[&2], Folio::Anon(_)));
}

/// A VMA never faulted takes its new address as pgoff, and a grown move keeps the length asked.
#[test]
fn an_unfaulted_anonymous_vma_takes_its_new_address_as_pgoff() {
    let calls = [
        "sys_mmap(mm#0, NULL, 0, 1, 0, false)",
        "sys_mremap_move(mm#0, 0, 1, 2, 2)",
    ];
    let w = run_clean(&load(BASELINE), EMPTY, &calls);
    assert_eq!(layout(&w, 0), vec![(2, 4, 2)]);
}

/// The copy merges into the file VMA before it when the offsets line up.
#[test]
fn the_copy_merges_at_the_destination() {
    let calls = [
        "sys_mmap(mm#0, file#0, 0, 1, 0, true)",
        "sys_mmap(mm#0, file#0, 2, 3, 1, true)",
        "do_file_fault(mm#0, 2)",
        "sys_mremap_move(mm#0, 2, 1, 1, 1)",
    ];
    let w = run_clean(&load(BASELINE), EMPTY, &calls);
    assert_eq!(layout(&w, 0), vec![(0, 2, 0)]);
    assert_eq!(
        w.mms[0].ptes.get(&1),
        Some(&Folio::File {
            mapping: 0,
            index: 1
        })
    );
}

#[test]
fn remap_no_anon_vma_clone_is_caught_and_needs_the_move() {
    let p = load(&m("remap-no-anon-vma-clone"));
    run_fails(&p, EMPTY, &ANON_MOVE, 2, Invariant::Membership);
    run_clean(&p, EMPTY, &ANON_MOVE[..2]);
}

#[test]
fn remap_no_link_file_is_caught_and_needs_the_move() {
    let p = load(&m("remap-no-link-file"));
    run_fails(&p, EMPTY, &FILE_MOVE, 1, Invariant::Membership);
    run_clean(&p, EMPTY, &FILE_MOVE[..1]);
}

/// remap-no-rmap-locks: every call runs clean on its own; the walk of the moved page, which
/// visits the merged VMA before the old one, misses the pte moved in between.
#[test]
fn remap_no_rmap_locks_is_caught_by_a_concurrent_walk_only() {
    let text = std::fs::read_to_string("examples/interleave/remap-merge-prev.toml").unwrap();
    let sc = Scenario::parse(&text).unwrap();
    let calls: Vec<&str> = sc.calls.iter().map(String::as_str).collect();
    let p = load(&m("remap-no-rmap-locks"));
    run_clean(&p, &text, &calls);
    let w = run_clean(&load(BASELINE), &text, &calls[..1]);
    let threads: Vec<Call> = [calls[1], "rmap_walk_file(mapping#0, 102)"]
        .iter()
        .map(|c| Call::parse(c).unwrap())
        .collect();
    let cfg = Config::default();
    let base = explore(&load(BASELINE), BASELINE, &w, &threads, &cfg).unwrap();
    assert!(
        matches!(base.outcome, IOutcome::Holds),
        "{:?}",
        base.outcome
    );
    let r = explore(&p, "remap-no-rmap-locks", &w, &threads, &cfg).unwrap();
    match r.outcome {
        IOutcome::Violation(t) => assert_eq!(t.invariant(), Some(Invariant::RmapComplete)),
        o => panic!("not caught: {o:?}"),
    }
}

/// The same move raced by `flush_dcache_walk` (parisc/arm flush_dcache_folio: the file tree
/// under only the flush_dcache lock) on the baseline: move_ptes() holds i_mmap_rwsem, which
/// that walk does not take, so it may visit the merged VMA before the pte arrives and the old
/// one after it left. The kernel does not need that walk to reach each pte (move_page_tables()
/// flushes the old range first), so it is held to finding the VMAs (`walker-complete`) and the
/// baseline holds; `rmap_walk_file`, under i_mmap_rwsem, is still held to every pte (above).
/// Before, `rmap-complete` was asked of this walk too: a false counterexample on the baseline
/// that the walkers-deep pass finds with every walker kind.
#[test]
fn a_flush_dcache_walk_racing_the_move_is_held_to_the_vmas_only() {
    let text = std::fs::read_to_string("examples/interleave/remap-merge-prev.toml").unwrap();
    let sc = Scenario::parse(&text).unwrap();
    let calls: Vec<&str> = sc.calls.iter().map(String::as_str).collect();
    let base = load(BASELINE);
    let w = run_clean(&base, &text, &calls[..1]);
    let cfg = Config::default();
    let race = |walker: &str| {
        let threads: Vec<Call> = [calls[1], walker]
            .iter()
            .map(|c| Call::parse(c).unwrap())
            .collect();
        explore(&base, BASELINE, &w, &threads, &cfg)
            .unwrap()
            .outcome
    };
    let o = race("flush_dcache_walk(mapping#0, 102)");
    assert!(matches!(o, IOutcome::Holds), "{o:?}");
    // without move_ptes()' rmap locks the flush walk is raced the same way, and holds too: it
    // still has to find the VMAs, which flush-unlock-before-rekey breaks (walker-complete,
    // tests/model/interleave.rs)
    let r = explore(
        &load(&m("remap-no-rmap-locks")),
        "remap-no-rmap-locks",
        &w,
        &[
            Call::parse(calls[1]).unwrap(),
            Call::parse("flush_dcache_walk(mapping#0, 102)").unwrap(),
        ],
        &cfg,
    )
    .unwrap();
    assert!(matches!(r.outcome, IOutcome::Holds), "{:?}", r.outcome);
}

/// A file VMA with no anon_vma takes its new address as its anonymous page offset when it
/// moves (copy_vma(), v7.3): its file page offset stays. Before the model did so, a shared
/// file VMA moved to page 0 kept the anonymous offset of its old place, and a later merge that
/// removed the VMA before it computed `vm_anon_pgoff = -1` (a false `model-fault`, found by
/// `check --simulate` in the contract scope: 13 calls, minimised to these 6).
#[test]
fn a_moved_file_vma_takes_its_new_address_as_anon_pgoff() {
    let calls = [
        "sys_mmap(mm#0, file#0, 1, 4, 1, true)",
        "sys_mmap(mm#0, file#0, 0, 1, 4, true)",
        "sys_mremap_move(mm#0, 0, 1, 1, 2)",
        "sys_mprotect(mm#0, 3, 4, false)",
        "sys_mremap_move(mm#0, 3, 1, 1, 1)",
        "sys_mprotect(mm#0, 1, 2, true)",
    ];
    let p = load(BASELINE);
    let w = run_clean(&p, EMPTY, &calls[..3]);
    let moved: Vec<(u64, u64, u64)> = w
        .mm_vmas(0)
        .into_iter()
        .map(|v| {
            let x = &w.vmas[v as usize];
            (x.vm_start, x.vm_pgoff, x.vm_anon_pgoff)
        })
        .collect();
    assert_eq!(moved, vec![(1, 1, 1), (2, 4, 2), (3, 3, 3)]);
    let w = run_clean(&p, EMPTY, &calls);
    assert_eq!(layout(&w, 0), vec![(1, 3, 3)]);
    assert_eq!(w.vmas[w.mm_vmas(0)[0] as usize].vm_anon_pgoff, 1);
}

/// The same walk as the simulation found it, call for call (seed 1, walk 2074 of 20000,
/// contract scope, depth 24): it now runs clean.
#[test]
fn the_simulated_negative_anon_pgoff_walk_runs_clean() {
    let calls = [
        "sys_mmap(mm#0, file#0, 2, 3, 2, false)",
        "sys_mmap_growsdown(mm#0, 0, 1)",
        "sys_munmap(mm#0, 2, 4)",
        "sys_munmap(mm#0, 0, 1)",
        "sys_mmap(mm#0, file#0, 1, 4, 1, true)",
        "sys_mmap(mm#0, file#0, 0, 1, 4, true)",
        "sys_mprotect(mm#0, 0, 1, false)",
        "sys_munmap(mm#0, 1, 3)",
        "sys_mremap_move(mm#0, 0, 1, 1, 2)",
        "sys_mprotect(mm#0, 2, 3, true)",
        "sys_mprotect(mm#0, 3, 4, false)",
        "sys_mremap_move(mm#0, 3, 1, 1, 1)",
        "sys_mprotect(mm#0, 1, 2, true)",
    ];
    let w = run_clean(&load(BASELINE), EMPTY, &calls);
    assert_eq!(layout(&w, 0), vec![(1, 3, 3)]);
}

/// What the kernel shows for it: an unfaulted private file VMA moved right after another one
/// whose file and anonymous offsets both line up merges with it (one VMA, as
/// /proc/PID/maps shows); with the old anonymous offset kept it would stay apart.
#[test]
fn an_unfaulted_private_file_vma_merges_where_it_moves() {
    let calls = [
        "sys_mmap(mm#0, file#0, 0, 1, 0, false)",
        "sys_mmap(mm#0, file#0, 2, 3, 1, false)",
        "sys_mremap_move(mm#0, 2, 1, 1, 1)",
    ];
    let w = run_clean(&load(BASELINE), EMPTY, &calls);
    assert_eq!(layout(&w, 0), vec![(0, 2, 0)]);
    // once faulted (an anon_vma), the copy keeps its anonymous offset and does not merge
    let faulted = [
        "sys_mmap(mm#0, file#0, 0, 1, 0, false)",
        "sys_mmap(mm#0, file#0, 2, 3, 1, false)",
        "do_anonymous_fault(mm#0, 2)",
        "sys_mremap_move(mm#0, 2, 1, 1, 1)",
    ];
    let w = run_clean(&load(BASELINE), EMPTY, &faulted);
    assert_eq!(layout(&w, 0), vec![(0, 1, 0), (1, 2, 1)]);
}

/// Regression (found by `rmapcheck cdiff` against v7.3-rc7's copy_vma()): an unfaulted private
/// file VMA takes the anonymous offset of its new address when it moves (its file offset
/// stays), so its later anon_vma tree key and its merges follow the new place.
#[test]
fn an_unfaulted_file_vma_takes_its_new_address_as_anonymous_offset() {
    let w = run_clean(&load(BASELINE), EMPTY, &FILE_MOVE);
    assert_eq!(layout(&w, 0), vec![(2, 3, 0)]);
    let v = w.mms[0].vmas.values().next().unwrap().1;
    assert_eq!(w.vmas[v as usize].vm_anon_pgoff, 2);
}
