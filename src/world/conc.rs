//! Ghost state for the concurrent checks: what an rmap walk in progress must find, the bounds a
//! per-VMA read-lock holder locked, and the lock classes a thread holds (for the lock-order
//! graph). None of it changes what a model computes; the interleaving explorer reads it after
//! every step, and the canonical form of a world drops it (the sequential search never sees it).
//!
//! "Maps pgoff p" (the concurrent `walker-complete` oracle): a VMA that is in its mm's VMA list,
//! neither detached, freed nor zapped (`unmap_vmas`), covers p with its current vm_pgoff and
//! size, and has been reachable by the rmap before (file: inserted in its file's tree at least
//! once; anon: one of its AVCs on the walked anon_vma inserted at least once). The last condition
//! stands for "a page can have been faulted in through it": a fault needs the VMA visible to
//! faults, which mmap allows only after linking it, under the mmap write lock.
//!
//! A walk must find every VMA that maps its pgoff at every state from its begin to its end;
//! a missed VMA is excused when the walk reached the same page (same mm and address) through
//! another VMA, as after the early link of the other half of a split. Reaching a freed VMA, or
//! one that does not map the pgoff, is a violation at once; reaching a detached one is not (a
//! munmap unlinks the rmap of the VMAs it detached only after the mmap_lock downgrade).

use super::World;
use crate::exec::host::ThreadId;
use crate::invariant::Invariant;
use std::collections::BTreeSet;

/// What a walk iterates.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum WalkTarget {
    /// The file tree of a mapping (`address_space` id).
    File(u32),
    /// The tree of an anon_vma.
    Anon(u32),
}

/// One rmap walk in progress (from `rmap_walk_*_begin` to `rmap_walk_end`).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct WalkRecord {
    pub tid: ThreadId,
    pub target: WalkTarget,
    pub pgoff: u64,
    /// VMAs that have mapped `pgoff` at every state since the walk began.
    pub required: BTreeSet<u32>,
    /// (mm, address) of the page through each required VMA when the walk began.
    pub required_at: Vec<(u32, (u32, u64))>,
    /// Ghost ptes `(mm, address, folio, reached)` that map the walked folio and have done so at
    /// every state since the walk began (a pte moved by mremap's `move_page_tables` keeps its
    /// entry at its new address): each must be reached (`rmap-complete`), that is, reported
    /// through a VMA whose address for the page was the pte's address at that moment.
    pub required_ptes: Vec<(u32, u64, super::Folio, bool)>,
    /// VMAs the walk reported.
    pub found: BTreeSet<u32>,
    /// (mm, address) of the page through each VMA reported, when it was reported.
    pub found_at: BTreeSet<(u32, u64)>,
    /// The walk has ended (the record stays, as the walker's outcome).
    pub done: bool,
}

/// A per-VMA read lock held (from a successful `vma_start_read` to `vma_end_read`), with the
/// VMA's (vm_start, vm_end, vm_pgoff) when it was taken.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct ReadSection {
    pub tid: ThreadId,
    pub vma: u32,
    pub bounds: (u64, u64, u64),
}

/// Lock classes of the lock-order graph, in the order documented at the top of mm/rmap.c
/// (restated): mmap_lock, then the per-VMA lock (not in that comment: taken under the mmap
/// lock by writers, instead of it by readers), then i_mmap_rwsem, then the anon_vma root rwsem,
/// then `mm->page_table_lock`, then the i_pages lock that `flush_dcache_mmap_lock()` takes on
/// arm/parisc.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum LockClass {
    MmapLock,
    VmaLock,
    IMmapRwsem,
    AnonVmaRwsem,
    PageTableLock,
    FlushDcache,
}

/// A set of lock classes, one bit per class; walked in the documented order (outermost first).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct LockClasses(u8);

impl LockClasses {
    pub(crate) fn insert(&mut self, c: LockClass) {
        self.0 |= 1 << c.rank();
    }

