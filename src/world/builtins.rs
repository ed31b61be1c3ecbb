//! The world as a `Host`: kernel field reads and writes, and the builtins models call by their
//! kernel names (rmap tree operations, rmap locks, VMA and anon_vma_chain helpers).
//!
//! Builtins check what the kernel would rely on silently: a tree operation's preconditions and the
//! lock that guards the tree (`lock-discipline`), and they run every key-driven descent with the
//! stale-descent check on. What they find is recorded with `World::violate` and reported by the
//! checker at the step that did it; the operation itself goes on as the kernel's would, except that
//! a tree precondition failure leaves the tree untouched (the kernel would corrupt it).

use super::keys::{AnonKeys, FileKeys};
use super::World;
use crate::check::Invariant;
use crate::exec::host::{Host, HostError, ObjKind, ThreadId, Value};
use crate::tree::{interval, TreeObs};

type R<T> = Result<T, HostError>;

/// The result of a lock acquisition: done, or blocked (retried later, nothing changed).
fn acquired(ok: bool) -> R<Value> {
    if ok {
        Ok(Value::Void)
    } else {
        Err(HostError::Blocked)
    }
}

fn fault<T>(msg: impl Into<String>) -> R<T> {
    Err(HostError::Fault(msg.into()))
}

/// Bit of `vm_flags` meaning a shared mapping (as the models' `#define VM_SHARED`).
pub const VM_SHARED: i64 = 0x8;
/// Bit of `vm_flags` meaning writable (as the models' `#define VM_WRITE`).
pub const VM_WRITE: i64 = 0x2;
/// `VM_STACK_INCOMPLETE_SETUP` (as the models' `#define`): exec's stack before its move.
pub const VM_STACK_INCOMPLETE_SETUP: i64 = 0x30000;

impl World {
    fn obj(&self, v: Value, kind: ObjKind, what: &str) -> R<u32> {
        match v {
            Value::Obj(k, id) if k == kind => {
                let len = match kind {
                    ObjKind::Mm => self.mms.len(),
                    ObjKind::Vma => self.vmas.len(),
                    ObjKind::File => self.files.len(),
                    ObjKind::Mapping => self.mappings.len(),
                    ObjKind::AnonVma => self.anon_vmas.len(),
                    ObjKind::Avc => self.avcs.len(),
                };
                if (id as usize) < len {
                    Ok(id)
                } else {
                    fault(format!("{what}: no such {}#{id}", kind.short()))
                }
            }
            Value::Null => fault(format!("{what}: NULL {} pointer", kind.struct_tag())),
            other => fault(format!(
                "{what}: expected struct {} *, got {other}",
                kind.struct_tag()
            )),
        }
    }

    fn vma_arg(&self, v: Value, what: &str) -> R<u32> {
        let id = self.obj(v, ObjKind::Vma, what)?;
        if self.vmas[id as usize].freed {
            return fault(format!("{what}: use of freed vma#{id}"));
        }
        Ok(id)
    }

    fn int_arg(v: Value, what: &str) -> R<i64> {
        match v {
            Value::Int(i) => Ok(i),
            Value::Bool(b) => Ok(b as i64),
            other => fault(format!("{what}: expected an integer, got {other}")),
        }
    }

    fn opt(kind: ObjKind, id: Option<u32>) -> Value {
        id.map_or(Value::Null, |i| Value::Obj(kind, i))
    }

    fn opt_id(&self, v: Value, kind: ObjKind, what: &str) -> R<Option<u32>> {
        match v {
            Value::Null => Ok(None),
            v => self.obj(v, kind, what).map(Some),
        }
    }

    /// Whether thread `t` holds what a file-tree change needs: i_mmap_rwsem for write and the
    /// flush_dcache lock.
    fn check_file_tree_write(&mut self, t: ThreadId, mapping: u32, op: &str) {
        let m = &self.mappings[mapping as usize];
        let (rw, fl) = (m.i_mmap_rwsem.held_write_by(t), m.flush_dcache.held_by(t));
        if !rw {
            self.violate(
                Invariant::LockDiscipline,
                format!("{op} on mapping#{mapping} without i_mmap_rwsem held for write"),
            );
        }
        if !fl {
            self.violate(
                Invariant::LockDiscipline,
                format!("{op} on mapping#{mapping} without the flush_dcache lock"),
            );
        }
    }

    fn check_file_tree_read(&mut self, t: ThreadId, mapping: u32, op: &str) {
        let m = &self.mappings[mapping as usize];
        if !(m.i_mmap_rwsem.held_read_by(t)
            || m.i_mmap_rwsem.held_write_by(t)
            || m.flush_dcache.held_by(t))
        {
            self.violate(
                Invariant::LockDiscipline,
                format!("{op} on mapping#{mapping} without i_mmap_rwsem or the flush_dcache lock"),
            );
        }
    }

