//! The lock builtins: the rmap locks (`i_mmap_lock_*`, `flush_dcache_mmap_*`,
//! `anon_vma_lock_*` on the root anon_vma's rwsem), `mmap_*_lock`, `mmap_write_downgrade`, the
//! per-VMA locks (`vma_start_write`, `vma_start_read`, `vma_end_read`,
//! `vma_assert_write_locked`), and `mm->page_table_lock` (`page_table_lock` /
//! `page_table_unlock`, standing for `spin_lock(&mm->page_table_lock)` and its unlock).
//!
//! An acquisition that cannot be had blocks (the thread retries later, nothing changed); a
//! release of a lock the thread does not hold is `lock-discipline`. Every successful
//! acquisition records lock-order edges from the classes the thread already holds.

use super::{fault, World, R};
use crate::exec::host::{HostError, ObjKind, ThreadId, Value};
use crate::invariant::Invariant;
use crate::world::conc::LockClass;

/// The result of a lock acquisition: done, or blocked (retried later, nothing changed).
fn acquired(ok: bool) -> R<Value> {
    if ok {
        Ok(Value::Void)
    } else {
        Err(HostError::Blocked)
    }
}

/// Which lock builtin a row of the builtin table runs, decided by the row, so that running one
/// never compares its name (the name still goes into the messages).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum LockOp {
    IMmapLockWrite,
    IMmapLockRead,
    IMmapUnlockWrite,
    IMmapUnlockRead,
    FlushDcacheLock,
    FlushDcacheUnlock,
    AnonVmaLockWrite,
    AnonVmaLockRead,
    AnonVmaUnlockWrite,
    AnonVmaUnlockRead,
    MmapWriteLock,
    MmapReadLock,
    MmapWriteUnlock,
    MmapReadUnlock,
    MmapWriteDowngrade,
    MmapReadTrylock,
    MmapAssertLocked,
    PageTableLock,
    PageTableUnlock,
}

impl LockOp {
    /// The class of the lock an acquiring builtin takes (the source of lock-order edges).
    fn acquires(self) -> Option<LockClass> {
        use LockOp::*;
        match self {
            IMmapLockWrite | IMmapLockRead => Some(LockClass::IMmapRwsem),
            FlushDcacheLock => Some(LockClass::FlushDcache),
            AnonVmaLockWrite | AnonVmaLockRead => Some(LockClass::AnonVmaRwsem),
            MmapWriteLock | MmapReadLock | MmapReadTrylock => Some(LockClass::MmapLock),
            PageTableLock => Some(LockClass::PageTableLock),
            _ => None,
        }
    }

    /// A release: the trees it unlocks are checked again after the step.
    fn releases(self) -> bool {
        use LockOp::*;
        matches!(
            self,
            IMmapUnlockWrite
                | IMmapUnlockRead
                | FlushDcacheUnlock
                | AnonVmaUnlockWrite
                | AnonVmaUnlockRead
                | MmapWriteUnlock
                | MmapReadUnlock
                | PageTableUnlock
        )
    }
}

/// The per-VMA lock builtins, one per row of the builtin table.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum VmaLockOp {
    StartWrite,
    StartRead,
    EndRead,
    AssertWriteLocked,
}

impl World {
    /// A lock builtin (`op`, named `name`); a successful acquire also records lock-order
    /// edges.
    pub(super) fn lock_op(
        &mut self,
        t: ThreadId,
        name: &str,
        op: LockOp,
        args: &[Value],
    ) -> R<Value> {
        use LockOp::*;
        if op.releases() {
            self.scratch.trees_dirty = true;
        }
        let class = op.acquires();
        let held = class.map(|_| self.held_classes(t));
        let r = match op {
            IMmapLockWrite | IMmapLockRead | IMmapUnlockWrite | IMmapUnlockRead
            | FlushDcacheLock | FlushDcacheUnlock => self.mapping_lock_op(t, name, op, args)?,
            AnonVmaLockWrite | AnonVmaLockRead | AnonVmaUnlockWrite | AnonVmaUnlockRead => {
                self.anon_vma_lock_op(t, name, op, args)?
            }
            MmapWriteLock | MmapReadLock | MmapWriteUnlock | MmapReadUnlock
            | MmapWriteDowngrade => self.mmap_lock_op(t, name, op, args)?,
            MmapReadTrylock => {
                let mm = self.obj(args[0], ObjKind::Mm, name)?;
                let got = self.mms[mm as usize].mmap_lock.try_read(t);
                if !got {
                    // a failed trylock takes nothing: no lock-order edge
                    return Ok(Value::Bool(false));
                }
                Value::Bool(true)
            }
            MmapAssertLocked => {
                let mm = self.obj(args[0], ObjKind::Mm, name)?;
                let l = &self.mms[mm as usize].mmap_lock;
                if !l.held_by(t) {
                    self.violate(
                        Invariant::LockDiscipline,
                        format!("mmap_assert_locked(mm#{mm}): thread {t} holds no mmap_lock"),
                    );
                }
                Value::Void
            }
            PageTableLock | PageTableUnlock => self.page_table_lock_op(t, name, op, args)?,
        };
        if let (Some(c), Some(h)) = (class, held) {
            self.note_acquire(h, c);
        }
        Ok(r)
    }

