//! The records of the extended entry points that take an allocation failure as given (the
//! undo paths of `models/v7.3-rc4/lib/undo.rmap`): a munmap whose maple-tree clear fails after
//! the gather (`sys_munmap_abort`) and a fork that fails after copying some VMAs
//! (`sys_fork_fail`), and an mmap(MAP_FIXED) that fails after the clean-up of the VMAs it
//! replaces (`sys_mmap_fixed_fail`). Calling one instead of the succeeding entry point is the explorer's
//! nondeterministic choice of the failure; kdiff cannot force either on a running kernel.

use super::offer::{int, Here};
use super::pick::{Pick, MAX_MMS, MAX_VMAS};
use super::require::At;
use super::{Entry, EntryPoint, Mode, Site, Tier, MM_PAGE, MM_PAGE_PAGE};
use crate::exec::host::Value;

type Emit<'a> = &'a mut dyn FnMut(Vec<Value>);

// ---- sys_munmap_abort: munmap whose vma_iter_clear_gfp() fails; the VMAs are reattached

pub(crate) const MUNMAP_ABORT: Entry = Entry {
    point: EntryPoint::MunmapAbort,
    name: "sys_munmap_abort",
    kernel: "munmap failing after the gather (do_vmi_align_munmap: reattach_vmas)",
    mode: Mode::Callers,
    tier: Tier::Extended,
    args: MM_PAGE_PAGE,
    site: Site::Mm,
    offer: super::syscalls::munmap_offer,
    pick: super::syscalls::munmap_pick,
    requires: super::syscalls::range_requires,
};

// ---- sys_fork_fail: dup_mmap() failing after `copied` VMAs; the partial child is torn down

pub(crate) const FORK_FAIL: Entry = Entry {
    point: EntryPoint::ForkFail,
    name: "sys_fork_fail",
    kernel: "fork failing in dup_mmap after copying some VMAs (the partial child torn down)",
    mode: Mode::Callers,
    tier: Tier::Extended,
    args: MM_PAGE,
    site: Site::Mm,
    offer: fork_fail_offer,
    pick: fork_fail_pick,
    requires: fork_fail_requires,
};

/// Every count of copied VMAs, from none to all, while another mm may still be made.
fn fork_fail_offer(h: &Here, emit: Emit) {
    if h.live_mms >= h.bounds.max_mms {
        return;
    }
    for k in 0..=h.vmas.len() {
        emit(vec![h.mmv(), int(k as u64)]);
    }
}

/// `len % (VMAs + 1)` copied, under the bounds of the fuzzer's fork.
fn fork_fail_pick(p: &Pick) -> Option<Vec<Value>> {
    let n = p.w.mm_vmas(p.mm).len();
    if p.w.mms.len() >= MAX_MMS || p.live_vma_count() + n > MAX_VMAS {
        return None;
    }
    let k = u64::from(p.c.len) % (n as u64 + 1);
    Some(vec![p.mmv(), int(k)])
}

fn fork_fail_requires(a: &At) -> Result<(), String> {
    let n = a.w.mm_vmas(a.mm).len() as u64;
    if a.page(1) > n {
        return Err(format!("it copies {} VMAs but the mm has {n}", a.page(1)));
    }
    Ok(())
}

// ---- sys_mmap_fixed_fail: MAP_FIXED failing after vms_clean_up_area(); vms_abort_munmap_vmas

pub(crate) const MMAP_FIXED_FAIL: Entry = Entry {
    point: EntryPoint::MmapFixedFail,
    name: "sys_mmap_fixed_fail",
    kernel: "mmap(MAP_FIXED) failing after the clean-up (__mmap_region: vms_abort_munmap_vmas)",
    mode: Mode::Callers,
    tier: Tier::Extended,
    args: MM_PAGE_PAGE,
    site: Site::Mm,
    offer: fixed_fail_offer,
    pick: fixed_fail_pick,
    requires: fixed_fail_requires,
};

/// The ranges `sys_mmap_fixed` replaces (one to four VMAs overlapped).
fn fixed_fail_offer(h: &Here, emit: Emit) {
    let mmv = h.mmv();
    super::fixed::replaced_ranges(h, &mut |s, e| emit(vec![mmv, int(s), int(e)]));
}

/// The range `sys_mmap_fixed`'s pick would take.
fn fixed_fail_pick(p: &Pick) -> Option<Vec<Value>> {
    let (s, e) = super::fixed::picked_range(p)?;
    Some(vec![p.mmv(), int(s), int(e)])
}

fn fixed_fail_requires(a: &At) -> Result<(), String> {
    super::fixed::replaced_range(a, a.page(1), a.page(2))
}
