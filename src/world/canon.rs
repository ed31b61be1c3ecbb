//! Canonical form of a world between operations: freed objects are dropped and the rest
//! renumbered in a deterministic order (VMAs by mm and address, AVCs by VMA and chain position,
//! anon_vmas by first use, anonymous folios by first pte), and lock sequence counters are reset. Two worlds that differ only in
//! object numbering or garbage get the same canonical form, so the explorer sees them as one
//! state. Trees are renumbered with their shape unchanged (ties in the trees never look at ids).
//!
//! The search builds one canonical world per call, so the form is written into a world whose
//! allocations are reused ([`World::canonical_into`]), with the numberings in per-thread scratch
//! tables: a call allocates nothing here once its thread has warmed up.

use super::{AddressSpace, AnonVma, World};
use std::cell::RefCell;

/// Assigns new ids in order of first `visit` (old ids index a table of the arena's size).
#[derive(Default)]
struct Numbering {
    map: Vec<u32>,
    order: Vec<u32>,
}

impl Numbering {
    /// Start a numbering of an arena of `arena` objects, keeping the tables' allocations.
    fn reset(&mut self, arena: usize) {
        self.map.clear();
        self.map.resize(arena, u32::MAX);
        self.order.clear();
    }
    fn visit(&mut self, old: u32) {
        let slot = &mut self.map[old as usize];
        if *slot == u32::MAX {
            *slot = self.order.len() as u32;
            self.order.push(old);
        }
    }
    /// The new id, or `u32::MAX` for an object that was dropped.
    fn get(&self, old: u32) -> u32 {
        self.map.get(old as usize).copied().unwrap_or(u32::MAX)
    }
}

/// The numberings of one canonicalisation, and marks of the objects some tree holds.
#[derive(Default)]
struct Tables {
    vmas: Numbering,
    avcs: Numbering,
    anon_vmas: Numbering,
    folios: Numbering,
    /// VMAs in some file tree or named by an unfreed AVC (kept even when freed).
    vma_referenced: Vec<bool>,
    /// AVCs in some anon_vma's tree (kept even when freed).
    avc_in_tree: Vec<bool>,
}

thread_local! {
    /// The tables of this thread's last canonicalisation, kept for the next one.
    static TABLES: RefCell<Tables> = RefCell::default();
}

/// Overwrite `dst` with `n` elements, the `i`-th written by `write(i, slot)`: slots already
/// there are overwritten in place (keeping their allocations), missing ones start from `fresh`.
fn fill<T>(
    dst: &mut Vec<T>,
    n: usize,
    fresh: impl Fn(usize) -> T,
    mut write: impl FnMut(usize, &mut T),
) {
    dst.truncate(n);
    for i in 0..n {
        if i == dst.len() {
            dst.push(fresh(i));
        }
        write(i, &mut dst[i]);
    }
}

impl World {
    /// The canonical form of this world (see the module documentation).
    pub fn canonical(&self) -> World {
        let mut w = World::default();
        self.canonical_into(&mut w);
        w
    }

    /// Overwrite `out` with the canonical form of this world, reusing its allocations: the
    /// result equals [`World::canonical`]'s.
    pub fn canonical_into(&self, out: &mut World) {
        TABLES.with(|t| {
            let t = &mut *t.borrow_mut();
            self.number(t);
            self.write_canonical(t, out);
        });
    }