    fn anon_root(&self, av: u32) -> u32 {
        self.anon_vmas[av as usize].root
    }

    fn check_anon_tree(&mut self, t: ThreadId, av: u32, op: &str, write: bool) {
        let root = self.anon_root(av);
        let sem = &self.anon_vmas[root as usize].rwsem;
        let ok = sem.held_write_by(t) || (!write && sem.held_read_by(t));
        if !ok {
            let need = if write { "for write" } else { "" };
            self.violate(
                Invariant::LockDiscipline,
                format!("{op} on anon_vma#{av} without its root anon_vma#{root} lock {need}")
                    .trim_end()
                    .to_string(),
            );
        }
    }

    /// Move a tree operation's observations into the scratch record.
    fn absorb(&mut self, obs: TreeObs, file: bool, op: &str) {
        let w = &mut self.scratch.work;
        let s = if file { &mut w.file } else { &mut w.anon };
        s.visits += obs.stats.visits;
        s.rotations += obs.stats.rotations;
        s.augment_computes += obs.stats.augment_computes;
        for st in obs.stale {
            let kind = if file { "vma" } else { "avc" };
            let mut msg = format!(
                "{op}: descent passed {kind}#{} whose start {} is out of order",
                st.node, st.start
            );
            if let Some((p, ps)) = st.pred {
                msg += &format!(" (predecessor {kind}#{p} starts at {ps})");
            }
            if let Some((s, ss)) = st.succ {
                msg += &format!(" (successor {kind}#{s} starts at {ss})");
            }
            self.violate(Invariant::StaleDescent, msg);
        }
    }

    /// Report a refused tree operation, naming objects as traces do (`vma#3`, `avc#1`).
    fn tree_err(&mut self, op: &str, e: crate::tree::TreeError, tree: &str) {
        use crate::tree::TreeError;
        let kind = if op.starts_with("anon") { "avc" } else { "vma" };
        let msg = match e {
            TreeError::AlreadyInTree(n) => format!("{kind}#{n} is already in {tree}"),
            TreeError::NotInTree(n) => format!("{kind}#{n} is not in {tree}"),
            TreeError::PrevNotInTree(n) => format!("prev {kind}#{n} is not in {tree}"),
        };
        self.violate(Invariant::TreePrecondition, format!("{op}: {msg}"));
    }

    fn file_tree_op(&mut self, t: ThreadId, op: &'static str, args: &[Value]) -> R<Value> {
        self.scratch.trees_dirty = true;
        let vma = self.vma_arg(args[0], op)?;
        let (prev, mapping) = match op {
            "mapping_rmap_tree_insert_after" => (
                Some(self.vma_arg(args[1], op)?),
                self.obj(args[2], ObjKind::Mapping, op)?,
            ),
            "mapping_rmap_tree_propagate" => match self.vma_mapping(vma) {
                Some(m) => (None, m),
                None => return fault(format!("{op}: vma#{vma} has no file")),
            },
            _ => (None, self.obj(args[1], ObjKind::Mapping, op)?),
        };
        self.check_file_tree_write(t, mapping, op);
        if let Some(p) = prev {
            // VM_BUG_ON_VMA in the kernel: a fork copy sorts at its parent's position only
            // if both start at the same pgoff.
            let (a, b) = (
                self.vmas[vma as usize].vm_pgoff,
                self.vmas[p as usize].vm_pgoff,
            );
            if a != b {
                self.violate(
                    Invariant::TreePrecondition,
                    format!("{op}: vma#{vma} starts at pgoff {a} but prev vma#{p} at {b}"),
                );
            }
        }
        let mut obs = TreeObs {
            check_stale: true,
            ..Default::default()
        };
        let keys = FileKeys { vmas: &self.vmas };
        let tree = &mut self.mappings[mapping as usize].i_mmap;
        let res = match op {
            "mapping_rmap_tree_insert" => interval::insert(tree, &keys, vma, &mut obs),
            "mapping_rmap_tree_insert_after" => {
                interval::insert_after(tree, &keys, vma, prev.unwrap_or(0), &mut obs)
            }
            "mapping_rmap_tree_remove" => interval::remove(tree, &keys, vma, &mut obs),
            _ => interval::propagate(tree, &keys, vma, &mut obs),
        };
        self.scratch.work.file_ops += 1;
        self.absorb(obs, true, op);
        match res {
            Err(e) => self.tree_err(op, e, &format!("mapping#{mapping}'s tree")),
            Ok(_) if op.contains("insert") => self.vmas[vma as usize].file_linked = true,
            Ok(_) => {}
        }
        Ok(Value::Void)
    }

