//! The boundary between the interpreter and the kernel world: the `Host` trait through which every
//! read, write and builtin call reaches the world. The values a model manipulates live in
//! [`crate::value`] and are re-exported here. Fields, lists and builtins arrive as the ids the
//! model was compiled to against the host's schema ([`FieldId`], [`BuiltinId`]), never as names.

pub use crate::lang::types::{BuiltinId, FieldId};
pub use crate::value::{ObjKind, Value};

/// Index of a model thread in an interleaving (0 = the writer in a single-threaded run).
pub type ThreadId = u8;

/// Why a host operation did not complete.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum HostError {
    /// A lock the operation needs is held elsewhere: the step did not happen and may be retried
    /// later (the thread's program counter does not move).
    Blocked,
    /// The operation is meaningless on this world (NULL dereference, unknown field, use of a freed
    /// object, ...). The model is wrong; the run stops with this message.
    Fault(String),
}

/// Everything a running model can do to the world. Implemented by `world::World`.
pub trait Host {
    /// Read `obj->field` of a kernel object.
    fn read_field(&mut self, tid: ThreadId, obj: Value, field: FieldId)
        -> Result<Value, HostError>;
    /// Write `obj->field = value` of a kernel object (one atomic step).
    fn write_field(
        &mut self,
        tid: ThreadId,
        obj: Value,
        field: FieldId,
        value: Value,
    ) -> Result<(), HostError>;
    /// Call a builtin (one atomic step).
    fn call(&mut self, tid: ThreadId, id: BuiltinId, args: &[Value]) -> Result<Value, HostError>;
    /// First entry of the kernel list `head->list` (e.g. a VMA's `anon_vma_chain`), or `Null`.
    fn list_first(&mut self, tid: ThreadId, head: Value, list: FieldId)
        -> Result<Value, HostError>;
    /// Entry after `cur` in the kernel list `head->list`, or `Null` at the end.
    fn list_next(
        &mut self,
        tid: ThreadId,
        head: Value,
        list: FieldId,
        cur: Value,
    ) -> Result<Value, HostError>;
    /// Last entry of `head->list` (for `list_for_each_entry_reverse`), or `Null`.
    fn list_last(
        &mut self,
        _tid: ThreadId,
        _head: Value,
        list: FieldId,
    ) -> Result<Value, HostError> {
        Err(HostError::Fault(format!(
            "reverse walk of {}'s list #{} not supported",
            list.kind.struct_tag(),
            list.index
        )))
    }
    /// Entry before `cur` in `head->list`, or `Null` at the start.
    fn list_prev(
        &mut self,
        _tid: ThreadId,
        _head: Value,
        list: FieldId,
        _cur: Value,
    ) -> Result<Value, HostError> {
        Err(HostError::Fault(format!(
            "reverse walk of {}'s list #{} not supported",
            list.kind.struct_tag(),
            list.index
        )))
    }
}