    /// `lock-discipline`: `op` released `what`, which thread `t` does not hold.
    fn bad_unlock(&mut self, t: ThreadId, op: &str, what: String) {
        self.violate(
            Invariant::LockDiscipline,
            format!("{op}: {what} not held by thread {t}"),
        );
    }

    /// i_mmap_rwsem and the flush_dcache lock of an address_space.
    fn mapping_lock_op(&mut self, t: ThreadId, name: &str, op: LockOp, args: &[Value]) -> R<Value> {
        let m = self.obj(args[0], ObjKind::Mapping, name)?;
        let a = &mut self.mappings[m as usize];
        let ok = match op {
            LockOp::IMmapLockWrite => return acquired(a.i_mmap_rwsem.try_write(t)),
            LockOp::IMmapLockRead => return acquired(a.i_mmap_rwsem.try_read(t)),
            LockOp::FlushDcacheLock => return acquired(a.flush_dcache.try_lock(t)),
            LockOp::IMmapUnlockWrite => a.i_mmap_rwsem.unlock_write(t),
            LockOp::IMmapUnlockRead => a.i_mmap_rwsem.unlock_read(t),
            _ => a.flush_dcache.unlock(t),
        };
        if !ok {
            self.bad_unlock(t, name, format!("mapping#{m} lock"));
        }
        Ok(Value::Void)
    }

    /// The rwsem of an anon_vma's root, which every anon_vma of the hierarchy shares.
    fn anon_vma_lock_op(
        &mut self,
        t: ThreadId,
        name: &str,
        op: LockOp,
        args: &[Value],
    ) -> R<Value> {
        let av = self.obj(args[0], ObjKind::AnonVma, name)?;
        let root = self.anon_vmas[av as usize].root;
        let s = &mut self.anon_vmas[root as usize].rwsem;
        let ok = match op {
            LockOp::AnonVmaLockWrite => return acquired(s.try_write(t)),
            LockOp::AnonVmaLockRead => return acquired(s.try_read(t)),
            LockOp::AnonVmaUnlockWrite => s.unlock_write(t),
            _ => s.unlock_read(t),
        };
        if !ok {
            self.bad_unlock(t, name, format!("anon_vma#{root} rwsem"));
        }
        Ok(Value::Void)
    }

    /// An mm's mmap_lock.
    fn mmap_lock_op(&mut self, t: ThreadId, name: &str, op: LockOp, args: &[Value]) -> R<Value> {
        let mm = self.obj(args[0], ObjKind::Mm, name)?;
        let m = &mut self.mms[mm as usize];
        let ok = match op {
            LockOp::MmapWriteLock => return acquired(m.mmap_lock.try_write(t)),
            LockOp::MmapReadLock => return acquired(m.mmap_lock.try_read(t)),
            LockOp::MmapWriteUnlock => {
                // Dropping the mmap write lock ends every VMA write lock taken under it.
                let ok = m.mmap_lock.unlock_write(t);
                if ok {
                    m.mm_lock_seq += 1;
                }
                ok
            }
            LockOp::MmapWriteDowngrade => {
                // The writer becomes a reader without letting anyone in between; like an
                // unlock, it ends every VMA write lock (vma_end_write_all()).
                let ok = m.mmap_lock.unlock_write(t);
                if ok {
                    m.mm_lock_seq += 1;
                    m.mmap_lock.readers |= 1 << t;
                }
                ok
            }
            _ => m.mmap_lock.unlock_read(t),
        };
        if !ok {
            self.bad_unlock(t, name, format!("mm#{mm} mmap_lock"));
        }
        Ok(Value::Void)
    }

    /// `mm->page_table_lock`, a spinlock.
    fn page_table_lock_op(
        &mut self,
        t: ThreadId,
        name: &str,
        op: LockOp,
        args: &[Value],
    ) -> R<Value> {
        let mm = self.obj(args[0], ObjKind::Mm, name)?;
        let l = &mut self.mms[mm as usize].page_table_lock;
        if op == LockOp::PageTableLock {
            return acquired(l.try_lock(t));
        }
        if !l.unlock(t) {
            self.bad_unlock(t, name, format!("mm#{mm} page_table_lock"));
        }
        Ok(Value::Void)
    }

