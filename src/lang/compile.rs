//! Turns the checked-as-we-go syntax tree into a [`Program`]: resolves which definition of each
//! function, struct and constant wins (the last one), then walks every function body, asking
//! `check` for the typing rules, reporting every error it finds, and emitting a flat list of
//! instructions that each remember their source location.

use super::ast::*;
use super::check::*;
use super::diag::{Diagnostic, SourceMap, SrcLoc};
use super::program::*;
use super::types::{Schema, Type};
use crate::value::Value;
use std::collections::BTreeMap;

/// Compiles the items of all loaded files (in include order) into a program.
pub fn compile(
    items: Vec<Item>,
    sources: SourceMap,
    schema: &Schema,
) -> Result<Program, Vec<Diagnostic>> {
    let mut errs: Vec<(SrcLoc, String)> = Vec::new();
    let mut defines = BTreeMap::new();
    let mut struct_decls: BTreeMap<String, StructDecl> = BTreeMap::new();
    let mut func_defs: BTreeMap<String, FuncDef> = BTreeMap::new();
    for item in items {
        match item {
            Item::Include { .. } => {}
            Item::Define { name, value, .. } => {
                defines.insert(name, value);
            }
            Item::Struct(s) => {
                if schema.structs.contains_key(&s.name) {
                    errs.push((
                        s.loc,
                        format!("cannot redeclare kernel struct `{}`", s.name),
                    ));
                } else {
                    struct_decls.insert(s.name.clone(), s);
                }
            }
            Item::Func(f) => {
                if schema.builtins.contains_key(&f.name) {
                    errs.push((
                        f.loc,
                        format!("cannot define `{}`: it is a builtin of the world", f.name),
                    ));
                } else {
                    func_defs.insert(f.name.clone(), f);
                }
            }
        }
    }

    // struct layouts: names first, so fields may point at any local struct
    let mut structs: BTreeMap<String, (u32, LocalStruct)> = BTreeMap::new();
    for (i, name) in struct_decls.keys().enumerate() {
        structs.insert(
            name.clone(),
            (
                i as u32,
                LocalStruct {
                    name: name.clone(),
                    fields: Vec::new(),
                },
            ),
        );
    }
    let empty_funcs = BTreeMap::new();
    let mut layouts = Vec::new();
    for decl in struct_decls.values() {
        let names = Names {
            schema,
            structs: &structs,
            funcs: &empty_funcs,
            defines: &defines,
        };
        let mut fields: Vec<(String, Type)> = Vec::new();
        for f in &decl.fields {
            if fields.iter().any(|(n, _)| *n == f.name) {
                errs.push((f.loc, format!("duplicate field `{}`", f.name)));
                continue;
            }
            let ty = match names.resolve(&f.ty) {
                Ok(Resolved::Scalar(Type::Void)) => {
                    errs.push((f.loc, format!("field `{}` declared void", f.name)));
                    continue;
                }
                Ok(Resolved::Scalar(t)) => t,
                Ok(Resolved::StructVal(..)) => {
                    errs.push((
                        f.loc,
                        format!(
                            "field `{}`: struct values inside structs are not supported",
                            f.name
                        ),
                    ));
                    continue;
                }
                Err(m) => {
                    errs.push((f.loc, m));
                    continue;
                }
            };
            fields.push((f.name.clone(), ty));
        }
        layouts.push(fields);
    }
    for ((_, (_, s)), fields) in structs.iter_mut().zip(layouts) {
        s.fields = fields;
    }

    // signatures
    let mut sigs: BTreeMap<String, FuncSig> = BTreeMap::new();
    for f in func_defs.values() {
        let names = Names {
            schema,
            structs: &structs,
            funcs: &empty_funcs,
            defines: &defines,
        };
        let ret = match names.resolve(&f.ret) {
            Ok(Resolved::Scalar(t)) => t,
            Ok(Resolved::StructVal(n, _)) => {
                errs.push((
                    f.loc,
                    format!("functions cannot return a struct value (`struct {n}`)"),
                ));
                Type::Void
            }
            Err(m) => {
                errs.push((f.loc, m));
                Type::Void
            }
        };
        let mut params = Vec::new();
        for p in &f.params {
            let t = match names.resolve(&p.ty) {
                Ok(Resolved::Scalar(Type::Void)) => {
                    errs.push((p.loc, format!("parameter `{}` declared void", p.name)));
                    Type::Int
                }
                Ok(Resolved::Scalar(t)) => t,
                Ok(Resolved::StructVal(n, _)) => {
                    errs.push((
                        p.loc,
                        format!("parameter `{}`: pass `struct {n}` by pointer", p.name),
                    ));
                    Type::Int
                }
                Err(m) => {
                    errs.push((p.loc, m));
                    Type::Int
                }
            };
            params.push((p.name.clone(), t));
        }
        sigs.insert(
            f.name.clone(),
            FuncSig {
                name: f.name.clone(),
                params,
                ret,
            },
        );
    }

    let ids: BTreeMap<String, FuncId> = func_defs
        .keys()
        .enumerate()
        .map(|(i, n)| (n.clone(), FuncId(i as u32)))
        .collect();
    let names = Names {
        schema,
        structs: &structs,
        funcs: &sigs,
        defines: &defines,
    };
    let mut funcs = Vec::new();
    for f in func_defs.values() {
        let mut fc = FnCompiler {
            names: &names,
            ids: &ids,
            sig: &sigs[&f.name],
            code: Vec::new(),
            slots: Vec::new(),
            struct_slots: Vec::new(),
            scopes: vec![Vec::new()],
            loops: Vec::new(),
            errs: &mut errs,
        };
        fc.function(f);
        let slot_init = fc.slots;
        let struct_slots = fc.struct_slots;
        let code = fc.code;
        funcs.push(Function {
            sig: sigs[&f.name].clone(),
            code,
            slot_init,
            struct_slots,
            loc: f.loc,
        });
    }

    if !errs.is_empty() {
        errs.sort_by_key(|(l, _)| *l);
        errs.dedup();
        return Err(errs.into_iter().map(|(l, m)| sources.diag(l, m)).collect());
    }
    Ok(Program {
        funcs,
        by_name: ids,
        structs: structs.into_values().map(|(_, s)| s).collect(),
        defines,
        sources,
    })
}

