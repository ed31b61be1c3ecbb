//! The compiled engine: runs one call of a decoded model ([`Code`]) to its end in one loop,
//! with every frame's locals and operand stack in one value vector and the local struct
//! instances in another, and no step value per instruction. After each instruction that
//! touched the world it hands the world to a callback (the checks after a visible step), which
//! may stop the call.
//!
//! It computes exactly what the reference interpreter (`Thread::step_visible` step after
//! step) computes: the same host calls in the same order with the same arguments, the same
//! local struct numbering, the same faults with the same texts and locations, the same
//! bounds (instructions without touching the world per visible step, visible steps per call).
//! `tests/model/engine_diff.rs` runs both on the fuzz corpora, explored states and every
//! mutant and requires the same worlds and failures.

use super::compiled::{COp, Code};
use super::host::{Host, HostError, Value};
use super::local::{as_int, binary};
use super::step::{Fault, FaultKind};
use super::thread::{MAX_CALL_DEPTH, MAX_LOCAL_RUN};
use crate::lang::ast::UnOp;
use crate::lang::program::{Field, FuncId};
use crate::lang::{Program, SrcLoc};
use std::cell::RefCell;

mod objects;

/// Operand stack room reserved when a frame starts.
const STACK_ROOM: usize = 16;

/// How a compiled call ended.
#[derive(Debug)]
pub(crate) enum Ended {
    /// The entry function returned.
    Finished,
    /// The call faulted.
    Failed(Fault),
    /// The world refused a step that only this call could unblock; at this instruction.
    Blocked(SrcLoc),
    /// The callback stopped the call after the visible step at this location.
    Stopped,
    /// `max_visible` visible steps ran; the next instruction's location (none past the end).
    Limit(Option<SrcLoc>),
}

/// A frame: its function, its next instruction, where its locals and its operand stack start
/// in the value vector, and how many struct instances lay below it.
#[derive(Clone, Copy, Debug)]
struct Frame {
    func: u32,
    pc: u32,
    base: u32,
    sbase: u32,
    heap_base: u32,
}

/// The vectors of a running call, kept per OS thread for the next call.
#[derive(Default)]
struct Machine {
    vals: Vec<Value>,
    frames: Vec<Frame>,
    /// (layout, index of the first field in `fields`) of each local struct instance.
    inst: Vec<(u32, u32)>,
    fields: Vec<Value>,
}

thread_local! {
    static MACHINE: RefCell<Machine> = RefCell::new(Machine::default());
}

/// An instruction of a compiled call: its function and index. Its source location is looked
/// up only when asked for (a visible step is reported far more often than one fails).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Site {
    func: u32,
    pc: u32,
}

impl Site {
    /// The instruction's source location.
    pub(crate) fn loc(self, prog: &Program) -> SrcLoc {
        loc_at(prog, self.func, self.pc)
    }
}

/// Run `entry(args)` (already fitted to its parameters) on `host` as thread 0. `visible` is
/// called after each instruction that touched the world, with that instruction's site;
/// `true` stops the call. At most `max_visible` visible steps run.
pub(crate) fn run_call<H: Host + ?Sized>(
    code: &Code,
    prog: &Program,
    host: &mut H,
    entry: FuncId,
    args: &[Value],
    max_visible: usize,
    visible: &mut impl FnMut(&mut H, Site) -> bool,
) -> Ended {
    let mut m = MACHINE
        .try_with(|m| m.try_borrow_mut().map(|mut m| std::mem::take(&mut *m)).ok())
        .ok()
        .flatten()
        .unwrap_or_default();
    m.vals.clear();
    m.frames.clear();
    m.inst.clear();
    m.fields.clear();
    m.vals.extend_from_slice(args);
    let cur = m.push_frame(code, entry.0, args.len() as u32);
    let ended = m.run(code, prog, host, cur, max_visible, visible);
    let _ = MACHINE.try_with(|k| {
        if let Ok(mut k) = k.try_borrow_mut() {
            *k = m;
        }
    });
    ended
}

#[cold]
fn runtime(loc: SrcLoc, message: String) -> Ended {
    Ended::Failed(Fault {
        loc,
        kind: FaultKind::Runtime,
        message,
    })
}

#[cold]
fn host_err(loc: SrcLoc, e: HostError) -> Ended {
    match e {
        HostError::Blocked => Ended::Blocked(loc),
        HostError::Fault(message) => Ended::Failed(Fault {
            loc,
            kind: FaultKind::Host,
            message,
        }),
    }
}

