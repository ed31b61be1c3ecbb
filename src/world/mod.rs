//! Kernel objects (mm, VMA, file, address_space, anon_vma, anon_vma_chain) in arenas with small
//! integer ids, the rmap trees they sit in, and the locks guarding them. A `World` is a search
//! state: cheap to clone, compared and hashed on kernel state only (the per-step scratch record of
//! violations and tree work is excluded).
//!
//! It records invariant violations but never calls the checks (`check`), and names nothing above
//! itself.

pub mod builtins;
pub(crate) mod canon;
pub(crate) mod conc;
pub mod fingerprint;
pub mod keys;
pub mod locks;
pub mod objects;
pub mod pages;
pub(crate) mod reach;
pub mod render;
pub mod scenario;
pub mod schema;
pub mod sorted_map;
pub mod symmetry;
pub mod tree_marks;

pub use keys::{AnonKeys, FileKeys};
pub use objects::{AddressSpace, AnonVma, Avc, File, Mm, Vma};
pub use pages::{AnonFolio, Folio};
pub use schema::schema;

use crate::invariant::{Invariant, Violation};
use crate::tree::TreeStats;
use std::hash::{Hash, Hasher};

/// Tree work done inside the rmap write-side critical sections, for patch-vs-baseline comparison.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct CriticalWork {
    /// Work on file trees (under i_mmap_rwsem for write).
    pub file: TreeStats,
    /// Work on anon trees (under the anon_vma root rwsem for write).
    pub anon: TreeStats,
    /// Tree operations (insert, remove, propagate) on each kind.
    pub file_ops: u64,
    pub anon_ops: u64,
}

/// What builtins record while they run; not part of the search state.
#[derive(Debug, Default)]
pub struct Scratch {
    /// Violations builtins noticed while acting on the world (tree preconditions,
    /// stale-descent, lock discipline), reported by the checker at the step that raised them.
    pub violations: Vec<Violation>,
    pub work: CriticalWork,
    /// Set when something the structural tree checks depend on changed: a tree operation, a
    /// write of a key field, or a lock release (a tree becomes subject to checking).
    pub trees_dirty: bool,
    /// Which trees the step and the call may have changed (`tree_marks`): the structural
    /// checks validate only those.
    pub tree_marks: tree_marks::TreeMarks,
    /// Lock-order edges (held class, acquired class) seen since the last take.
    pub lock_edges: Vec<(conc::LockClass, conc::LockClass)>,
    /// The kernel object of the last field read or write (the interleaving explorer asks which
    /// object a step's field access touched: `explore::interleave::private`).
    pub last_field: Option<(crate::value::ObjKind, u32)>,
}

impl PartialEq for Scratch {
    fn eq(&self, _: &Self) -> bool {
        true
    }
}
impl Eq for Scratch {}
impl Hash for Scratch {
    fn hash<H: Hasher>(&self, _: &mut H) {}
}

/// The whole kernel state a model acts on.
#[derive(Debug, Default, PartialEq, Eq, Hash)]
pub struct World {
    pub mms: Vec<Mm>,
    pub vmas: Vec<Vma>,
    pub files: Vec<File>,
    pub mappings: Vec<AddressSpace>,
    pub anon_vmas: Vec<AnonVma>,
    pub avcs: Vec<Avc>,
    /// Ghost anonymous folios the ptes of `Mm::ptes` refer to (`src/world/pages.rs`).
    pub anon_folios: Vec<AnonFolio>,
    /// Ghost records of rmap walks in progress (concurrent checks only; empty otherwise).
    pub walks: Vec<conc::WalkRecord>,
    /// Ghost records of per-VMA read-lock holders and the bounds they locked.
    pub sections: Vec<conc::ReadSection>,
    pub scratch: Scratch,
}

objects::clone_by_field!(Scratch {
    violations,
    work,
    trees_dirty,
    tree_marks,
    lock_edges,
    last_field,
});

impl Scratch {
    /// Back to the empty record ([`Scratch::default`]), keeping the allocations.
    pub(crate) fn clear(&mut self) {
        let Scratch {
            violations,
            work,
            trees_dirty,
            tree_marks,
            lock_edges,
            last_field,
        } = self;
        violations.clear();
        *work = Default::default();
        *trees_dirty = false;
        *tree_marks = Default::default();
        lock_edges.clear();
        *last_field = None;
    }
}

objects::clone_by_field!(World {
    mms,
    vmas,
    files,
    mappings,
    anon_vmas,
    avcs,
    anon_folios,
    walks,
    sections,
    scratch,
});

impl World {
    pub fn new() -> Self {
        Self::default()
    }

    /// Record a violation noticed by a builtin.
    pub fn violate(&mut self, invariant: Invariant, message: impl Into<String>) {
        self.scratch
            .violations
            .push(Violation::new(invariant, message));
    }

    /// Take the violations recorded since the last call.
    pub fn take_violations(&mut self) -> Vec<Violation> {
        std::mem::take(&mut self.scratch.violations)
    }

    pub fn add_mm(&mut self) -> u32 {
        self.mms.push(Mm {
            vmas: Default::default(),
            map_count: 0,
            mmap_lock: Default::default(),
            mm_lock_seq: 0,
            page_table_lock: Default::default(),
            freed: false,
            ptes: Default::default(),
        });
        (self.mms.len() - 1) as u32
    }

