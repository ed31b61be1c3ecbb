//! What the driver knows about each process that neither the model nor /proc shows directly:
//! the pages the calls wrote (the kernel's anonymous pages must be exactly these) and the
//! private pages that lost VM_ACCOUNT (the kernel drops it when mprotect makes an anonymous
//! VMA without an anon_vma read-only, and VMAs that differ in it do not merge; the model has no
//! VM_ACCOUNT, see `known`).

use super::ops::KOp;
use crate::world::builtins::VM_SHARED;
use crate::world::World;
use std::collections::BTreeSet;

/// Per model mm.
#[derive(Clone, Debug, Default)]
pub struct Ghost {
    pub written: Vec<BTreeSet<u64>>,
    pub unaccounted: Vec<BTreeSet<u64>>,
}

fn drop_range(s: &mut BTreeSet<u64>, start: u64, end: u64) {
    s.retain(|&p| p < start || p >= end);
}

impl Ghost {
    fn grow(&mut self, mm: usize) {
        if self.written.len() <= mm {
            self.written.resize(mm + 1, BTreeSet::new());
            self.unaccounted.resize(mm + 1, BTreeSet::new());
        }
    }

    /// Pages written in `mm`.
    pub fn written(&self, mm: usize) -> BTreeSet<u64> {
        self.written.get(mm).cloned().unwrap_or_default()
    }

    /// Private pages of `mm` without VM_ACCOUNT.
    pub(crate) fn unaccounted(&self, mm: usize) -> BTreeSet<u64> {
        self.unaccounted.get(mm).cloned().unwrap_or_default()
    }

    /// Record `op`, made on the model world `w` (before the call).
    pub fn after(&mut self, op: &KOp, w: &World) {
        let mm = op.mm();
        self.grow(mm);
        let (wr, un) = (&mut self.written[mm], &mut self.unaccounted[mm]);
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
                // a new private mapping is writable, so accounted
                drop_range(wr, start, start + len);
                drop_range(un, start, start + len);
            }
            KOp::Mremap {
                start,
                old_len,
                new_len,
                ..
            } => {
                if new_len < old_len {
                    drop_range(wr, start + new_len, start + old_len);
                    drop_range(un, start + new_len, start + old_len);
                } else if un.contains(&start) {
                    un.extend(start + old_len..start + new_len);
                }
            }
            KOp::MremapMove {
                start,
                old_len,
                new_len,
                new_start,
                dontunmap,
                ..
            } => {
                // written pages move with their ptes (a shrinking move's tail goes); the copy
                // keeps the VMA's VM_ACCOUNT, and so does a MREMAP_DONTUNMAP source (6.18
                // clears only VM_LOCKED there)
                let moved: Vec<u64> = wr
                    .range(start..start + old_len.min(new_len))
                    .map(|&p| p - start + new_start)
                    .collect();
                let was_unaccounted = un.contains(&start);
                drop_range(wr, start, start + old_len);
                if !dontunmap {
                    drop_range(un, start, start + old_len);
                }
                wr.extend(moved);
                if was_unaccounted {
                    un.extend(new_start..new_start + new_len);
                }
            }
            KOp::Mprotect {
                start,
                len,
                writable,
                ..
            } => {
                let vma = w
                    .mm_vmas(mm as u32)
                    .into_iter()
                    .map(|v| &w.vmas[v as usize])
                    .find(|v| v.vm_start <= start && start < v.vm_end);
                if let Some(v) = vma.filter(|v| v.vm_flags & VM_SHARED == 0) {
                    if writable {
                        drop_range(un, start, start + len);
                    } else if v.is_anonymous() && v.anon_vma.is_none() {
                        un.extend(start..start + len);
                    }
                }
            }
            KOp::Fork { child, .. } => {
                let (a, b) = (wr.clone(), un.clone());
                self.grow(child);
                self.written[child] = a;
                self.unaccounted[child] = b;
            }
            KOp::ReadFault { .. } => {}
        }
    }
}
