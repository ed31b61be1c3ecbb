//! Static typing rules: what the names in a model refer to (schema structs, local structs,
//! functions, builtins, constants) and which types operators, assignments and calls accept.
//! The compiler asks these questions while it walks a function and turns the answers into
//! diagnostics.

use super::ast::{BinOp, TypeName};
use super::program::{Field, FuncSig, LocalStruct};
use super::types::{BuiltinId, FieldId, Schema, Type};
use crate::value::{ObjKind, Value};
use std::collections::BTreeMap;

/// The static type of an expression: a scalar [`Type`], or a model-local struct value.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Ty {
    T(Type),
    /// `struct T` held by value in a local variable.
    Struct(String),
}

/// How a type is written in messages.
pub(crate) fn type_name(t: &Type) -> String {
    match t {
        Type::Void => "void".into(),
        Type::Int => "int".into(),
        Type::Bool => "bool".into(),
        Type::Ptr(s) => format!("struct {s} *"),
        Type::Null => "NULL".into(),
    }
}

/// How a static type is written in messages.
pub(crate) fn ty_name(t: &Ty) -> String {
    match t {
        Ty::T(t) => type_name(t),
        Ty::Struct(s) => format!("struct {s}"),
    }
}

/// Whether values of this type can be tested for truth and compared.
pub(crate) fn is_scalar(t: &Ty) -> bool {
    matches!(t, Ty::T(Type::Int | Type::Bool | Type::Ptr(_) | Type::Null))
}

/// Whether values of this type take part in integer arithmetic.
pub(crate) fn is_integer(t: &Ty) -> bool {
    matches!(t, Ty::T(Type::Int | Type::Bool))
}

/// The zero value a variable of type `t` starts with.
pub fn zero(t: &Type) -> Value {
    match t {
        Type::Int => Value::Int(0),
        Type::Bool => Value::Bool(false),
        Type::Ptr(_) | Type::Null => Value::Null,
        Type::Void => Value::Void,
    }
}

/// Everything a function body may refer to besides its own locals.
pub(crate) struct Names<'a> {
    pub schema: &'a Schema,
    pub structs: &'a BTreeMap<String, (u32, LocalStruct)>,
    pub funcs: &'a BTreeMap<String, FuncSig>,
    pub defines: &'a BTreeMap<String, i64>,
}

/// What a written type resolves to.
pub(crate) enum Resolved {
    Scalar(Type),
    /// A local struct value: its name and index.
    StructVal(String, u32),
}

impl Names<'_> {
    /// Whether `tag` is a kernel struct or a model-local struct.
    pub(crate) fn struct_known(&self, tag: &str) -> bool {
        self.schema.structs.contains_key(tag) || self.structs.contains_key(tag)
    }

    /// Resolves a written type.
    pub fn resolve(&self, t: &TypeName) -> Result<Resolved, String> {
        Ok(match t {
            TypeName::Void => Resolved::Scalar(Type::Void),
            TypeName::Bool => Resolved::Scalar(Type::Bool),
            TypeName::Int => Resolved::Scalar(Type::Int),
            TypeName::Ptr(tag) => {
                if !self.struct_known(tag) {
                    return Err(format!("unknown struct `{tag}`"));
                }
                Resolved::Scalar(Type::Ptr(tag.clone()))
            }
            TypeName::Struct(tag) => {
                if let Some((id, _)) = self.structs.get(tag) {
                    Resolved::StructVal(tag.clone(), *id)
                } else if self.schema.structs.contains_key(tag) {
                    return Err(format!(
                        "kernel struct `{tag}` can only be used through a pointer"
                    ));
                } else {
                    return Err(format!("unknown struct `{tag}`"));
                }
            }
        })
    }

    /// The type of `tag`'s field `field`, whether a model may assign to it, and the field as
    /// the compiled program names it (resolved here, once).
    pub fn field(&self, tag: &str, field: &str) -> Result<(Type, bool, Field), String> {
        if let Some(fields) = self.schema.structs.get(tag) {
            let Some(index) = fields.iter().position(|f| f.name == field) else {
                return Err(format!("struct `{tag}` has no field `{field}`"));
            };
            let Some(kind) = ObjKind::from_struct_tag(tag) else {
                return Err(format!(
                    "kernel struct `{tag}` is not an object the world models"
                ));
            };
            let f = &fields[index];
            let id = FieldId {
                kind,
                index: index as u16,
            };
            return Ok((f.ty.clone(), f.writable, Field::Kernel(id)));
        }
        if let Some((layout, s)) = self.structs.get(tag) {
            return s
                .fields
                .iter()
                .position(|(n, _)| n == field)
                .map(|slot| {
                    let f = Field::Local {
                        layout: *layout,
                        slot: slot as u32,
                    };
                    (s.fields[slot].1.clone(), true, f)
                })
                .ok_or_else(|| format!("struct `{tag}` has no field `{field}`"));
        }
        Err(format!("unknown struct `{tag}`"))
    }

    /// Parameter types, return type, and (for a builtin) the builtin's id, of a model function
    /// or builtin.
    pub(crate) fn callee(&self, name: &str) -> Option<(Vec<Type>, Type, Option<BuiltinId>)> {
        if let Some(sig) = self.funcs.get(name) {
            return Some((
                sig.params.iter().map(|(_, t)| t.clone()).collect(),
                sig.ret.clone(),
                None,
            ));
        }
        self.schema
            .builtins
            .get(name)
            .map(|b| (b.params.clone(), b.ret.clone(), Some(b.id)))
    }
}