    /// A file with its own address_space. `dev_zero` makes private mappings of it anonymous.
    pub fn add_file(&mut self, name: &str, dev_zero: bool) -> u32 {
        self.mappings.push(AddressSpace::default());
        self.files.push(File {
            name: name.to_string(),
            f_mapping: (self.mappings.len() - 1) as u32,
            dev_zero,
        });
        (self.files.len() - 1) as u32
    }

    /// A fresh VMA, zeroed, belonging to `mm` but in no list or tree.
    pub fn alloc_vma(&mut self, mm: Option<u32>) -> u32 {
        self.vmas.push(Vma {
            vm_mm: mm,
            vm_start: 0,
            vm_end: 0,
            vm_pgoff: 0,
            vm_anon_pgoff: 0,
            vm_flags: 0,
            vm_file: None,
            has_vm_ops: false,
            anon_vma: None,
            anon_vma_chain: Vec::new(),
            vm_lock_seq: None,
            vm_lock_readers: 0,
            detached: false,
            freed: false,
            file_linked: false,
            zapped: false,
        });
        (self.vmas.len() - 1) as u32
    }

    /// A fresh anon_vma that is its own root and parent, refcount 1.
    pub fn alloc_anon_vma(&mut self) -> u32 {
        let id = self.anon_vmas.len() as u32;
        self.anon_vmas.push(AnonVma {
            root: id,
            parent: id,
            rb_root: Default::default(),
            rwsem: Default::default(),
            refcount: 1,
            num_children: 0,
            num_active_vmas: 0,
            freed: false,
        });
        id
    }

    pub fn alloc_avc(&mut self) -> u32 {
        self.avcs.push(Avc {
            vma: None,
            anon_vma: None,
            cached_vma_start: 0,
            cached_vma_last: 0,
            freed: false,
            linked: false,
        });
        (self.avcs.len() - 1) as u32
    }

    /// The address_space a VMA's file maps, if it has a file.
    pub(crate) fn vma_mapping(&self, vma: u32) -> Option<u32> {
        self.vmas[vma as usize]
            .vm_file
            .map(|f| self.files[f as usize].f_mapping)
    }

    /// Whether a VMA is live: not freed, not detached, and listed in its mm.
    pub(crate) fn vma_live(&self, v: u32) -> bool {
        let Some(vma) = self.vmas.get(v as usize) else {
            return false;
        };
        !vma.freed
            && !vma.detached
            && vma.vm_mm.is_some_and(|m| {
                self.mms[m as usize]
                    .vmas
                    .get(&vma.vm_start)
                    .is_some_and(|&(_, x)| x == v)
            })
    }

    /// Whether `kind#id` names a live object of this world (a VMA must also be in its mm).
    pub(crate) fn object_live(&self, kind: crate::exec::host::ObjKind, id: u32) -> bool {
        use crate::exec::host::ObjKind as K;
        let i = id as usize;
        match kind {
            K::Mm => self.mms.get(i).is_some_and(|m| !m.freed),
            K::Vma => self.vma_live(id),
            K::File => i < self.files.len(),
            K::Mapping => i < self.mappings.len(),
            K::AnonVma => self.anon_vmas.get(i).is_some_and(|a| !a.freed),
            K::Avc => self.avcs.get(i).is_some_and(|a| !a.freed),
        }
    }

    /// Whether a VMA of `mm` overlaps the page range `[s, e)`.
    pub(crate) fn mm_overlaps(&self, mm: u32, s: u64, e: u64) -> bool {
        self.mms[mm as usize]
            .vmas
            .iter()
            .any(|(&vs, &(ve, _))| vs < e && ve > s)
    }

    /// The VMAs of `mm` in address order, as its VMA list (maple tree) holds them.
    pub fn mm_vmas(&self, mm: u32) -> Vec<u32> {
        self.mms[mm as usize]
            .vmas
            .values()
            .map(|&(_, v)| v)
            .collect()
    }

    /// Store `vma` in its mm's VMA list at its current range, overwriting what the range
    /// covers, as `vma_iter_store()` does on the maple tree.
    pub fn mm_store(&mut self, mm: u32, vma: u32) {
        let (s, e) = {
            let v = &self.vmas[vma as usize];
            (v.vm_start, v.vm_end)
        };
        self.mm_clear(mm, s, e);
        self.mms[mm as usize].vmas.insert(s, (e, vma));
    }

    /// Remove the range `[start, end)` from an mm's VMA list, trimming entries that straddle it.
    pub fn mm_clear(&mut self, mm: u32, start: u64, end: u64) {
        use std::ops::Bound::{Excluded, Unbounded};
        let map = &mut self.mms[mm as usize].vmas;
        // the entries starting below `end`, in address order; what the loop inserts is at a
        // start already passed or at `end`, so the entries it visits are the ones there were
        let mut after = Unbounded;
        loop {
            let next = map.range((after, Excluded(end))).next();
            let Some((s, e, v)) = next.map(|(&s, &(e, v))| (s, e, v)) else {
                break;
            };
            after = Excluded(s);
            if e <= start {
                continue;
            }
            map.remove(&s);
            if s < start {
                map.insert(s, (start, v));
            }
            if e > end {
                map.insert(end, (e, v));
            }
        }
    }
}
