//! Statements: declarations, expression statements, `if`, the loops (`while`, `for`, the kernel's
//! `list_for_each_entry` family) with their `break`/`continue` patching, blocks and `return`.
//! Assignments are compiled in [`super::lvalue`].

use super::{FnCompiler, LocalVar, LoopCtx};
use crate::lang::ast::{AssignOp, BinOp, Declarator, Expr, ExprKind, Init, Stmt, StmtKind};
use crate::lang::check::{assignable, ty_name, type_name, zero, Resolved, Ty};
use crate::lang::diag::SrcLoc;
use crate::lang::program::{Field, Op};
use crate::lang::types::{FieldId, Type};
use crate::value::{ObjKind, Value};

impl FnCompiler<'_, '_> {
    /// Compiles `s` in a scope of its own.
    pub(super) fn scoped(&mut self, s: &Stmt) {
        self.scopes.push(Vec::new());
        self.stmt(s);
        self.scopes.pop();
    }

    pub(super) fn stmt(&mut self, s: &Stmt) {
        let loc = s.loc;
        match &s.kind {
            StmtKind::Decl(ds) => {
                for d in ds {
                    self.decl(d);
                }
            }
            StmtKind::Expr(e) => {
                // pop even after an error, to keep the operand stack of the (discarded) code
                // balanced
                self.expr(e);
                self.emit(Op::Pop, loc);
            }
            StmtKind::Assign { lhs, op, rhs } => self.assign(lhs, *op, rhs, loc),
            StmtKind::IncDec { lhs, inc } => {
                let one = Expr {
                    kind: ExprKind::Int(1),
                    loc,
                };
                let op = AssignOp::With(if *inc { BinOp::Add } else { BinOp::Sub });
                self.assign(lhs, op, &one, loc);
            }
            StmtKind::If { cond, then, els } => self.if_stmt(cond, then, els.as_deref(), loc),
            StmtKind::While { cond, body } => self.while_stmt(cond, body, loc),
            StmtKind::For {
                init,
                cond,
                step,
                body,
            } => self.for_stmt(init.as_deref(), cond.as_ref(), step.as_deref(), body, loc),
            StmtKind::Return(e) => self.return_stmt(e.as_ref(), loc),
            StmtKind::Break | StmtKind::Continue => {
                self.break_or_continue(matches!(s.kind, StmtKind::Break), loc)
            }
            StmtKind::Block(b) => {
                self.scopes.push(Vec::new());
                for s in b {
                    self.stmt(s);
                }
                self.scopes.pop();
            }
            StmtKind::ListForEach {
                reverse,
                it,
                tmp,
                head,
                list,
                member: _,
                body,
            } => self.list_loop(*reverse, it, tmp.as_deref(), head, list, body, loc),
        }
    }

    fn if_stmt(&mut self, cond: &Expr, then: &Stmt, els: Option<&Stmt>, loc: SrcLoc) {
        self.cond(cond);
        let jf = self.emit(Op::JumpIfFalse(0), loc);
        self.scoped(then);
        if let Some(e) = els {
            let j = self.emit(Op::Jump(0), loc);
            let h = self.here();
            self.patch(jf, h);
            self.scoped(e);
            let h = self.here();
            self.patch(j, h);
        } else {
            let h = self.here();
            self.patch(jf, h);
        }
    }

    fn while_stmt(&mut self, cond: &Expr, body: &Stmt, loc: SrcLoc) {
        let top = self.here();
        self.cond(cond);
        let jf = self.emit(Op::JumpIfFalse(0), loc);
        self.loops.push(LoopCtx {
            breaks: Vec::new(),
            continues: Vec::new(),
        });
        self.scoped(body);
        self.emit(Op::Jump(top), loc);
        let h = self.here();
        self.patch(jf, h);
        self.end_loop(h, top);
    }

    /// `for (init; cond; step) body`: `init` is in a scope around the whole loop, `continue`
    /// goes to `step`.
    fn for_stmt(
        &mut self,
        init: Option<&Stmt>,
        cond: Option<&Expr>,
        step: Option<&Stmt>,
        body: &Stmt,
        loc: SrcLoc,
    ) {
        self.scopes.push(Vec::new());
        if let Some(i) = init {
            self.stmt(i);
        }
        let top = self.here();
        let jf = cond.map(|c| {
            self.cond(c);
            self.emit(Op::JumpIfFalse(0), loc)
        });
        self.loops.push(LoopCtx {
            breaks: Vec::new(),
            continues: Vec::new(),
        });
        self.scoped(body);
        let step_at = self.here();
        if let Some(st) = step {
            self.stmt(st);
        }
        self.emit(Op::Jump(top), loc);
        let end = self.here();
        if let Some(jf) = jf {
            self.patch(jf, end);
        }
        self.end_loop(end, step_at);
        self.scopes.pop();
    }