    /// Number the objects the canonical form keeps, in its order.
    fn number(&self, t: &mut Tables) {
        self.mark_referenced(t);
        // VMAs: listed ones in (mm, address) order, then other unfreed ones by old id.
        let vn = &mut t.vmas;
        vn.reset(self.vmas.len());
        for mm in &self.mms {
            for &(_, v) in mm.vmas.values() {
                vn.visit(v);
            }
        }
        for (i, v) in self.vmas.iter().enumerate() {
            if !v.freed || t.vma_referenced[i] {
                vn.visit(i as u32);
            }
        }
        // AVCs: along each kept VMA's chain, then other unfreed ones.
        let cn = &mut t.avcs;
        cn.reset(self.avcs.len());
        for &v in &vn.order {
            for &c in &self.vmas[v as usize].anon_vma_chain {
                cn.visit(c);
            }
        }
        for (i, c) in self.avcs.iter().enumerate() {
            if !c.freed || t.avc_in_tree[i] {
                cn.visit(i as u32);
            }
        }
        // anon_vmas: by first use from VMAs and AVCs, then roots and parents, then the rest.
        let an = &mut t.anon_vmas;
        an.reset(self.anon_vmas.len());
        for &v in &vn.order {
            if let Some(a) = self.vmas[v as usize].anon_vma {
                an.visit(a);
            }
        }
        for &c in &cn.order {
            if let Some(a) = self.avcs[c as usize].anon_vma {
                an.visit(a);
            }
        }
        // anonymous folios by first pte (mm, address); their anon_vmas after the AVCs' ones,
        // so that a folio whose anon_vma was freed keeps naming it (rmap-complete reports it)
        let folios = &mut t.folios;
        folios.reset(self.anon_folios.len());
        for mm in &self.mms {
            for f in mm.ptes.values() {
                if let super::Folio::Anon(a) = *f {
                    folios.visit(a);
                }
            }
        }
        for &f in &folios.order {
            an.visit(self.anon_folios[f as usize].anon_vma);
        }
        let mut i = 0;
        while i < an.order.len() {
            let a = &self.anon_vmas[an.order[i] as usize];
            an.visit(a.root);
            an.visit(a.parent);
            i += 1;
        }
        for (i, a) in self.anon_vmas.iter().enumerate() {
            if !a.freed {
                an.visit(i as u32);
            }
        }
    }

    /// Mark the VMAs still referenced by a file tree or an unfreed AVC, and the AVCs some
    /// anon_vma's tree holds (freed or not, such objects are kept, so the form never dangles).
    fn mark_referenced(&self, t: &mut Tables) {
        fn mark_members(marks: &mut [bool], tree: &crate::tree::RbRoot) {
            for (n, slot) in tree.nodes.iter().enumerate() {
                if slot.is_some() {
                    if let Some(m) = marks.get_mut(n) {
                        *m = true;
                    }
                }
            }
        }
        t.vma_referenced.clear();
        t.vma_referenced.resize(self.vmas.len(), false);
        for m in &self.mappings {
            mark_members(&mut t.vma_referenced, &m.i_mmap);
        }
        for c in &self.avcs {
            if let (false, Some(v)) = (c.freed, c.vma) {
                if let Some(m) = t.vma_referenced.get_mut(v as usize) {
                    *m = true;
                }
            }
        }
        t.avc_in_tree.clear();
        t.avc_in_tree.resize(self.avcs.len(), false);
        for a in &self.anon_vmas {
            mark_members(&mut t.avc_in_tree, &a.rb_root);
        }
    }

