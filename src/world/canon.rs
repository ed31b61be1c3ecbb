//! Canonical form of a world between operations: freed objects are dropped and the rest
//! renumbered in a deterministic order (VMAs by mm and address, AVCs by VMA and chain position,
//! anon_vmas by first use, anonymous folios by first pte), and lock sequence counters are reset. Two worlds that differ only in
//! object numbering or garbage get the same canonical form, so the explorer sees them as one
//! state. Trees are renumbered with their shape unchanged (ties in the trees never look at ids).

use super::World;

/// Assigns new ids in order of first `visit` (old ids index a table of the arena's size).
struct Numbering {
    map: Vec<u32>,
    order: Vec<u32>,
}

impl Numbering {
    fn new(arena: usize) -> Self {
        Numbering {
            map: vec![u32::MAX; arena],
            order: Vec::new(),
        }
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

impl World {
    /// The canonical form of this world (see the module documentation).
    pub fn canonical(&self) -> World {
        // VMAs: listed ones in (mm, address) order, then other unfreed ones by old id.
        let mut vn = Numbering::new(self.vmas.len());
        for mm in &self.mms {
            for &(_, v) in mm.vmas.values() {
                vn.visit(v);
            }
        }
        for (i, v) in self.vmas.iter().enumerate() {
            if !v.freed || self.vma_referenced(i as u32) {
                vn.visit(i as u32);
            }
        }
        // AVCs: along each kept VMA's chain, then other unfreed ones.
        let mut cn = Numbering::new(self.avcs.len());
        for &v in &vn.order {
            for &c in &self.vmas[v as usize].anon_vma_chain {
                cn.visit(c);
            }
        }
        for (i, c) in self.avcs.iter().enumerate() {
            let in_tree = self.anon_vmas.iter().any(|a| a.rb_root.contains(i as u32));
            if !c.freed || in_tree {
                cn.visit(i as u32);
            }
        }
        // anon_vmas: by first use from VMAs and AVCs, then roots and parents, then the rest.
        let mut an = Numbering::new(self.anon_vmas.len());
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
        let mut folios = Numbering::new(self.anon_folios.len());
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

        let mut w = World {
            mms: self.mms.clone(),
            files: self.files.clone(),
            vmas: Vec::with_capacity(vn.order.len()),
            avcs: Vec::with_capacity(cn.order.len()),
            anon_vmas: Vec::with_capacity(an.order.len()),
            anon_folios: Vec::with_capacity(folios.order.len()),
            mappings: Vec::with_capacity(self.mappings.len()),
            ..Default::default()
        };
        for mm in &mut w.mms {
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
        for &old in &vn.order {
            let mut v = self.vmas[old as usize].clone();
            v.file_linked = false;
            v.zapped = false;
            v.anon_vma = v.anon_vma.map(|a| an.get(a));
            v.anon_vma_chain = v.anon_vma_chain.iter().map(|&c| cn.get(c)).collect();
            // a VMA is write-locked while its sequence equals its mm's
            v.vm_lock_seq = match (v.vm_lock_seq, v.vm_mm) {
                (Some(s), Some(m)) if self.mms[m as usize].mm_lock_seq == s => Some(0),
                _ => None,
            };
            w.vmas.push(v);
        }
        for &old in &cn.order {
            let mut c = self.avcs[old as usize].clone();
            c.linked = false;
            c.vma = c.vma.map(|v| vn.get(v));
            c.anon_vma = c.anon_vma.map(|a| an.get(a));
            w.avcs.push(c);
        }
        for &old in &an.order {
            let mut a = self.anon_vmas[old as usize].clone();
            a.root = an.get(a.root);
            a.parent = an.get(a.parent);
            a.rb_root = a.rb_root.remap(&|n| cn.get(n));
            w.anon_vmas.push(a);
        }
        for &old in &folios.order {
            let mut f = self.anon_folios[old as usize].clone();
            f.anon_vma = an.get(f.anon_vma);
            w.anon_folios.push(f);
        }
        for m in &self.mappings {
            let mut m = m.clone();
            m.i_mmap = m.i_mmap.remap(&|n| vn.get(n));
            w.mappings.push(m);
        }
        w
    }

    /// Whether a freed VMA is still referenced (by a tree or an AVC): then it is kept, so the
    /// canonical form never dangles.
    fn vma_referenced(&self, v: u32) -> bool {
        self.mappings.iter().any(|m| m.i_mmap.contains(v))
            || self.avcs.iter().any(|c| !c.freed && c.vma == Some(v))
    }
}
