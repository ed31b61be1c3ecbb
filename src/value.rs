//! Run-time values of the model language and the kinds of kernel object they point at.
//!
//! The bottom of the layering, below both the language and the interpreter: `lang` compiles
//! constants and slot initialisers to these values, `exec` computes with them (and re-exports
//! them from `exec::host`), the world stores them. This file names nothing else in the crate
//! (tests/cli/layering.rs checks that).
//!
//! It names nothing else of the crate.

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
    pub(crate) fn from_struct_tag(tag: &str) -> Option<ObjKind> {
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
    pub(crate) fn truthy(self) -> bool {
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