    /// The classes in the set, outermost first.
    pub(crate) fn iter(self) -> impl Iterator<Item = LockClass> {
        LockClass::ALL
            .into_iter()
            .filter(move |c| self.0 & (1 << c.rank()) != 0)
    }
}

impl LockClass {
    pub const ALL: [LockClass; 6] = [
        LockClass::MmapLock,
        LockClass::VmaLock,
        LockClass::IMmapRwsem,
        LockClass::AnonVmaRwsem,
        LockClass::PageTableLock,
        LockClass::FlushDcache,
    ];

    /// Position in the documented order (outermost first).
    pub(crate) fn rank(self) -> usize {
        self as usize
    }

    pub fn name(self) -> &'static str {
        match self {
            LockClass::MmapLock => "mmap_lock",
            LockClass::VmaLock => "vma_lock",
            LockClass::IMmapRwsem => "i_mmap_rwsem",
            LockClass::AnonVmaRwsem => "anon_vma_rwsem",
            LockClass::PageTableLock => "page_table_lock",
            LockClass::FlushDcache => "flush_dcache(i_pages)",
        }
    }
}

impl World {
    /// Whether a thread could find VMA `v` in the world: it is in some mm's VMA list, it was
    /// ever in its file's rmap tree, an anon_vma_chain of it was ever in an anon_vma's tree,
    /// it is detached and not freed (`mas_detach_first` finds such VMAs by their mm), or a
    /// walk or per-VMA read section records it. (A VMA none of this holds is reachable only
    /// through the values a thread already holds.)
    pub(crate) fn vma_published(&self, v: u32) -> bool {
        self.vmas
            .get(v as usize)
            .is_none_or(|x| x.file_linked || (x.detached && !x.freed))
            || self
                .mms
                .iter()
                .any(|mm| mm.vmas.values().any(|&(_, x)| x == v))
            || self.avcs.iter().any(|c| c.linked && c.vma == Some(v))
            || self
                .walks
                .iter()
                .any(|w| w.required.contains(&v) || w.found.contains(&v))
            || self.sections.iter().any(|s| s.vma == v)
    }

    pub(crate) fn in_mm_list(&self, v: u32) -> bool {
        self.vmas[v as usize]
            .vm_mm
            .and_then(|m| self.mms.get(m as usize))
            .is_some_and(|mm| mm.vmas.values().any(|&(_, x)| x == v))
    }

    /// The page offset of `v` a walk of `target` compares with: the file pgoff for a file walk,
    /// the anonymous pgoff (the anon tree's key, v7.3-rc4) for an anon walk.
    fn walk_base(&self, v: u32, target: WalkTarget) -> u64 {
        self.vmas[v as usize].pgoff_for(matches!(target, WalkTarget::Anon(_)))
    }

    fn vma_covers(&self, v: u32, target: WalkTarget, p: u64) -> bool {
        let x = &self.vmas[v as usize];
        let base = self.walk_base(v, target);
        x.vm_start < x.vm_end && base <= p && p < base + x.pages()
    }

    /// The VMAs that map `pgoff` of `target` now (see the module documentation).
    pub(crate) fn mapping_vmas(&self, target: WalkTarget, pgoff: u64) -> BTreeSet<u32> {
        (0..self.vmas.len() as u32)
            .filter(|&v| {
                let x = &self.vmas[v as usize];
                if x.freed || x.detached || x.zapped || !self.in_mm_list(v) {
                    return false;
                }
                if !self.vma_covers(v, target, pgoff) {
                    return false;
                }
                match target {
                    WalkTarget::File(m) => x.file_linked && self.vma_mapping(v) == Some(m),
                    WalkTarget::Anon(a) => x.anon_vma_chain.iter().any(|&c| {
                        let c = &self.avcs[c as usize];
                        !c.freed && c.linked && c.anon_vma == Some(a)
                    }),
                }
            })
            .collect()
    }

