//! A mechanical check of the footprint table's writes, run by the interleaving explorer when
//! `check::crosscheck` is on (tests): after each step, the classes whose state the step really
//! changed (the world before and after, compared object by object and field by field) must be
//! written by the step's footprint (`footprint::op_footprint`), or the footprint touches
//! `All`. A write missing from a footprint lets the partial-order reduction reorder a step
//! that changes what another thread reads, and lose the orders that show a bug. Reads are not
//! audited here: a read missing from a footprint shows in the independence audit
//! (`interleave::independence`, which takes each step the reduction takes alone in both orders
//! against the other threads' steps) and in the regression models of
//! `tests/model/reduction_footprints.rs`.
//!
//! Ghost records that belong to a thread (its walks, its read sections) may change only in
//! that thread's steps; objects a step allocates count as a write of `Alloc` only.

use super::footprint::{Class, Footprint, Mode};
use crate::exec::host::ThreadId;
use crate::world::locks::RwSem;
use crate::world::World;

/// Adds a write of `class` to `out` when `a != b`.
fn diff<T: PartialEq>(out: &mut Footprint, a: &T, b: &T, class: Class) {
    if a != b {
        out.insert((class, Mode::Write));
    }
}

/// A read-write semaphore's change: its writer is a write of `class`; its reader bits only a
/// read (read acquisitions and releases commute among themselves, so a footprint counts them
/// as reads of the lock: see `footprint`).
fn rwsem(out: &mut Footprint, a: &RwSem, b: &RwSem, class: Class) {
    diff(out, &a.writer, &b.writer, class);
    if a.readers != b.readers {
        out.insert((class, Mode::Read));
    }
}

/// The classes a step changed, from the world before it to the world after it (before
/// `World::observe` updates the ghost records); `tid` is the stepping thread.
pub(crate) fn written(before: &World, after: &World, tid: ThreadId) -> Footprint {
    use Class::*;
    let mut out = Footprint::new();
    let grew = after.mms.len() != before.mms.len()
        || after.vmas.len() != before.vmas.len()
        || after.files.len() != before.files.len()
        || after.mappings.len() != before.mappings.len()
        || after.anon_vmas.len() != before.anon_vmas.len()
        || after.avcs.len() != before.avcs.len()
        || after.anon_folios.len() != before.anon_folios.len();
    if grew {
        out.insert((Alloc, Mode::Write));
    }
    for (a, b) in before.mms.iter().zip(&after.mms) {
        diff(&mut out, &a.vmas, &b.vmas, MmList);
        diff(&mut out, &a.map_count, &b.map_count, MapCount);
        rwsem(&mut out, &a.mmap_lock, &b.mmap_lock, MmapLock);
        diff(&mut out, &a.mm_lock_seq, &b.mm_lock_seq, VmaLock);
        diff(&mut out, &a.page_table_lock, &b.page_table_lock, PageTable);
        diff(&mut out, &a.freed, &b.freed, Lifecycle);
        diff(&mut out, &a.ptes, &b.ptes, Ptes);
    }
    for (a, b) in before.vmas.iter().zip(&after.vmas) {
        let bounds = |v: &crate::world::Vma| (v.vm_start, v.vm_end, v.vm_pgoff, v.vm_anon_pgoff);
        diff(&mut out, &bounds(a), &bounds(b), Bounds);
        diff(&mut out, &a.vm_flags, &b.vm_flags, VmFlags);
        let links = |v: &crate::world::Vma| (v.vm_mm, v.vm_file, v.has_vm_ops);
        diff(&mut out, &links(a), &links(b), VmaLinks);
        diff(&mut out, &a.anon_vma, &b.anon_vma, AnonChain);
        diff(&mut out, &a.anon_vma_chain, &b.anon_vma_chain, AnonChain);
        diff(&mut out, &a.vm_lock_seq, &b.vm_lock_seq, VmaLock);
        // per-VMA readers: reads of the VMA lock, as the semaphores' readers
        if a.vm_lock_readers != b.vm_lock_readers {
            out.insert((VmaLock, Mode::Read));
        }
        let life = |v: &crate::world::Vma| (v.detached, v.freed, v.zapped);
        diff(&mut out, &life(a), &life(b), Lifecycle);
        // ghost: set by the first insertion into the file tree
        diff(&mut out, &a.file_linked, &b.file_linked, FileTree);
    }
    for (a, b) in before.files.iter().zip(&after.files) {
        // files never change after the world is built: any change is unaccounted for
        diff(&mut out, a, b, All);
    }
    for (a, b) in before.mappings.iter().zip(&after.mappings) {
        diff(&mut out, &a.i_mmap, &b.i_mmap, FileTree);
        rwsem(&mut out, &a.i_mmap_rwsem, &b.i_mmap_rwsem, IMmap);
        diff(&mut out, &a.flush_dcache, &b.flush_dcache, Flush);
    }
    for (a, b) in before.anon_vmas.iter().zip(&after.anon_vmas) {
        let meta = |x: &crate::world::AnonVma| {
            (
                x.root,
                x.parent,
                x.refcount,
                x.num_children,
                x.num_active_vmas,
            )
        };
        diff(&mut out, &meta(a), &meta(b), AnonMeta);
        diff(&mut out, &a.rb_root, &b.rb_root, AnonTree);
        rwsem(&mut out, &a.rwsem, &b.rwsem, AnonLock);
        diff(&mut out, &a.freed, &b.freed, Lifecycle);
    }
    for (a, b) in before.avcs.iter().zip(&after.avcs) {
        diff(
            &mut out,
            &(a.vma, a.anon_vma),
            &(b.vma, b.anon_vma),
            AnonChain,
        );
        let cached = |x: &crate::world::Avc| (x.cached_vma_start, x.cached_vma_last);
        diff(&mut out, &cached(a), &cached(b), AvcCache);
        diff(&mut out, &a.freed, &b.freed, Lifecycle);
        // ghost: set while the AVC is in its anon_vma's tree
        diff(&mut out, &a.linked, &b.linked, AnonTree);
    }
    for (a, b) in before.anon_folios.iter().zip(&after.anon_folios) {
        diff(&mut out, a, b, Ptes);
    }
    // another thread's ghost records: unaccounted for when they change
    let walks = |w: &World| -> Vec<crate::world::conc::WalkRecord> {
        w.walks.iter().filter(|r| r.tid != tid).cloned().collect()
    };
    diff(&mut out, &walks(before), &walks(after), All);
    let sections = |w: &World| -> Vec<crate::world::conc::ReadSection> {
        w.sections
            .iter()
            .filter(|r| r.tid != tid)
            .cloned()
            .collect()
    };
    diff(&mut out, &sections(before), &sections(after), All);
    out
}