impl Machine {
    /// A frame for `func` whose first `argc` locals are the values on top of `vals`.
    fn push_frame(&mut self, code: &Code, func: u32, argc: u32) -> Frame {
        let f = &code.funcs[func as usize];
        let base = self.vals.len() as u32 - argc;
        let nslots = f.slot_init.len() as u32;
        if argc > nslots {
            self.vals.truncate((base + nslots) as usize);
        } else {
            self.vals.extend_from_slice(&f.slot_init[argc as usize..]);
        }
        // room for the operand stack of most functions, so that pushes do not grow the vector
        self.vals.reserve(STACK_ROOM);
        let heap_base = self.inst.len() as u32;
        for &(slot, layout) in &f.struct_slots {
            self.vals[(base + slot) as usize] = Value::Local(self.inst.len() as u32);
            self.inst.push((layout, self.fields.len() as u32));
            self.fields.extend_from_slice(&code.zeros[layout as usize]);
        }
        Frame {
            func,
            pc: 0,
            base,
            sbase: base + nslots,
            heap_base,
        }
    }

    /// The field `slot` of layout `layout` of the instance `v` points to, or the message of
    /// the fault of reaching it.
    #[inline(always)]
    fn local_field(
        &self,
        code: &Code,
        prog: &Program,
        v: Value,
        layout: u32,
        slot: u32,
    ) -> Result<usize, String> {
        if let Value::Local(i) = v {
            if let Some(&(l, start)) = self.inst.get(i as usize) {
                if l == layout && (slot as usize) < code.zeros[l as usize].len() {
                    return Ok((start + slot) as usize);
                }
            }
        }
        Err(self.bad_local_field(code, prog, v, layout, slot))
    }

    /// Why [`Machine::local_field`] cannot reach field `slot` of layout `layout` through `v`.
    #[cold]
    #[inline(never)]
    fn bad_local_field(
        &self,
        code: &Code,
        prog: &Program,
        v: Value,
        layout: u32,
        slot: u32,
    ) -> String {
        let Value::Local(i) = v else {
            return "not a local struct".into();
        };
        let Some(&(l, _)) = self.inst.get(i as usize) else {
            return "use of a local struct after its function returned".into();
        };
        if l != layout {
            let name = prog.any_field_name(Field::Local { layout, slot });
            return format!("local struct has no field `{name}`");
        }
        debug_assert!(slot as usize >= code.zeros[l as usize].len());
        "local struct field out of range".into()
    }

    fn pop(&mut self) -> Value {
        self.vals.pop().unwrap_or(Value::Void)
    }

    fn top(&self) -> Value {
        self.vals.last().copied().unwrap_or(Value::Void)
    }

    /// The value under the top.
    fn second(&self) -> Value {
        let n = self.vals.len();
        if n >= 2 {
            self.vals[n - 2]
        } else {
            Value::Void
        }
    }

