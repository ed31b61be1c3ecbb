//! VM_ACCOUNT in the model, as the kernel keeps it (mm/vma.c `accountable_mapping()`,
//! mm/mprotect.c `mprotect_fixup()`, v7.3-rc7): set on a private writable mapping, dropped
//! when an anonymous VMA without an anon_vma becomes read-only, set again when a private one
//! becomes writable, kept by split and copy, compared by every merge. The four-call sequence
//! that first showed the model merging two VMAs the kernel keeps apart is a regression test.

use crate::model_fixtures::*;
use rmapcheck::world::builtins::VM_ACCOUNT;
use rmapcheck::world::World;

/// (start, end, VM_ACCOUNT) of each VMA of mm#0.
fn accounted(w: &World) -> Vec<(u64, u64, bool)> {
    w.mm_vmas(0)
        .into_iter()
        .map(|v| {
            let x = &w.vmas[v as usize];
            (x.vm_start, x.vm_end, x.vm_flags & VM_ACCOUNT != 0)
        })
        .collect()
}

/// mprotect of [0,1) read-only drops VM_ACCOUNT (no anon_vma yet); the fault gives [1,2) an
/// anon_vma, so its own mprotect keeps VM_ACCOUNT, and the two read-only VMAs stay apart, as
/// the kernel's /proc/self/maps shows two `r--p` lines.
#[test]
fn mprotect_keeps_apart_vmas_that_differ_in_vm_account() {
    let calls = [
        "sys_mmap(mm#0, NULL, 0, 2, 0, false)",
        "sys_mprotect(mm#0, 0, 1, false)",
        "do_anonymous_fault(mm#0, 1)",
        "sys_mprotect(mm#0, 1, 2, false)",
    ];
    let w = run_clean(&load(BASELINE), EMPTY, &calls);
    assert_eq!(accounted(&w), vec![(0, 1, false), (1, 2, true)]);
}

/// A private writable mapping is accounted, a shared one is not; making a private one
/// writable again charges it again, and then it merges with its accounted neighbour.
#[test]
fn mmap_and_mprotect_set_vm_account_on_private_writable_mappings() {
    let w = run_clean(
        &load(BASELINE),
        EMPTY,
        &[
            "sys_mmap(mm#0, NULL, 0, 1, 0, false)",
            "sys_mmap(mm#0, file#0, 2, 3, 0, true)",
        ],
    );
    assert_eq!(accounted(&w), vec![(0, 1, true), (2, 3, false)]);
    let w = run_clean(
        &load(BASELINE),
        EMPTY,
        &[
            "sys_mmap(mm#0, NULL, 0, 2, 0, false)",
            "sys_mprotect(mm#0, 0, 1, false)",
            "sys_mprotect(mm#0, 0, 1, true)",
        ],
    );
    assert_eq!(accounted(&w), vec![(0, 2, true)]);
}

/// A file-backed private VMA keeps VM_ACCOUNT when made read-only (only anonymous VMAs give
/// the charge back), so it merges again with its writable-then-read-only neighbour.
#[test]
fn a_private_file_vma_keeps_vm_account_when_made_read_only() {
    let w = run_clean(
        &load(BASELINE),
        EMPTY,
        &[
            "sys_mmap(mm#0, file#0, 0, 2, 0, false)",
            "sys_mprotect(mm#0, 0, 1, false)",
            "sys_mprotect(mm#0, 1, 2, false)",
        ],
    );
    assert_eq!(accounted(&w), vec![(0, 2, true)]);
}
