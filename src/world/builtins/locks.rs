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

impl World {
    /// A lock builtin; a successful acquire also records lock-order edges.
    pub(super) fn lock_op(&mut self, t: ThreadId, op: &str, args: &[Value]) -> R<Value> {
        if op.contains("unlock") {
            self.scratch.trees_dirty = true;
        }
        let class = match op {
            "i_mmap_lock_write" | "i_mmap_lock_read" => Some(LockClass::IMmapRwsem),
            "flush_dcache_mmap_lock" => Some(LockClass::FlushDcache),
            "anon_vma_lock_write" | "anon_vma_lock_read" => Some(LockClass::AnonVmaRwsem),
            "mmap_write_lock" | "mmap_read_lock" | "mmap_read_trylock" => Some(LockClass::MmapLock),
            "page_table_lock" => Some(LockClass::PageTableLock),
            _ => None,
        };
        let held = class.map(|_| self.held_classes(t));
        let r = match op {
            "i_mmap_lock_write"
            | "i_mmap_lock_read"
            | "i_mmap_unlock_write"
            | "i_mmap_unlock_read"
            | "flush_dcache_mmap_lock"
            | "flush_dcache_mmap_unlock" => self.mapping_lock_op(t, op, args)?,
            "anon_vma_lock_write"
            | "anon_vma_lock_read"
            | "anon_vma_unlock_write"
            | "anon_vma_unlock_read" => self.anon_vma_lock_op(t, op, args)?,
            "mmap_write_lock"
            | "mmap_read_lock"
            | "mmap_write_unlock"
            | "mmap_read_unlock"
            | "mmap_write_downgrade" => self.mmap_lock_op(t, op, args)?,
            "mmap_read_trylock" => {
                let mm = self.obj(args[0], ObjKind::Mm, op)?;
                let got = self.mms[mm as usize].mmap_lock.try_read(t);
                if !got {
                    // a failed trylock takes nothing: no lock-order edge
                    return Ok(Value::Bool(false));
                }
                Value::Bool(true)
            }
            "mmap_assert_locked" => {
                let mm = self.obj(args[0], ObjKind::Mm, op)?;
                let l = &self.mms[mm as usize].mmap_lock;
                if !l.held_read_by(t) && !l.held_write_by(t) {
                    self.violate(
                        Invariant::LockDiscipline,
                        format!("mmap_assert_locked(mm#{mm}): thread {t} holds no mmap_lock"),
                    );
                }
                Value::Void
            }
            "page_table_lock" | "page_table_unlock" => self.page_table_lock_op(t, op, args)?,
            _ => return fault(format!("unknown lock builtin {op}")),
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
    fn mapping_lock_op(&mut self, t: ThreadId, op: &str, args: &[Value]) -> R<Value> {
        let m = self.obj(args[0], ObjKind::Mapping, op)?;
        let a = &mut self.mappings[m as usize];
        let ok = match op {
            "i_mmap_lock_write" => return acquired(a.i_mmap_rwsem.try_write(t)),
            "i_mmap_lock_read" => return acquired(a.i_mmap_rwsem.try_read(t)),
            "flush_dcache_mmap_lock" => return acquired(a.flush_dcache.try_lock(t)),
            "i_mmap_unlock_write" => a.i_mmap_rwsem.unlock_write(t),
            "i_mmap_unlock_read" => a.i_mmap_rwsem.unlock_read(t),
            _ => a.flush_dcache.unlock(t),
        };
        if !ok {
            self.bad_unlock(t, op, format!("mapping#{m} lock"));
        }
        Ok(Value::Void)
    }

    /// The rwsem of an anon_vma's root, which every anon_vma of the hierarchy shares.
    fn anon_vma_lock_op(&mut self, t: ThreadId, op: &str, args: &[Value]) -> R<Value> {
        let av = self.obj(args[0], ObjKind::AnonVma, op)?;
        let root = self.anon_vmas[av as usize].root;
        let s = &mut self.anon_vmas[root as usize].rwsem;
        let ok = match op {
            "anon_vma_lock_write" => return acquired(s.try_write(t)),
            "anon_vma_lock_read" => return acquired(s.try_read(t)),
            "anon_vma_unlock_write" => s.unlock_write(t),
            _ => s.unlock_read(t),
        };
        if !ok {
            self.bad_unlock(t, op, format!("anon_vma#{root} rwsem"));
        }
        Ok(Value::Void)
    }

    /// An mm's mmap_lock.
    fn mmap_lock_op(&mut self, t: ThreadId, op: &str, args: &[Value]) -> R<Value> {
        let mm = self.obj(args[0], ObjKind::Mm, op)?;
        let m = &mut self.mms[mm as usize];
        let ok = match op {
            "mmap_write_lock" => return acquired(m.mmap_lock.try_write(t)),
            "mmap_read_lock" => return acquired(m.mmap_lock.try_read(t)),
            "mmap_write_unlock" => {
                // Dropping the mmap write lock ends every VMA write lock taken under it.
                let ok = m.mmap_lock.unlock_write(t);
                if ok {
                    m.mm_lock_seq += 1;
                }
                ok
            }
            "mmap_write_downgrade" => {
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
            self.bad_unlock(t, op, format!("mm#{mm} mmap_lock"));
        }
        Ok(Value::Void)
    }

    /// `mm->page_table_lock`, a spinlock.
    fn page_table_lock_op(&mut self, t: ThreadId, op: &str, args: &[Value]) -> R<Value> {
        let mm = self.obj(args[0], ObjKind::Mm, op)?;
        let l = &mut self.mms[mm as usize].page_table_lock;
        if op == "page_table_lock" {
            return acquired(l.try_lock(t));
        }
        if !l.unlock(t) {
            self.bad_unlock(t, op, format!("mm#{mm} page_table_lock"));
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
    pub(super) fn vma_lock_op(&mut self, t: ThreadId, op: &str, args: &[Value]) -> R<Value> {
        // a lockless reader may try to lock a VMA freed under it (vma_start_read fails)
        let v = if op == "vma_start_read" {
            self.obj(args[0], ObjKind::Vma, op)?
        } else {
            self.vma_arg(args[0], op)?
        };
        let Some(mm) = self.vmas[v as usize].vm_mm else {
            return fault(format!("{op}: vma#{v} has no mm"));
        };
        let seq = self.mms[mm as usize].mm_lock_seq;
        match op {
            "vma_start_write" => {
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
            "vma_start_read" => {
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
            "vma_end_read" => {
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
            _ => {
                // vma_assert_write_locked
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