    fn anon_tree_op(&mut self, t: ThreadId, op: &'static str, args: &[Value]) -> R<Value> {
        self.scratch.trees_dirty = true;
        let avc = self.obj(args[0], ObjKind::Avc, op)?;
        if self.avcs[avc as usize].freed {
            return fault(format!("{op}: use of freed avc#{avc}"));
        }
        let av = if op == "anon_rmap_tree_propagate" {
            match self.avcs[avc as usize].anon_vma {
                Some(a) => a,
                None => return fault(format!("{op}: avc#{avc} has no anon_vma")),
            }
        } else {
            self.obj(args[1], ObjKind::AnonVma, op)?
        };
        self.check_anon_tree(t, av, op, true);
        let mut obs = TreeObs {
            check_stale: true,
            ..Default::default()
        };
        let keys = AnonKeys {
            vmas: &self.vmas,
            avcs: &self.avcs,
        };
        let (start, last) = {
            use crate::tree::IntervalKeys;
            (keys.start(avc), keys.last(avc))
        };
        let tree = &mut self.anon_vmas[av as usize].rb_root;
        let res = match op {
            "anon_rmap_tree_insert" => interval::insert(tree, &keys, avc, &mut obs),
            "anon_rmap_tree_remove" => interval::remove(tree, &keys, avc, &mut obs),
            _ => interval::propagate(tree, &keys, avc, &mut obs),
        };
        // DEBUG_VM_RB: the insert records the key it sorted by.
        if op == "anon_rmap_tree_insert" && res.is_ok() {
            let a = &mut self.avcs[avc as usize];
            a.cached_vma_start = start;
            a.cached_vma_last = last;
            a.linked = true;
        }
        self.scratch.work.anon_ops += 1;
        self.absorb(obs, false, op);
        if let Err(e) = res {
            self.tree_err(op, e, &format!("anon_vma#{av}'s tree"));
        }
        Ok(Value::Void)
    }

    fn file_tree_query(&mut self, t: ThreadId, op: &'static str, args: &[Value]) -> R<Value> {
        let first = Self::int_arg(args[1], op)? as u64;
        let last = Self::int_arg(args[2], op)? as u64;
        let mut obs = TreeObs {
            check_stale: true,
            ..Default::default()
        };
        let keys = FileKeys { vmas: &self.vmas };
        let (mapping, found) = if op == "mapping_rmap_tree_iter_first" {
            let m = self.obj(args[0], ObjKind::Mapping, op)?;
            let tree = &self.mappings[m as usize].i_mmap;
            (m, interval::iter_first(tree, &keys, first, last, &mut obs))
        } else {
            let v = self.obj(args[0], ObjKind::Vma, op)?;
            let Some(m) = self.vma_mapping(v) else {
                return fault(format!("{op}: vma#{v} has no file"));
            };
            let tree = &self.mappings[m as usize].i_mmap;
            if !tree.contains(v) {
                // only a walk racing with a writer gets here: its cursor left the tree
                self.violate(
                    Invariant::WalkerComplete,
                    format!("{op}: the walk's cursor vma#{v} was removed from mapping#{m}'s tree under it"),
                );
                return Ok(Value::Null);
            }
            (
                m,
                interval::iter_next(tree, &keys, v, first, last, &mut obs),
            )
        };
        self.check_file_tree_read(t, mapping, op);
        self.absorb(obs, true, op);
        Ok(Self::opt(ObjKind::Vma, found))
    }

    fn anon_tree_query(&mut self, t: ThreadId, op: &'static str, args: &[Value]) -> R<Value> {
        let first = Self::int_arg(args[1], op)? as u64;
        let last = Self::int_arg(args[2], op)? as u64;
        let mut obs = TreeObs {
            check_stale: true,
            ..Default::default()
        };
        let keys = AnonKeys {
            vmas: &self.vmas,
            avcs: &self.avcs,
        };
        let (av, found) = if op == "anon_rmap_tree_iter_first" {
            let a = self.obj(args[0], ObjKind::AnonVma, op)?;
            let tree = &self.anon_vmas[a as usize].rb_root;
            (a, interval::iter_first(tree, &keys, first, last, &mut obs))
        } else {
            let c = self.obj(args[0], ObjKind::Avc, op)?;
            let Some(a) = self.avcs[c as usize].anon_vma else {
                return fault(format!("{op}: avc#{c} has no anon_vma"));
            };
            let tree = &self.anon_vmas[a as usize].rb_root;
            if !tree.contains(c) {
                self.violate(
                    Invariant::WalkerComplete,
                    format!("{op}: the walk's cursor avc#{c} was removed from anon_vma#{a}'s tree under it"),
                );
                return Ok(Value::Null);
            }
            (
                a,
                interval::iter_next(tree, &keys, c, first, last, &mut obs),
            )
        };
        self.check_anon_tree(t, av, op, false);
        self.absorb(obs, false, op);
        Ok(Self::opt(ObjKind::Avc, found))
    }

