//! The kernel objects the rmap depends on, reduced to the fields the rmap code reads or writes.
//!
//! Addresses are in pages (`vm_start`, `vm_end` are page numbers), so `vma_pages = vm_end - vm_start`
//! and a VMA maps file pages `vm_pgoff ..= vm_pgoff + vma_pages - 1`.

use super::locks::{Mutex, RwSem};
use crate::tree::RbRoot;

/// `Clone` for a struct, field by field, with a `clone_from` that clones each field into its
/// old value (so a `Vec` or tree arena keeps its allocation): the search overwrites recycled
/// worlds instead of allocating new ones. Every field must be named (the struct literal in
/// `clone` fails to compile otherwise).
macro_rules! clone_by_field {
    ($t:ident { $($f:ident),* $(,)? }) => {
        impl Clone for $t {
            fn clone(&self) -> Self {
                $t { $($f: self.$f.clone()),* }
            }
            fn clone_from(&mut self, src: &Self) {
                $(self.$f.clone_from(&src.$f);)*
            }
        }
    };
}
pub(crate) use clone_by_field;

/// `struct mm_struct`: an address space. Its VMAs are kept in an ordered range map standing in
/// for the maple tree: `start -> (end, vma)`. `vma_iter_store` overwrites whatever the new range
/// covers, as a maple-tree store does.
#[derive(Debug, PartialEq, Eq, Hash)]
pub struct Mm {
    pub vmas: super::sorted_map::SortedMap<u64, (u64, u32)>,
    pub map_count: i64,
    /// `mmap_lock`: writers exclude everything; per-VMA readers only exclude VMA writers.
    pub mmap_lock: RwSem,
    /// `mm_lock_seq`: bumped when the mmap write lock is released; a VMA is write-locked while
    /// its `vm_lock_seq` equals this.
    pub mm_lock_seq: u64,
    /// `mm->page_table_lock`: serialises the setting of `vma->anon_vma` by faults that hold
    /// the mmap lock only for read (`__anon_vma_prepare`).
    pub page_table_lock: Mutex,
    pub freed: bool,
    /// Ghost page table (`src/world/pages.rs`): address to the folio its pte maps.
    pub ptes: super::pages::PageTable,
}

/// `struct vm_area_struct`.
#[derive(Debug, PartialEq, Eq, Hash)]
pub struct Vma {
    pub vm_mm: Option<u32>,
    pub vm_start: u64,
    pub vm_end: u64,
    pub vm_pgoff: u64,
    /// The anonymous page offset (v7.3-rc4, "mm: make VMA page offset handling more
    /// consistent"): the anon_vma tree's key and the index of the anonymous folios the VMA maps.
    /// Set to the start page at mmap and moved by the same delta as `vm_pgoff` by split and
    /// merge; equal to `vm_pgoff` for an anonymous VMA, the start page for a private file VMA.
    pub vm_anon_pgoff: u64,
    pub vm_flags: i64,
    pub vm_file: Option<u32>,
    /// Whether `vm_ops` is set. The kernel's `vma_is_anonymous()` is `!vm_ops`, so a private
    /// /dev/zero mapping has a `vm_file` and is still anonymous.
    pub has_vm_ops: bool,
    pub anon_vma: Option<u32>,
    /// `anon_vma_chain` list, head first (`list_add` puts new entries at the head).
    pub anon_vma_chain: Vec<u32>,
    /// `vm_lock_seq`: equal to the mm's `mm_lock_seq` while write-locked (`vma_start_write`).
    pub vm_lock_seq: Option<u64>,
    /// Per-VMA read lock holders (bit per thread), for lock-free page-fault style readers.
    pub vm_lock_readers: u32,
    /// Marked detached (removed from its mm for good).
    pub detached: bool,
    pub freed: bool,
    /// Ghost state for the concurrent checks (reset by the canonical form): the VMA has been
    /// inserted into its file's rmap tree at least once, so pages may be mapped through it.
    pub file_linked: bool,
    /// Ghost: its page tables were zapped (`unmap_vmas`), so it maps no page any more.
    pub zapped: bool,
}

