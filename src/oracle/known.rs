//! Known findings about the model: differences between the model and the running kernel that
//! are not a difference between kernel versions but a place where the model is wrong or
//! incomplete. Each is a [`Finding`] (the one type of `crate::known`: a name, the kernel
//! evidence, a matcher) and recognises exactly its own mismatches, so nothing else is excused. kdiff still reports them and fails on them unless asked to
//! tolerate them (`--tolerate-known`).
//!
//! There are none today. `mremap-expand-merges-next` was one until the model's
//! sys_mremap_expand() went through vma_merge_new_range() as vma_merge_extend() does, and
//! `mprotect-drops-vm-account` until the model learned VM_ACCOUNT (mprotect_fixup() drops it
//! when an anonymous VMA without an anon_vma becomes read-only, and VMAs that differ in it do
//! not merge); kdiff now compares VM_ACCOUNT itself (smaps `VmFlags: ac`). `tests/cli/kdiff.rs`
//! keeps the sequences that showed each as regression tests.

use super::mismatch::Mismatch;
use crate::known::Finding;

/// Every known finding; each matches a [`Mismatch`] (the calls, the call after which the
/// layouts differ, both layouts).
pub const ALL: &[Finding<Mismatch>] = &[];

/// The known finding explaining a mismatch, if any.
pub(crate) fn explain(m: &Mismatch) -> Option<&'static str> {
    crate::known::explain(ALL, m)
}