    /// A lock builtin; a successful acquire also records lock-order edges.
    fn lock_op(&mut self, t: ThreadId, op: &str, args: &[Value]) -> R<Value> {
        if op.contains("unlock") {
            self.scratch.trees_dirty = true;
        }
        use super::conc::LockClass;
        let class = match op {
            "i_mmap_lock_write" | "i_mmap_lock_read" => Some(LockClass::IMmapRwsem),
            "flush_dcache_mmap_lock" => Some(LockClass::FlushDcache),
            "anon_vma_lock_write" | "anon_vma_lock_read" => Some(LockClass::AnonVmaRwsem),
            "mmap_write_lock" | "mmap_read_lock" => Some(LockClass::MmapLock),
            _ => None,
        };
        let held = class.map(|_| self.held_classes(t));
        let r = self.lock_op_inner(t, op, args)?;
        if let (Some(c), Some(h)) = (class, held) {
            self.note_acquire(h, c);
        }
        Ok(r)
    }

    fn lock_op_inner(&mut self, t: ThreadId, op: &str, args: &[Value]) -> R<Value> {
        let bad_unlock = |w: &mut World, what: String| {
            w.violate(
                Invariant::LockDiscipline,
                format!("{op}: {what} not held by thread {t}"),
            );
        };
        match op {
            "i_mmap_lock_write"
            | "i_mmap_lock_read"
            | "i_mmap_unlock_write"
            | "i_mmap_unlock_read"
            | "flush_dcache_mmap_lock"
            | "flush_dcache_mmap_unlock" => {
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
                    bad_unlock(self, format!("mapping#{m} lock"));
                }
            }
            "anon_vma_lock_write"
            | "anon_vma_lock_read"
            | "anon_vma_unlock_write"
            | "anon_vma_unlock_read" => {
                let av = self.obj(args[0], ObjKind::AnonVma, op)?;
                let root = self.anon_root(av);
                let s = &mut self.anon_vmas[root as usize].rwsem;
                let ok = match op {
                    "anon_vma_lock_write" => return acquired(s.try_write(t)),
                    "anon_vma_lock_read" => return acquired(s.try_read(t)),
                    "anon_vma_unlock_write" => s.unlock_write(t),
                    _ => s.unlock_read(t),
                };
                if !ok {
                    bad_unlock(self, format!("anon_vma#{root} rwsem"));
                }
            }
            "mmap_write_lock" | "mmap_read_lock" | "mmap_write_unlock" | "mmap_read_unlock" => {
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
                    _ => m.mmap_lock.unlock_read(t),
                };
                if !ok {
                    bad_unlock(self, format!("mm#{mm} mmap_lock"));
                }
            }
            _ => return fault(format!("unknown lock builtin {op}")),
        }
        Ok(Value::Void)
    }

    fn vma_lock_op(&mut self, t: ThreadId, op: &str, args: &[Value]) -> R<Value> {
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
                self.note_acquire(held, super::conc::LockClass::VmaLock);
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
                self.note_acquire(held, super::conc::LockClass::VmaLock);
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

    fn builtin(&mut self, t: ThreadId, name: &str, a: &[Value]) -> R<Value> {
        let sig = super::schema::builtin_arity(name);
        match sig {
            None => return fault(format!("unknown builtin {name}")),
            Some(n) if n != a.len() => {
                return fault(format!("{name}: expected {n} arguments, got {}", a.len()))
            }
            _ => {}
        }
        match name {
            "mapping_rmap_tree_insert" => self.file_tree_op(t, "mapping_rmap_tree_insert", a),
            "mapping_rmap_tree_insert_after" => {
                self.file_tree_op(t, "mapping_rmap_tree_insert_after", a)
            }
            "mapping_rmap_tree_remove" => self.file_tree_op(t, "mapping_rmap_tree_remove", a),
            "mapping_rmap_tree_propagate" => self.file_tree_op(t, "mapping_rmap_tree_propagate", a),
            "mapping_rmap_tree_iter_first" => {
                self.file_tree_query(t, "mapping_rmap_tree_iter_first", a)
            }
            "mapping_rmap_tree_iter_next" => {
                self.file_tree_query(t, "mapping_rmap_tree_iter_next", a)
            }
            "anon_rmap_tree_insert" => self.anon_tree_op(t, "anon_rmap_tree_insert", a),
            "anon_rmap_tree_remove" => self.anon_tree_op(t, "anon_rmap_tree_remove", a),
            "anon_rmap_tree_propagate" => self.anon_tree_op(t, "anon_rmap_tree_propagate", a),
            "anon_rmap_tree_iter_first" => self.anon_tree_query(t, "anon_rmap_tree_iter_first", a),
            "anon_rmap_tree_iter_next" => self.anon_tree_query(t, "anon_rmap_tree_iter_next", a),
            n if n.starts_with("i_mmap_")
                || n.starts_with("flush_dcache_mmap_")
                || n.starts_with("anon_vma_lock")
                || n.starts_with("anon_vma_unlock")
                || n.starts_with("mmap_") =>
            {
                self.lock_op(t, n, a)
            }
            "vma_start_write" | "vma_start_read" | "vma_end_read" | "vma_assert_write_locked" => {
                self.vma_lock_op(t, name, a)
            }
            "rmap_walk_file_begin" | "rmap_walk_anon_begin" => {
                let p = Self::int_arg(a[1], name)?;
                if p < 0 {
                    return fault(format!("{name}: negative pgoff {p}"));
                }
                let target = if name == "rmap_walk_file_begin" {
                    super::conc::WalkTarget::File(self.obj(a[0], ObjKind::Mapping, name)?)
                } else {
                    super::conc::WalkTarget::Anon(self.obj(a[0], ObjKind::AnonVma, name)?)
                };
                self.walk_begin(t, target, p as u64);
                Ok(Value::Void)
            }
            "rmap_walk_found" => {
                let v = self.obj(a[0], ObjKind::Vma, name)?;
                self.walk_found(t, v).map_err(HostError::Fault)?;
                Ok(Value::Void)
            }
            "rmap_walk_end" => {
                self.walk_end(t).map_err(HostError::Fault)?;
                Ok(Value::Void)
            }
            "unmap_vmas" => {
                let v = self.vma_arg(a[0], name)?;
                self.vmas[v as usize].zapped = true;
                let (s, e) = (self.vmas[v as usize].vm_start, self.vmas[v as usize].vm_end);
                self.zap_ptes(v, s, e);
                Ok(Value::Void)
            }
            "fault_anon_page" | "fault_file_page" => {
                let v = self.vma_arg(a[0], name)?;
                let addr = Self::int_arg(a[1], name)?.max(0) as u64;
                let r = if name == "fault_anon_page" {
                    self.fault_anon_page(v, addr)
                } else {
                    self.fault_file_page(v, addr)
                };
                r.map_err(HostError::Fault)?;
                Ok(Value::Void)
            }
            "copy_page_range" => {
                let dst = self.vma_arg(a[0], name)?;
                let src = self.vma_arg(a[1], name)?;
                self.copy_page_range(dst, src).map_err(HostError::Fault)?;
                Ok(Value::Void)
            }
            "move_page_tables" => {
                let v = self.vma_arg(a[0], name)?;
                let mut n = [0u64; 3];
                for (i, x) in n.iter_mut().enumerate() {
                    let k = Self::int_arg(a[i + 1], name)?;
                    if k < 0 {
                        return fault(format!("{name}: negative argument {k}"));
                    }
                    *x = k as u64;
                }
                self.move_page_tables(v, n[0], n[1], n[2])
                    .map_err(HostError::Fault)?;
                Ok(Value::Void)
            }
            "zap_page_range_single" => {
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
                Ok(Value::Void)
            }
            "mm_alloc" => Ok(Value::Obj(ObjKind::Mm, self.add_mm())),
            "vm_area_alloc" => {
                let mm = self.obj(a[0], ObjKind::Mm, name)?;
                Ok(Value::Obj(ObjKind::Vma, self.alloc_vma(Some(mm))))
            }
            "vm_area_dup" => {
                let src = self.vma_arg(a[0], name)?;
                let mut copy = self.vmas[src as usize].clone();
                copy.anon_vma_chain.clear();
                copy.vm_lock_seq = None;
                copy.vm_lock_readers = 0;
                copy.detached = false;
                copy.file_linked = false;
                copy.zapped = false;
                self.vmas.push(copy);
                Ok(Value::Obj(ObjKind::Vma, (self.vmas.len() - 1) as u32))
            }
            "vm_area_free" => {
                let v = self.vma_arg(a[0], name)?;
                self.vmas[v as usize].freed = true;
                Ok(Value::Void)
            }
            "vma_mark_detached" => {
                let v = self.vma_arg(a[0], name)?;
                self.vmas[v as usize].detached = true;
                Ok(Value::Void)
            }
            "vma_iter_store" => {
                let mm = self.obj(a[0], ObjKind::Mm, name)?;
                let v = self.vma_arg(a[1], name)?;
                let vma = &self.vmas[v as usize];
                if vma.vm_start >= vma.vm_end {
                    return fault(format!(
                        "{name}: vma#{v} has an empty range [{}, {})",
                        vma.vm_start, vma.vm_end
                    ));
                }
                self.mm_store(mm, v);
                Ok(Value::Void)
            }
            "vma_iter_clear" => {
                let mm = self.obj(a[0], ObjKind::Mm, name)?;
                let s = Self::int_arg(a[1], name)? as u64;
                let e = Self::int_arg(a[2], name)? as u64;
                self.mm_clear(mm, s, e);
                Ok(Value::Void)
            }
            "vma_first" | "find_vma" | "vma_lookup" => {
                let mm = self.obj(a[0], ObjKind::Mm, name)?;
                let addr = if name == "vma_first" {
                    0
                } else {
                    Self::int_arg(a[1], name)? as u64
                };
                let map = &self.mms[mm as usize].vmas;
                let hit = map
                    .iter()
                    .find(|(_, &(e, _))| e > addr)
                    .filter(|(&s, _)| name != "vma_lookup" || s <= addr)
                    .map(|(_, &(_, v))| v);
                Ok(Self::opt(ObjKind::Vma, hit))
            }
            "vma_next" | "vma_prev" => {
                let mm = self.obj(a[0], ObjKind::Mm, name)?;
                let v = self.obj(a[1], ObjKind::Vma, name)?;
                let map = &self.mms[mm as usize].vmas;
                let list: Vec<u32> = map.values().map(|&(_, v)| v).collect();
                let Some(pos) = list.iter().position(|&x| x == v) else {
                    return fault(format!("{name}: vma#{v} is not in mm#{mm}"));
                };
                let hit = if name == "vma_next" {
                    list.get(pos + 1).copied()
                } else {
                    pos.checked_sub(1).map(|p| list[p])
                };
                Ok(Self::opt(ObjKind::Vma, hit))
            }
            "vma_is_anonymous" => {
                let v = self.vma_arg(a[0], name)?;
                Ok(Value::Bool(self.vmas[v as usize].is_anonymous()))
            }
            "vma_set_anonymous" => {
                let v = self.vma_arg(a[0], name)?;
                self.vmas[v as usize].has_vm_ops = false;
                Ok(Value::Void)
            }
            "call_mmap" => {
                let f = self.obj(a[0], ObjKind::File, name)?;
                let v = self.vma_arg(a[1], name)?;
                let shared = self.vmas[v as usize].vm_flags & VM_SHARED != 0;
                if self.files[f as usize].dev_zero {
                    if shared {
                        return fault(
                            "call_mmap: shared /dev/zero (shmem_zero_setup) is not modelled",
                        );
                    }
                    // mmap_zero(): a private mapping of /dev/zero is anonymous but keeps vm_file.
                    self.vmas[v as usize].has_vm_ops = false;
                } else {
                    self.vmas[v as usize].has_vm_ops = true;
                }
                Ok(Value::Void)
            }
            "vma_pages" | "vma_start_pgoff" | "vma_last_pgoff" => {
                let v = self.vma_arg(a[0], name)?;
                let vma = &self.vmas[v as usize];
                Ok(Value::Int(match name {
                    "vma_pages" => vma.pages(),
                    "vma_start_pgoff" => vma.start_pgoff(),
                    _ => vma.last_pgoff(),
                } as i64))
            }
            "anon_vma_alloc" => Ok(Value::Obj(ObjKind::AnonVma, self.alloc_anon_vma())),
            "get_anon_vma" | "put_anon_vma" => {
                let av = self.obj(a[0], ObjKind::AnonVma, name)?;
                let x = &mut self.anon_vmas[av as usize];
                if name == "get_anon_vma" {
                    x.refcount += 1;
                } else {
                    x.refcount -= 1;
                    if x.refcount == 0 {
                        self.free_anon_vma(av);
                    }
                }
                Ok(Value::Void)
            }
            "anon_rmap_tree_empty" => {
                let av = self.obj(a[0], ObjKind::AnonVma, name)?;
                Ok(Value::Bool(self.anon_vmas[av as usize].rb_root.is_empty()))
            }
            "anon_vma_chain_is_singular" => {
                let v = self.vma_arg(a[0], name)?;
                Ok(Value::Bool(self.vmas[v as usize].anon_vma_chain.len() == 1))
            }
            "anon_vma_chain_alloc" => Ok(Value::Obj(ObjKind::Avc, self.alloc_avc())),
            "anon_vma_chain_free" => {
                let c = self.obj(a[0], ObjKind::Avc, name)?;
                self.avcs[c as usize].freed = true;
                Ok(Value::Void)
            }
            "anon_vma_chain_list_add" => {
                let c = self.obj(a[0], ObjKind::Avc, name)?;
                let v = self.vma_arg(a[1], name)?;
                let chain = &mut self.vmas[v as usize].anon_vma_chain;
                if chain.contains(&c) {
                    return fault(format!("{name}: avc#{c} already on vma#{v}'s list"));
                }
                chain.insert(0, c);
                Ok(Value::Void)
            }
            "anon_vma_chain_list_del" => {
                let c = self.obj(a[0], ObjKind::Avc, name)?;
                let Some(v) = self.avcs[c as usize].vma else {
                    return fault(format!("{name}: avc#{c} has no vma"));
                };
                let chain = &mut self.vmas[v as usize].anon_vma_chain;
                let Some(p) = chain.iter().position(|&x| x == c) else {
                    return fault(format!("{name}: avc#{c} is not on vma#{v}'s list"));
                };
                chain.remove(p);
                Ok(Value::Void)
            }
            _ => fault(format!("builtin {name} has no implementation")),
        }
    }

    /// Free an anon_vma whose last reference went; a non-root one drops its root reference.
    fn free_anon_vma(&mut self, av: u32) {
        let x = &mut self.anon_vmas[av as usize];
        x.freed = true;
        let root = x.root;
        if !x.rb_root.is_empty() {
            self.violate(
                Invariant::Membership,
                format!("anon_vma#{av} freed with AVCs still in its tree"),
            );
        }
        if root != av {
            let r = &mut self.anon_vmas[root as usize];
            r.refcount -= 1;
            if r.refcount == 0 {
                self.free_anon_vma(root);
            }
        }
    }

    fn list_vec(&self, head: Value, list: &str) -> R<Vec<u32>> {
        if list != "anon_vma_chain" {
            return fault(format!("unknown kernel list {list}"));
        }
        let v = self.obj(head, ObjKind::Vma, "list walk")?;
        Ok(self.vmas[v as usize].anon_vma_chain.clone())
    }
}

