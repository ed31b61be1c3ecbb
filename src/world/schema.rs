//! The schema models are checked against, built from the world's own tables: the fields of each
//! kernel object (`builtins/fields.rs`: name, type, reader, writer) and the builtins
//! (`builtins/table.rs`: name, signature, implementation). A field's id is its row in its
//! object's table and a builtin's id its row in the builtin table, so the type checker, the
//! compiled program and the world agree on them by construction.

use super::builtins::{fields_of, BUILTINS};
use crate::exec::host::{BuiltinId, FieldId, ObjKind};
use crate::lang::types::{BuiltinSig, FieldDef, Schema, Type};

/// A type in the world's tables (they are constants, so pointers name an object kind).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Ty {
    Void,
    Int,
    Bool,
    Ptr(ObjKind),
}

impl Ty {
    /// The type checker's type.
    pub(crate) fn to_type(self) -> Type {
        match self {
            Ty::Void => Type::Void,
            Ty::Int => Type::Int,
            Ty::Bool => Type::Bool,
            Ty::Ptr(k) => Type::Ptr(k.struct_tag().to_string()),
        }
    }
}

/// Every kind of kernel object, in a fixed order.
const KINDS: [ObjKind; 6] = [
    ObjKind::Vma,
    ObjKind::Mm,
    ObjKind::File,
    ObjKind::Mapping,
    ObjKind::AnonVma,
    ObjKind::Avc,
];

/// Number of arguments a builtin takes, or None if there is no such builtin.
pub fn builtin_arity(name: &str) -> Option<usize> {
    BUILTINS
        .iter()
        .find(|b| b.name == name)
        .map(|b| b.params.len())
}

/// The id of builtin `name` (for tools and tests; compiled models carry ids already).
pub fn builtin_id(name: &str) -> Option<BuiltinId> {
    BUILTINS
        .iter()
        .position(|b| b.name == name)
        .map(|i| BuiltinId(i as u16))
}

/// The id of field `name` of kernel objects of kind `kind` (for tools and tests).
pub fn field_id(kind: ObjKind, name: &str) -> Option<FieldId> {
    fields_of(kind)
        .iter()
        .position(|f| f.name == name)
        .map(|i| FieldId {
            kind,
            index: i as u16,
        })
}

/// The schema of the world, for the model type checker.
pub fn schema() -> Schema {
    let mut s = Schema::default();
    for kind in KINDS {
        let fields = fields_of(kind)
            .iter()
            .map(|f| FieldDef {
                name: f.name.to_string(),
                ty: f.ty.to_type(),
                writable: f.write.is_some(),
            })
            .collect();
        s.structs.insert(kind.struct_tag().to_string(), fields);
    }
    for (i, b) in BUILTINS.iter().enumerate() {
        let prev = s.builtins.insert(
            b.name.to_string(),
            BuiltinSig {
                id: BuiltinId(i as u16),
                name: b.name.to_string(),
                params: b.params.iter().map(|t| t.to_type()).collect(),
                ret: b.ret.to_type(),
            },
        );
        assert!(prev.is_none(), "builtin {} is in the table twice", b.name);
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_row_is_in_the_schema_under_its_id() {
        let s = schema();
        assert_eq!(s.builtins.len(), BUILTINS.len());
        for (name, sig) in &s.builtins {
            assert_eq!(BUILTINS[sig.id.0 as usize].name, name);
        }
        for kind in KINDS {
            let defs = &s.structs[kind.struct_tag()];
            let names: Vec<&str> = defs.iter().map(|f| f.name.as_str()).collect();
            let rows: Vec<&str> = fields_of(kind).iter().map(|f| f.name).collect();
            assert_eq!(names, rows);
        }
    }
}