/// Break and continue jumps of one enclosing loop, patched when the loop ends.
struct LoopCtx {
    breaks: Vec<usize>,
    continues: Vec<usize>,
}

/// What a local name denotes.
#[derive(Clone)]
struct LocalVar {
    name: String,
    slot: u32,
    ty: Ty,
}

struct FnCompiler<'a, 'n> {
    names: &'a Names<'n>,
    ids: &'a BTreeMap<String, FuncId>,
    sig: &'a FuncSig,
    code: Vec<Instr>,
    slots: Vec<Value>,
    struct_slots: Vec<(u32, u32)>,
    scopes: Vec<Vec<LocalVar>>,
    loops: Vec<LoopCtx>,
    errs: &'a mut Vec<(SrcLoc, String)>,
}

impl FnCompiler<'_, '_> {
    fn emit(&mut self, op: Op, loc: SrcLoc) -> usize {
        self.code.push(Instr { op, loc });
        self.code.len() - 1
    }

    fn here(&self) -> u32 {
        self.code.len() as u32
    }

    fn patch(&mut self, at: usize, target: u32) {
        match &mut self.code[at].op {
            Op::Jump(t) | Op::JumpIfFalse(t) => *t = target,
            _ => unreachable!("patching a non-jump"),
        }
    }

    fn error(&mut self, loc: SrcLoc, msg: impl Into<String>) {
        self.errs.push((loc, msg.into()));
    }

    fn lookup(&self, name: &str) -> Option<LocalVar> {
        self.scopes
            .iter()
            .rev()
            .flat_map(|s| s.iter().rev())
            .find(|v| v.name == name)
            .cloned()
    }

    fn new_slot(&mut self, init: Value) -> u32 {
        self.slots.push(init);
        (self.slots.len() - 1) as u32
    }

