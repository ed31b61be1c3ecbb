//! Stack growth (issue 14): a fault below a MAP_GROWSDOWN mapping grows it down, moving its
//! start and page offsets under the anon_vma lock, and the two mutants only it reaches.

use crate::model_fixtures::*;
use rmapcheck::check::Invariant;

fn m(name: &str) -> String {
    format!("models/mutants/{name}.rmap")
}

const GROW: [&str; 3] = [
    "sys_mmap_growsdown(mm#0, 2, 3)",
    "do_anonymous_fault(mm#0, 2)",
    "do_stack_fault(mm#0, 1)",
];

/// The stack grows down to the faulting page, its pgoff with it, and the new page is mapped.
#[test]
fn a_fault_below_a_stack_grows_it() {
    let w = run_clean(&load(BASELINE), EMPTY, &GROW);
    assert_eq!(layout(&w, 0), vec![(1, 3, 1)]);
    let ptes: Vec<u64> = w.mms[0].ptes.keys().copied().collect();
    assert_eq!(ptes, vec![1, 2]);
}

/// stack_guard_gap: a VMA below that is not a stack refuses the growth.
#[test]
fn a_mapping_below_blocks_the_growth() {
    let calls = [
        "sys_mmap(mm#0, NULL, 0, 1, 0, false)",
        "sys_mmap_growsdown(mm#0, 2, 3)",
        "do_stack_fault(mm#0, 1)",
    ];
    let w = run_clean(&load(BASELINE), EMPTY, &calls);
    assert_eq!(layout(&w, 0), vec![(0, 1, 0), (2, 3, 2)]);
    assert!(w.mms[0].ptes.is_empty());
}

#[test]
fn stack_grow_no_anon_update_is_caught_and_needs_the_growth() {
    let p = load(&m("stack-grow-no-anon-update"));
    run_fails(&p, EMPTY, &GROW, 2, Invariant::CachedKeys);
    run_clean(&p, EMPTY, &GROW[..2]);
}

#[test]
fn stack_grow_keeps_pgoff_is_caught_and_needs_the_growth() {
    let p = load(&m("stack-grow-keeps-pgoff"));
    run_fails(&p, EMPTY, &GROW, 2, Invariant::RmapComplete);
    run_clean(&p, EMPTY, &GROW[..2]);
}

/// Regression (found by `rmapcheck cdiff` against v7.3-rc7): mprotect() changes only the
/// protection bits, so a stack made read-only keeps VM_GROWSDOWN (the model's sys_mprotect
/// used to rebuild the flags from VM_SHARED and VM_WRITE alone and dropped it).
#[test]
fn mprotect_keeps_growsdown() {
    let calls = [
        "sys_mmap_growsdown(mm#0, 2, 3)",
        "sys_mprotect(mm#0, 2, 3, false)",
    ];
    let w = run_clean(&load(BASELINE), EMPTY, &calls);
    let v = w.mms[0].vmas.values().next().unwrap().1;
    let flags = w.vmas[v as usize].vm_flags;
    assert_ne!(flags & 0x100, 0, "VM_GROWSDOWN kept: {flags:#x}");
    assert_eq!(flags & 0x2, 0, "VM_WRITE cleared: {flags:#x}");
}

/// Regression (found by `rmapcheck cdiff` against v7.3-rc7's anon_vma_compatible()): an
/// anonymous VMA below a stack does not share the stack's anon_vma at its first fault, since
/// the two differ in VM_GROWSDOWN, a flag mprotect() cannot change.
#[test]
fn a_vma_below_a_stack_does_not_reuse_its_anon_vma() {
    let calls = [
        "sys_mmap_growsdown(mm#0, 1, 2)",
        "sys_mmap(mm#0, NULL, 0, 1, 0, false)",
        "do_anonymous_fault(mm#0, 1)",
        "do_anonymous_fault(mm#0, 0)",
    ];
    let w = run_clean(&load(BASELINE), EMPTY, &calls);
    let anon: Vec<Option<u32>> = w.mms[0]
        .vmas
        .values()
        .map(|&(_, v)| w.vmas[v as usize].anon_vma)
        .collect();
    assert_eq!(anon.len(), 2);
    assert!(anon[0].is_some() && anon[1].is_some());
    assert_ne!(anon[0], anon[1], "{anon:?}");
}
