//! The issue-14 extended moves and upward stacks: a shrinking mremap move unmaps the tail and
//! moves the rest, MREMAP_DONTUNMAP leaves the source mapped but empty (and unlinks its anon_vma
//! links only when all of it moved), and a CONFIG_STACK_GROWSUP stack grows up at a fault above
//! it; each of the three mutants only these paths reach is caught, and is clean without them.

use crate::model_fixtures::*;
use rmapcheck::check::Invariant;
use rmapcheck::world::Folio;

fn m(name: &str) -> String {
    format!("models/mutants/{name}.rmap")
}

const SHRINK_MOVE: [&str; 4] = [
    "sys_mmap(mm#0, NULL, 0, 3, 0, false)",
    "do_anonymous_fault(mm#0, 0)",
    "do_anonymous_fault(mm#0, 2)",
    "sys_mremap_move_shrink(mm#0, 0, 3, 1, 5)",
];

/// The tail [1, 3) goes with its pte; page 0 moves with its folio and keeps its pgoff.
#[test]
fn a_shrinking_move_unmaps_the_tail_and_moves_the_rest() {
    let w = run_clean(&load(BASELINE), EMPTY, &SHRINK_MOVE);
    assert_eq!(layout(&w, 0), vec![(5, 6, 0)]);
    let ptes: Vec<u64> = w.mms[0].ptes.keys().copied().collect();
    assert_eq!(ptes, vec![5]);
}

/// The tail may reach past the source VMA (the kernel checks only the part that moves): the
/// neighbour loses the pages the tail covers.
#[test]
fn a_shrinking_move_may_unmap_past_the_vma() {
    let calls = [
        "sys_mmap(mm#0, NULL, 0, 2, 0, false)",
        "sys_mmap(mm#0, file#0, 2, 4, 0, false)",
        "sys_mremap_move_shrink(mm#0, 0, 3, 1, 5)",
    ];
    let w = run_clean(&load(BASELINE), EMPTY, &calls);
    assert_eq!(layout(&w, 0), vec![(3, 4, 1), (5, 6, 5)]);
}

const DONTUNMAP_ALL: [&str; 3] = [
    "sys_mmap(mm#0, NULL, 0, 2, 0, false)",
    "do_anonymous_fault(mm#0, 1)",
    "sys_mremap_dontunmap(mm#0, 0, 2, 4)",
];

/// The whole VMA moves: the source stays, empty and without anon_vma; the copy has the pages.
#[test]
fn dontunmap_leaves_the_source_mapped_and_empty() {
    let w = run_clean(&load(BASELINE), EMPTY, &DONTUNMAP_ALL);
    assert_eq!(layout(&w, 0), vec![(0, 2, 0), (4, 6, 0)]);
    let ptes: Vec<u64> = w.mms[0].ptes.keys().copied().collect();
    assert_eq!(ptes, vec![5]);
    assert!(matches!(w.mms[0].ptes[&5], Folio::Anon(_)));
    let src = w.mm_vmas(0)[0];
    assert_eq!(w.vmas[src as usize].anon_vma, None);
    assert!(w.vmas[src as usize].anon_vma_chain.is_empty());
}

const DONTUNMAP_PART: [&str; 3] = [
    "sys_mmap(mm#0, NULL, 0, 2, 0, false)",
    "do_anonymous_fault(mm#0, 1)",
    "sys_mremap_dontunmap(mm#0, 0, 1, 4)",
];

/// Part of the VMA moves: the source keeps its anon_vma for the page that stays.
#[test]
fn dontunmap_of_part_keeps_the_source_anon_vma() {
    let w = run_clean(&load(BASELINE), EMPTY, &DONTUNMAP_PART);
    assert_eq!(layout(&w, 0), vec![(0, 2, 0), (4, 5, 0)]);
    let src = w.mm_vmas(0)[0];
    assert!(w.vmas[src as usize].anon_vma.is_some());
    let ptes: Vec<u64> = w.mms[0].ptes.keys().copied().collect();
    assert_eq!(ptes, vec![1]);
}

/// A file VMA may be moved so too (every mapping but VM_DONTEXPAND / VM_PFNMAP ones).
#[test]
fn dontunmap_moves_a_file_page() {
    let calls = [
        "sys_mmap(mm#0, file#0, 0, 2, 0, true)",
        "do_file_fault(mm#0, 1)",
        "sys_mremap_dontunmap(mm#0, 0, 2, 4)",
    ];
    let w = run_clean(&load(BASELINE), EMPTY, &calls);
    assert_eq!(layout(&w, 0), vec![(0, 2, 0), (4, 6, 0)]);
    let ptes: Vec<u64> = w.mms[0].ptes.keys().copied().collect();
    assert_eq!(ptes, vec![5]);
}

const GROW_UP: [&str; 2] = [
    "setup_stack_growsup(mm#0, 1, 2)",
    "do_stack_fault_up(mm#0, 3)",
];

/// The stack grows up to the faulting page, keeping its pgoff, and the page is mapped.
#[test]
fn a_fault_above_a_growsup_stack_grows_it() {
    let w = run_clean(&load(BASELINE), EMPTY, &GROW_UP);
    assert_eq!(layout(&w, 0), vec![(1, 4, 1)]);
    let ptes: Vec<u64> = w.mms[0].ptes.keys().copied().collect();
    assert_eq!(ptes, vec![3]);
}

/// stack_guard_gap: a VMA above that is not a stack refuses the growth.
#[test]
fn a_mapping_above_blocks_the_upward_growth() {
    let calls = [
        "setup_stack_growsup(mm#0, 0, 1)",
        "sys_mmap(mm#0, NULL, 3, 4, 0, false)",
        "do_stack_fault_up(mm#0, 1)",
    ];
    let w = run_clean(&load(BASELINE), EMPTY, &calls);
    assert_eq!(layout(&w, 0), vec![(0, 1, 0), (3, 4, 3)]);
    assert!(w.mms[0].ptes.is_empty());
}

#[test]
fn remap_dontunmap_unlink_partial_is_caught_and_needs_a_partial_dontunmap() {
    let p = load(&m("remap-dontunmap-unlink-partial"));
    run_fails(&p, EMPTY, &DONTUNMAP_PART, 2, Invariant::RmapComplete);
    run_clean(&p, EMPTY, &DONTUNMAP_ALL);
    run_clean(&p, EMPTY, &DONTUNMAP_PART[..2]);
}

#[test]
fn remap_shrink_stale_vma_is_caught_and_needs_the_shrinking_move() {
    let p = load(&m("remap-shrink-stale-vma"));
    run_fails(&p, EMPTY, &SHRINK_MOVE, 3, Invariant::ModelFault);
    run_clean(&p, EMPTY, &SHRINK_MOVE[..3]);
}

#[test]
fn stack_grow_up_no_anon_update_is_caught_and_needs_the_growth() {
    let p = load(&m("stack-grow-up-no-anon-update"));
    run_fails(&p, EMPTY, &GROW_UP, 1, Invariant::Augment);
    run_clean(&p, EMPTY, &GROW_UP[..1]);
}