impl Host for World {
    fn read_field(&mut self, _t: ThreadId, obj: Value, field: &str) -> R<Value> {
        let bad = || fault(format!("no field {field} in {obj}"));
        let (kind, id) = match obj {
            Value::Obj(k, i) => (k, self.obj(obj, k, field).map(|_| i)?),
            Value::Null => return fault(format!("NULL pointer dereference reading ->{field}")),
            _ => return bad(),
        };
        let i = id as usize;
        Ok(match kind {
            ObjKind::Vma => {
                let v = &self.vmas[i];
                match field {
                    "vm_start" => Value::Int(v.vm_start as i64),
                    "vm_end" => Value::Int(v.vm_end as i64),
                    "vm_pgoff" => Value::Int(v.vm_pgoff as i64),
                    "vm_flags" => Value::Int(v.vm_flags),
                    "vm_file" => Self::opt(ObjKind::File, v.vm_file),
                    "vm_mm" => Self::opt(ObjKind::Mm, v.vm_mm),
                    "anon_vma" => Self::opt(ObjKind::AnonVma, v.anon_vma),
                    _ => return bad(),
                }
            }
            ObjKind::File => match field {
                "f_mapping" => Value::Obj(ObjKind::Mapping, self.files[i].f_mapping),
                _ => return bad(),
            },
            ObjKind::AnonVma => {
                let a = &self.anon_vmas[i];
                match field {
                    "root" => Value::Obj(ObjKind::AnonVma, a.root),
                    "parent" => Value::Obj(ObjKind::AnonVma, a.parent),
                    "refcount" => Value::Int(a.refcount),
                    "num_children" => Value::Int(a.num_children),
                    "num_active_vmas" => Value::Int(a.num_active_vmas),
                    _ => return bad(),
                }
            }
            ObjKind::Avc => {
                let c = &self.avcs[i];
                match field {
                    "vma" => Self::opt(ObjKind::Vma, c.vma),
                    "anon_vma" => Self::opt(ObjKind::AnonVma, c.anon_vma),
                    "cached_vma_start" => Value::Int(c.cached_vma_start as i64),
                    "cached_vma_last" => Value::Int(c.cached_vma_last as i64),
                    _ => return bad(),
                }
            }
            ObjKind::Mm => match field {
                "map_count" => Value::Int(self.mms[i].map_count),
                _ => return bad(),
            },
            ObjKind::Mapping => return bad(),
        })
    }