/// The classes of `changed` that `fp` does not account for: a write it does not write, a
/// reader-bit change it neither reads nor writes (empty when `fp` touches `All`).
pub(crate) fn unaccounted(changed: Footprint, fp: Footprint) -> Vec<Class> {
    if fp.touches_all() {
        return Vec::new();
    }
    let write = |c| fp.contains((c, Mode::Write));
    Class::ALL_CLASSES
        .iter()
        .copied()
        .filter(|&c| {
            (changed.contains((c, Mode::Write)) && !write(c))
                || (changed.contains((c, Mode::Read)) && !write(c) && !fp.contains((c, Mode::Read)))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::world::scenario::Scenario;

    fn world() -> World {
        Scenario::parse(
            "[[file]]\nname = \"f\"\n[[mm]]\n[[mm.vma]]\nstart = 0\nend = 4\npgoff = 0\nfile = \"f\"\n",
        )
        .unwrap()
        .build()
        .unwrap()
    }

    /// A pte cleared (what a zap does) is a write of `Ptes`, which a footprint without it
    /// does not account for; a key and a flag changed are `Bounds` and `VmFlags`; an object
    /// allocated is `Alloc`; a footprint touching `All` accounts for everything.
    #[test]
    fn the_audit_names_the_classes_a_step_changed_and_its_footprint_lacks() {
        let before = world();
        let mut after = world();
        after.vmas[0].vm_pgoff = 10;
        after.vmas[0].vm_flags |= 1;
        after.mms[0].ptes.insert(1, crate::world::Folio::Anon(0));
        after.anon_folios.push(crate::world::AnonFolio {
            anon_vma: 0,
            index: 0,
        });
        let changed = written(&before, &after, 0);
        let zap_before_the_fix: Footprint = [
            (Class::Bounds, Mode::Read),
            (Class::Lifecycle, Mode::Read),
            (Class::Bounds, Mode::Write),
        ]
        .into_iter()
        .collect();
        assert_eq!(
            unaccounted(changed, zap_before_the_fix),
            vec![Class::VmFlags, Class::Alloc, Class::Ptes]
        );
        let all: Footprint = [(Class::All, Mode::Write)].into_iter().collect();
        assert!(unaccounted(changed, all).is_empty());
        assert!(written(&before, &world(), 0).is_empty());
    }

    /// Another thread's walk record changing is never accounted for by a footprint; the
    /// stepping thread's own is its business.
    #[test]
    fn another_threads_ghost_record_is_unaccounted() {
        let mut before = world();
        before.init_ghosts();
        let mut after = before.clone();
        after.sections.push(crate::world::conc::ReadSection {
            tid: 1,
            vma: 0,
            bounds: (0, 4, 0),
        });
        assert!(written(&before, &after, 1).is_empty());
        assert!(written(&before, &after, 0).touches_all());
    }
}