    fn return_stmt(&mut self, e: Option<&Expr>, loc: SrcLoc) {
        let ret = self.sig.ret.clone();
        match (e, &ret) {
            (None, Type::Void) => {
                self.emit(Op::Const(Value::Void), loc);
            }
            (None, t) => {
                self.error(
                    loc,
                    format!(
                        "missing return value in function `{}` returning `{}`",
                        self.sig.name,
                        type_name(t)
                    ),
                );
            }
            (Some(e), Type::Void) => {
                self.expr(e);
                self.error(
                    e.loc,
                    format!("void function `{}` cannot return a value", self.sig.name),
                );
            }
            (Some(e), t) => {
                if let Some(ty) = self.expr(e) {
                    if !assignable(t, &ty) {
                        self.error(
                            e.loc,
                            format!(
                                "type mismatch: returning `{}` from function `{}` returning `{}`",
                                ty_name(&ty),
                                self.sig.name,
                                type_name(t)
                            ),
                        );
                    }
                    self.convert(t, &ty, e.loc);
                }
            }
        }
        self.emit(Op::Return, loc);
    }

    /// A jump patched when the innermost loop ends.
    fn break_or_continue(&mut self, brk: bool, loc: SrcLoc) {
        let j = self.emit(Op::Jump(0), loc);
        match self.loops.last_mut() {
            Some(l) if brk => l.breaks.push(j),
            Some(l) => l.continues.push(j),
            None => self.error(
                loc,
                format!(
                    "`{}` outside a loop",
                    if brk { "break" } else { "continue" }
                ),
            ),
        }
    }

    /// Patches the innermost loop's `break`s to `end` and `continue`s to `cont`.
    fn end_loop(&mut self, end: u32, cont: u32) {
        if let Some(l) = self.loops.pop() {
            for b in l.breaks {
                self.patch(b, end);
            }
            for c in l.continues {
                self.patch(c, cont);
            }
        }
    }

    fn iter_var(&mut self, name: &str, loc: SrcLoc) -> Option<u32> {
        match self.lookup(name) {
            Some(LocalVar {
                slot,
                ty: Ty::T(Type::Ptr(_)),
                ..
            }) => Some(slot),
            Some(v) => {
                self.error(
                    loc,
                    format!(
                        "list iterator `{name}` must be a pointer, but it is `{}`",
                        ty_name(&v.ty)
                    ),
                );
                None
            }
            None => {
                self.error(loc, format!("unknown identifier `{name}`"));
                None
            }
        }
    }

    /// The instruction that moves a list walk one entry on, forwards or backwards.
    fn list_step(reverse: bool, list: FieldId) -> Op {
        if reverse {
            Op::ListPrev(list)
        } else {
            Op::ListNext(list)
        }
    }

    /// Checks that `head` is a kernel object pointer with a list called `list`; the list as a
    /// field of the head's object (an error was reported when there is none).
    fn list_head(&mut self, head: &Expr, list: &str) -> Option<FieldId> {
        match self.expr(head) {
            Some(Ty::T(Type::Ptr(tag))) => {
                if !self.names.schema.structs.contains_key(&tag) {
                    self.error(
                        head.loc,
                        format!("list heads must be in kernel objects, not `struct {tag}`"),
                    );
                } else {
                    match self.names.field(&tag, list) {
                        Ok((_, _, Field::Kernel(id))) => return Some(id),
                        _ => self.error(head.loc, format!("struct `{tag}` has no list `{list}`")),
                    }
                }
            }
            Some(t) => self.error(
                head.loc,
                format!(
                    "type mismatch: list head must be a kernel object pointer, found `{}`",
                    ty_name(&t)
                ),
            ),
            None => {}
        }
        None
    }

