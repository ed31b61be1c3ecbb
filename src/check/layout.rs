//! `vma-layout` (each mm's VMA list against the VMAs themselves), `lock-discipline` at operation
//! boundaries (every lock released) and `cached-keys` (DEBUG_VM_RB's copies of AVC keys).

use super::{Invariant, Violation};
use crate::tree::IntervalKeys;
use crate::world::{AnonKeys, World};

/// Each mm's list holds live VMAs at exactly their current ranges, non-empty and non-overlapping
/// (the list's keys guarantee order), each once, and `map_count` counts them.
pub(crate) fn check_vma_layout(w: &World) -> Vec<Violation> {
    let mut out = Vec::new();
    for (m, mm) in w.mms.iter().enumerate() {
        if mm.freed {
            continue;
        }
        let mut prev_end = 0;
        for (&s, &(e, v)) in &mm.vmas {
            let vma = &w.vmas[v as usize];
            // built only for a violation (this check runs at the end of every call)
            let name = || format!("mm#{m}: vma#{v}");
            // listed twice: also at an earlier start (a list holds a few VMAs)
            if mm.vmas.range(..s).any(|(_, &(_, x))| x == v) {
                out.push(Violation::new(
                    Invariant::VmaLayout,
                    format!("{} is listed twice", name()),
                ));
            }
            if (vma.vm_start, vma.vm_end) != (s, e) {
                out.push(Violation::new(
                    Invariant::VmaLayout,
                    format!(
                        "{} is [{}, {}) but the mm lists it at [{s}, {e})",
                        name(),
                        vma.vm_start,
                        vma.vm_end
                    ),
                ));
            }
            if vma.vm_start >= vma.vm_end {
                out.push(Violation::new(
                    Invariant::VmaLayout,
                    format!("{} is empty", name()),
                ));
            }
            if s < prev_end {
                out.push(Violation::new(
                    Invariant::VmaLayout,
                    format!("{} overlaps its predecessor", name()),
                ));
            }
            prev_end = e;
            if vma.freed || vma.detached {
                out.push(Violation::new(
                    Invariant::VmaLayout,
                    format!("{} is listed but freed or detached", name()),
                ));
            }
            if vma.vm_mm != Some(m as u32) {
                out.push(Violation::new(
                    Invariant::VmaLayout,
                    format!("{} is listed but its vm_mm is {:?}", name(), vma.vm_mm),
                ));
            }
        }
        if mm.map_count != mm.vmas.len() as i64 {
            out.push(Violation::new(
                Invariant::VmaLayout,
                format!(
                    "mm#{m}: map_count is {} but {} VMAs are listed",
                    mm.map_count,
                    mm.vmas.len()
                ),
            ));
        }
    }
    out
}

/// At the end of an operation every lock is released.
pub(crate) fn check_locks_released(w: &World) -> Vec<Violation> {
    let mut out = Vec::new();
    let mut held = |what: String| {
        out.push(Violation::new(
            Invariant::LockDiscipline,
            format!("{what} still held at the end of the operation"),
        ))
    };
    for (i, a) in w.mappings.iter().enumerate() {
        if !a.i_mmap_rwsem.is_free() {
            held(format!("i_mmap_rwsem of mapping#{i}"));
        }
        if a.flush_dcache.owner.is_some() {
            held(format!("flush_dcache lock of mapping#{i}"));
        }
    }
    for (i, a) in w.anon_vmas.iter().enumerate() {
        if !a.rwsem.is_free() {
            held(format!("rwsem of anon_vma#{i}"));
        }
    }
    for (i, m) in w.mms.iter().enumerate() {
        if !m.mmap_lock.is_free() {
            held(format!("mmap_lock of mm#{i}"));
        }
        if m.page_table_lock.owner.is_some() {
            held(format!("page_table_lock of mm#{i}"));
        }
    }
    for (i, v) in w.vmas.iter().enumerate() {
        if v.vm_lock_readers != 0 {
            held(format!("per-VMA read lock of vma#{i}"));
        }
    }
    out
}

/// DEBUG_VM_RB: every AVC in a tree still carries the key it was inserted with, which must be
/// its VMA's current key (the kernel's anon_vma_interval_tree_verify()).
pub(crate) fn check_cached_keys(w: &World) -> Vec<Violation> {
    let mut out = Vec::new();
    let keys = AnonKeys {
        vmas: &w.vmas,
        avcs: &w.avcs,
    };
    for (a, av) in w.anon_vmas.iter().enumerate() {
        for c in av.rb_root.inorder() {
            let avc = &w.avcs[c as usize];
            let (s, l) = (keys.start(c), keys.last(c));
            if (avc.cached_vma_start, avc.cached_vma_last) != (s, l) {
                out.push(Violation::new(
                    Invariant::CachedKeys,
                    format!(
                        "avc#{c} in anon_vma#{a}: cached [{}, {}] but its VMA covers [{s}, {l}]",
                        avc.cached_vma_start, avc.cached_vma_last
                    ),
                ));
            }
        }
    }
    out
}
