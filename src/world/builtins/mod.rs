//! The world as a `Host`: kernel field reads and writes, and the builtins models call by their
//! kernel names (rmap tree operations, rmap locks, VMA and anon_vma_chain helpers).
//!
//! Builtins check what the kernel would rely on silently: a tree operation's preconditions and the
//! lock that guards the tree (`lock-discipline`), and they run every key-driven descent with the
//! stale-descent check on. What they find is recorded with `World::violate` and reported by the
//! checker at the step that did it; the operation itself goes on as the kernel's would, except that
//! a tree precondition failure leaves the tree untouched (the kernel would corrupt it).
//!
//! Builtins are the rows of one table ([`table`]: name, signature, implementation) and fields
//! the rows of one table per kernel object ([`fields`]: name, type, reader, writer); the schema
//! models are checked against is built from both, and a compiled model reaches a builtin or a
//! field by its row number, so nothing is matched by name while exploring. Adding a builtin is
//! adding a row to [`table::BUILTINS`]; adding a field, a row to its object's table in
//! [`fields`]; and describing it in [`describe`], from which `docs/BUILTINS.md` is made.
//!
//! This file holds the argument helpers and the dispatch; each concern has its own file:
//! [`trees`] (the file and anon interval-tree builtins, one generic implementation for both),
//! [`locks`] (rmap locks, mmap_lock, per-VMA locks), [`fields`] (field reads and writes),
//! [`lists`] (the VMA list / maple tree and the anon_vma_chain list), [`objects`] (allocation,
//! freeing, reference counts, VMA helpers) and [`ghost`] (the page-table side and the rmap walk
//! records, which write ghost state only).

pub(crate) mod describe;
mod fields;
mod ghost;
mod lists;
mod locks;
mod objects;
mod table;
mod trees;

pub(crate) use fields::fields_of;
pub(crate) use table::BUILTINS;

use super::World;
use crate::exec::host::{BuiltinId, FieldId, Host, HostError, ObjKind, ThreadId, Value};

type R<T> = Result<T, HostError>;

fn fault<T>(msg: impl Into<String>) -> R<T> {
    Err(HostError::Fault(msg.into()))
}

/// Bit of `vm_flags` meaning a shared mapping (as the models' `#define VM_SHARED`).
pub const VM_SHARED: i64 = 0x8;
/// Bit of `vm_flags` meaning writable (as the models' `#define VM_WRITE`).
pub const VM_WRITE: i64 = 0x2;
/// `VM_ACCOUNT` (as the models' `#define`, include/linux/mm.h bit 20): charged to overcommit.
pub const VM_ACCOUNT: i64 = 0x10_0000;
/// `VM_GROWSDOWN` (as the models' `#define`): a stack that grows down at a fault below it.
pub(crate) const VM_GROWSDOWN: i64 = 0x100;
/// `VM_GROWSUP` (as the models' `#define`, lib/stack.rmap): CONFIG_STACK_GROWSUP's stack, which
/// grows up at a fault above it (parisc; x86 has none).
pub(crate) const VM_GROWSUP: i64 = 0x100_0000;
/// `VM_STACK_INCOMPLETE_SETUP` (as the models' `#define`): exec's stack before its move.
pub(crate) const VM_STACK_INCOMPLETE_SETUP: i64 = 0x30000;

/// Argument conversion shared by every builtin.
impl World {
    /// How many objects of `kind` the world has (freed ones included: ids are never reused).
    #[inline]
    fn count(&self, kind: ObjKind) -> usize {
        match kind {
            ObjKind::Mm => self.mms.len(),
            ObjKind::Vma => self.vmas.len(),
            ObjKind::File => self.files.len(),
            ObjKind::Mapping => self.mappings.len(),
            ObjKind::AnonVma => self.anon_vmas.len(),
            ObjKind::Avc => self.avcs.len(),
        }
    }

    #[inline]
    fn obj(&self, v: Value, kind: ObjKind, what: &str) -> R<u32> {
        match v {
            Value::Obj(k, id) if k == kind && (id as usize) < self.count(kind) => Ok(id),
            _ => Self::bad_obj(v, kind, what),
        }
    }

    /// The fault of [`World::obj`] for `v`, which is no object of `kind` in the world.
    #[cold]
    #[inline(never)]
    fn bad_obj(v: Value, kind: ObjKind, what: &str) -> R<u32> {
        match v {
            Value::Obj(k, id) if k == kind => {
                fault(format!("{what}: no such {}#{id}", kind.short()))
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

    /// A non-negative integer argument (`what` names the builtin in the fault).
    fn uint_arg(v: Value, what: &str) -> R<u64> {
        let k = Self::int_arg(v, what)?;
        if k < 0 {
            return fault(format!("{what}: negative argument {k}"));
        }
        Ok(k as u64)
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

    /// Run builtin `id`: its argument count checked against its row, then its implementation.
    fn builtin(&mut self, t: ThreadId, id: BuiltinId, a: &[Value]) -> R<Value> {
        let Some(row) = BUILTINS.get(id.0 as usize) else {
            return fault(format!("unknown builtin #{}", id.0));
        };
        let n = row.params.len();
        if n != a.len() {
            return fault(format!(
                "{}: expected {n} arguments, got {}",
                row.name,
                a.len()
            ));
        }
        (row.run)(self, t, row.name, a)
    }
}

impl Host for World {
    #[inline]
    fn read_field(&mut self, _t: ThreadId, obj: Value, field: FieldId) -> R<Value> {
        if let Value::Obj(k, id) = obj {
            self.scratch.last_field = Some((k, id));
        }
        self.read_field_of(obj, field)
    }

    #[inline]
    fn write_field(&mut self, t: ThreadId, obj: Value, field: FieldId, value: Value) -> R<()> {
        if let Value::Obj(k, id) = obj {
            self.scratch.last_field = Some((k, id));
        }
        self.write_field_of(t, obj, field, value)
    }

    fn call(&mut self, t: ThreadId, id: BuiltinId, args: &[Value]) -> R<Value> {
        self.builtin(t, id, args)
    }

    fn list_first(&mut self, _t: ThreadId, head: Value, list: FieldId) -> R<Value> {
        let l = self.list_vec(head, list)?;
        Ok(Self::opt(ObjKind::Avc, l.first().copied()))
    }

    fn list_last(&mut self, _t: ThreadId, head: Value, list: FieldId) -> R<Value> {
        let l = self.list_vec(head, list)?;
        Ok(Self::opt(ObjKind::Avc, l.last().copied()))
    }

    fn list_prev(&mut self, _t: ThreadId, head: Value, list: FieldId, cur: Value) -> R<Value> {
        let (l, p) = self.list_position(head, list, cur)?;
        Ok(Self::opt(ObjKind::Avc, p.checked_sub(1).map(|q| l[q])))
    }

    fn list_next(&mut self, _t: ThreadId, head: Value, list: FieldId, cur: Value) -> R<Value> {
        let (l, p) = self.list_position(head, list, cur)?;
        Ok(Self::opt(ObjKind::Avc, l.get(p + 1).copied()))
    }
}