    /// `list_for_each_entry[_safe|_reverse](it, [tmp,] &head->list, member) body`: the head is
    /// evaluated once; with `tmp` the next entry is fetched before the body runs.
    #[allow(clippy::too_many_arguments)]
    fn list_loop(
        &mut self,
        reverse: bool,
        it: &str,
        tmp: Option<&str>,
        head: &Expr,
        list: &str,
        body: &Stmt,
        loc: SrcLoc,
    ) {
        let it_slot = self.iter_var(it, loc).unwrap_or(0);
        let tmp_slot = tmp.map(|t| self.iter_var(t, loc).unwrap_or(0));
        // after an error the program is not built: any id will do
        let list = self.list_head(head, list).unwrap_or(FieldId {
            kind: ObjKind::Vma,
            index: u16::MAX,
        });
        let head_slot = self.new_slot(Value::Null);
        self.emit(Op::Store(head_slot), loc);
        self.emit(Op::Load(head_slot), loc);
        self.emit(
            if reverse {
                Op::ListLast(list)
            } else {
                Op::ListFirst(list)
            },
            loc,
        );
        self.emit(Op::Store(it_slot), loc);
        let top = self.here();
        self.emit(Op::Load(it_slot), loc);
        let jf = self.emit(Op::JumpIfFalse(0), loc);
        if let Some(ts) = tmp_slot {
            self.emit(Op::Load(head_slot), loc);
            self.emit(Op::Load(it_slot), loc);
            self.emit(Self::list_step(reverse, list), loc);
            self.emit(Op::Store(ts), loc);
        }
        self.loops.push(LoopCtx {
            breaks: Vec::new(),
            continues: Vec::new(),
        });
        self.scoped(body);
        let advance = self.here();
        match tmp_slot {
            Some(ts) => {
                self.emit(Op::Load(ts), loc);
            }
            None => {
                self.emit(Op::Load(head_slot), loc);
                self.emit(Op::Load(it_slot), loc);
                self.emit(Self::list_step(reverse, list), loc);
            }
        }
        self.emit(Op::Store(it_slot), loc);
        self.emit(Op::Jump(top), loc);
        let end = self.here();
        self.patch(jf, end);
        self.end_loop(end, advance);
    }

    fn decl(&mut self, d: &Declarator) {
        let resolved = match self.names.resolve(&d.ty) {
            Ok(r) => r,
            Err(m) => {
                self.error(d.loc, m);
                self.declare(&d.name, Ty::T(Type::Int), d.loc);
                return;
            }
        };
        match resolved {
            Resolved::Scalar(Type::Void) => {
                self.error(d.loc, format!("variable `{}` declared void", d.name));
                self.declare(&d.name, Ty::T(Type::Int), d.loc);
            }
            Resolved::Scalar(t) => self.scalar_decl(d, t),
            Resolved::StructVal(tag, sid) => self.struct_decl(d, &tag, sid),
        }
    }

    /// A scalar local: its initialiser (or the type's zero) is stored after it is declared, so
    /// the initialiser cannot see it.
    fn scalar_decl(&mut self, d: &Declarator, t: Type) {
        match &d.init {
            None => {
                self.emit(Op::Const(zero(&t)), d.loc);
            }
            Some(Init::Expr(e)) => {
                if let Some(ty) = self.expr(e) {
                    if !assignable(&t, &ty) {
                        self.error(
                            e.loc,
                            format!(
                                "type mismatch: initialising `{}` of type `{}` with `{}`",
                                d.name,
                                type_name(&t),
                                ty_name(&ty)
                            ),
                        );
                    }
                    self.convert(&t, &ty, e.loc);
                }
            }
            Some(Init::Struct(_)) => {
                self.error(
                    d.loc,
                    format!(
                        "type mismatch: `{{ ... }}` initialiser for `{}` of type `{}`",
                        d.name,
                        type_name(&t)
                    ),
                );
            }
        }
        let slot = self.declare(&d.name, Ty::T(t), d.loc);
        self.emit(Op::Store(slot), d.loc);
    }

    /// A local struct value (local struct number `sid`): zeroed, then each `.field = value` of
    /// its initialiser written in order.
    fn struct_decl(&mut self, d: &Declarator, tag: &str, sid: u32) {
        let slot = self.declare(&d.name, Ty::Struct(tag.to_string()), d.loc);
        self.struct_slots.push((slot, sid));
        self.emit(Op::ZeroStruct(slot), d.loc);
        let fields = match &d.init {
            None => return,
            Some(Init::Expr(e)) => {
                return self.error(
                    e.loc,
                    format!(
                        "type mismatch: struct value `{}` can only be initialised with `{{ ... }}`",
                        d.name
                    ),
                )
            }
            Some(Init::Struct(fields)) => fields,
        };
        for (fname, e, floc) in fields {
            let (fty, fref) = match self.names.field(tag, fname) {
                Ok((t, _, f)) => (t, f),
                Err(m) => {
                    self.error(*floc, m);
                    continue;
                }
            };
            self.emit(Op::Load(slot), *floc);
            if let Some(ty) = self.expr(e) {
                if !assignable(&fty, &ty) {
                    self.error(
                        e.loc,
                        format!(
                            "type mismatch: initialising field `{fname}` of type `{}` with `{}`",
                            type_name(&fty),
                            ty_name(&ty)
                        ),
                    );
                }
                self.convert(&fty, &ty, e.loc);
            }
            self.emit(Op::WriteField(fref), *floc);
        }
    }
}