    /// Set the "linked" ghost flags from what the trees hold now; called when a concurrent
    /// exploration starts from a world whose history is unknown (a scenario or a canonical
    /// state). Walk and section records are cleared.
    pub(crate) fn init_ghosts(&mut self) {
        for v in 0..self.vmas.len() {
            let linked = self.mappings.iter().any(|m| m.i_mmap.contains(v as u32));
            self.vmas[v].file_linked |= linked;
        }
        for c in 0..self.avcs.len() {
            let linked = self
                .anon_vmas
                .iter()
                .any(|a| !a.freed && a.rb_root.contains(c as u32));
            self.avcs[c].linked |= linked;
        }
        self.walks.clear();
        self.sections.clear();
    }

    /// After every step of a concurrent run: narrow each walk's required set to what maps its
    /// pgoff now, and check that every per-VMA read-lock holder's VMA kept its bounds.
    pub fn observe(&mut self) {
        for i in 0..self.walks.len() {
            if self.walks[i].done {
                continue;
            }
            let (t, p) = (self.walks[i].target, self.walks[i].pgoff);
            let now = self.mapping_vmas(t, p);
            self.walks[i].required.retain(|v| now.contains(v));
            let mut ptes = std::mem::take(&mut self.walks[i].required_ptes);
            ptes.retain(|&(m, a, f, _)| {
                self.mms[m as usize].ptes.get(&a) == Some(&f) && !self.temporary_stack(m, a)
            });
            self.walks[i].required_ptes = ptes;
        }
        let mut bad = Vec::new();
        for s in &self.sections {
            let x = &self.vmas[s.vma as usize];
            let now = (x.vm_start, x.vm_end, x.vm_pgoff);
            if now != s.bounds {
                bad.push(format!(
                    "thread {} holds the per-VMA read lock of vma#{} taken at [{}, {}) pgoff {}, \
                     but it is now [{}, {}) pgoff {}",
                    s.tid, s.vma, s.bounds.0, s.bounds.1, s.bounds.2, now.0, now.1, now.2
                ));
            }
        }
        for m in bad {
            self.violate(Invariant::VmaLockStable, m);
        }
    }

    pub(crate) fn walk_begin(&mut self, t: ThreadId, target: WalkTarget, pgoff: u64) {
        self.walks.retain(|w| w.tid != t);
        let required = self.mapping_vmas(target, pgoff);
        let required_at = required
            .iter()
            .filter_map(|&v| Some((v, self.page_address(v, target, pgoff)?)))
            .collect();
        // Page-level completeness is what the rmap locks give a walk: mremap's pte move takes
        // them (take_rmap_locks) when the walk's order alone would not find the page. A file
        // walk under only the flush_dcache lock (flush_dcache_folio on parisc and arm) is not
        // excluded by that move, and does not need to be: move_page_tables() flushes the old
        // range (flush_cache_range) before it moves the ptes (mm/mremap.c, v7.3-rc7). Such a
        // walk is held to finding the VMAs (`walker-complete`), not each pte.
        let pages = match target {
            WalkTarget::File(m) => self.mappings[m as usize].i_mmap_rwsem.held_by(t),
            WalkTarget::Anon(_) => true,
        };
        let required_ptes = if pages {
            self.ptes_of(target, pgoff)
                .into_iter()
                .map(|(m, a, f)| (m, a, f, false))
                .collect()
        } else {
            Vec::new()
        };
        // kept in thread order, so that the order in which the walks began is not part of
        // the state (two walkers beginning in either order reach one state)
        let at = self.walks.partition_point(|w| w.tid < t);
        self.walks.insert(
            at,
            WalkRecord {
                tid: t,
                target,
                pgoff,
                required,
                required_at,
                required_ptes,
                found: BTreeSet::new(),
                found_at: BTreeSet::new(),
                done: false,
            },
        );
    }

