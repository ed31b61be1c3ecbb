//! Ghost page tables and folios: what each mm maps, page by page, so that the checker can test
//! the kernel's own promise about the rmap, "a walk from a folio finds every pte that maps it".
//!
//! None of this is kernel state a model reads: model code never sees a pte. Builtins that stand
//! for the page-table side of the kernel write it, at the points where the kernel changes page
//! tables (v7.3-rc4, mm/memory.c, mm/mremap.c, kernel/fork.c):
//!
//! | builtin (kernel function it stands for) | ghost effect |
//! |---|---|
//! | `fault_anon_page` (`do_anonymous_page`, `do_cow_fault`, `wp_page_copy`, `wp_page_reuse`) | the pte at the address maps an anonymous folio of `vma->anon_vma` with index `linear_page_index(vma, addr)`: a new one, or, when the present anonymous folio is mapped by this pte alone, the same folio moved to `vma->anon_vma` (`folio_move_anon_rmap`) |
//! | `fault_file_page` (`do_read_fault`, `filemap_map_pages`) | the pte maps the page-cache folio `(mapping, linear_page_index(vma, addr))` |
//! | `copy_page_range` (`copy_page_range` from `dup_mmap`) | the child mm maps, at the same addresses, every folio the parent maps inside the parent VMA |
//! | `move_page_tables` (`move_page_tables` from exec's `relocate_vma_down`, `move_ptes` from mremap's `move_vma`) | ptes move with their folios to the new addresses; a concurrent walk must then reach them there |
//! | `unmap_vmas`, `zap_page_range_single` (`unmap_vmas`, `zap_page_range_single`) | the ptes of the range are dropped |
//!
//! Every other call (split, merge, mprotect, expand, shrink, rmap tree work) leaves ptes alone,
//! which is what the `mapping-preserved` invariant checks. A file folio is named by its
//! page-cache position; an anonymous folio is an object of its own (parent and child share it
//! after fork), kept in `World::anon_folios` and dropped by the canonical form once no pte
//! maps it.

use super::World;

/// What a pte maps.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Folio {
    /// The page-cache folio at `index` of the address_space `mapping`.
    File { mapping: u32, index: u64 },
    /// An anonymous folio (index into `World::anon_folios`).
    Anon(u32),
}

/// An anonymous folio: `folio->mapping` names its anon_vma, `folio->index` its linear page
/// index at fault time.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct AnonFolio {
    pub anon_vma: u32,
    pub index: u64,
}

/// An mm's ghost page table: address (in pages) to folio.
pub(crate) type PageTable = super::sorted_map::SortedMap<u64, Folio>;

/// `linear_page_index()`: the index a VMA maps at `addr`.
pub(crate) fn linear_page_index(vm_start: u64, vm_pgoff: u64, addr: u64) -> u64 {
    vm_pgoff + (addr - vm_start)
}

impl World {
    /// The index of a folio (file: its page-cache index; anon: `folio->index`).
    pub(crate) fn folio_index(&self, f: Folio) -> u64 {
        match f {
            Folio::File { index, .. } => index,
            Folio::Anon(a) => self.anon_folios[a as usize].index,
        }
    }

    /// How many ptes, in every mm, map `f` (its mapcount).
    pub fn folio_mapcount(&self, f: Folio) -> usize {
        self.mms
            .iter()
            .filter(|m| !m.freed)
            .map(|m| m.ptes.values().filter(|&&x| x == f).count())
            .sum()
    }

    /// A folio as text: `anon folio#1 (anon_vma#0, index 3)` or `file folio (mapping#0, index 3)`.
    pub(crate) fn describe_folio(&self, f: Folio) -> String {
        match f {
            Folio::File { mapping, index } => {
                format!("file folio (mapping#{mapping}, index {index})")
            }
            Folio::Anon(a) => {
                let x = &self.anon_folios[a as usize];
                format!(
                    "anon folio#{a} (anon_vma#{}, index {})",
                    x.anon_vma, x.index
                )
            }
        }
    }

    /// `fault_anon_page(vma, addr)`: a write fault on a private mapping (see the module docs).
    pub(crate) fn fault_anon_page(&mut self, v: u32, addr: u64) -> Result<(), String> {
        let (mm, av, index) = self.fault_target(v, addr, true)?;
        let av = av.ok_or_else(|| {
            format!("anonymous fault at {addr} in vma#{v}, which has no anon_vma")
        })?;
        if let Some(&Folio::Anon(f)) = self.mms[mm as usize].ptes.get(&addr) {
            if self.folio_mapcount(Folio::Anon(f)) == 1 {
                // wp_page_reuse(): the only mapper keeps the folio, moved to its own anon_vma
                self.anon_folios[f as usize].anon_vma = av;
                return Ok(());
            }
        }
        self.anon_folios.push(AnonFolio {
            anon_vma: av,
            index,
        });
        let f = Folio::Anon((self.anon_folios.len() - 1) as u32);
        self.mms[mm as usize].ptes.insert(addr, f);
        Ok(())
    }

