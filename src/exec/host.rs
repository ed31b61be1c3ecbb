//! The boundary between the interpreter and the kernel world: values a model manipulates and the
//! `Host` trait through which every read, write and builtin call reaches the world.

use serde::{Deserialize, Serialize};

/// Which arena a kernel object lives in. Maps one to one onto kernel struct tags.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub enum ObjKind {
    /// `struct mm_struct`
    Mm,
    /// `struct vm_area_struct`
    Vma,
    /// `struct file`
    File,
    /// `struct address_space`
    Mapping,
    /// `struct anon_vma`
    AnonVma,
    /// `struct anon_vma_chain`
    Avc,
}

impl ObjKind {
    /// The kernel struct tag (without `struct`) for this kind.
    pub fn struct_tag(self) -> &'static str {
        match self {
            ObjKind::Mm => "mm_struct",
            ObjKind::Vma => "vm_area_struct",
            ObjKind::File => "file",
            ObjKind::Mapping => "address_space",
            ObjKind::AnonVma => "anon_vma",
            ObjKind::Avc => "anon_vma_chain",
        }
    }

    /// The kind for a kernel struct tag, if it is one the world models.
    pub fn from_struct_tag(tag: &str) -> Option<ObjKind> {
        Some(match tag {
            "mm_struct" => ObjKind::Mm,
            "vm_area_struct" => ObjKind::Vma,
            "file" => ObjKind::File,
            "address_space" => ObjKind::Mapping,
            "anon_vma" => ObjKind::AnonVma,
            "anon_vma_chain" => ObjKind::Avc,
            _ => return None,
        })
    }

    /// Short prefix used when printing an object: `vma#3`, `avc#1`.
    pub fn short(self) -> &'static str {
        match self {
            ObjKind::Mm => "mm",
            ObjKind::Vma => "vma",
            ObjKind::File => "file",
            ObjKind::Mapping => "mapping",
            ObjKind::AnonVma => "anon_vma",
            ObjKind::Avc => "avc",
        }
    }
}

/// A run-time value of the model language.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub enum Value {
    /// Result of a `void` function.
    Void,
    Int(i64),
    Bool(bool),
    Null,
    /// A pointer to a kernel object in the world.
    Obj(ObjKind, u32),
    /// A pointer to a model-local struct instance (`&vp`) in the running thread's own heap.
    Local(u32),
}

impl Value {
    /// C truthiness: non-zero integers, `true` and non-NULL pointers are true.
    pub fn truthy(self) -> bool {
        match self {
            Value::Void | Value::Null | Value::Bool(false) | Value::Int(0) => false,
            Value::Int(_) | Value::Bool(true) | Value::Obj(..) | Value::Local(_) => true,
        }
    }
}

impl std::fmt::Display for Value {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Value::Void => write!(f, "void"),
            Value::Int(i) => write!(f, "{i}"),
            Value::Bool(b) => write!(f, "{b}"),
            Value::Null => write!(f, "NULL"),
            Value::Obj(k, id) => write!(f, "{}#{}", k.short(), id),
            Value::Local(i) => write!(f, "&local#{i}"),
        }
    }
}

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
    fn read_field(&mut self, tid: ThreadId, obj: Value, field: &str) -> Result<Value, HostError>;
    /// Write `obj->field = value` of a kernel object (one atomic step).
    fn write_field(
        &mut self,
        tid: ThreadId,
        obj: Value,
        field: &str,
        value: Value,
    ) -> Result<(), HostError>;
    /// Call a builtin by name (one atomic step).
    fn call(&mut self, tid: ThreadId, name: &str, args: &[Value]) -> Result<Value, HostError>;
    /// First entry of the kernel list `head->list` (e.g. a VMA's `anon_vma_chain`), or `Null`.
    fn list_first(&mut self, tid: ThreadId, head: Value, list: &str) -> Result<Value, HostError>;
    /// Entry after `cur` in the kernel list `head->list`, or `Null` at the end.
    fn list_next(
        &mut self,
        tid: ThreadId,
        head: Value,
        list: &str,
        cur: Value,
    ) -> Result<Value, HostError>;
    /// Last entry of `head->list` (for `list_for_each_entry_reverse`), or `Null`.
    fn list_last(&mut self, _tid: ThreadId, _head: Value, list: &str) -> Result<Value, HostError> {
        Err(HostError::Fault(format!(
            "reverse walk of {list} not supported"
        )))
    }
    /// Entry before `cur` in `head->list`, or `Null` at the start.
    fn list_prev(
        &mut self,
        _tid: ThreadId,
        _head: Value,
        list: &str,
        _cur: Value,
    ) -> Result<Value, HostError> {
        Err(HostError::Fault(format!(
            "reverse walk of {list} not supported"
        )))
    }
}
