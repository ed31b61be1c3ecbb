//! What the driver knows about each process that neither the model nor /proc shows directly:
//! the pages the calls wrote (the kernel's anonymous pages must be exactly these).

use super::ops::KOp;
use crate::world::builtins::VM_SHARED;
use crate::world::World;
use std::collections::BTreeSet;

/// Per model mm.
#[derive(Clone, Debug, Default)]
pub struct Ghost {
    pub written: Vec<BTreeSet<u64>>,
}

fn drop_range(s: &mut BTreeSet<u64>, start: u64, end: u64) {
    s.retain(|&p| p < start || p >= end);
}

impl Ghost {
    fn grow(&mut self, mm: usize) {
        if self.written.len() <= mm {
            self.written.resize(mm + 1, BTreeSet::new());
        }
    }

    /// Pages written in `mm`.
    pub fn written(&self, mm: usize) -> BTreeSet<u64> {
        self.written.get(mm).cloned().unwrap_or_default()
    }

    /// Record `op`, made on the model world `w` (before the call).
    pub fn after(&mut self, op: &KOp, w: &World) {
        let mm = op.mm();
        self.grow(mm);
        let wr = &mut self.written[mm];
        match *op {
            KOp::WriteFault { page, .. } => {
                // a write to a shared mapping dirties the page cache, not an anonymous page; one
                // outside every VMA is below a stack, which grows over it (do_stack_fault)
                let vma = w
                    .mm_vmas(mm as u32)
                    .into_iter()
                    .map(|v| &w.vmas[v as usize])
                    .find(|v| v.vm_start <= page && page < v.vm_end);
                let private = vma.is_none_or(|v| v.vm_flags & VM_SHARED == 0);
                if private {
                    wr.insert(page);
                }
            }
            KOp::Mmap { start, len, .. } | KOp::Munmap { start, len, .. } => {
                drop_range(wr, start, start + len);
            }
            KOp::Mremap {
                start,
                old_len,
                new_len,
                ..
            } => {
                if new_len < old_len {
                    drop_range(wr, start + new_len, start + old_len);
                }
            }
            KOp::MremapMove {
                start,
                old_len,
                new_len,
                new_start,
                ..
            } => {
                // written pages move with their ptes (a shrinking move's tail goes)
                let moved: Vec<u64> = wr
                    .range(start..start + old_len.min(new_len))
                    .map(|&p| p - start + new_start)
                    .collect();
                drop_range(wr, start, start + old_len);
                wr.extend(moved);
            }
            KOp::Mprotect { .. } => {}
            KOp::Fork { child, .. } => {
                let a = wr.clone();
                self.grow(child);
                self.written[child] = a;
            }
            KOp::ReadFault { .. } => {}
        }
    }
}
