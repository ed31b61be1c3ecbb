//! Expressions: literals, names and constants, field reads, `&local`, unary and binary operators
//! (`&&`/`||` short-circuit), `?:`, `WARN_ON`-style macros and calls of model functions and
//! builtins. Each pushes one value and returns its static type, or `None` after reporting an
//! error (the code is still emitted, so later errors are found too).

use super::{FnCompiler, LocalVar};
use crate::lang::ast::{BinOp, Expr, ExprKind, UnOp};
use crate::lang::check::{assignable, binary_type, is_integer, is_scalar, ty_name, type_name, Ty};
use crate::lang::diag::SrcLoc;
use crate::lang::program::Op;
use crate::lang::types::Type;
use crate::value::Value;

impl FnCompiler<'_, '_> {
    /// Compiles a condition (anything scalar).
    pub(super) fn cond(&mut self, e: &Expr) {
        if let Some(t) = self.expr(e) {
            if !is_scalar(&t) {
                self.error(
                    e.loc,
                    format!("type mismatch: condition has type `{}`", ty_name(&t)),
                );
            }
        }
    }

    /// Compiles an expression that pushes one value; `None` when an error was reported.
    pub(super) fn expr(&mut self, e: &Expr) -> Option<Ty> {
        let loc = e.loc;
        match &e.kind {
            ExprKind::Int(v) => {
                self.emit(Op::Const(Value::Int(*v)), loc);
                Some(Ty::T(Type::Int))
            }
            ExprKind::Bool(b) => {
                self.emit(Op::Const(Value::Bool(*b)), loc);
                Some(Ty::T(Type::Bool))
            }
            ExprKind::Null => {
                self.emit(Op::Const(Value::Null), loc);
                Some(Ty::T(Type::Null))
            }
            ExprKind::Ident(name) => self.ident(name, loc),
            ExprKind::Field {
                base,
                field,
                arrow,
                field_loc,
            } => {
                let tag = self.field_base(base, *arrow)?;
                match self.names.field(&tag, field) {
                    Ok((t, _, fref)) => {
                        self.emit(Op::ReadField(fref), loc);
                        Some(Ty::T(t))
                    }
                    Err(m) => {
                        self.error(*field_loc, m);
                        None
                    }
                }
            }
            ExprKind::AddrOf(inner) => self.addr_of(inner, loc),
            ExprKind::Call { name, args } => self.call(name, args, loc),
            ExprKind::Unary(op, x) => self.unary(*op, x, loc),
            ExprKind::Binary(op @ (BinOp::And | BinOp::Or), a, b) => {
                self.logical(*op == BinOp::And, a, b, loc)
            }
            ExprKind::Binary(op, a, b) => {
                let ta = self.expr(a);
                let tb = self.expr(b);
                self.emit(Op::Binary(*op), loc);
                self.binary_result(*op, ta, tb, loc)
            }
            ExprKind::Cond(c, a, b) => self.conditional(c, a, b, loc),
            ExprKind::Warn {
                macro_name,
                cond,
                text,
            } => {
                self.cond(cond);
                self.emit(
                    Op::Warn {
                        macro_name: macro_name.clone(),
                        cond: text.clone(),
                    },
                    loc,
                );
                Some(Ty::T(Type::Bool))
            }
        }
    }

    /// A local variable, else a `#define` constant.
    fn ident(&mut self, name: &str, loc: SrcLoc) -> Option<Ty> {
        if let Some(v) = self.lookup(name) {
            self.emit(Op::Load(v.slot), loc);
            Some(v.ty)
        } else if let Some(c) = self.names.defines.get(name) {
            self.emit(Op::Const(Value::Int(*c)), loc);
            Some(Ty::T(Type::Int))
        } else {
            self.emit(Op::Const(Value::Void), loc);
            self.error(loc, format!("unknown identifier `{name}`"));
            None
        }
    }

    /// `&v` of a local struct value: the pointer its slot holds.
    fn addr_of(&mut self, inner: &Expr, loc: SrcLoc) -> Option<Ty> {
        if let ExprKind::Ident(name) = &inner.kind {
            if let Some(LocalVar {
                slot,
                ty: Ty::Struct(tag),
                ..
            }) = self.lookup(name)
            {
                self.emit(Op::Load(slot), loc);
                return Some(Ty::T(Type::Ptr(tag)));
            }
            if self.lookup(name).is_none() && !self.names.defines.contains_key(name) {
                self.error(inner.loc, format!("unknown identifier `{name}`"));
                return None;
            }
        }
        self.error(
            loc,
            "`&` can only take the address of a local struct variable",
        );
        None
    }

    fn unary(&mut self, op: UnOp, x: &Expr, loc: SrcLoc) -> Option<Ty> {
        let t = self.expr(x)?;
        let ok = match op {
            UnOp::Not => is_scalar(&t),
            _ => is_integer(&t),
        };
        if !ok {
            let what = if matches!(t, Ty::T(Type::Ptr(_) | Type::Null)) {
                "arithmetic on a pointer".to_string()
            } else {
                format!("operand of type `{}`", ty_name(&t))
            };
            self.error(loc, format!("type mismatch: unary operator on {what}"));
            return None;
        }
        self.emit(Op::Unary(op), loc);
        Some(Ty::T(if op == UnOp::Not {
            Type::Bool
        } else {
            Type::Int
        }))
    }