    fn run<H: Host + ?Sized>(
        &mut self,
        code: &Code,
        prog: &Program,
        host: &mut H,
        mut cur: Frame,
        max_visible: usize,
        visible: &mut impl FnMut(&mut H, Site) -> bool,
    ) -> Ended {
        let mut local = 0u64;
        let mut steps = 0usize;
        let mut f = &code.funcs[cur.func as usize];
        // One more instruction that did not touch the world ran: instruction `$pc` of `$func`.
        macro_rules! local_step {
            ($func:expr, $pc:expr) => {
                local += 1;
                if local >= MAX_LOCAL_RUN {
                    return endless(loc_at(prog, $func, $pc));
                }
            };
        }
        // The bookkeeping after instruction `$pc` of `$func`, which touched the world or not:
        // the callback after a visible step and the bounds. `cur.pc` is the next instruction.
        macro_rules! after {
            ($touched:expr, $func:expr, $pc:expr) => {
                if $touched {
                    local = 0;
                    steps += 1;
                    if visible(host, Site { func: $func, pc: $pc }) {
                        return Ended::Stopped;
                    }
                    if steps >= max_visible {
                        let next = (cur.pc < f.len).then(|| loc_at(prog, $func, cur.pc));
                        return Ended::Limit(next);
                    }
                } else {
                    local_step!($func, $pc);
                }
            };
        }
        loop {
            let func = cur.func;
            // the instruction that runs last: the second of a fused pair once its first ran
            let mut pc = cur.pc;
            let op = f.ops[pc as usize];
            // whether the instruction touched the world
            let mut shared = false;
            match op {
                COp::Const(v) => {
                    self.vals.push(v);
                    cur.pc += 1;
                }
                COp::Load(s) => {
                    self.load(cur.base, s);
                    cur.pc += 1;
                }
                COp::Store(s) => {
                    self.store(cur.base, s);
                    cur.pc += 1;
                }
                COp::Pop => {
                    self.vals.pop();
                    cur.pc += 1;
                }
                COp::Dup => {
                    self.vals.push(self.top());
                    cur.pc += 1;
                }
                COp::Truth => {
                    let v = self.pop();
                    self.vals.push(Value::Bool(v.truthy()));
                    cur.pc += 1;
                }
                COp::ToInt => {
                    let v = self.pop();
                    self.vals.push(Value::Int(as_int(v)));
                    cur.pc += 1;
                }
                COp::Unary(u) => {
                    let v = self.pop();
                    self.vals.push(match u {
                        UnOp::Not => Value::Bool(!v.truthy()),
                        UnOp::Neg => Value::Int(as_int(v).wrapping_neg()),
                        UnOp::BitNot => Value::Int(!as_int(v)),
                    });
                    cur.pc += 1;
                }
                COp::Binary(b) => match binary(b, self.second(), self.top()) {
                    Ok(v) => {
                        self.vals.pop();
                        *self.vals.last_mut().expect("verified height") = v;
                        cur.pc += 1;
                    }
                    Err(m) => return runtime(loc_at(prog, func, pc), m),
                },
                COp::Jump(t) => cur.pc = t,
                COp::JumpIfFalse(t) => {
                    cur.pc = if self.pop().truthy() { pc + 1 } else { t };
                }
                COp::ReadField(fd) | COp::WriteField(fd) => {
                    let at = At {
                        func,
                        pc,
                        base: cur.base,
                    };
                    let r = if matches!(op, COp::ReadField(_)) {
                        self.read_field(code, prog, host, fd, at)
                    } else {
                        self.write_field(code, prog, host, fd, at)
                    };
                    match r {
                        Ok(touched) => shared = touched,
                        Err(e) => return e,
                    }
                    cur.pc += 1;
                }
                COp::Warn
                | COp::ZeroStruct(_)
                | COp::Builtin(..)
                | COp::ListFirst(_)
                | COp::ListLast(_)
                | COp::ListNext(_)
                | COp::ListPrev(_) => {
                    let at = At {
                        func,
                        pc,
                        base: cur.base,
                    };
                    match self.object_op(code, prog, host, op, at) {
                        Ok(touched) => shared = touched,
                        Err(e) => return e,
                    }
                    cur.pc += 1;
                }
                COp::Call(callee, argc) => {
                    if self.frames.len() + 1 >= MAX_CALL_DEPTH {
                        return Ended::Failed(Fault {
                            loc: loc_at(prog, func, pc),
                            kind: FaultKind::StackOverflow,
                            message: format!("calls nested deeper than {MAX_CALL_DEPTH}"),
                        });
                    }
                    self.frames.push(cur);
                    cur = self.push_frame(code, callee.0, argc);
                    f = &code.funcs[cur.func as usize];
                }
                COp::Return => {
                    let v = if self.vals.len() as u32 > cur.sbase {
                        self.pop()
                    } else {
                        Value::Void
                    };
                    self.vals.truncate(cur.base as usize);
                    let heap_base = cur.heap_base as usize;
                    if let Some(&(_, start)) = self.inst.get(heap_base) {
                        self.fields.truncate(start as usize);
                        self.inst.truncate(heap_base);
                    }
                    let Some(caller) = self.frames.pop() else {
                        return Ended::Finished;
                    };
                    cur = caller;
                    f = &code.funcs[cur.func as usize];
                    self.vals.push(v);
                    cur.pc += 1;
                }
                COp::End => {
                    let m = "ran past the end of a function".to_string();
                    return runtime(f.loc, m);
                }
                // fused pairs: the first instruction (always a local one that falls through),
                // its count, then the second as above at the next index
                COp::LoadRead(s, fd) | COp::LoadWrite(s, fd) => {
                    self.load(cur.base, s);
                    local_step!(func, pc);
                    pc += 1;
                    let at = At {
                        func,
                        pc,
                        base: cur.base,
                    };
                    let r = if matches!(op, COp::LoadRead(..)) {
                        self.read_field(code, prog, host, fd, at)
                    } else {
                        self.write_field(code, prog, host, fd, at)
                    };
                    match r {
                        Ok(touched) => shared = touched,
                        Err(e) => return e,
                    }
                    cur.pc = pc + 1;
                }
                COp::LoadBuiltin(s, id, argc) => {
                    self.load(cur.base, s);
                    local_step!(func, pc);
                    pc += 1;
                    let at = At {
                        func,
                        pc,
                        base: cur.base,
                    };
                    if let Err(e) = self.builtin(prog, host, id, argc, at) {
                        return e;
                    }
                    shared = true;
                    cur.pc = pc + 1;
                }
                COp::Load2(a, b) => {
                    self.load(cur.base, a);
                    local_step!(func, pc);
                    pc += 1;
                    self.load(cur.base, b);
                    cur.pc = pc + 1;
                }
                COp::PopLoad(s) => {
                    self.vals.pop();
                    local_step!(func, pc);
                    pc += 1;
                    self.load(cur.base, s);
                    cur.pc = pc + 1;
                }
                COp::StoreLoad(a, b) => {
                    self.store(cur.base, a);
                    local_step!(func, pc);
                    pc += 1;
                    self.load(cur.base, b);
                    cur.pc = pc + 1;
                }
                COp::LoadJumpIfFalse(s, t) => {
                    let v = self.vals[(cur.base + s) as usize];
                    local_step!(func, pc);
                    pc += 1;
                    cur.pc = if v.truthy() { pc + 1 } else { t };
                }
                COp::LoadConst(s, v) => {
                    self.load(cur.base, s);
                    local_step!(func, pc);
                    pc += 1;
                    self.vals.push(v);
                    cur.pc = pc + 1;
                }
                COp::ConstStore(v, s) => {
                    local_step!(func, pc);
                    pc += 1;
                    self.vals[(cur.base + s) as usize] = v;
                    cur.pc = pc + 1;
                }
                COp::JumpIfFalseConst(t, v) => {
                    if self.pop().truthy() {
                        local_step!(func, pc);
                        pc += 1;
                        self.vals.push(v);
                        cur.pc = pc + 1;
                    } else {
                        cur.pc = t;
                    }
                }
                // fused pairs whose first instruction may touch the world: its bookkeeping
                // (with the program counter on the second), then the second, a local one
                COp::ReadLoad(fd, _) | COp::WriteLoad(fd, _) | COp::ReadJumpIfFalse(fd, _) => {
                    let at = At {
                        func,
                        pc,
                        base: cur.base,
                    };
                    let r = if matches!(op, COp::WriteLoad(..)) {
                        self.write_field(code, prog, host, fd, at)
                    } else {
                        self.read_field(code, prog, host, fd, at)
                    };
                    let touched = match r {
                        Ok(touched) => touched,
                        Err(e) => return e,
                    };
                    cur.pc = pc + 1;
                    after!(touched, func, pc);
                    pc += 1;
                    match op {
                        COp::ReadJumpIfFalse(_, t) => {
                            if !self.pop().truthy() {
                                cur.pc = t;
                            } else {
                                cur.pc = pc + 1;
                            }
                        }
                        COp::ReadLoad(_, s) | COp::WriteLoad(_, s) => {
                            self.load(cur.base, s);
                            cur.pc = pc + 1;
                        }
                        _ => unreachable!("matched above"),
                    }
                }
                COp::BuiltinPop(id, argc) | COp::BuiltinStore(id, argc, _) => {
                    let at = At {
                        func,
                        pc,
                        base: cur.base,
                    };
                    if let Err(e) = self.builtin(prog, host, id, argc, at) {
                        return e;
                    }
                    cur.pc = pc + 1;
                    after!(true, func, pc);
                    pc += 1;
                    if let COp::BuiltinStore(_, _, s) = op {
                        self.store(cur.base, s);
                    } else {
                        self.vals.pop();
                    }
                    cur.pc = pc + 1;
                }
                COp::JumpIfFalseLoad(t, s) => {
                    if self.pop().truthy() {
                        local_step!(func, pc);
                        pc += 1;
                        self.load(cur.base, s);
                        cur.pc = pc + 1;
                    } else {
                        cur.pc = t;
                    }
                }
            }
            after!(shared, func, pc);
        }
    }

    /// Push local `s` of the frame whose locals start at `base`.
    #[inline(always)]
    fn load(&mut self, base: u32, s: u32) {
        let v = self.vals[(base + s) as usize];
        self.vals.push(v);
    }

    /// Pop the top into local `s` of the frame whose locals start at `base`.
    #[inline(always)]
    fn store(&mut self, base: u32, s: u32) {
        let v = self.pop();
        self.vals[(base + s) as usize] = v;
    }
}

/// The fault of a run of instructions none of which touched the world, at `loc`.
#[cold]
fn endless(loc: SrcLoc) -> Ended {
    let m = format!("ran {MAX_LOCAL_RUN} instructions without touching the world (endless loop?)");
    runtime(loc, m)
}

/// Where an instruction runs: its function, its index, and its frame's first local.
#[derive(Clone, Copy)]
struct At {
    func: u32,
    pc: u32,
    base: u32,
}

impl At {
    fn loc(self, prog: &Program) -> SrcLoc {
        loc_at(prog, self.func, self.pc)
    }
}

/// The source location of instruction `pc` of function `func`.
#[inline]
fn loc_at(prog: &Program, func: u32, pc: u32) -> SrcLoc {
    prog.func(FuncId(func)).code[pc as usize].loc
}
