//! Known findings about the model: differences between the model and the running kernel that
//! are not a difference between kernel versions but a place where the model is wrong or
//! incomplete. Each has a name and a reason and recognises exactly its own mismatches, so
//! nothing else is excused. kdiff still reports them and fails on them unless asked to
//! tolerate them (`--tolerate-known`).
//!
//! There are none today. `mremap-expand-merges-next` was one until the model's
//! sys_mremap_expand() went through vma_merge_new_range() as vma_merge_extend() does, and
//! `mprotect-drops-vm-account` until the model learned VM_ACCOUNT (mprotect_fixup() drops it
//! when an anonymous VMA without an anon_vma becomes read-only, and VMAs that differ in it do
//! not merge); kdiff now compares VM_ACCOUNT itself (smaps `VmFlags: ac`). `tests/cli/kdiff.rs`
//! keeps the sequences that showed each as regression tests.

use super::layout::LVma;
use crate::world::scenario::Call;

/// One known finding.
pub struct Known {
    pub name: &'static str,
    pub reason: &'static str,
    /// Does it explain a mismatch after `call` between `model` and `kernel`?
    pub explains: fn(call: &Call, model: &[LVma], kernel: &[LVma]) -> bool,
}

/// Every known finding.
pub const ALL: &[&Known] = &[];

/// The known finding explaining a mismatch, if any.
pub(crate) fn explain(call: &Call, model: &[LVma], kernel: &[LVma]) -> Option<&'static str> {
    ALL.iter()
        .find(|k| (k.explains)(call, model, kernel))
        .map(|k| k.name)
}
