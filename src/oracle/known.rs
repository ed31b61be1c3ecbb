//! Known findings about the model: differences between the model and the running kernel that
//! are not a difference between kernel versions but a place where the model is wrong or
//! incomplete. Each has a name and a reason and recognises exactly its own mismatches (the
//! kernel's layout must be what the model's becomes with the finding corrected), so nothing
//! else is excused. kdiff still reports them and fails on them unless asked to tolerate them
//! (`--tolerate-known`, used by the tests so that they check every other sequence).

use super::layout::LVma;
use crate::world::scenario::Call;
use std::collections::BTreeSet;

/// One known finding.
pub struct Known {
    pub name: &'static str,
    pub reason: &'static str,
    /// Does it explain a mismatch after `call` between `model` and `kernel`? `unaccounted`:
    /// the mm's private pages without VM_ACCOUNT (see `ghost`).
    pub explains:
        fn(call: &Call, model: &[LVma], kernel: &[LVma], unaccounted: &BTreeSet<u64>) -> bool,
}

/// The model's VMAs split where VM_ACCOUNT changes: the kernel cannot have merged those.
fn account_split(model: &[LVma], kernel: &[LVma], unaccounted: &BTreeSet<u64>) -> bool {
    let mut fixed = Vec::new();
    for v in model {
        let mut cur = v.clone();
        for p in v.start + 1..v.end {
            if !v.shared && unaccounted.contains(&p) != unaccounted.contains(&(p - 1)) {
                let mut right = cur.clone();
                cur.end = p;
                right.start = p;
                right.pgoff = cur.pgoff + (p - cur.start);
                fixed.push(cur);
                cur = right;
            }
        }
        fixed.push(cur);
    }
    fixed.len() != model.len()
        && fixed.len() == kernel.len()
        && fixed.iter().zip(kernel).all(|(m, k)| m.same_shape(k))
}

pub(crate) const MPROTECT_DROPS_VM_ACCOUNT: Known = Known {
    name: "mprotect-drops-vm-account",
    reason: "mprotect() making an anonymous private VMA (MAP_ANONYMOUS or private /dev/zero) \
             read-only while it has no anon_vma drops VM_ACCOUNT (mprotect_fixup()); VMAs that \
             differ in VM_ACCOUNT neither merge nor share an anon_vma. The model has no \
             VM_ACCOUNT and merges them. Recognised where the kernel's layout is the model's \
             split at every change of VM_ACCOUNT the calls made. A finding about the model",
    explains: |_, m, k, u| account_split(m, k, u),
};

/// Every known finding.
/// `mremap-expand-merges-next` was one too until the model's sys_mremap_expand() went through
/// vma_merge_new_range() as vma_merge_extend() does; `tests/cli/kdiff.rs` keeps the sequences that
/// showed it as a regression test.
pub const ALL: &[&Known] = &[&MPROTECT_DROPS_VM_ACCOUNT];

/// The known finding explaining a mismatch, if any.
pub(crate) fn explain(
    call: &Call,
    model: &[LVma],
    kernel: &[LVma],
    unaccounted: &BTreeSet<u64>,
) -> Option<&'static str> {
    ALL.iter()
        .find(|k| (k.explains)(call, model, kernel, unaccounted))
        .map(|k| k.name)
}

#[cfg(test)]
mod account_tests {
    use super::*;
    use crate::oracle::layout::Backing;

    fn v(start: u64, end: u64, writable: bool) -> LVma {
        LVma {
            start,
            end,
            backing: Backing::Anon,
            pgoff: start,
            writable,
            shared: false,
            anon: false,
            anon_pages: 0,
            anon_id: None,
        }
    }

    #[test]
    fn explains_only_splits_at_vm_account_changes() {
        let call = Call::parse("sys_mprotect(mm#0, 0, 3, false)").unwrap();
        let model = [v(0, 4, false)];
        let kernel = [v(0, 3, false), v(3, 4, false)];
        let page3: BTreeSet<u64> = [3].into();
        assert_eq!(
            explain(&call, &model, &kernel, &page3),
            Some("mprotect-drops-vm-account")
        );
        // without the ghost's record of page 3 losing VM_ACCOUNT nothing is excused
        assert_eq!(explain(&call, &model, &kernel, &BTreeSet::new()), None);
        // nor a split somewhere else
        let page1: BTreeSet<u64> = [1, 2, 3].into();
        assert_eq!(explain(&call, &model, &kernel, &page1), None);
    }
}