/// Whether a value of type `from` may be stored where `to` is expected.
pub(crate) fn assignable(to: &Type, from: &Ty) -> bool {
    match from {
        Ty::T(f) => *to != Type::Void && *f != Type::Void && to.accepts(f),
        Ty::Struct(_) => false,
    }
}

/// The conversion (if any) needed to store a `from` value in a `to` slot.
pub(crate) enum Conv {
    None,
    ToBool,
    ToInt,
}

/// Which conversion makes a `from` value fit a `to` slot.
pub(crate) fn conversion(to: &Type, from: &Ty) -> Conv {
    match (to, from) {
        (Type::Bool, Ty::T(Type::Int)) => Conv::ToBool,
        (Type::Int, Ty::T(Type::Bool)) => Conv::ToInt,
        _ => Conv::None,
    }
}

/// The result type of `a op b` for the non-short-circuit operators.
pub(crate) fn binary_type(op: BinOp, a: &Ty, b: &Ty) -> Result<Type, String> {
    use BinOp::*;
    match op {
        Eq | Ne => {
            if is_integer(a) && is_integer(b) {
                return Ok(Type::Bool);
            }
            match (a, b) {
                (Ty::T(Type::Ptr(x)), Ty::T(Type::Ptr(y))) if x == y => Ok(Type::Bool),
                (Ty::T(Type::Ptr(_) | Type::Null), Ty::T(Type::Null))
                | (Ty::T(Type::Null), Ty::T(Type::Ptr(_))) => Ok(Type::Bool),
                _ => Err(format!(
                    "type mismatch: cannot compare `{}` with `{}`",
                    ty_name(a),
                    ty_name(b)
                )),
            }
        }
        And | Or => {
            if is_scalar(a) && is_scalar(b) {
                Ok(Type::Bool)
            } else {
                Err(format!(
                    "type mismatch: `{}` needs scalar operands, found `{}` and `{}`",
                    op.text(),
                    ty_name(a),
                    ty_name(b)
                ))
            }
        }
        _ => {
            for t in [a, b] {
                if !is_integer(t) {
                    let what = if matches!(t, Ty::T(Type::Ptr(_) | Type::Null)) {
                        "arithmetic on a pointer".to_string()
                    } else {
                        format!("operand of type `{}`", ty_name(t))
                    };
                    return Err(format!(
                        "type mismatch: `{}` needs integer operands ({what})",
                        op.text()
                    ));
                }
            }
            Ok(match op {
                Lt | Le | Gt | Ge => Type::Bool,
                _ => Type::Int,
            })
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ptr(t: &str) -> Ty {
        Ty::T(Type::Ptr(t.into()))
    }

    #[test]
    fn pointer_comparisons_need_the_same_struct() {
        assert!(binary_type(BinOp::Eq, &ptr("file"), &ptr("file")).is_ok());
        assert!(binary_type(BinOp::Ne, &ptr("file"), &Ty::T(Type::Null)).is_ok());
        assert!(binary_type(BinOp::Eq, &ptr("file"), &ptr("anon_vma")).is_err());
        assert!(binary_type(BinOp::Eq, &ptr("file"), &Ty::T(Type::Int)).is_err());
    }

    #[test]
    fn arithmetic_rejects_pointers_and_accepts_bools() {
        let e = binary_type(BinOp::Add, &ptr("file"), &Ty::T(Type::Int)).unwrap_err();
        assert!(e.contains("arithmetic on a pointer"));
        assert_eq!(
            binary_type(BinOp::Add, &Ty::T(Type::Bool), &Ty::T(Type::Int)),
            Ok(Type::Int)
        );
        assert_eq!(
            binary_type(BinOp::Lt, &Ty::T(Type::Int), &Ty::T(Type::Int)),
            Ok(Type::Bool)
        );
        assert_eq!(
            binary_type(BinOp::And, &ptr("file"), &Ty::T(Type::Int)),
            Ok(Type::Bool)
        );
    }

    #[test]
    fn assignability() {
        assert!(assignable(&Type::Ptr("file".into()), &Ty::T(Type::Null)));
        assert!(assignable(&Type::Bool, &Ty::T(Type::Int)));
        assert!(!assignable(&Type::Int, &Ty::T(Type::Void)));
        assert!(!assignable(&Type::Int, &Ty::Struct("vp".into())));
        assert!(!assignable(&Type::Bool, &ptr("file")));
    }
}