    fn write_field(&mut self, t: ThreadId, obj: Value, field: &str, value: Value) -> R<()> {
        let (kind, id) = match obj {
            Value::Obj(k, i) => (k, self.obj(obj, k, field).map(|_| i)?),
            Value::Null => return fault(format!("NULL pointer dereference writing ->{field}")),
            _ => return fault(format!("no field {field} in {obj}")),
        };
        let i = id as usize;
        if matches!(
            (kind, field),
            (ObjKind::Vma, "vm_start" | "vm_end" | "vm_pgoff") | (ObjKind::Avc, "vma")
        ) {
            self.scratch.trees_dirty = true;
        }
        match (kind, field) {
            (ObjKind::Vma, "vm_start" | "vm_end" | "vm_pgoff") => {
                let x = Self::int_arg(value, field)?;
                if x < 0 {
                    return fault(format!("{field} = {x}: negative"));
                }
                // A VMA that is in an mm must be write-locked before its range changes.
                let in_mm = self.vmas[i]
                    .vm_mm
                    .is_some_and(|mm| self.mms[mm as usize].vmas.values().any(|&(_, v)| v == id));
                if in_mm {
                    self.vma_lock_op(t, "vma_assert_write_locked", &[obj])?;
                }
                let v = &mut self.vmas[i];
                match field {
                    "vm_start" => v.vm_start = x as u64,
                    "vm_end" => v.vm_end = x as u64,
                    _ => v.vm_pgoff = x as u64,
                }
            }
            (ObjKind::Vma, "vm_flags") => self.vmas[i].vm_flags = Self::int_arg(value, field)?,
            (ObjKind::Vma, "vm_file") => {
                self.vmas[i].vm_file = self.opt_id(value, ObjKind::File, field)?
            }
            (ObjKind::Vma, "vm_mm") => {
                self.vmas[i].vm_mm = self.opt_id(value, ObjKind::Mm, field)?
            }
            (ObjKind::Vma, "anon_vma") => {
                self.vmas[i].anon_vma = self.opt_id(value, ObjKind::AnonVma, field)?
            }
            (ObjKind::AnonVma, "root" | "parent") => {
                let Some(x) = self.opt_id(value, ObjKind::AnonVma, field)? else {
                    return fault(format!("{field} = NULL"));
                };
                let a = &mut self.anon_vmas[i];
                if field == "root" {
                    a.root = x
                } else {
                    a.parent = x
                }
            }
            (ObjKind::AnonVma, "num_children" | "num_active_vmas") => {
                let x = Self::int_arg(value, field)?;
                let a = &mut self.anon_vmas[i];
                if field == "num_children" {
                    a.num_children = x
                } else {
                    a.num_active_vmas = x
                }
            }
            (ObjKind::Avc, "vma") => self.avcs[i].vma = self.opt_id(value, ObjKind::Vma, field)?,
            (ObjKind::Avc, "anon_vma") => {
                self.avcs[i].anon_vma = self.opt_id(value, ObjKind::AnonVma, field)?
            }
            (ObjKind::Avc, "cached_vma_start") => {
                self.avcs[i].cached_vma_start = Self::int_arg(value, field)? as u64
            }
            (ObjKind::Avc, "cached_vma_last") => {
                self.avcs[i].cached_vma_last = Self::int_arg(value, field)? as u64
            }
            (ObjKind::Mm, "map_count") => self.mms[i].map_count = Self::int_arg(value, field)?,
            _ => return fault(format!("field {field} of {obj} is not writable")),
        }
        Ok(())
    }