    /// `a && b` (`and`) or `a || b`: `b` is evaluated only when it decides the result, which is
    /// a `bool`.
    fn logical(&mut self, and: bool, a: &Expr, b: &Expr, loc: SrcLoc) -> Option<Ty> {
        let ta = self.expr(a);
        let jf = self.emit(Op::JumpIfFalse(0), loc);
        let tb = if and {
            let tb = self.expr(b);
            self.emit(Op::Truth, loc);
            let j = self.emit(Op::Jump(0), loc);
            let h = self.here();
            self.patch(jf, h);
            self.emit(Op::Const(Value::Bool(false)), loc);
            let h = self.here();
            self.patch(j, h);
            tb
        } else {
            self.emit(Op::Const(Value::Bool(true)), loc);
            let j = self.emit(Op::Jump(0), loc);
            let h = self.here();
            self.patch(jf, h);
            let tb = self.expr(b);
            self.emit(Op::Truth, loc);
            let h = self.here();
            self.patch(j, h);
            tb
        };
        let op = if and { BinOp::And } else { BinOp::Or };
        self.binary_result(op, ta, tb, loc)
    }

    /// The type of `a op b` from its operands' types, if both compiled.
    fn binary_result(
        &mut self,
        op: BinOp,
        ta: Option<Ty>,
        tb: Option<Ty>,
        loc: SrcLoc,
    ) -> Option<Ty> {
        let (ta, tb) = (ta?, tb?);
        match binary_type(op, &ta, &tb) {
            Ok(t) => Some(Ty::T(t)),
            Err(m) => {
                self.error(loc, m);
                None
            }
        }
    }

    /// `c ? a : b`: both branches must agree (integers mix to `int`, a pointer takes `NULL`).
    fn conditional(&mut self, c: &Expr, a: &Expr, b: &Expr, loc: SrcLoc) -> Option<Ty> {
        self.cond(c);
        let jf = self.emit(Op::JumpIfFalse(0), loc);
        let ta = self.expr(a);
        let conv_a = self.emit(Op::Jump(0), a.loc); // placeholder, may become ToInt
        let j = self.emit(Op::Jump(0), loc);
        let h = self.here();
        self.patch(jf, h);
        let tb = self.expr(b);
        let (ta, tb) = (ta?, tb?);
        let t = match (&ta, &tb) {
            (x, y) if x == y && is_scalar(x) => ta.clone(),
            (x, y) if is_integer(x) && is_integer(y) => Ty::T(Type::Int),
            (Ty::T(Type::Ptr(_)), Ty::T(Type::Null)) => ta.clone(),
            (Ty::T(Type::Null), Ty::T(Type::Ptr(_))) => tb.clone(),
            _ => {
                self.error(
                    loc,
                    format!(
                        "type mismatch: `?:` branches have types `{}` and `{}`",
                        ty_name(&ta),
                        ty_name(&tb)
                    ),
                );
                return None;
            }
        };
        // make both branches produce the same representation
        let to_int = t == Ty::T(Type::Int);
        self.code[conv_a].op = if to_int && ta == Ty::T(Type::Bool) {
            Op::ToInt
        } else {
            Op::Jump(conv_a as u32 + 1)
        };
        if to_int && tb == Ty::T(Type::Bool) {
            self.emit(Op::ToInt, loc);
        }
        let h = self.here();
        self.patch(j, h);
        Some(t)
    }

    /// A call of a model function or a builtin: arity and argument types checked, arguments
    /// converted to the parameter types.
    fn call(&mut self, name: &str, args: &[Expr], loc: SrcLoc) -> Option<Ty> {
        let Some((params, ret, builtin)) = self.names.callee(name) else {
            for a in args {
                self.expr(a);
            }
            self.error(loc, format!("unknown function `{name}`"));
            return None;
        };
        let mut ok = true;
        if params.len() != args.len() {
            self.error(
                loc,
                format!(
                    "wrong number of arguments: `{name}` takes {} but {} were given",
                    params.len(),
                    args.len()
                ),
            );
            ok = false;
        }
        for (i, a) in args.iter().enumerate() {
            let Some(t) = self.expr(a) else {
                ok = false;
                continue;
            };
            if let Some(p) = params.get(i) {
                if !assignable(p, &t) {
                    self.error(
                        a.loc,
                        format!(
                            "type mismatch: argument {} of `{name}` must be `{}`, found `{}`",
                            i + 1,
                            type_name(p),
                            ty_name(&t)
                        ),
                    );
                    ok = false;
                }
                self.convert(p, &t, a.loc);
            }
        }
        let argc = args.len() as u32;
        if let Some(id) = builtin {
            self.emit(Op::Builtin(id, argc), loc);
        } else {
            let id = self.ids[name];
            self.emit(Op::Call(id, argc), loc);
        }
        ok.then_some(Ty::T(ret))
    }
}