    pub(crate) fn walk_found(&mut self, t: ThreadId, v: u32) -> Result<(), String> {
        let Some(i) = self.walks.iter().position(|w| w.tid == t && !w.done) else {
            return Err("rmap_walk_found outside a walk".into());
        };
        let (p, target) = (self.walks[i].pgoff, self.walks[i].target);
        let x = &self.vmas[v as usize];
        // A detached VMA that is not freed yet is fine: munmap detaches at the gather and
        // unlinks the rmap only later, after the mmap_lock downgrade (v7.3), and the kernel's
        // walks do find such a VMA (its memory lives until remove_vma()).
        let what = if x.freed {
            Some("freed")
        } else if !self.vma_covers(v, target, p) {
            Some("not mapping it")
        } else {
            None
        };
        if let Some(what) = what {
            self.violate(
                Invariant::WalkerComplete,
                format!("walk for pgoff {p} by thread {t} found vma#{v}, which is {what}"),
            );
        }
        self.walks[i].found.insert(v);
        if let Some(at) = self.page_address(v, target, p) {
            self.walks[i].found_at.insert(at);
            for r in self.walks[i].required_ptes.iter_mut() {
                if (r.0, r.1) == at && self.mms[at.0 as usize].ptes.get(&at.1) == Some(&r.2) {
                    r.3 = true;
                }
            }
        }
        Ok(())
    }

    pub(crate) fn walk_end(&mut self, t: ThreadId) -> Result<(), String> {
        let Some(i) = self.walks.iter().position(|w| w.tid == t && !w.done) else {
            return Err("rmap_walk_end outside a walk".into());
        };
        self.walks[i].done = true;
        let w = self.walks[i].clone();
        // a VMA counts as found when the walk reached its page at the same (mm, address)
        // through another VMA (the other half of a split, linked before this one moved)
        let missed: Vec<String> = w
            .required
            .iter()
            .filter(|&&v| !w.found.contains(&v))
            .filter(|&&v| {
                !w.required_at
                    .iter()
                    .any(|(x, at)| *x == v && w.found_at.contains(at))
            })
            .map(|v| format!("vma#{v}"))
            .collect();
        let lost: Vec<String> = w
            .required_ptes
            .iter()
            .filter(|&&(_, _, _, reached)| !reached)
            .map(|&(m, a, f, _)| format!("pte (mm#{m}, address {a}) of {}", self.describe_folio(f)))
            .collect();
        if !lost.is_empty() {
            self.violate(
                Invariant::RmapComplete,
                format!(
                    "the walk at pgoff {} (thread {t}) did not reach {}, mapped throughout the walk",
                    w.pgoff,
                    lost.join(", ")
                ),
            );
        }
        if !missed.is_empty() {
            let what = match w.target {
                WalkTarget::File(m) => format!("file walk of mapping#{m}"),
                WalkTarget::Anon(a) => format!("anon walk of anon_vma#{a}"),
            };
            self.violate(
                Invariant::WalkerComplete,
                format!(
                    "{what} at pgoff {} (thread {t}) missed {}, which mapped it throughout the walk",
                    w.pgoff,
                    missed.join(", ")
                ),
            );
        }
        Ok(())
    }

    /// Whether `addr` of `mm` lies in exec's stack while it is being moved
    /// (`VM_STACK_INCOMPLETE_SETUP`): its pages are at the wrong linear index until
    /// move_page_tables() runs, and the kernel accepts that rmap walks miss them then (migration
    /// skips such a VMA; reclaim just fails to unmap the page), so `rmap-complete` does not
    /// require them of a concurrent walk.
    fn temporary_stack(&self, mm: u32, addr: u64) -> bool {
        let vmas = &self.mms[mm as usize].vmas;
        vmas.range(..=addr).next_back().is_some_and(|(_, &(e, v))| {
            addr < e
                && self.vmas[v as usize].vm_flags & super::builtins::VM_STACK_INCOMPLETE_SETUP != 0
        })
    }

    /// The ptes that map the folio a walk of `target` at `pgoff` is for: the page-cache folio
    /// of a file walk, or the anonymous folios of the walked anon_vma at that index.
    fn ptes_of(&self, target: WalkTarget, pgoff: u64) -> Vec<(u32, u64, super::Folio)> {
        let mut out = Vec::new();
        for (m, mm) in self.mms.iter().enumerate() {
            for (&a, &f) in &mm.ptes {
                let hit = match (target, f) {
                    (WalkTarget::File(x), super::Folio::File { mapping, index }) => {
                        x == mapping && index == pgoff
                    }
                    (WalkTarget::Anon(x), super::Folio::Anon(i)) => {
                        let af = &self.anon_folios[i as usize];
                        af.anon_vma == x && af.index == pgoff
                    }
                    _ => false,
                };
                if hit {
                    out.push((m as u32, a, f));
                }
            }
        }
        out
    }

