//! What a call on one mm can reach, for the commuting-calls reduction (`explore::commute`): the
//! connected components of the world's objects, and a count of the objects the canonical form
//! keeps without anything referring to them.
//!
//! Model code reaches objects only through its arguments and the pointers stored in objects
//! (the language has no object literals and no way to list an arena; every builtin takes the
//! objects it acts on as arguments, `mm_alloc` and the other allocators aside, which make fresh
//! ones). From an mm it can reach: the mm's VMAs; a VMA's file, the file's address_space and
//! every VMA in that address_space's tree (other mms' VMAs among them), a VMA's `vm_mm`; a
//! VMA's anon_vma and its chain's AVCs, an AVC's anon_vma and VMA, an anon_vma's root, parent
//! and every AVC in its tree; the mm's ghost page table and the folios it maps (a file folio's
//! address_space, an anonymous folio's anon_vma). [`Components`] joins the two ends of every
//! one of those pointers, so everything a call can read or write from its mm and its file
//! arguments lies in their components, besides the objects it allocates.

use super::{Folio, World};
use petgraph::unionfind::UnionFind;

/// The components of the world's mms, files and anon_vmas (address_spaces count as their
/// file's; VMAs and AVCs as their mm's and anon_vma's): petgraph's union-find over one index
/// per object. Component ids are only compared with each other within one `Components`.
pub(crate) struct Components {
    sets: UnionFind<u32>,
    mms: usize,
    files: usize,
}

impl Components {
    fn join(&mut self, a: u32, b: u32) {
        self.sets.union(a, b);
    }

    fn file(&self, f: u32) -> u32 {
        (self.mms + f as usize) as u32
    }

    fn anon_vma(&self, a: u32) -> u32 {
        (self.mms + self.files + a as usize) as u32
    }

    /// The component of mm `m` (`None` for an id that names no mm).
    pub(crate) fn of_mm(&mut self, m: u32) -> Option<u32> {
        ((m as usize) < self.mms).then(|| self.sets.find_mut(m))
    }

    /// The component of file `f` (`None` for an id that names no file).
    pub(crate) fn of_file(&mut self, f: u32) -> Option<u32> {
        ((f as usize) < self.files).then(|| self.sets.find_mut(self.file(f)))
    }
}

impl World {
    /// The connected components of the world's objects under every pointer model code can
    /// follow (see the module documentation). Dangling ids (a bug a check reports) are skipped.
    pub(crate) fn components(&self) -> Components {
        let (nm, nf, na) = (self.mms.len(), self.files.len(), self.anon_vmas.len());
        let mut c = Components {
            sets: UnionFind::new(nm + nf + na),
            mms: nm,
            files: nf,
        };
        // the file of each address_space
        let mut file_of: Vec<Option<u32>> = vec![None; self.mappings.len()];
        for (f, file) in self.files.iter().enumerate() {
            if let Some(slot) = file_of.get_mut(file.f_mapping as usize) {
                *slot = Some(f as u32);
            }
        }
        let av_ok = |a: u32| (a as usize) < na;
        let mm_of_vma = |v: u32| {
            self.vmas
                .get(v as usize)
                .and_then(|x| x.vm_mm)
                .filter(|&m| (m as usize) < nm)
        };
        let av_of_avc = |x: u32| {
            self.avcs
                .get(x as usize)
                .and_then(|a| a.anon_vma)
                .filter(|&a| av_ok(a))
        };
        for (i, v) in self.vmas.iter().enumerate() {
            let Some(m) = mm_of_vma(i as u32) else {
                continue;
            };
            if let Some(f) = v.vm_file.filter(|&f| (f as usize) < nf) {
                c.join(m, c.file(f));
            }
            if let Some(a) = v.anon_vma.filter(|&a| av_ok(a)) {
                c.join(m, c.anon_vma(a));
            }
            for &x in &v.anon_vma_chain {
                if let Some(a) = av_of_avc(x) {
                    c.join(m, c.anon_vma(a));
                }
            }
        }
        for x in &self.avcs {
            if let (Some(m), Some(a)) = (x.vma.and_then(mm_of_vma), x.anon_vma) {
                if av_ok(a) {
                    c.join(m, c.anon_vma(a));
                }
            }
        }
        for (i, a) in self.anon_vmas.iter().enumerate() {
            let me = c.anon_vma(i as u32);
            for other in [a.root, a.parent].into_iter().filter(|&o| av_ok(o)) {
                c.join(me, c.anon_vma(other));
            }
            for x in a.rb_root.members() {
                let vma = self.avcs.get(x as usize).and_then(|x| x.vma);
                if let Some(m) = vma.and_then(mm_of_vma) {
                    c.join(me, m);
                }
            }
        }
        for (map, space) in self.mappings.iter().enumerate() {
            let Some(f) = file_of[map] else { continue };
            for v in space.i_mmap.members() {
                if let Some(m) = mm_of_vma(v) {
                    c.join(m, c.file(f));
                }
            }
        }
        for (m, mm) in self.mms.iter().enumerate() {
            for folio in mm.ptes.values() {
                let other = match *folio {
                    Folio::File { mapping, .. } => file_of
                        .get(mapping as usize)
                        .copied()
                        .flatten()
                        .map(|f| c.file(f)),
                    Folio::Anon(x) => self
                        .anon_folios
                        .get(x as usize)
                        .map(|f| f.anon_vma)
                        .filter(|&a| av_ok(a))
                        .map(|a| c.anon_vma(a)),
                };
                if let Some(o) = other {
                    c.join(m as u32, o);
                }
            }
        }
        c
    }