impl Vma {
    pub fn pages(&self) -> u64 {
        self.vm_end.saturating_sub(self.vm_start)
    }
    /// `vma_start_pgoff()`: the file tree's sort key.
    pub(crate) fn start_pgoff(&self) -> u64 {
        self.vm_pgoff
    }
    /// `vma_last_pgoff()`: last file page mapped (equal to the start for an empty VMA, which the
    /// kernel never has; the checker reports empty VMAs through `vma-layout`).
    pub(crate) fn last_pgoff(&self) -> u64 {
        self.vm_pgoff + self.pages().max(1) - 1
    }
    /// The page offset of `vm_start` in a folio kind's index space: the file pgoff for
    /// page-cache folios and file walks, the anonymous pgoff for anonymous folios and anon walks.
    pub(crate) fn pgoff_for(&self, anon: bool) -> u64 {
        if anon {
            self.vm_anon_pgoff
        } else {
            self.vm_pgoff
        }
    }
    /// `vma_start_anon_pgoff()`: the anon tree's sort key.
    pub(crate) fn start_anon_pgoff(&self) -> u64 {
        self.vm_anon_pgoff
    }
    /// `vma_last_anon_pgoff()`: last anonymous page offset mapped.
    pub(crate) fn last_anon_pgoff(&self) -> u64 {
        self.vm_anon_pgoff + self.pages().max(1) - 1
    }
    pub fn is_anonymous(&self) -> bool {
        !self.has_vm_ops
    }
}

/// `struct file`. One address_space per file (`f_mapping`); /dev/zero is a file whose mmap of a
/// private mapping makes the VMA anonymous.
#[derive(Debug, PartialEq, Eq, Hash)]
pub struct File {
    pub name: String,
    pub f_mapping: u32,
    pub dev_zero: bool,
}

/// `struct address_space`: the file rmap tree `i_mmap` and its locks.
#[derive(Debug, PartialEq, Eq, Hash, Default)]
pub struct AddressSpace {
    pub i_mmap: RbRoot,
    pub i_mmap_rwsem: RwSem,
    /// The lock `flush_dcache_mmap_lock()` takes (the i_pages lock on parisc/arm; nothing on
    /// other architectures). Modelled as a lock everywhere, the stricter choice.
    pub flush_dcache: Mutex,
}

/// `struct anon_vma`: a tree of anon_vma_chain nodes; the rwsem of the root anon_vma guards
/// every tree of the hierarchy.
#[derive(Debug, PartialEq, Eq, Hash)]
pub struct AnonVma {
    pub root: u32,
    pub parent: u32,
    pub rb_root: RbRoot,
    pub rwsem: RwSem,
    pub refcount: i64,
    pub num_children: i64,
    pub num_active_vmas: i64,
    pub freed: bool,
}

/// `struct anon_vma_chain`: links one VMA to one anon_vma; sits on the VMA's list and in the
/// anon_vma's tree. `cached_vma_start/last` are the DEBUG_VM_RB copies of the key taken at insert.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Avc {
    pub vma: Option<u32>,
    pub anon_vma: Option<u32>,
    pub cached_vma_start: u64,
    pub cached_vma_last: u64,
    pub freed: bool,
    /// Ghost (reset by the canonical form): inserted into its anon_vma's tree at least once.
    pub linked: bool,
}

clone_by_field!(Mm {
    vmas,
    map_count,
    mmap_lock,
    mm_lock_seq,
    page_table_lock,
    freed,
    ptes,
});
clone_by_field!(Vma {
    vm_mm,
    vm_start,
    vm_end,
    vm_pgoff,
    vm_anon_pgoff,
    vm_flags,
    vm_file,
    has_vm_ops,
    anon_vma,
    anon_vma_chain,
    vm_lock_seq,
    vm_lock_readers,
    detached,
    freed,
    file_linked,
    zapped,
});
clone_by_field!(File {
    name,
    f_mapping,
    dev_zero,
});
clone_by_field!(AddressSpace {
    i_mmap,
    i_mmap_rwsem,
    flush_dcache,
});
clone_by_field!(AnonVma {
    root,
    parent,
    rb_root,
    rwsem,
    refcount,
    num_children,
    num_active_vmas,
    freed,
});