    /// `lock-discipline` for a write of `vma->anon_vma`: with the mmap lock of the VMA's mm
    /// held only for read (or only the VMA's read lock), the writer must hold the mm's
    /// page_table_lock and the mmap lock (`__anon_vma_prepare`: "page_table_lock to protect
    /// against threads"; the field is "serialized by page_table_lock"). A writer holding the
    /// mmap lock for write excludes every other writer, and one holding no lock of the mm at
    /// all is setting up an object no other thread can reach yet. Nor is a VMA its mm no longer
    /// lists reachable: munmap's unlink_anon_vmas() after the clear and the downgrade clears
    /// the field under the read lock alone, and no fault can find that VMA any more (a per-VMA
    /// reader cannot lock it: it is detached).
    pub(super) fn check_anon_vma_write(&mut self, t: ThreadId, v: u32) {
        let Some(mm) = self.vmas[v as usize].vm_mm else {
            return;
        };
        if !self.in_mm_list(v) {
            return;
        }
        let m = &self.mms[mm as usize];
        if m.mmap_lock.held_write_by(t) {
            return;
        }
        let read = m.mmap_lock.held_read_by(t);
        let vma_read = self.vmas[v as usize].vm_lock_readers & (1 << t) != 0;
        if !read && !vma_read {
            return;
        }
        let ptl = m.page_table_lock.held_by(t);
        if !read || !ptl {
            let lacks = match (read, ptl) {
                (false, false) => "the mmap_lock and the page_table_lock",
                (false, true) => "the mmap_lock",
                _ => "the page_table_lock",
            };
            self.violate(
                Invariant::LockDiscipline,
                format!("vma#{v}->anon_vma set by thread {t} without {lacks} of mm#{mm}"),
            );
        }
    }

    /// The per-VMA lock: a VMA is write-locked while its `vm_lock_seq` equals its mm's
    /// `mm_lock_seq`; readers are a bit per thread.
    pub(super) fn vma_lock_op(
        &mut self,
        t: ThreadId,
        name: &str,
        op: VmaLockOp,
        args: &[Value],
    ) -> R<Value> {
        // a lockless reader may try to lock a VMA freed under it (vma_start_read fails)
        let v = if op == VmaLockOp::StartRead {
            self.obj(args[0], ObjKind::Vma, name)?
        } else {
            self.vma_arg(args[0], name)?
        };
        let Some(mm) = self.vmas[v as usize].vm_mm else {
            return fault(format!("{name}: vma#{v} has no mm"));
        };
        let seq = self.mms[mm as usize].mm_lock_seq;
        match op {
            VmaLockOp::StartWrite => {
                if !self.mms[mm as usize].mmap_lock.held_write_by(t) {
                    self.violate(
                        Invariant::LockDiscipline,
                        format!("vma_start_write(vma#{v}) without mm#{mm}'s mmap_lock for write"),
                    );
                }
                if self.vmas[v as usize].vm_lock_readers & !(1 << t) != 0 {
                    return Err(HostError::Blocked);
                }
                let held = self.held_classes(t);
                self.vmas[v as usize].vm_lock_seq = Some(seq);
                self.note_acquire(held, LockClass::VmaLock);
                Ok(Value::Void)
            }
            VmaLockOp::StartRead => {
                let vma = &self.vmas[v as usize];
                // a freed VMA was detached first (its memory outlives RCU readers)
                if vma.vm_lock_seq == Some(seq) || vma.detached || vma.freed {
                    return Ok(Value::Bool(false));
                }
                let held = self.held_classes(t);
                self.vmas[v as usize].vm_lock_readers |= 1 << t;
                self.note_acquire(held, LockClass::VmaLock);
                self.section_begin(t, v);
                Ok(Value::Bool(true))
            }
            VmaLockOp::EndRead => {
                let vma = &mut self.vmas[v as usize];
                if vma.vm_lock_readers & (1 << t) == 0 {
                    self.violate(
                        Invariant::LockDiscipline,
                        format!("vma_end_read(vma#{v}) not held"),
                    );
                } else {
                    vma.vm_lock_readers &= !(1 << t);
                }
                self.section_end(t, v);
                Ok(Value::Void)
            }
            VmaLockOp::AssertWriteLocked => {
                let locked = self.vmas[v as usize].vm_lock_seq == Some(seq);
                if !locked {
                    self.violate(
                        Invariant::LockDiscipline,
                        format!("vma#{v} changed without vma_start_write()"),
                    );
                }
                Ok(Value::Void)
            }
        }
    }
}
