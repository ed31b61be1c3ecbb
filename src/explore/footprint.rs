//! Footprints for the partial-order reduction of the interleaving explorer: which parts of the
//! world (resource classes) an instruction reads or writes, and the static footprint of a whole
//! thread (every instruction reachable from its entry function through calls).
//!
//! Classes are coarse on purpose: they ignore object identity (a write of `vma#1->vm_start`
//! conflicts with a read of `vma#2->vm_end`), which can only make more steps dependent, never
//! fewer. Two steps are *independent* when no class is written by one and read or written by
//! the other; independent steps commute (same world either order) and neither enables nor
//! disables the other, because every step that can block reads the lock class it waits on and
//! every step that changes that lock writes it. Read-lock acquire and release count as reads of
//! the lock (readers commute among themselves); write acquire and release count as writes.
//!
//! The ghost checks are part of this: a walk's begin, found and end read every class its oracle
//! reads (`OBSERVED`), and a per-VMA read lock's start and end read the bounds, so a writer step
//! that changes what a check looks at is never independent of a thread that checks it. So are
//! the per-step structural tree checks, which skip a tree while its write-side lock is held by
//! any thread: taking or dropping such a lock reads every class those checks read
//! (`TREE_CHECKED`), so a step that changes a tree is never independent of a step that decides
//! whether the tree is checked.

use crate::lang::program::{FuncId, Op};
use crate::lang::Program;
use std::collections::BTreeSet;

/// A resource class of the world.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Class {
    /// vm_start, vm_end, vm_pgoff.
    Bounds,
    VmFlags,
    /// vm_file, vm_mm, vm_ops (what a VMA maps and where it belongs).
    VmaLinks,
    /// The mm's VMA list (maple tree).
    MmList,
    MapCount,
    /// detached / freed / zapped.
    Lifecycle,
    FileTree,
    AnonTree,
    /// anon_vma_chain lists and the AVC <-> VMA/anon_vma links, vma->anon_vma.
    AnonChain,
    AvcCache,
    /// anon_vma root/parent/counters/refcount.
    AnonMeta,
    /// Allocation of new objects (arena growth).
    Alloc,
    MmapLock,
    /// vm_lock_seq, per-VMA reader bits (and mm_lock_seq, which ends VMA write locks).
    VmaLock,
    IMmap,
    Flush,
    AnonLock,
    /// `mm->page_table_lock`.
    PageTable,
    /// The ghost page tables (each mm's ptes) and folios.
    Ptes,
    /// Anything (an unknown builtin).
    All,
}

impl Class {
    /// Every class, in declaration order.
    pub(crate) const ALL_CLASSES: [Class; 20] = [
        Class::Bounds,
        Class::VmFlags,
        Class::VmaLinks,
        Class::MmList,
        Class::MapCount,
        Class::Lifecycle,
        Class::FileTree,
        Class::AnonTree,
        Class::AnonChain,
        Class::AvcCache,
        Class::AnonMeta,
        Class::Alloc,
        Class::MmapLock,
        Class::VmaLock,
        Class::IMmap,
        Class::Flush,
        Class::AnonLock,
        Class::PageTable,
        Class::Ptes,
        Class::All,
    ];
}

/// How a class is touched.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Mode {
    Read,
    Write,
}

/// A set of (class, mode): one bit per class for reads and one for writes.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Footprint {
    read: u32,
    write: u32,
}

impl Footprint {
    pub(crate) fn new() -> Self {
        Footprint::default()
    }

    fn bit(c: Class) -> u32 {
        1 << (c as u32)
    }

    pub(crate) fn insert(&mut self, (c, m): (Class, Mode)) {
        match m {
            Mode::Read => self.read |= Self::bit(c),
            Mode::Write => self.write |= Self::bit(c),
        }
    }

    pub(crate) fn remove(&mut self, (c, m): (Class, Mode)) {
        match m {
            Mode::Read => self.read &= !Self::bit(c),
            Mode::Write => self.write &= !Self::bit(c),
        }
    }

    pub(crate) fn contains(&self, (c, m): (Class, Mode)) -> bool {
        let set = match m {
            Mode::Read => self.read,
            Mode::Write => self.write,
        };
        set & Self::bit(c) != 0
    }

    pub(crate) fn is_empty(&self) -> bool {
        self.read | self.write == 0
    }

    /// Every (class, mode) of `other` added.
    pub(crate) fn union(&mut self, other: Footprint) {
        self.read |= other.read;
        self.write |= other.write;
    }

