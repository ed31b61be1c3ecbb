//! The compiled engine's form of a model: each function's instructions decoded once into
//! plain `Copy` operations ([`COp`]) with the slot counts, initial slots, struct slots and
//! zeroed struct fields a frame needs, and the whole program verified so that the engine
//! (`exec::machine`) can keep every frame's locals and operand stack in one value vector.
//!
//! The decoded code keeps the interpreter's instruction numbering (operation `i` of a function
//! is its instruction `i`, jump targets unchanged, one more operation at the end for running
//! past it), so source locations, assertion texts and field names are read from the
//! [`Program`] by the same index when a step is reported or fails.
//!
//! Verification refuses a program whose code the engine would run differently from the
//! interpreter: a jump past a function's end, a slot outside its frame, or an instruction
//! that could find fewer operands than it takes (the interpreter reads a missing operand as
//! `void`; the engine would read the frame below). The engine is then not used for that
//! program ([`Code::new`] says why) and the reference interpreter runs it.

use crate::lang::ast::{BinOp, UnOp};
use crate::lang::check::zero;
use crate::lang::program::{Field, FuncId, Op};
use crate::lang::types::{BuiltinId, FieldId};
use crate::lang::{Program, SrcLoc};
use crate::value::Value;

/// One decoded instruction. Same meaning as the [`Op`] of the same index, except the fused
/// operations (those after `End`), which stand for the instruction of their index and the one
/// after it (whose operation stays as it was, for the jumps that land on it). The first of a
/// fused pair always falls through to the second when it succeeds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum COp {
    Const(Value),
    Load(u32),
    Store(u32),
    Pop,
    Dup,
    Truth,
    ToInt,
    Unary(UnOp),
    Binary(BinOp),
    Jump(u32),
    JumpIfFalse(u32),
    ReadField(Field),
    WriteField(Field),
    Call(FuncId, u32),
    Builtin(BuiltinId, u32),
    Return,
    ListFirst(FieldId),
    ListNext(FieldId),
    ListLast(FieldId),
    ListPrev(FieldId),
    /// The texts of the assertion are the [`Op::Warn`] of the same index.
    Warn,
    ZeroStruct(u32),
    /// Counts a marked line (`crate::lang::marks`).
    Mark(u32),
    /// Past the last instruction: the interpreter's "ran past the end of a function".
    End,
    /// `Load(s)` then `ReadField(f)`.
    LoadRead(u32, Field),
    /// `Load(s)` then `WriteField(f)`.
    LoadWrite(u32, Field),
    /// `Load(a)` then `Load(b)`.
    Load2(u32, u32),
    /// `Pop` then `Load(s)`.
    PopLoad(u32),
    /// `Store(a)` then `Load(b)`.
    StoreLoad(u32, u32),
    /// `Load(s)` then `Builtin(id, argc)`.
    LoadBuiltin(u32, BuiltinId, u32),
    /// `Load(s)` then `JumpIfFalse(t)`.
    LoadJumpIfFalse(u32, u32),
    /// `JumpIfFalse(t)` then, when it falls through, `Load(s)`.
    JumpIfFalseLoad(u32, u32),
    /// `Load(s)` then `Const(v)`.
    LoadConst(u32, Value),
    /// `Const(v)` then `Store(s)`.
    ConstStore(Value, u32),
    /// `JumpIfFalse(t)` then, when it falls through, `Const(v)`.
    JumpIfFalseConst(u32, Value),
    /// `ReadField(f)` then `Load(s)`.
    ReadLoad(Field, u32),
    /// `WriteField(f)` then `Load(s)`.
    WriteLoad(Field, u32),
    /// `ReadField(f)` then `JumpIfFalse(t)`.
    ReadJumpIfFalse(Field, u32),
    /// `Builtin(id, argc)` then `Pop`.
    BuiltinPop(BuiltinId, u32),
    /// `Builtin(id, argc)` then `Store(s)`.
    BuiltinStore(BuiltinId, u32, u32),
}

