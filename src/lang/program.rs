//! A loaded, checked and compiled model: its functions as flat instruction lists, its local
//! struct layouts, its constants and the source files it came from.

use super::ast::{BinOp, UnOp};
use super::diag::{SourceMap, SrcLoc};
use super::lexer::{lex, Tok};
use super::types::{BuiltinId, FieldId, Type};
use crate::value::Value;
use std::collections::BTreeMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

/// Index of a function in a [`Program`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct FuncId(pub u32);

/// A field access resolved at load time: a kernel object's field (through the host) or a slot
/// of a model-local struct instance (in the thread's own heap).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Field {
    Kernel(FieldId),
    /// Field `slot` of local struct layout `layout` (an index into [`Program::structs`]).
    Local {
        layout: u32,
        slot: u32,
    },
}

/// One step of a compiled function. Names are resolved when the model is loaded: fields,
/// builtins and lists are ids, and [`Program`] turns them back into names for traces. The interpreter keeps an operand stack per frame; "pops"
/// and "pushes" below refer to it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Op {
    /// Pushes a constant.
    Const(Value),
    /// Pushes local slot `n`.
    Load(u32),
    /// Pops into local slot `n`.
    Store(u32),
    /// Drops the top value.
    Pop,
    /// Duplicates the top value.
    Dup,
    /// Pops a pointer, pushes `ptr->field`. Touches the world when the pointer is a kernel object.
    ReadField(Field),
    /// Pops a value, then a pointer, and performs `ptr->field = value`.
    WriteField(Field),
    Unary(UnOp),
    /// Pops `b` then `a`, pushes `a op b` (never `&&`/`||`, which compile to jumps).
    Binary(BinOp),
    /// Replaces the top value by its C truth value as a `bool`.
    Truth,
    /// Replaces a `bool` on top by `0`/`1`.
    ToInt,
    Jump(u32),
    /// Pops a value and jumps when it is false.
    JumpIfFalse(u32),
    /// Calls a model function with the top `argc` values as arguments.
    Call(FuncId, u32),
    /// Calls a builtin of the world with the top `argc` values as arguments; pushes its result.
    Builtin(BuiltinId, u32),
    /// Pops the return value and leaves the function.
    Return,
    /// Pops a list head object, pushes the first entry of `head->list` (or NULL).
    ListFirst(FieldId),
    /// Pops the current entry, then the head; pushes the next entry (or NULL).
    ListNext(FieldId),
    /// Pops a list head object, pushes the last entry of `head->list` (or NULL).
    ListLast(FieldId),
    /// Pops the current entry, then the head; pushes the previous entry (or NULL).
    ListPrev(FieldId),
    /// Pops a condition: when true the run stops with an assertion fault; otherwise pushes false.
    Warn {
        macro_name: String,
        cond: String,
    },
    /// Zeroes the struct instance that local slot `n` points to.
    ZeroStruct(u32),
    /// Counts one run of marked line `n` ([`super::marks`]); touches nothing else. Only in a
    /// program made by [`Program::with_marks`].
    Mark(u32),
}

impl Op {
    /// Whether this instruction always reaches the world (field accesses depend on the pointer).
    pub(crate) fn always_shared(&self) -> bool {
        matches!(
            self,
            Op::Builtin(..)
                | Op::ListFirst(_)
                | Op::ListNext(_)
                | Op::ListLast(_)
                | Op::ListPrev(_)
        )
    }
}

/// An instruction and the source position it was compiled from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Instr {
    pub op: Op,
    pub loc: SrcLoc,
}

/// A function's name, parameters and return type.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FuncSig {
    pub name: String,
    pub params: Vec<(String, Type)>,
    pub ret: Type,
}

