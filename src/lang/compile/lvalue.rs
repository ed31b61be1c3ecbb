//! Places a value is stored to: `x = e`, `x op= e` (and `x++`, which arrives as `x += 1`) on a
//! local variable or on a field (`p->f`, `v.f`), with the checks that the destination exists and
//! is writable; and the object part of a field access, shared with expressions that read one.

use super::FnCompiler;
use crate::lang::ast::{AssignOp, BinOp, Expr, ExprKind};
use crate::lang::check::{assignable, binary_type, ty_name, type_name, Ty};
use crate::lang::diag::SrcLoc;
use crate::lang::program::Op;
use crate::lang::types::Type;

impl FnCompiler<'_, '_> {
    pub(super) fn assign(&mut self, lhs: &Expr, op: AssignOp, rhs: &Expr, loc: SrcLoc) {
        let bin = match op {
            AssignOp::Set => None,
            AssignOp::With(b) => Some(b),
        };
        match &lhs.kind {
            ExprKind::Ident(name) => self.assign_local(lhs, name, bin, rhs, loc),
            ExprKind::Field {
                base,
                field,
                arrow,
                field_loc,
            } => {
                let Some(tag) = self.field_base(base, *arrow) else {
                    self.expr(rhs);
                    return;
                };
                let (t, writable, fref) = match self.names.field(&tag, field) {
                    Ok(x) => x,
                    Err(m) => {
                        self.error(*field_loc, m);
                        self.expr(rhs);
                        return;
                    }
                };
                if !writable {
                    self.error(
                        *field_loc,
                        format!("field `{field}` of struct `{tag}` is not writable"),
                    );
                }
                if bin.is_some() {
                    self.emit(Op::Dup, loc);
                    self.emit(Op::ReadField(fref), loc);
                }
                self.store_value(&t, bin, rhs, field, loc);
                self.emit(Op::WriteField(fref), loc);
            }
            _ => {
                self.error(
                    lhs.loc,
                    "the left side of an assignment must be a variable or a field",
                );
                self.expr(rhs);
            }
        }
    }

    /// Assignment to the local variable `name` (the expression `lhs`).
    fn assign_local(
        &mut self,
        lhs: &Expr,
        name: &str,
        bin: Option<BinOp>,
        rhs: &Expr,
        loc: SrcLoc,
    ) {
        let var = match self.lookup(name) {
            Some(v) => v,
            None => {
                if self.names.defines.contains_key(name) {
                    self.error(lhs.loc, format!("cannot assign to constant `{name}`"));
                } else {
                    self.error(lhs.loc, format!("unknown identifier `{name}`"));
                }
                self.expr(rhs);
                return;
            }
        };
        let t = match &var.ty {
            Ty::T(t) => t.clone(),
            Ty::Struct(s) => {
                self.error(
                    lhs.loc,
                    format!("cannot assign to the whole struct value `{name}` (struct {s})"),
                );
                self.expr(rhs);
                return;
            }
        };
        if bin.is_some() {
            self.emit(Op::Load(var.slot), loc);
        }
        self.store_value(&t, bin, rhs, name, loc);
        self.emit(Op::Store(var.slot), loc);
    }

    /// Compiles the value to store into a `t` destination named `what` (for `op=`, the old value
    /// is already on the stack).
    fn store_value(&mut self, t: &Type, bin: Option<BinOp>, rhs: &Expr, what: &str, loc: SrcLoc) {
        let Some(ty) = self.expr(rhs) else { return };
        match bin {
            None => {
                if !assignable(t, &ty) {
                    self.error(
                        rhs.loc,
                        format!(
                            "type mismatch: assigning `{}` to `{what}` of type `{}`",
                            ty_name(&ty),
                            type_name(t)
                        ),
                    );
                }
                self.convert(t, &ty, rhs.loc);
            }
            Some(op) => {
                if let Err(m) = binary_type(op, &Ty::T(t.clone()), &ty) {
                    self.error(loc, m);
                }
                self.emit(Op::Binary(op), loc);
                if *t == Type::Bool {
                    self.emit(Op::Truth, loc);
                }
            }
        }
    }

    /// Compiles the object part of `base->f` / `base.f`; returns the struct tag.
    pub(super) fn field_base(&mut self, base: &Expr, arrow: bool) -> Option<String> {
        let ty = self.expr(base)?;
        match (arrow, ty) {
            (true, Ty::T(Type::Ptr(tag))) => Some(tag),
            (false, Ty::Struct(tag)) => Some(tag),
            (true, t) => {
                self.error(
                    base.loc,
                    format!(
                        "type mismatch: `->` applied to `{}`, which is not a pointer",
                        ty_name(&t)
                    ),
                );
                None
            }
            (false, Ty::T(Type::Ptr(tag))) => {
                self.error(
                    base.loc,
                    format!("type mismatch: `.` applied to a pointer (`struct {tag} *`); use `->`"),
                );
                None
            }
            (false, t) => {
                self.error(
                    base.loc,
                    format!(
                        "type mismatch: `.` applied to `{}`, which is not a struct value",
                        ty_name(&t)
                    ),
                );
                None
            }
        }
    }
}