/// The fused operation standing for `a` and the `b` after it, if there is one.
fn fuse(a: COp, b: COp) -> Option<COp> {
    Some(match (a, b) {
        (COp::Load(s), COp::ReadField(f)) => COp::LoadRead(s, f),
        (COp::Load(s), COp::WriteField(f)) => COp::LoadWrite(s, f),
        (COp::Load(a), COp::Load(b)) => COp::Load2(a, b),
        (COp::Pop, COp::Load(s)) => COp::PopLoad(s),
        (COp::Store(a), COp::Load(b)) => COp::StoreLoad(a, b),
        (COp::Load(s), COp::Builtin(id, n)) => COp::LoadBuiltin(s, id, n),
        (COp::Load(s), COp::JumpIfFalse(t)) => COp::LoadJumpIfFalse(s, t),
        (COp::JumpIfFalse(t), COp::Load(s)) => COp::JumpIfFalseLoad(t, s),
        (COp::Load(s), COp::Const(v)) => COp::LoadConst(s, v),
        (COp::Const(v), COp::Store(s)) => COp::ConstStore(v, s),
        (COp::JumpIfFalse(t), COp::Const(v)) => COp::JumpIfFalseConst(t, v),
        (COp::ReadField(f), COp::Load(s)) => COp::ReadLoad(f, s),
        (COp::WriteField(f), COp::Load(s)) => COp::WriteLoad(f, s),
        (COp::ReadField(f), COp::JumpIfFalse(t)) => COp::ReadJumpIfFalse(f, t),
        (COp::Builtin(id, n), COp::Pop) => COp::BuiltinPop(id, n),
        (COp::Builtin(id, n), COp::Store(s)) => COp::BuiltinStore(id, n, s),
        _ => return None,
    })
}

/// `ops` (verified) with each instruction that a fusable one follows replaced by the fused
/// operation; the second instruction keeps its own operation.
fn fused(ops: &[COp]) -> Vec<COp> {
    let mut out = ops.to_vec();
    for (i, pair) in ops.windows(2).enumerate() {
        if let Some(f) = fuse(pair[0], pair[1]) {
            out[i] = f;
        }
    }
    out
}

/// A decoded function.
#[derive(Clone, Debug)]
pub(crate) struct CodeFn {
    /// The operations, one per instruction, and [`COp::End`] after them.
    pub ops: Vec<COp>,
    /// Instructions in the source function (the index of `End`).
    pub len: u32,
    /// The value every local slot holds when a frame starts.
    pub slot_init: Vec<Value>,
    /// (slot, layout) of the struct values a frame creates.
    pub struct_slots: Vec<(u32, u32)>,
    /// The most operands the function's stack ever holds (verification proves every
    /// reachable instruction runs at one height), so that a frame's room is set aside when
    /// it starts.
    pub max_stack: u32,
    /// Where the function is defined (the location of running past its end).
    pub loc: SrcLoc,
}

/// A program decoded for the compiled engine.
#[derive(Clone, Debug)]
pub struct Code {
    pub(crate) funcs: Vec<CodeFn>,
    /// The zeroed fields of each local struct layout.
    pub(crate) zeros: Vec<Vec<Value>>,
}

impl Code {
    /// Decode and verify `prog`; the reason when the engine cannot run it exactly as the
    /// interpreter does.
    pub fn new(prog: &Program) -> Result<Code, String> {
        let zeros = prog
            .structs()
            .iter()
            .map(|s| s.fields.iter().map(|(_, t)| zero(t)).collect())
            .collect();
        let mut funcs = Vec::with_capacity(prog.funcs.len());
        for f in &prog.funcs {
            let name = &f.sig.name;
            let nslots = f.slot_init.len() as u32;
            if f.sig.params.len() as u32 > nslots {
                return Err(format!("`{name}` has more parameters than slots"));
            }
            for &(slot, layout) in &f.struct_slots {
                if slot >= nslots || layout as usize >= prog.structs().len() {
                    return Err(format!("`{name}`: struct slot {slot} out of range"));
                }
            }
            let ops: Vec<COp> = f
                .code
                .iter()
                .map(|i| decode(&i.op))
                .chain(std::iter::once(COp::End))
                .collect();
            let len = f.code.len() as u32;
            let max_stack = verify(prog, &ops, nslots).map_err(|e| format!("`{name}`: {e}"))?;
            funcs.push(CodeFn {
                ops: fused(&ops),
                len,
                slot_init: f.slot_init.clone(),
                struct_slots: f.struct_slots.clone(),
                max_stack,
                loc: f.loc,
            });
        }
        Ok(Code { funcs, zeros })
    }
}