/// A compiled function.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Function {
    pub sig: FuncSig,
    pub code: Vec<Instr>,
    /// The value every local slot holds when a frame starts (parameters are overwritten).
    pub slot_init: Vec<Value>,
    /// Slots holding struct values: (slot, index into `Program::structs`). A fresh zeroed
    /// instance is created for each when the frame starts.
    pub struct_slots: Vec<(u32, u32)>,
    /// Where the function is defined.
    pub loc: SrcLoc,
}

/// The source text of one function definition, as [`Program::func_source`] finds it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FuncSource<'a> {
    /// The file it is written in (an index into [`Program::sources`]).
    pub file: u16,
    /// 1-based line where the definition starts (its return type, `static` and all).
    pub line: u32,
    /// Whole lines, from that one through the line of the closing brace, with their line
    /// breaks. Comments above the definition are not part of it; those inside are.
    pub text: &'a str,
}

/// A model-local struct layout.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LocalStruct {
    pub name: String,
    pub fields: Vec<(String, Type)>,
}

impl LocalStruct {
    /// Position of a field by name.
    pub fn field_index(&self, name: &str) -> Option<usize> {
        self.fields.iter().position(|(n, _)| n == name)
    }
}

/// A loaded model program.
#[derive(Clone, Debug)]
pub struct Program {
    pub(crate) funcs: Vec<Function>,
    pub(crate) by_name: BTreeMap<String, FuncId>,
    pub(crate) structs: Vec<LocalStruct>,
    pub(crate) defines: BTreeMap<String, i64>,
    pub(crate) sources: SourceMap,
    /// Field names of each kernel object kind, in schema order (indexed by `ObjKind as usize`
    /// and [`FieldId::index`]), for rendering.
    pub(crate) kernel_fields: Vec<Vec<String>>,
    /// Builtin names by [`BuiltinId`], for rendering.
    pub(crate) builtin_names: Vec<String>,
    /// The marked lines and their counters (none unless made by [`Program::with_marks`]).
    pub(crate) marks: Marks,
}

impl Program {
    /// The function called `name`, if the model defines it.
    pub fn function(&self, name: &str) -> Option<FuncId> {
        self.by_name.get(name).copied()
    }

    /// Signature of a function.
    pub(crate) fn func_sig(&self, id: FuncId) -> &FuncSig {
        &self.funcs[id.0 as usize].sig
    }

    /// The compiled function.
    pub fn func(&self, id: FuncId) -> &Function {
        &self.funcs[id.0 as usize]
    }

    /// Names of all functions, sorted.
    pub fn function_names(&self) -> impl Iterator<Item = &str> {
        self.by_name.keys().map(|s| s.as_str())
    }

    /// The name of a kernel field (`vm_start`), for traces and messages.
    pub fn field_name(&self, id: FieldId) -> &str {
        self.kernel_fields
            .get(id.kind as usize)
            .and_then(|f| f.get(id.index as usize))
            .map_or("?", |s| s.as_str())
    }

    /// The name of a field access of either kind.
    pub(crate) fn any_field_name(&self, f: Field) -> &str {
        match f {
            Field::Kernel(id) => self.field_name(id),
            Field::Local { layout, slot } => self
                .structs
                .get(layout as usize)
                .and_then(|s| s.fields.get(slot as usize))
                .map_or("?", |(n, _)| n.as_str()),
        }
    }

    /// The name of a builtin, for traces and messages.
    pub fn builtin_name(&self, id: BuiltinId) -> &str {
        self.builtin_names
            .get(id.0 as usize)
            .map_or("?", |s| s.as_str())
    }

    /// Model-local struct layouts.
    pub fn structs(&self) -> &[LocalStruct] {
        &self.structs
    }

    /// The value of a `#define`.
    pub fn define(&self, name: &str) -> Option<i64> {
        self.defines.get(name).copied()
    }

    /// Every source file the program was loaded from.
    pub fn sources(&self) -> &SourceMap {
        &self.sources
    }