    /// Declares a local in the innermost scope; returns its slot.
    fn declare(&mut self, name: &str, ty: Ty, loc: SrcLoc) -> u32 {
        let init = match &ty {
            Ty::T(t) => zero(t),
            Ty::Struct(_) => Value::Null,
        };
        let slot = self.new_slot(init);
        if self
            .scopes
            .last()
            .is_some_and(|s| s.iter().any(|v| v.name == name))
        {
            self.error(loc, format!("redeclaration of `{name}` in the same scope"));
        }
        if let Some(scope) = self.scopes.last_mut() {
            scope.push(LocalVar {
                name: name.to_string(),
                slot,
                ty,
            });
        }
        slot
    }

    fn convert(&mut self, to: &Type, from: &Ty, loc: SrcLoc) {
        match conversion(to, from) {
            Conv::None => {}
            Conv::ToBool => {
                self.emit(Op::Truth, loc);
            }
            Conv::ToInt => {
                self.emit(Op::ToInt, loc);
            }
        }
    }

    fn function(&mut self, f: &FuncDef) {
        for (p, (_, t)) in f.params.iter().zip(&self.sig.params) {
            self.declare(&p.name, Ty::T(t.clone()), p.loc);
        }
        for s in &f.body {
            self.stmt(s);
        }
        let end = SrcLoc {
            file: f.loc.file,
            line: f.loc.line,
            col: f.loc.col,
        };
        let v = zero(&self.sig.ret);
        self.emit(Op::Const(v), end);
        self.emit(Op::Return, end);
    }

    // ---- statements ----

    fn scoped(&mut self, s: &Stmt) {
        self.scopes.push(Vec::new());
        self.stmt(s);
        self.scopes.pop();
    }