fn decode(op: &Op) -> COp {
    match op {
        Op::Const(v) => COp::Const(*v),
        Op::Load(s) => COp::Load(*s),
        Op::Store(s) => COp::Store(*s),
        Op::Pop => COp::Pop,
        Op::Dup => COp::Dup,
        Op::ReadField(f) => COp::ReadField(*f),
        Op::WriteField(f) => COp::WriteField(*f),
        Op::Unary(u) => COp::Unary(*u),
        Op::Binary(b) => COp::Binary(*b),
        Op::Truth => COp::Truth,
        Op::ToInt => COp::ToInt,
        Op::Jump(t) => COp::Jump(*t),
        Op::JumpIfFalse(t) => COp::JumpIfFalse(*t),
        Op::Call(f, n) => COp::Call(*f, *n),
        Op::Builtin(b, n) => COp::Builtin(*b, *n),
        Op::Return => COp::Return,
        Op::ListFirst(l) => COp::ListFirst(*l),
        Op::ListNext(l) => COp::ListNext(*l),
        Op::ListLast(l) => COp::ListLast(*l),
        Op::ListPrev(l) => COp::ListPrev(*l),
        Op::Warn { .. } => COp::Warn,
        Op::ZeroStruct(s) => COp::ZeroStruct(*s),
        Op::Mark(m) => COp::Mark(*m),
    }
}

/// Operands `op` takes from the operand stack and values it leaves there.
fn arity(op: COp) -> (u32, u32) {
    match op {
        COp::Const(_) | COp::Load(_) => (0, 1),
        COp::Dup => (1, 2),
        COp::Store(_) | COp::Pop | COp::JumpIfFalse(_) => (1, 0),
        COp::Truth
        | COp::ToInt
        | COp::Unary(_)
        | COp::ReadField(_)
        | COp::ListFirst(_)
        | COp::ListLast(_)
        | COp::Warn => (1, 1),
        COp::Binary(_) | COp::ListNext(_) | COp::ListPrev(_) => (2, 1),
        COp::WriteField(_) => (2, 0),
        COp::Call(_, n) | COp::Builtin(_, n) => (n, 1),
        // a return with an empty stack returns void, as the interpreter's does
        COp::Jump(_) | COp::Return | COp::ZeroStruct(_) | COp::Mark(_) | COp::End => (0, 0),
        // fused only after verification
        COp::LoadRead(..)
        | COp::LoadWrite(..)
        | COp::Load2(..)
        | COp::PopLoad(_)
        | COp::StoreLoad(..)
        | COp::LoadBuiltin(..)
        | COp::LoadJumpIfFalse(..)
        | COp::JumpIfFalseLoad(..)
        | COp::LoadConst(..)
        | COp::ConstStore(..)
        | COp::JumpIfFalseConst(..)
        | COp::ReadLoad(..)
        | COp::WriteLoad(..)
        | COp::ReadJumpIfFalse(..)
        | COp::BuiltinPop(..)
        | COp::BuiltinStore(..) => unreachable!("verification sees unfused operations"),
    }
}

/// Every reachable instruction finds the operands it takes (one stack height per
/// instruction, whatever the path to it), jumps stay within the function and slots within
/// the frame. The greatest height any instruction leaves.
fn verify(prog: &Program, ops: &[COp], nslots: u32) -> Result<u32, String> {
    let mut height: Vec<Option<u32>> = vec![None; ops.len()];
    let mut max = 0;
    let mut work = vec![(0u32, 0u32)];
    while let Some((pc, h)) = work.pop() {
        let Some(seen) = height.get_mut(pc as usize) else {
            return Err(format!("instruction {pc} is past the end"));
        };
        match *seen {
            Some(x) if x == h => continue,
            Some(x) => {
                return Err(format!(
                    "instruction {pc} is reached at heights {x} and {h}"
                ))
            }
            None => *seen = Some(h),
        }
        let op = ops[pc as usize];
        let (takes, leaves) = arity(op);
        if h < takes {
            return Err(format!("instruction {pc} takes {takes} operands of {h}"));
        }
        match op {
            COp::Load(s) | COp::Store(s) | COp::ZeroStruct(s) if s >= nslots => {
                return Err(format!("instruction {pc}: slot {s} out of range"))
            }
            COp::Call(f, _) if f.0 as usize >= prog.funcs.len() => {
                return Err(format!("instruction {pc} calls a missing function"))
            }
            _ => {}
        }
        let next = h - takes + leaves;
        max = max.max(h).max(next);
        match op {
            COp::Return | COp::End => {}
            COp::Jump(t) => work.push((t, next)),
            COp::JumpIfFalse(t) => {
                work.push((t, next));
                work.push((pc + 1, next));
            }
            _ => work.push((pc + 1, next)),
        }
    }
    Ok(max)
}
