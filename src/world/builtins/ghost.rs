//! Builtins that write ghost state only: the page-table side of the kernel (`fault_anon_page`,
//! `fault_file_page`, `copy_page_range`, `move_page_tables`, `unmap_vmas`,
//! `zap_page_range_single`; see `src/world/pages.rs`) and the records of rmap walks in progress
//! (`rmap_walk_*`; see `src/world/conc.rs`). Model code never reads what they write; the
//! page-level and concurrent checks do.

use super::{fault, World, R};
use crate::exec::host::{HostError, ObjKind, ThreadId, Value};
use crate::invariant::Invariant;
use crate::world::conc::WalkTarget;

impl World {
    /// `rmap_walk_file_begin(mapping, pgoff)`, `rmap_walk_anon_begin(anon_vma, pgoff)`: what
    /// the walk must find is recorded now, and checked at `rmap_walk_end`.
    pub(super) fn rmap_walk_begin(&mut self, t: ThreadId, name: &str, a: &[Value]) -> R<()> {
        let p = Self::int_arg(a[1], name)?;
        if p < 0 {
            return fault(format!("{name}: negative pgoff {p}"));
        }
        let target = if name == "rmap_walk_file_begin" {
            WalkTarget::File(self.obj(a[0], ObjKind::Mapping, name)?)
        } else {
            WalkTarget::Anon(self.obj(a[0], ObjKind::AnonVma, name)?)
        };
        self.walk_begin(t, target, p as u64);
        Ok(())
    }

    /// `fault_anon_page(vma, addr)`, `fault_file_page(vma, addr)`.
    pub(super) fn fault_page(&mut self, name: &str, a: &[Value]) -> R<()> {
        let v = self.vma_arg(a[0], name)?;
        let addr = Self::int_arg(a[1], name)?.max(0) as u64;
        let r = if name == "fault_anon_page" {
            self.fault_anon_page(v, addr)
        } else {
            self.fault_file_page(v, addr)
        };
        r.map_err(HostError::Fault)
    }

    /// `move_page_tables(vma, old, new, len)`.
    pub(super) fn move_page_tables_builtin(&mut self, name: &str, a: &[Value]) -> R<()> {
        let v = self.vma_arg(a[0], name)?;
        let mut n = [0u64; 3];
        for (i, x) in n.iter_mut().enumerate() {
            *x = Self::uint_arg(a[i + 1], name)?;
        }
        self.move_page_tables(v, n[0], n[1], n[2])
            .map_err(HostError::Fault)
    }

    /// `zap_page_range_single(vma, start, end)` (madvise(MADV_DONTNEED) under the per-VMA read
    /// lock): a range outside the VMA, or a VMA gone, means the lock did not keep it stable.
    pub(super) fn zap_page_range_single(&mut self, name: &str, a: &[Value]) -> R<()> {
        let v = self.obj(a[0], ObjKind::Vma, name)?;
        let s = Self::int_arg(a[1], name)? as u64;
        let e = Self::int_arg(a[2], name)? as u64;
        let x = &self.vmas[v as usize];
        let bad = if x.freed || x.detached {
            Some(format!(
                "zap of [{s}, {e}) in vma#{v}, which is freed or detached"
            ))
        } else if s < x.vm_start || e > x.vm_end || s >= e {
            Some(format!(
                "zap of [{s}, {e}) outside vma#{v} [{}, {})",
                x.vm_start, x.vm_end
            ))
        } else {
            None
        };
        if let Some(m) = bad {
            self.violate(Invariant::VmaLockStable, m);
        } else {
            self.zap_ptes(v, s, e);
        }
        Ok(())
    }
}
