//! Static types of the model language and the schema of kernel structs and builtins that a world
//! offers to models. The type checker reads the schema; the world fills it in.

use crate::value::ObjKind;
use std::collections::BTreeMap;

/// A static type in a model file.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Type {
    /// `void` (only as a function return type).
    Void,
    /// Any integer type: `int`, `long`, `unsigned long`, `pgoff_t`, `vm_flags_t`, ...
    Int,
    /// `bool`.
    Bool,
    /// A pointer to a struct, kernel (`struct vm_area_struct *`) or model-local
    /// (`struct vma_prepare *`). The string is the struct tag without `struct`.
    Ptr(String),
    /// The type of `NULL`: converts to any pointer.
    Null,
}

impl Type {
    /// Whether a value of type `from` may be assigned to / passed as `self`.
    pub fn accepts(&self, from: &Type) -> bool {
        match (self, from) {
            (a, b) if a == b => true,
            (Type::Ptr(_), Type::Null) => true,
            // C lets an integer be used where a bool is expected and the reverse.
            (Type::Bool, Type::Int) | (Type::Int, Type::Bool) => true,
            // a pointer tests as a bool (`if (vma->vm_file)`), but is not assignable to one here.
            _ => false,
        }
    }
}

/// One field of a kernel struct as models see it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FieldDef {
    pub name: String,
    pub ty: Type,
    /// Whether a model may assign to it (`vma->vm_start = x;`).
    pub writable: bool,
}

/// A kernel struct field resolved at load time: the kind of object it belongs to and its
/// position in that struct's field list in the [`Schema`] (which the world builds from its own
/// per-object field table, so the position is also the row of that table).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct FieldId {
    pub kind: ObjKind,
    pub index: u16,
}

/// A builtin resolved at load time: [`BuiltinSig::id`], the row of the world's builtin table.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct BuiltinId(pub u16);

/// Signature of a builtin (a kernel function the world implements natively).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BuiltinSig {
    /// What compiled calls name it by; the host receives it instead of the name.
    pub id: BuiltinId,
    pub name: String,
    pub params: Vec<Type>,
    pub ret: Type,
}

/// What a world offers to models: kernel structs with their fields, and builtins. A field is
/// resolved to a [`FieldId`] (its struct's kind and its position in the struct's list) and a
/// builtin to its [`BuiltinSig::id`]; a host is handed those, never names.
#[derive(Clone, Debug, Default)]
pub struct Schema {
    /// struct tag -> fields, e.g. "vm_area_struct" -> [vm_start, vm_end, ...].
    pub structs: BTreeMap<String, Vec<FieldDef>>,
    /// builtin name -> signature.
    pub builtins: BTreeMap<String, BuiltinSig>,
}
