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

/// Would the kernel merge `b` into `a` (adjacent, same file and flags, linear pgoff)?
fn mergeable(a: &LVma, b: &LVma) -> bool {
    a.end == b.start
        && a.backing == b.backing
        && a.writable == b.writable
        && a.shared == b.shared
        && (a.backing == super::layout::Backing::Anon || a.pgoff + (a.end - a.start) == b.pgoff)
        && (a.anon_id.is_none() || b.anon_id.is_none() || a.anon_id == b.anon_id)
}

/// mremap growing a VMA up to the next one: the model's sys_mremap_expand only lets the VMA
/// itself absorb the range; the kernel also merges the next VMA when it is compatible.
fn mremap_merges_next(call: &Call, model: &[LVma], kernel: &[LVma], _: &BTreeSet<u64>) -> bool {
    if call.func != "sys_mremap_expand" {
        return false;
    }
    let Some(crate::exec::host::Value::Int(new_end)) = call.args.get(2) else {
        return false;
    };
    let Some(i) = model.iter().position(|v| v.end == *new_end as u64) else {
        return false;
    };
    let Some(next) = model.get(i + 1) else {
        return false;
    };
    if !mergeable(&model[i], next) {
        return false;
    }
    let mut fixed = model.to_vec();
    fixed[i].end = next.end;
    fixed[i].anon |= next.anon;
    fixed[i].anon_id = fixed[i].anon_id.or(next.anon_id);
    fixed.remove(i + 1);
    fixed.len() == kernel.len() && fixed.iter().zip(kernel).all(|(m, k)| m.same_shape(k))
}

pub const MREMAP_EXPAND_MERGES_NEXT: Known = Known {
    name: "mremap-expand-merges-next",
    reason: "mremap() growing a VMA in place up to the next VMA merges the two in the kernel \
             (vma_merge_extend() goes through vma_merge_new_range() with the next VMA set); the \
             model's sys_mremap_expand() marks the merge just_expand, which only lets the VMA \
             itself grow. A finding about the model, reported to its authors",
    explains: mremap_merges_next,
};

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

pub const MPROTECT_DROPS_VM_ACCOUNT: Known = Known {
    name: "mprotect-drops-vm-account",
    reason: "mprotect() making an anonymous private VMA (MAP_ANONYMOUS or private /dev/zero) \
             read-only while it has no anon_vma drops VM_ACCOUNT (mprotect_fixup()); VMAs that \
             differ in VM_ACCOUNT neither merge nor share an anon_vma. The model has no \
             VM_ACCOUNT and merges them. Recognised where the kernel's layout is the model's \
             split at every change of VM_ACCOUNT the calls made. A finding about the model",
    explains: |_, m, k, u| account_split(m, k, u),
};

/// Every known finding.
pub const ALL: &[&Known] = &[&MREMAP_EXPAND_MERGES_NEXT, &MPROTECT_DROPS_VM_ACCOUNT];

/// The known finding explaining a mismatch, if any.
pub fn explain(
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
mod tests {
    use super::*;
    use crate::oracle::layout::Backing;

    fn v(start: u64, end: u64, backing: Backing, pgoff: u64) -> LVma {
        LVma {
            start,
            end,
            backing,
            pgoff,
            writable: true,
            shared: false,
            anon: false,
            anon_pages: 0,
            anon_id: None,
        }
    }

    #[test]
    fn explains_only_the_merge_the_model_misses() {
        let none = BTreeSet::new();
        let call = Call::parse("sys_mremap_expand(mm#0, 0, 2)").unwrap();
        let f = Backing::File(0);
        let model = [v(0, 2, f, 0), v(2, 3, f, 2)];
        assert_eq!(
            explain(&call, &model, &[v(0, 3, f, 0)], &none),
            Some("mremap-expand-merges-next")
        );
        // a non-linear pgoff would not merge, so the same kernel layout is not explained
        let model2 = [v(0, 2, f, 0), v(2, 3, f, 5)];
        assert_eq!(explain(&call, &model2, &[v(0, 3, f, 0)], &none), None);
        // nor is any other call or any other kernel layout
        let other = Call::parse("sys_mmap(mm#0, NULL, 2, 3, 0, false)").unwrap();
        assert_eq!(explain(&other, &model, &[v(0, 3, f, 0)], &none), None);
        assert_eq!(explain(&call, &model, &[v(0, 4, f, 0)], &none), None);
    }
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