    /// `fault_file_page(vma, addr)`: a read fault maps the page-cache folio.
    pub(crate) fn fault_file_page(&mut self, v: u32, addr: u64) -> Result<(), String> {
        let (mm, _, index) = self.fault_target(v, addr, false)?;
        let mapping = self
            .vma_mapping(v)
            .ok_or_else(|| format!("file fault at {addr} in vma#{v}, which has no file"))?;
        self.mms[mm as usize]
            .ptes
            .insert(addr, Folio::File { mapping, index });
        Ok(())
    }

    /// The mm, anon_vma and page index of a fault at `addr` in `v`: the linear page index for a
    /// file folio, the linear anonymous page index (`linear_anon_page_index()`, from the anon
    /// pgoff) for an anonymous one.
    fn fault_target(
        &self,
        v: u32,
        addr: u64,
        anon: bool,
    ) -> Result<(u32, Option<u32>, u64), String> {
        let x = &self.vmas[v as usize];
        if addr < x.vm_start || addr >= x.vm_end {
            return Err(format!(
                "fault at {addr} outside vma#{v} [{}, {})",
                x.vm_start, x.vm_end
            ));
        }
        let mm = x
            .vm_mm
            .ok_or_else(|| format!("fault in vma#{v}, which has no mm"))?;
        Ok((
            mm,
            x.anon_vma,
            linear_page_index(x.vm_start, x.pgoff_for(anon), addr),
        ))
    }

    /// `copy_page_range(dst, src)`: the ptes of `src`'s range, copied into `dst`'s mm.
    pub(crate) fn copy_page_range(&mut self, dst: u32, src: u32) -> Result<(), String> {
        let s = &self.vmas[src as usize];
        let d = &self.vmas[dst as usize];
        let (Some(sm), Some(dm)) = (s.vm_mm, d.vm_mm) else {
            return Err(format!(
                "copy_page_range(vma#{dst}, vma#{src}): a VMA has no mm"
            ));
        };
        if (s.vm_start, s.vm_end) != (d.vm_start, d.vm_end) {
            return Err(format!(
                "copy_page_range(vma#{dst}, vma#{src}): ranges differ"
            ));
        }
        let copied: Vec<(u64, Folio)> = self.mms[sm as usize]
            .ptes
            .range(s.vm_start..s.vm_end)
            .map(|(&a, &f)| (a, f))
            .collect();
        self.mms[dm as usize].ptes.extend(copied);
        Ok(())
    }

    /// `move_page_tables(vma, old_addr, new_addr, len)`: ptes of `[old, old + len)` move to
    /// `[new, new + len)` of the same mm.
    pub(crate) fn move_page_tables(
        &mut self,
        v: u32,
        old: u64,
        new: u64,
        len: u64,
    ) -> Result<(), String> {
        let mm = self.vmas[v as usize]
            .vm_mm
            .ok_or_else(|| format!("move_page_tables: vma#{v} has no mm"))?;
        let pt = &mut self.mms[mm as usize].ptes;
        let moved: Vec<(u64, Folio)> = pt.range(old..old + len).map(|(&a, &f)| (a, f)).collect();
        for &(a, _) in &moved {
            pt.remove(&a);
        }
        for (a, f) in moved {
            pt.insert(a - old + new, f);
        }
        // a walk in progress now needs the moved ptes at their new addresses
        for w in self.walks.iter_mut().filter(|w| !w.done) {
            for r in w.required_ptes.iter_mut() {
                if r.0 == mm && (old..old + len).contains(&r.1) {
                    r.1 = r.1 - old + new;
                }
            }
        }
        Ok(())
    }

    /// Drop the ptes of `[start, end)` in `v`'s mm (`unmap_vmas`, `zap_page_range_single`).
    pub(crate) fn zap_ptes(&mut self, v: u32, start: u64, end: u64) {
        if let Some(mm) = self.vmas[v as usize].vm_mm {
            let pt = &mut self.mms[mm as usize].ptes;
            let gone: Vec<u64> = pt.range(start..end.max(start)).map(|(&a, _)| a).collect();
            for a in gone {
                pt.remove(&a);
            }
        }
    }
}