    /// Touches `All` in some mode.
    pub(crate) fn touches_all(&self) -> bool {
        self.all()
    }

    /// Touches `All` in some mode.
    fn all(&self) -> bool {
        (self.read | self.write) & Self::bit(Class::All) != 0
    }
}

impl FromIterator<(Class, Mode)> for Footprint {
    fn from_iter<I: IntoIterator<Item = (Class, Mode)>>(iter: I) -> Self {
        let mut f = Footprint::new();
        for x in iter {
            f.insert(x);
        }
        f
    }
}

impl Extend<(Class, Mode)> for Footprint {
    fn extend<I: IntoIterator<Item = (Class, Mode)>>(&mut self, iter: I) {
        for x in iter {
            self.insert(x);
        }
    }
}

/// The classes the ghost walk oracle reads (see `World::mapping_vmas`, `World::observe`): the
/// VMAs and trees a walk must reach, the ptes it must reach them for, and the flags that
/// excuse a pte (a stack whose setup is incomplete).
pub(crate) const OBSERVED: [Class; 9] = [
    Class::Bounds,
    Class::VmFlags,
    Class::Ptes,
    Class::VmaLinks,
    Class::MmList,
    Class::Lifecycle,
    Class::FileTree,
    Class::AnonTree,
    Class::AnonChain,
];

/// The classes the per-step structural tree checks read (shapes, keys and what they are read
/// through, cached keys, the anon_vma root whose lock guards a tree): see `tree_lock`.
pub const TREE_CHECKED: [Class; 9] = [
    Class::Bounds,
    Class::VmaLinks,
    Class::MmList,
    Class::Lifecycle,
    Class::FileTree,
    Class::AnonTree,
    Class::AnonChain,
    Class::AvcCache,
    Class::AnonMeta,
];

/// The footprint of taking or dropping a tree's write-side lock `lock`: a write of the lock,
/// and a read of every class the per-step structural check reads. Whether a thread holds
/// such a lock decides whether that check looks at the tree at all, so the step changes
/// what is checked at every later step: a writer step that changes a tree or its keys must
/// not be deemed independent of it, or the reduction could explore only the orders in which
/// a transient breakage happens while the tree counts as locked.
fn tree_lock(lock: Class) -> Vec<(Class, Mode)> {
    std::iter::once((lock, Mode::Write))
        .chain(TREE_CHECKED.iter().map(|&c| (c, Mode::Read)))
        .collect()
}

/// The class of a field name; `None` for a name no kernel struct has (a model-local struct's
/// field, which never reaches the world). A kernel field this table does not know is `All`.
fn field_class(f: &str) -> Option<Class> {
    Some(match f {
        "vm_start" | "vm_end" | "vm_pgoff" | "vm_anon_pgoff" => Class::Bounds,
        "vm_flags" => Class::VmFlags,
        "vm_file" | "vm_mm" => Class::VmaLinks,
        "anon_vma" | "vma" => Class::AnonChain,
        "cached_vma_start" | "cached_vma_last" => Class::AvcCache,
        "map_count" => Class::MapCount,
        "root" | "parent" | "refcount" | "num_children" | "num_active_vmas" => Class::AnonMeta,
        // read-only (f_mapping) or a local struct's field: never written by a shared step
        "f_mapping" => Class::VmaLinks,
        _ if kernel_field(f) => Class::All,
        _ => return None,
    })
}

fn kernel_field(f: &str) -> bool {
    use std::sync::OnceLock;
    static NAMES: OnceLock<BTreeSet<String>> = OnceLock::new();
    NAMES
        .get_or_init(|| {
            crate::world::schema()
                .structs
                .values()
                .flat_map(|fs| fs.iter().map(|d| d.name.clone()))
                .collect()
        })
        .contains(f)
}

