//! Top-level items: which `#define`, struct and function definition wins (the last one; includes
//! were spliced in by the loader and are skipped here), the layouts of model-local structs, the
//! signatures of functions, and compiling each function body from its parameters to its final
//! implicit return.

use super::FnCompiler;
use crate::lang::ast::{Field, FuncDef, Item, StructDecl};
use crate::lang::check::{zero, Names, Resolved, Ty};
use crate::lang::diag::SrcLoc;
use crate::lang::program::{FuncId, FuncSig, Function, LocalStruct, Op};
use crate::lang::types::{Schema, Type};
use std::collections::BTreeMap;

/// The definitions that win, by name.
pub(super) struct Defs {
    pub(super) defines: BTreeMap<String, i64>,
    pub(super) structs: BTreeMap<String, StructDecl>,
    pub(super) funcs: BTreeMap<String, FuncDef>,
}

type Errs = Vec<(SrcLoc, String)>;

/// Sorts the items into defines, structs and functions (a later definition replaces an earlier
/// one); a struct or function may not take the name of a kernel struct or builtin.
pub(super) fn collect(items: Vec<Item>, schema: &Schema, errs: &mut Errs) -> Defs {
    let mut defs = Defs {
        defines: BTreeMap::new(),
        structs: BTreeMap::new(),
        funcs: BTreeMap::new(),
    };
    for item in items {
        match item {
            Item::Include { .. } => {}
            Item::Define { name, value, .. } => {
                defs.defines.insert(name, value);
            }
            Item::Struct(s) => {
                if schema.structs.contains_key(&s.name) {
                    errs.push((
                        s.loc,
                        format!("cannot redeclare kernel struct `{}`", s.name),
                    ));
                } else {
                    defs.structs.insert(s.name.clone(), s);
                }
            }
            Item::Func(f) => {
                if schema.builtins.contains_key(&f.name) {
                    errs.push((
                        f.loc,
                        format!("cannot define `{}`: it is a builtin of the world", f.name),
                    ));
                } else {
                    defs.funcs.insert(f.name.clone(), f);
                }
            }
        }
    }
    defs
}

/// The model-local structs, numbered in name order, with their field types. Names are known
/// before any layout is resolved, so fields may point at any local struct.
pub(super) fn struct_layouts(
    defs: &Defs,
    schema: &Schema,
    errs: &mut Errs,
) -> BTreeMap<String, (u32, LocalStruct)> {
    let mut structs: BTreeMap<String, (u32, LocalStruct)> = BTreeMap::new();
    for (i, name) in defs.structs.keys().enumerate() {
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
    for decl in defs.structs.values() {
        let names = Names {
            schema,
            structs: &structs,
            funcs: &empty_funcs,
            defines: &defs.defines,
        };
        let mut fields: Vec<(String, Type)> = Vec::new();
        for f in &decl.fields {
            if fields.iter().any(|(n, _)| *n == f.name) {
                errs.push((f.loc, format!("duplicate field `{}`", f.name)));
                continue;
            }
            if let Some(ty) = field_type(&names, f, errs) {
                fields.push((f.name.clone(), ty));
            }
        }
        layouts.push(fields);
    }
    for ((_, (_, s)), fields) in structs.iter_mut().zip(layouts) {
        s.fields = fields;
    }
    structs
}

/// The type of a local struct's field; `None` (and an error) when it cannot be one.
fn field_type(names: &Names, f: &Field, errs: &mut Errs) -> Option<Type> {
    match names.resolve(&f.ty) {
        Ok(Resolved::Scalar(Type::Void)) => {
            errs.push((f.loc, format!("field `{}` declared void", f.name)));
            None
        }
        Ok(Resolved::Scalar(t)) => Some(t),
        Ok(Resolved::StructVal(..)) => {
            errs.push((
                f.loc,
                format!(
                    "field `{}`: struct values inside structs are not supported",
                    f.name
                ),
            ));
            None
        }
        Err(m) => {
            errs.push((f.loc, m));
            None
        }
    }
}

/// The signature of every function (a bad type becomes `void` for a return, `int` for a
/// parameter, after its error).
pub(super) fn signatures(
    defs: &Defs,
    schema: &Schema,
    structs: &BTreeMap<String, (u32, LocalStruct)>,
    errs: &mut Errs,
) -> BTreeMap<String, FuncSig> {
    let mut sigs: BTreeMap<String, FuncSig> = BTreeMap::new();
    let empty_funcs = BTreeMap::new();
    for f in defs.funcs.values() {
        let names = Names {
            schema,
            structs,
            funcs: &empty_funcs,
            defines: &defs.defines,
        };
        let ret = return_type(&names, f, errs);
        let params = f
            .params
            .iter()
            .map(|p| (p.name.clone(), param_type(&names, p, errs)))
            .collect();
        sigs.insert(
            f.name.clone(),
            FuncSig {
                name: f.name.clone(),
                params,
                ret,
            },
        );
    }
    sigs
}

fn return_type(names: &Names, f: &FuncDef, errs: &mut Errs) -> Type {
    match names.resolve(&f.ret) {
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
    }
}

fn param_type(names: &Names, p: &Field, errs: &mut Errs) -> Type {
    match names.resolve(&p.ty) {
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
    }
}

/// Compiles one function definition with signature `sig`.
pub(super) fn function(
    names: &Names,
    ids: &BTreeMap<String, FuncId>,
    sig: &FuncSig,
    f: &FuncDef,
    errs: &mut Errs,
) -> Function {
    let mut fc = FnCompiler {
        names,
        ids,
        sig,
        code: Vec::new(),
        slots: Vec::new(),
        struct_slots: Vec::new(),
        scopes: vec![Vec::new()],
        loops: Vec::new(),
        errs,
    };
    fc.function(f);
    Function {
        sig: sig.clone(),
        code: fc.code,
        slot_init: fc.slots,
        struct_slots: fc.struct_slots,
        loc: f.loc,
    }
}

impl FnCompiler<'_, '_> {
    /// Parameters become the first locals; the body ends with an implicit `return` of the
    /// return type's zero, located at the function's name.
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
}