    fn call(&mut self, t: ThreadId, name: &str, args: &[Value]) -> R<Value> {
        self.builtin(t, name, args)
    }

    fn list_first(&mut self, _t: ThreadId, head: Value, list: &str) -> R<Value> {
        let l = self.list_vec(head, list)?;
        Ok(Self::opt(ObjKind::Avc, l.first().copied()))
    }

    fn list_last(&mut self, _t: ThreadId, head: Value, list: &str) -> R<Value> {
        let l = self.list_vec(head, list)?;
        Ok(Self::opt(ObjKind::Avc, l.last().copied()))
    }

    fn list_prev(&mut self, _t: ThreadId, head: Value, list: &str, cur: Value) -> R<Value> {
        let l = self.list_vec(head, list)?;
        let c = self.obj(cur, ObjKind::Avc, "list walk")?;
        let Some(p) = l.iter().position(|&x| x == c) else {
            return fault(format!("list walk: avc#{c} is no longer on the list"));
        };
        Ok(Self::opt(ObjKind::Avc, p.checked_sub(1).map(|q| l[q])))
    }

    fn list_next(&mut self, _t: ThreadId, head: Value, list: &str, cur: Value) -> R<Value> {
        let l = self.list_vec(head, list)?;
        let c = self.obj(cur, ObjKind::Avc, "list walk")?;
        let Some(p) = l.iter().position(|&x| x == c) else {
            return fault(format!("list walk: avc#{c} is no longer on the list"));
        };
        Ok(Self::opt(ObjKind::Avc, l.get(p + 1).copied()))
    }
}
