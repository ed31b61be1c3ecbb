//! Turns the checked-as-we-go syntax tree into a [`Program`]: resolves which definition of each
//! function, struct and constant wins (the last one), then walks every function body, asking
//! `check` for the typing rules, reporting every error it finds, and emitting a flat list of
//! instructions that each remember their source location.
//!
//! This module holds the entry point and the per-function compiler state ([`FnCompiler`]) with
//! its small shared helpers; the work is split by what it compiles: [`items`] (defines, structs,
//! signatures, whole functions), [`stmt`] (statements and loops), [`lvalue`] (assignments and
//! field bases) and [`expr`] (expressions, conditions and calls).

mod expr;
mod items;
mod lvalue;
mod stmt;

use super::ast::Item;
use super::check::{conversion, zero, Conv, Names, Ty};
use super::diag::{Diagnostic, SourceMap, SrcLoc};
use super::program::{FuncId, FuncSig, Instr, Op, Program};
use super::types::{Schema, Type};
use crate::value::{ObjKind, Value};
use std::collections::BTreeMap;

/// Compiles the items of all loaded files (in include order) into a program.
pub fn compile(
    items: Vec<Item>,
    sources: SourceMap,
    schema: &Schema,
) -> Result<Program, Vec<Diagnostic>> {
    let mut errs: Vec<(SrcLoc, String)> = Vec::new();
    let defs = items::collect(items, schema, &mut errs);
    let structs = items::struct_layouts(&defs, schema, &mut errs);
    let sigs = items::signatures(&defs, schema, &structs, &mut errs);

    let ids: BTreeMap<String, FuncId> = defs
        .funcs
        .keys()
        .enumerate()
        .map(|(i, n)| (n.clone(), FuncId(i as u32)))
        .collect();
    let names = Names {
        schema,
        structs: &structs,
        funcs: &sigs,
        defines: &defs.defines,
    };
    let funcs = defs
        .funcs
        .values()
        .map(|f| items::function(&names, &ids, &sigs[&f.name], f, &mut errs))
        .collect();

    if !errs.is_empty() {
        errs.sort_by_key(|(l, _)| *l);
        errs.dedup();
        return Err(errs.into_iter().map(|(l, m)| sources.diag(l, m)).collect());
    }
    Ok(Program {
        funcs,
        by_name: ids,
        structs: structs.into_values().map(|(_, s)| s).collect(),
        defines: defs.defines,
        sources,
        kernel_fields: kernel_field_names(schema),
        builtin_names: builtin_names(schema),
        marks: Default::default(),
    })
}

/// The schema's kernel field names by object kind and position, as [`Program::field_name`]
/// reads them back from a `FieldId`.
fn kernel_field_names(schema: &Schema) -> Vec<Vec<String>> {
    let mut out = Vec::new();
    for (tag, fields) in &schema.structs {
        let Some(kind) = ObjKind::from_struct_tag(tag) else {
            continue;
        };
        let k = kind as usize;
        if out.len() <= k {
            out.resize(k + 1, Vec::new());
        }
        out[k] = fields.iter().map(|f| f.name.clone()).collect();
    }
    out
}

/// The schema's builtin names by id, as [`Program::builtin_name`] reads them back.
fn builtin_names(schema: &Schema) -> Vec<String> {
    let mut out = Vec::new();
    for b in schema.builtins.values() {
        let i = b.id.0 as usize;
        if out.len() <= i {
            out.resize(i + 1, String::new());
        }
        out[i] = b.name.clone();
    }
    out
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

/// The state of compiling one function body: the code so far, the local slots and scopes, the
/// enclosing loops, and where errors go.
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
}