    /// How many VMAs, AVCs and anon_vmas of this canonical world nothing refers to: VMAs in no
    /// mm's list, AVCs on no listed VMA's chain, anon_vmas reached from no listed VMA, chained
    /// AVC or mapped folio (nor as the root or parent of one that is). The canonical form orders
    /// these by their old ids, so two calls that each leave one may leave different worlds in
    /// the two orders: such a call commutes with nothing.
    pub(crate) fn unreferenced(&self) -> usize {
        let mut listed = vec![false; self.vmas.len()];
        for mm in &self.mms {
            for &(_, v) in mm.vmas.values() {
                if let Some(l) = listed.get_mut(v as usize) {
                    *l = true;
                }
            }
        }
        let mut chained = vec![false; self.avcs.len()];
        let mut reached = vec![false; self.anon_vmas.len()];
        let mut stack = Vec::new();
        for (v, vma) in self.vmas.iter().enumerate() {
            if !listed[v] {
                continue;
            }
            stack.extend(vma.anon_vma);
            for &x in &vma.anon_vma_chain {
                if let Some(slot) = chained.get_mut(x as usize) {
                    *slot = true;
                    stack.extend(self.avcs[x as usize].anon_vma);
                }
            }
        }
        stack.extend(self.anon_folios.iter().map(|f| f.anon_vma));
        while let Some(a) = stack.pop() {
            match reached.get_mut(a as usize) {
                Some(r) if !*r => {
                    *r = true;
                    let av = &self.anon_vmas[a as usize];
                    stack.extend([av.root, av.parent]);
                }
                _ => {}
            }
        }
        let not = |v: &[bool]| v.iter().filter(|&&b| !b).count();
        not(&listed) + not(&chained) + not(&reached)
    }
}

#[cfg(test)]
mod tests {
    use crate::world::scenario::Scenario;

    fn world(text: &str) -> crate::world::World {
        let s = Scenario::parse(text).expect("scenario");
        s.build().expect("world").canonical()
    }

    #[test]
    fn mms_sharing_a_file_or_an_anon_vma_are_one_component() {
        let w = world(
            r#"
            [[file]]
            name = "f"
            [[file]]
            name = "g"
            [[anon_vma]]
            name = "A"
            [[mm]]
            [[mm.vma]]
            start = 0
            end = 2
            file = "f"
            [[mm]]
            [[mm.vma]]
            start = 0
            end = 2
            file = "f"
            [[mm]]
            [[mm.vma]]
            start = 0
            end = 2
            anon_vmas = ["A"]
            [[mm]]
            [[mm.vma]]
            start = 4
            end = 6
            anon_vmas = ["A"]
            [[mm]]
            [[mm.vma]]
            start = 0
            end = 1
            "#,
        );
        let mut c = w.components();
        let m: Vec<u32> = (0..5).map(|i| c.of_mm(i).unwrap()).collect();
        assert_eq!(m[0], m[1], "both map f");
        assert_eq!(m[2], m[3], "both chain to A");
        assert_ne!(m[0], m[2]);
        assert_ne!(m[4], m[0]);
        assert_ne!(m[4], m[2]);
        assert_eq!(c.of_file(0), Some(m[0]));
        assert_ne!(c.of_file(1), Some(m[0]), "nobody maps g");
        assert_eq!(c.of_mm(9), None);
        assert_eq!(w.unreferenced(), 0);
    }
}