/// The classes a builtin touches.
pub(crate) fn builtin_footprint(name: &str) -> Footprint {
    use Class::*;
    use Mode::*;
    let v: Vec<(Class, Mode)> = match name {
        "mapping_rmap_tree_insert" | "mapping_rmap_tree_insert_after" => {
            vec![(FileTree, Write), (Bounds, Read), (VmaLinks, Read)]
        }
        "mapping_rmap_tree_propagate" => {
            vec![(FileTree, Write), (Bounds, Read), (VmaLinks, Read)]
        }
        // a remove also reads the mmap_lock and the mm's list (the unlink-reachable rule)
        "mapping_rmap_tree_remove" => vec![
            (FileTree, Write),
            (Bounds, Read),
            (VmaLinks, Read),
            (MmapLock, Read),
            (MmList, Read),
        ],
        "mapping_rmap_tree_iter_first" | "mapping_rmap_tree_iter_next" => {
            vec![(FileTree, Read), (Bounds, Read), (VmaLinks, Read)]
        }
        "anon_rmap_tree_insert" | "anon_rmap_tree_propagate" => vec![
            (AnonTree, Write),
            (Bounds, Read),
            (AnonChain, Read),
            (AvcCache, Write),
            (AnonMeta, Read),
        ],
        "anon_rmap_tree_remove" => vec![
            (AnonTree, Write),
            (Bounds, Read),
            (AnonChain, Read),
            (AvcCache, Write),
            (AnonMeta, Read),
            (MmapLock, Read),
            (MmList, Read),
        ],
        "anon_rmap_tree_iter_first" | "anon_rmap_tree_iter_next" | "anon_rmap_tree_empty" => {
            vec![
                (AnonTree, Read),
                (Bounds, Read),
                (AnonChain, Read),
                (AnonMeta, Read),
            ]
        }
        // a tree's write-side locks decide whether the per-step structural check looks at it
        // (`check::structure` skips a tree while one is held, by any thread): taking or
        // dropping one reads what that check reads (`TREE_CHECKED`)
        "i_mmap_lock_write" | "i_mmap_unlock_write" => tree_lock(IMmap),
        "i_mmap_lock_read" | "i_mmap_unlock_read" => vec![(IMmap, Read)],
        "flush_dcache_mmap_lock" | "flush_dcache_mmap_unlock" => tree_lock(Flush),
        "anon_vma_lock_write" | "anon_vma_unlock_write" => tree_lock(AnonLock),
        "anon_vma_lock_read" | "anon_vma_unlock_read" => vec![(AnonLock, Read), (AnonMeta, Read)],
        "mmap_write_lock" => vec![(MmapLock, Write)],
        "mmap_write_unlock" | "mmap_write_downgrade" => vec![(MmapLock, Write), (VmaLock, Write)],
        "mmap_read_lock" | "mmap_read_unlock" | "mmap_read_trylock" | "mmap_assert_locked" => {
            vec![(MmapLock, Read)]
        }
        "page_table_lock" | "page_table_unlock" => vec![(PageTable, Write)],
        "vma_start_write" => vec![(VmaLock, Write), (MmapLock, Read), (Lifecycle, Read)],
        "vma_start_read" | "vma_end_read" => vec![
            (VmaLock, Read),
            (Bounds, Read),
            (Lifecycle, Read),
            (VmaLinks, Read),
        ],
        "vma_assert_write_locked" => vec![(VmaLock, Read), (MmapLock, Read)],
        "mm_alloc" | "vm_area_alloc" | "anon_vma_alloc" | "anon_vma_chain_alloc" => {
            vec![(Alloc, Write)]
        }
        "vm_area_dup" => vec![
            (Alloc, Write),
            (Bounds, Read),
            (VmFlags, Read),
            (VmaLinks, Read),
            (AnonChain, Read),
        ],
        "mas_detach_first" | "mas_detach_next" => {
            vec![(Lifecycle, Read), (Bounds, Read), (VmaLinks, Read)]
        }
        "vm_area_free" | "vma_mark_detached" | "vma_mark_attached" | "anon_vma_chain_free" => {
            vec![(Lifecycle, Write)]
        }
        // marks the VMA zapped and clears the ghost ptes of its range in its mm
        "unmap_vmas" => vec![
            (Lifecycle, Write),
            (Bounds, Read),
            (VmaLinks, Read),
            (Ptes, Write),
        ],
        "get_anon_vma" | "put_anon_vma" => {
            vec![(AnonMeta, Write), (Lifecycle, Write), (AnonTree, Read)]
        }
        "vma_iter_store" | "vma_iter_clear" => vec![(MmList, Write), (Bounds, Read)],
        "vma_first" | "find_vma" | "vma_lookup" | "vma_next" | "vma_prev" => {
            vec![(MmList, Read)]
        }
        "vma_is_anonymous" => vec![(VmaLinks, Read)],
        "vma_set_anonymous" | "call_mmap" => vec![(VmaLinks, Write), (VmFlags, Read)],
        "vma_pages"
        | "vma_start_pgoff"
        | "vma_last_pgoff"
        | "vma_start_anon_pgoff"
        | "vma_last_anon_pgoff" => vec![(Bounds, Read)],
        "anon_vma_chain_is_singular" => vec![(AnonChain, Read)],
        "anon_vma_chain_list_add" | "anon_vma_chain_list_del" => vec![(AnonChain, Write)],
        "rmap_walk_file_begin" | "rmap_walk_anon_begin" | "rmap_walk_found" | "rmap_walk_end" => {
            OBSERVED.iter().map(|&c| (c, Read)).collect()
        }
        // the zaps clear ghost ptes, which the walk oracle reads
        "zap_page_range_single" => vec![
            (Bounds, Read),
            (Lifecycle, Read),
            (VmaLinks, Read),
            (Ptes, Write),
        ],
        _ => vec![(All, Write)],
    };
    let mut fp: Footprint = v.into_iter().collect();
    // a builtin given a freed object faults ("use of freed vma#N", a freed tree node): every
    // one reads whether its arguments are alive
    fp.insert((Lifecycle, Read));
    fp
}