    /// Write the canonical form numbered by `t` into `out`.
    fn write_canonical(&self, t: &Tables, out: &mut World) {
        let (vn, cn, an, folios) = (&t.vmas, &t.avcs, &t.anon_vmas, &t.folios);
        out.mms.clone_from(&self.mms);
        out.files.clone_from(&self.files);
        for mm in &mut out.mms {
            mm.mm_lock_seq = 0;
            for f in mm.ptes.values_mut() {
                if let super::Folio::Anon(a) = f {
                    *a = folios.get(*a);
                }
            }
            for e in mm.vmas.values_mut() {
                e.1 = vn.get(e.1);
            }
        }
        let old_vma = |i: usize| &self.vmas[vn.order[i] as usize];
        fill(
            &mut out.vmas,
            vn.order.len(),
            |i| old_vma(i).clone(),
            |i, v| {
                let src = old_vma(i);
                v.clone_from(src);
                v.file_linked = false;
                v.zapped = false;
                v.anon_vma = v.anon_vma.map(|a| an.get(a));
                for c in &mut v.anon_vma_chain {
                    *c = cn.get(*c);
                }
                // a VMA is write-locked while its sequence equals its mm's
                v.vm_lock_seq = match (v.vm_lock_seq, v.vm_mm) {
                    (Some(s), Some(m)) if self.mms[m as usize].mm_lock_seq == s => Some(0),
                    _ => None,
                };
            },
        );
        fill(
            &mut out.avcs,
            cn.order.len(),
            |i| self.avcs[cn.order[i] as usize].clone(),
            |i, c| {
                *c = self.avcs[cn.order[i] as usize].clone();
                c.linked = false;
                c.vma = c.vma.map(|v| vn.get(v));
                c.anon_vma = c.anon_vma.map(|a| an.get(a));
            },
        );
        let old_anon_vma = |i: usize| &self.anon_vmas[an.order[i] as usize];
        fill(
            &mut out.anon_vmas,
            an.order.len(),
            |i| old_anon_vma(i).clone(),
            |i, a| {
                let AnonVma {
                    root,
                    parent,
                    rb_root,
                    rwsem,
                    refcount,
                    num_children,
                    num_active_vmas,
                    freed,
                } = old_anon_vma(i);
                a.root = an.get(*root);
                a.parent = an.get(*parent);
                rb_root.remap_into(&|n| cn.get(n), &mut a.rb_root);
                a.rwsem.clone_from(rwsem);
                a.refcount = *refcount;
                a.num_children = *num_children;
                a.num_active_vmas = *num_active_vmas;
                a.freed = *freed;
            },
        );
        fill(
            &mut out.anon_folios,
            folios.order.len(),
            |i| self.anon_folios[folios.order[i] as usize].clone(),
            |i, f| {
                *f = self.anon_folios[folios.order[i] as usize].clone();
                f.anon_vma = an.get(f.anon_vma);
            },
        );
        fill(
            &mut out.mappings,
            self.mappings.len(),
            |_| Default::default(),
            |i, m| {
                let AddressSpace {
                    i_mmap,
                    i_mmap_rwsem,
                    flush_dcache,
                } = &self.mappings[i];
                i_mmap.remap_into(&|n| vn.get(n), &mut m.i_mmap);
                m.i_mmap_rwsem.clone_from(i_mmap_rwsem);
                m.flush_dcache.clone_from(flush_dcache);
            },
        );
        out.walks.clear();
        out.sections.clear();
        out.scratch.clear();
    }
}

#[cfg(test)]
mod tests {
    use crate::world::fingerprint::stable_hash;
    use crate::world::scenario::Scenario;
    use crate::world::World;

    fn build(text: &str) -> World {
        Scenario::parse(text)
            .expect("scenario")
            .build()
            .expect("world")
    }

    /// Two files, an anon_vma hierarchy, two mms: every arena and tree has members.
    const BIG: &str = r#"
        [[file]]
        name = "f"
        [[file]]
        name = "g"
        [[anon_vma]]
        name = "A"
        [[anon_vma]]
        name = "B"
        parent = "A"
        [[mm]]
        [[mm.vma]]
        start = 0
        end = 2
        file = "f"
        anon_vmas = ["A"]
        [[mm.vma]]
        start = 4
        end = 6
        anon_vmas = ["A"]
        [[mm]]
        [[mm.vma]]
        start = 0
        end = 3
        file = "g"
        anon_vmas = ["A", "B"]
    "#;

    /// One mm, one anonymous VMA.
    const SMALL: &str = r#"
        [[mm]]
        [[mm.vma]]
        start = 1
        end = 2
    "#;

    #[test]
    fn a_reused_world_gets_the_canonical_form_a_new_one_gets() {
        let (big, small) = (build(BIG), build(SMALL));
        // each into a world left over from the other (bigger and smaller arenas)
        for (w, leftover) in [(&big, &small), (&small, &big), (&big, &big)] {
            let mut out = leftover.clone();
            out.violate(crate::invariant::Invariant::ALL[0], "left over");
            w.canonical_into(&mut out);
            let fresh = w.canonical();
            assert_eq!(out, fresh);
            assert_eq!(format!("{out:?}"), format!("{fresh:?}"));
            assert_eq!(stable_hash(&out), stable_hash(&fresh));
            assert!(out.scratch.violations.is_empty());
        }
        // a world copied into a spare one is the world
        let mut spare = small.clone();
        spare.clone_from(&big);
        assert_eq!(format!("{spare:?}"), format!("{big:?}"));
    }
}