    fn stmt(&mut self, s: &Stmt) {
        let loc = s.loc;
        match &s.kind {
            StmtKind::Decl(ds) => {
                for d in ds {
                    self.decl(d);
                }
            }
            StmtKind::Expr(e) => {
                if self.expr(e).is_some() {
                    self.emit(Op::Pop, loc);
                } else {
                    // keep the operand stack balanced in the (discarded) code
                    self.emit(Op::Pop, loc);
                }
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
            StmtKind::If { cond, then, els } => {
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
            StmtKind::While { cond, body } => {
                let top = self.here();
                self.cond(cond);
                let jf = self.emit(Op::JumpIfFalse(0), loc);
                self.loop_body(body, top, top, loc);
                let h = self.here();
                self.patch(jf, h);
                self.end_loop(h, top);
            }
            StmtKind::For {
                init,
                cond,
                step,
                body,
            } => {
                self.scopes.push(Vec::new());
                if let Some(i) = init {
                    self.stmt(i);
                }
                let top = self.here();
                let jf = cond.as_ref().map(|c| {
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
            StmtKind::Return(e) => {
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
            StmtKind::Break | StmtKind::Continue => {
                let brk = matches!(s.kind, StmtKind::Break);
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

    /// Compiles a loop body with its own break/continue context, then jumps back to `back`.
    fn loop_body(&mut self, body: &Stmt, _top: u32, back: u32, loc: SrcLoc) {
        self.loops.push(LoopCtx {
            breaks: Vec::new(),
            continues: Vec::new(),
        });
        self.scoped(body);
        self.emit(Op::Jump(back), loc);
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
    fn list_step(reverse: bool, list: &str) -> Op {
        if reverse {
            Op::ListPrev(list.to_string())
        } else {
            Op::ListNext(list.to_string())
        }
    }

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
        match self.expr(head) {
            Some(Ty::T(Type::Ptr(tag))) => {
                if !self.names.schema.structs.contains_key(&tag) {
                    self.error(
                        head.loc,
                        format!("list heads must be in kernel objects, not `struct {tag}`"),
                    );
                } else if self.names.field(&tag, list).is_err() {
                    self.error(head.loc, format!("struct `{tag}` has no list `{list}`"));
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
        let head_slot = self.new_slot(Value::Null);
        self.emit(Op::Store(head_slot), loc);
        self.emit(Op::Load(head_slot), loc);
        self.emit(
            if reverse {
                Op::ListLast(list.to_string())
            } else {
                Op::ListFirst(list.to_string())
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
            Resolved::Scalar(t) => {
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
            Resolved::StructVal(tag, sid) => {
                let slot = self.declare(&d.name, Ty::Struct(tag.clone()), d.loc);
                self.struct_slots.push((slot, sid));
                self.emit(Op::ZeroStruct(slot), d.loc);
                match &d.init {
                    None => {}
                    Some(Init::Expr(e)) => self.error(
                        e.loc,
                        format!(
                            "type mismatch: struct value `{}` can only be initialised with `{{ ... }}`",
                            d.name
                        ),
                    ),
                    Some(Init::Struct(fields)) => {
                        for (fname, e, floc) in fields {
                            let fty = match self.names.field(&tag, fname) {
                                Ok((t, _)) => t,
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
                            self.emit(Op::WriteField(fname.clone()), *floc);
                        }
                    }
                }
            }
        }
    }

    fn assign(&mut self, lhs: &Expr, op: AssignOp, rhs: &Expr, loc: SrcLoc) {
        let bin = match op {
            AssignOp::Set => None,
            AssignOp::With(b) => Some(b),
        };
        match &lhs.kind {
            ExprKind::Ident(name) => {
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
                            format!(
                                "cannot assign to the whole struct value `{name}` (struct {s})"
                            ),
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
                let (t, writable) = match self.names.field(&tag, field) {
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
                    self.emit(Op::ReadField(field.clone()), loc);
                }
                self.store_value(&t, bin, rhs, field, loc);
                self.emit(Op::WriteField(field.clone()), loc);
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
    fn field_base(&mut self, base: &Expr, arrow: bool) -> Option<String> {
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

    /// Compiles a condition (anything scalar).
    fn cond(&mut self, e: &Expr) {
        if let Some(t) = self.expr(e) {
            if !is_scalar(&t) {
                self.error(
                    e.loc,
                    format!("type mismatch: condition has type `{}`", ty_name(&t)),
                );
            }
        }
    }

    // ---- expressions ----

    /// Compiles an expression that pushes one value; `None` when an error was reported.
    fn expr(&mut self, e: &Expr) -> Option<Ty> {
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
            ExprKind::Ident(name) => {
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
            ExprKind::Field {
                base,
                field,
                arrow,
                field_loc,
            } => {
                let tag = self.field_base(base, *arrow)?;
                match self.names.field(&tag, field) {
                    Ok((t, _)) => {
                        self.emit(Op::ReadField(field.clone()), loc);
                        Some(Ty::T(t))
                    }
                    Err(m) => {
                        self.error(*field_loc, m);
                        None
                    }
                }
            }
            ExprKind::AddrOf(inner) => {
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
            ExprKind::Call { name, args } => self.call(name, args, loc),
            ExprKind::Unary(op, x) => {
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
                self.emit(Op::Unary(*op), loc);
                Some(Ty::T(if *op == UnOp::Not {
                    Type::Bool
                } else {
                    Type::Int
                }))
            }
            ExprKind::Binary(op @ (BinOp::And | BinOp::Or), a, b) => {
                let ta = self.expr(a);
                let jf = self.emit(Op::JumpIfFalse(0), loc);
                let tb = if *op == BinOp::And {
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
                let (ta, tb) = (ta?, tb?);
                match binary_type(*op, &ta, &tb) {
                    Ok(t) => Some(Ty::T(t)),
                    Err(m) => {
                        self.error(loc, m);
                        None
                    }
                }
            }
            ExprKind::Binary(op, a, b) => {
                let ta = self.expr(a);
                let tb = self.expr(b);
                self.emit(Op::Binary(*op), loc);
                let (ta, tb) = (ta?, tb?);
                match binary_type(*op, &ta, &tb) {
                    Ok(t) => Some(Ty::T(t)),
                    Err(m) => {
                        self.error(loc, m);
                        None
                    }
                }
            }
            ExprKind::Cond(c, a, b) => {
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
        if builtin {
            self.emit(Op::Builtin(name.to_string(), argc), loc);
        } else {
            let id = self.ids[name];
            self.emit(Op::Call(id, argc), loc);
        }
        ok.then_some(Ty::T(ret))
    }
}