/// The classes one instruction touches when it reaches the world (empty for local ones).
pub(crate) fn op_footprint(prog: &Program, op: &Op) -> Footprint {
    match op {
        // by name, local struct fields included, as the footprints were first defined
        Op::ReadField(f) => field_class(prog.any_field_name(*f))
            .map(|c| (c, Mode::Read))
            .into_iter()
            .collect(),
        Op::WriteField(f) => {
            let mut fp: Footprint = field_class(prog.any_field_name(*f))
                .map(|c| (c, Mode::Write))
                .into_iter()
                .collect();
            if fp.contains((Class::Bounds, Mode::Write)) {
                // the world asserts the VMA write lock when the VMA is in its mm
                fp.extend([
                    (Class::VmaLock, Mode::Read),
                    (Class::MmapLock, Mode::Read),
                    (Class::MmList, Mode::Read),
                ]);
            }
            if fp.contains((Class::AnonChain, Mode::Write)) {
                // a write of vma->anon_vma checks the writing thread's own locks, and whether
                // the VMA is still in its mm's list (`World::in_mm_list`)
                fp.insert((Class::MmList, Mode::Read));
            }
            fp
        }
        Op::Builtin(id, _) => builtin_footprint(prog.builtin_name(*id)),
        Op::ListFirst(_) | Op::ListNext(_) | Op::ListLast(_) | Op::ListPrev(_) => {
            [(Class::AnonChain, Mode::Read)].into_iter().collect()
        }
        _ => Footprint::new(),
    }
}

/// Every class any instruction reachable from `entry` may touch.
pub(crate) fn static_footprint(prog: &Program, entry: FuncId) -> Footprint {
    reachable_join(prog, entry, |f, pc| {
        op_footprint(prog, &prog.func(f).code[pc].op)
    })
}

/// [`static_footprint`] over the instruction footprints `ops[f][pc]`.
pub(super) fn static_of(prog: &Program, entry: FuncId, ops: &[Vec<Footprint>]) -> Footprint {
    reachable_join(prog, entry, |f, pc| ops[f.0 as usize][pc])
}

/// The join of `op(f, pc)` over every instruction of every function reachable from `entry`
/// through calls.
fn reachable_join(
    prog: &Program,
    entry: FuncId,
    op: impl Fn(FuncId, usize) -> Footprint,
) -> Footprint {
    let mut seen: BTreeSet<FuncId> = BTreeSet::new();
    let mut todo = vec![entry];
    let mut out = Footprint::new();
    while let Some(f) = todo.pop() {
        if !seen.insert(f) {
            continue;
        }
        for (pc, i) in prog.func(f).code.iter().enumerate() {
            if let Op::Call(g, _) = &i.op {
                todo.push(*g);
            }
            out.union(op(f, pc));
        }
    }
    out
}

/// Whether two footprints conflict: a class written by one and touched by the other (`All`
/// conflicts with everything).
pub(crate) fn conflict(a: &Footprint, b: &Footprint) -> bool {
    if (a.all() && !b.is_empty()) || (b.all() && !a.is_empty()) {
        return true;
    }
    // a class written by one and read or written by the other
    (a.write & (b.read | b.write)) | (a.read & b.write) != 0
}

mod table;
pub use table::Table;

#[cfg(test)]
mod tests {
    use super::*;

    /// `Class::ALL_CLASSES` lists every class once, in declaration order, `All` last.
    #[test]
    fn all_classes_lists_the_enum() {
        assert_eq!(Class::ALL_CLASSES.len(), Class::All as usize + 1);
        for (i, c) in Class::ALL_CLASSES.iter().enumerate() {
            assert_eq!(*c as usize, i, "{c:?}");
        }
    }
}