    /// File name, line, column and the text of the line at `loc`.
    /// The kernel function a model function stands for, from the `// kernel: FILE FUNCTION`
    /// line in the comments just above its definition (`none (model helper)` for helpers);
    /// `None` when the function has no such line.
    pub fn kernel_ref(&self, name: &str) -> Option<String> {
        let f = self.funcs.get(self.function(name)?.0 as usize)?;
        let text = &self.sources.files().get(f.loc.file as usize)?.text;
        let lines: Vec<&str> = text.lines().collect();
        // the signature may start a line or two before the name's location: look above the
        // first line of the definition, through the comment block
        let mut i = (f.loc.line as usize).checked_sub(2)?;
        loop {
            let l = lines.get(i)?.trim();
            if let Some(r) = l.strip_prefix("// kernel:") {
                return Some(r.trim().to_string());
            }
            let comment = l.is_empty()
                || l.starts_with("//")
                || l.starts_with("/*")
                || l.starts_with('*')
                || l.ends_with("*/");
            if !comment {
                return None;
            }
            i = i.checked_sub(1)?;
        }
    }

    pub(crate) fn source_line(&self, loc: SrcLoc) -> (&str, u32, u32, &str) {
        (
            self.sources.name(loc.file),
            loc.line,
            loc.col,
            self.sources.line_text(loc.file, loc.line),
        )
    }

    /// Where the definition of `id` that this program runs is written, and its text: the
    /// definition that won (a later one replaces an earlier one), found again in its file from
    /// the function's name. `None` only for a program whose sources are not the ones it was
    /// compiled from.
    pub fn func_source(&self, id: FuncId) -> Option<FuncSource<'_>> {
        let loc = self.funcs.get(id.0 as usize)?.loc;
        let text = &self.sources.files().get(loc.file as usize)?.text;
        let toks = lex(loc.file, text).ok()?;
        let name = toks
            .iter()
            .position(|t| t.loc == loc && matches!(t.tok, Tok::Ident(_)))?;
        // back over the return type: words and `*` (a directive or item before it ends in a
        // number, a string, `;` or `}`)
        let mut first = name;
        while first > 0 && matches!(toks[first - 1].tok, Tok::Ident(_) | Tok::Punct("*")) {
            first -= 1;
        }
        // forward to the brace that closes the body
        let open = name + toks[name..].iter().position(|t| t.tok == Tok::Punct("{"))?;
        let mut depth = 0usize;
        let mut close = None;
        for (i, t) in toks.iter().enumerate().skip(open) {
            match t.tok {
                Tok::Punct("{") => depth += 1,
                Tok::Punct("}") => {
                    depth -= 1;
                    if depth == 0 {
                        close = Some(i);
                        break;
                    }
                }
                _ => {}
            }
        }
        let end_tok = &toks[close?];
        let start = text[..toks[first].start].rfind('\n').map_or(0, |p| p + 1);
        let end = text[end_tok.end..]
            .find('\n')
            .map_or(text.len(), |p| end_tok.end + p + 1);
        Some(FuncSource {
            file: loc.file,
            line: toks[first].loc.line,
            text: &text[start..end],
        })
    }

    /// `file:line:col` for a location.
    pub(crate) fn loc_text(&self, loc: SrcLoc) -> String {
        format!("{}:{}:{}", self.sources.name(loc.file), loc.line, loc.col)
    }
}

/// A source line: (file index in the program's sources, 1-based line).
pub type Line = (u16, u32);

/// The marked lines of a program and how often each ran, shared by its copies.
#[derive(Clone, Debug, Default)]
pub struct Marks {
    /// The marked lines (made by `marks.rs`), by mark number.
    pub(super) lines: Vec<Line>,
    /// How often each marked line ran, shared by the program's clones.
    pub(super) counts: Arc<Vec<AtomicU64>>,
}

impl Marks {
    /// Count one run of mark `i`.
    #[inline]
    pub(crate) fn hit(&self, i: u32) {
        if let Some(c) = self.counts.get(i as usize) {
            c.fetch_add(1, Ordering::Relaxed);
        }
    }
}