    /// (mm, address) at which `v` maps `pgoff` now, if it does.
    fn page_address(&self, v: u32, target: WalkTarget, pgoff: u64) -> Option<(u32, u64)> {
        let x = &self.vmas[v as usize];
        let mm = x.vm_mm?;
        self.vma_covers(v, target, pgoff)
            .then(|| (mm, x.vm_start + (pgoff - self.walk_base(v, target))))
    }

    pub(crate) fn section_begin(&mut self, t: ThreadId, v: u32) {
        let x = &self.vmas[v as usize];
        let bounds = (x.vm_start, x.vm_end, x.vm_pgoff);
        // kept in (thread, VMA) order: the order the sections began in is not part of the
        // state
        let at = self.sections.partition_point(|s| (s.tid, s.vma) <= (t, v));
        self.sections.insert(
            at,
            ReadSection {
                tid: t,
                vma: v,
                bounds,
            },
        );
    }

    pub(crate) fn section_end(&mut self, t: ThreadId, v: u32) {
        if let Some(i) = self.sections.iter().position(|s| s.tid == t && s.vma == v) {
            self.sections.remove(i);
        }
    }

    /// The lock classes thread `t` holds now.
    pub(crate) fn held_classes(&self, t: ThreadId) -> LockClasses {
        let mut out = LockClasses::default();
        if self.mms.iter().any(|m| m.mmap_lock.held_by(t)) {
            out.insert(LockClass::MmapLock);
        }
        let vma_held = self.vmas.iter().any(|v| {
            v.vm_lock_readers & (1 << t) != 0
                || v.vm_mm.is_some_and(|m| {
                    let mm = &self.mms[m as usize];
                    v.vm_lock_seq == Some(mm.mm_lock_seq) && mm.mmap_lock.held_write_by(t)
                })
        });
        if vma_held {
            out.insert(LockClass::VmaLock);
        }
        for m in &self.mappings {
            if m.i_mmap_rwsem.held_by(t) {
                out.insert(LockClass::IMmapRwsem);
            }
            if m.flush_dcache.held_by(t) {
                out.insert(LockClass::FlushDcache);
            }
        }
        if self.anon_vmas.iter().any(|a| a.rwsem.held_by(t)) {
            out.insert(LockClass::AnonVmaRwsem);
        }
        if self.mms.iter().any(|m| m.page_table_lock.held_by(t)) {
            out.insert(LockClass::PageTableLock);
        }
        out
    }

    /// Record that `t`, holding `held` (its classes before the acquire), acquired a lock of
    /// class `c`.
    pub(crate) fn note_acquire(&mut self, held: LockClasses, c: LockClass) {
        for h in held.iter() {
            self.scratch.lock_edges.push((h, c));
        }
    }

    /// Take the lock-order edges recorded since the last call.
    pub(crate) fn take_lock_edges(&mut self) -> Vec<(LockClass, LockClass)> {
        std::mem::take(&mut self.scratch.lock_edges)
    }
}

#[cfg(test)]
mod held_tests {
    use super::{LockClass, LockClasses};
    use std::collections::BTreeSet;

    #[test]
    fn held_classes_iterate_as_an_ordered_set_does() {
        for bits in 0u8..64 {
            let mut held = LockClasses::default();
            let mut set = BTreeSet::new();
            // insert in reverse so that insertion order cannot be what orders them
            for (i, &c) in LockClass::ALL.iter().enumerate().rev() {
                if bits & (1 << i) != 0 {
                    held.insert(c);
                    set.insert(c);
                }
            }
            assert!(held.iter().eq(set.into_iter()));
        }
    }
}
