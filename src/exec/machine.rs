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
use super::host::{Host, Value};
use super::local::{as_int, binary};
use super::step::{Fault, FaultKind};
use super::thread::{MAX_CALL_DEPTH, MAX_LOCAL_RUN};
use crate::lang::ast::UnOp;
use crate::lang::program::{Field, FuncId};
use crate::lang::Program;
use std::cell::RefCell;

mod ended;
mod objects;

use ended::{endless, host_err, loc_at, runtime, At};
pub(crate) use ended::{Ended, Site};

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
    // the value vector keeps its length from call to call (what lies above the operand
    // stack's top is dead), so that frames seldom have to grow it
    if m.vals.len() < args.len() {
        m.vals.resize(args.len(), Value::Void);
    }
    m.vals[..args.len()].copy_from_slice(args);
    m.frames.clear();
    m.inst.clear();
    m.fields.clear();
    let (cur, sp) = m.push_frame(code, entry.0, args.len() as u32, args.len());
    let ended = m.run(code, prog, host, cur, sp, max_visible, visible);
    let _ = MACHINE.try_with(|k| {
        if let Ok(mut k) = k.try_borrow_mut() {
            *k = m;
        }
    });
    ended
}

impl Machine {
    /// A frame for `func` whose first `argc` locals are the `argc` values under `sp`; the
    /// value vector is made long enough for its locals and its deepest operand stack. The
    /// frame, and the operand stack's top (the end of its locals).
    fn push_frame(&mut self, code: &Code, func: u32, argc: u32, sp: usize) -> (Frame, usize) {
        let f = &code.funcs[func as usize];
        let base = sp - argc as usize;
        let nslots = f.slot_init.len();
        let need = base + nslots + f.max_stack as usize;
        if self.vals.len() < need {
            self.vals.resize(need, Value::Void);
        }
        // arguments past the slots are dropped: the operand stack starts over them
        if (argc as usize) < nslots {
            self.vals[base + argc as usize..base + nslots]
                .copy_from_slice(&f.slot_init[argc as usize..]);
        }
        let heap_base = self.inst.len() as u32;
        for &(slot, layout) in &f.struct_slots {
            self.vals[base + slot as usize] = Value::Local(self.inst.len() as u32);
            self.inst.push((layout, self.fields.len() as u32));
            self.fields.extend_from_slice(&code.zeros[layout as usize]);
        }
        let frame = Frame {
            func,
            pc: 0,
            base: base as u32,
            sbase: (base + nslots) as u32,
            heap_base,
        };
        (frame, base + nslots)
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

    /// The loop. The operand stack's top `sp` lives in a local: `vals` is only ever grown
    /// (by [`Machine::push_frame`]), and what lies above `sp` is dead.
    #[allow(clippy::too_many_arguments)]
    fn run<H: Host + ?Sized>(
        &mut self,
        code: &Code,
        prog: &Program,
        host: &mut H,
        mut cur: Frame,
        mut sp: usize,
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
                    if visible(
                        host,
                        Site {
                            func: $func,
                            pc: $pc,
                        },
                    ) {
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
        // Push `$v` on the operand stack.
        macro_rules! push {
            ($v:expr) => {{
                let v = $v;
                self.vals[sp] = v;
                sp += 1;
            }};
        }
        // Local `$s` of the current frame.
        macro_rules! slot {
            ($s:expr) => {
                self.vals[cur.base as usize + $s as usize]
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
                    push!(v);
                    cur.pc += 1;
                }
                COp::Load(s) => {
                    push!(slot!(s));
                    cur.pc += 1;
                }
                COp::Store(s) => {
                    sp -= 1;
                    slot!(s) = self.vals[sp];
                    cur.pc += 1;
                }
                COp::Pop => {
                    sp -= 1;
                    cur.pc += 1;
                }
                COp::Mark(m) => {
                    prog.marks.hit(m);
                    cur.pc += 1;
                }
                COp::Dup => {
                    push!(self.vals[sp - 1]);
                    cur.pc += 1;
                }
                COp::Truth => {
                    let v = self.vals[sp - 1];
                    self.vals[sp - 1] = Value::Bool(v.truthy());
                    cur.pc += 1;
                }
                COp::ToInt => {
                    let v = self.vals[sp - 1];
                    self.vals[sp - 1] = Value::Int(as_int(v));
                    cur.pc += 1;
                }
                COp::Unary(u) => {
                    let v = self.vals[sp - 1];
                    self.vals[sp - 1] = match u {
                        UnOp::Not => Value::Bool(!v.truthy()),
                        UnOp::Neg => Value::Int(as_int(v).wrapping_neg()),
                        UnOp::BitNot => Value::Int(!as_int(v)),
                    };
                    cur.pc += 1;
                }
                COp::Binary(b) => match binary(b, self.vals[sp - 2], self.vals[sp - 1]) {
                    Ok(v) => {
                        sp -= 1;
                        self.vals[sp - 1] = v;
                        cur.pc += 1;
                    }
                    Err(m) => return runtime(loc_at(prog, func, pc), m),
                },
                COp::Jump(t) => cur.pc = t,
                COp::JumpIfFalse(t) => {
                    sp -= 1;
                    cur.pc = if self.vals[sp].truthy() { pc + 1 } else { t };
                }
                COp::ReadField(fd) => {
                    let at = At {
                        func,
                        pc,
                        base: cur.base,
                    };
                    match self.read_field(code, prog, host, fd, at, sp) {
                        Ok(touched) => shared = touched,
                        Err(e) => return e,
                    }
                    cur.pc += 1;
                }
                COp::WriteField(fd) => {
                    let at = At {
                        func,
                        pc,
                        base: cur.base,
                    };
                    match self.write_field(code, prog, host, fd, at, sp) {
                        Ok(touched) => shared = touched,
                        Err(e) => return e,
                    }
                    sp -= 2;
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
                    match self.object_op(code, prog, host, op, at, sp) {
                        Ok(touched) => shared = touched,
                        Err(e) => return e,
                    }
                    match op {
                        COp::Builtin(_, argc) => sp = sp - argc as usize + 1,
                        COp::ListNext(_) | COp::ListPrev(_) => sp -= 1,
                        _ => {}
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
                    (cur, sp) = self.push_frame(code, callee.0, argc, sp);
                    f = &code.funcs[cur.func as usize];
                }
                COp::Return => {
                    let v = if sp > cur.sbase as usize {
                        self.vals[sp - 1]
                    } else {
                        Value::Void
                    };
                    let heap_base = cur.heap_base as usize;
                    if let Some(&(_, start)) = self.inst.get(heap_base) {
                        self.fields.truncate(start as usize);
                        self.inst.truncate(heap_base);
                    }
                    let Some(caller) = self.frames.pop() else {
                        return Ended::Finished;
                    };
                    // the result replaces the arguments, where the callee's locals began
                    sp = cur.base as usize;
                    cur = caller;
                    f = &code.funcs[cur.func as usize];
                    push!(v);
                    cur.pc += 1;
                }
                COp::End => {
                    let m = "ran past the end of a function".to_string();
                    return runtime(f.loc, m);
                }
                // fused pairs: the first instruction (always a local one that falls through),
                // its count, then the second as above at the next index
                COp::LoadRead(s, fd) | COp::LoadWrite(s, fd) => {
                    push!(slot!(s));
                    local_step!(func, pc);
                    pc += 1;
                    let at = At {
                        func,
                        pc,
                        base: cur.base,
                    };
                    let r = if matches!(op, COp::LoadRead(..)) {
                        self.read_field(code, prog, host, fd, at, sp)
                    } else {
                        let r = self.write_field(code, prog, host, fd, at, sp);
                        sp -= 2;
                        r
                    };
                    match r {
                        Ok(touched) => shared = touched,
                        Err(e) => return e,
                    }
                    cur.pc = pc + 1;
                }
                COp::LoadBuiltin(s, id, argc) => {
                    push!(slot!(s));
                    local_step!(func, pc);
                    pc += 1;
                    let at = At {
                        func,
                        pc,
                        base: cur.base,
                    };
                    if let Err(e) = self.builtin(prog, host, id, argc, at, sp) {
                        return e;
                    }
                    sp = sp - argc as usize + 1;
                    shared = true;
                    cur.pc = pc + 1;
                }
                COp::Load2(a, b) => {
                    push!(slot!(a));
                    local_step!(func, pc);
                    pc += 1;
                    push!(slot!(b));
                    cur.pc = pc + 1;
                }
                COp::PopLoad(s) => {
                    sp -= 1;
                    local_step!(func, pc);
                    pc += 1;
                    push!(slot!(s));
                    cur.pc = pc + 1;
                }
                COp::StoreLoad(a, b) => {
                    sp -= 1;
                    slot!(a) = self.vals[sp];
                    local_step!(func, pc);
                    pc += 1;
                    push!(slot!(b));
                    cur.pc = pc + 1;
                }
                COp::LoadJumpIfFalse(s, t) => {
                    let v = slot!(s);
                    local_step!(func, pc);
                    pc += 1;
                    cur.pc = if v.truthy() { pc + 1 } else { t };
                }
                COp::LoadConst(s, v) => {
                    push!(slot!(s));
                    local_step!(func, pc);
                    pc += 1;
                    push!(v);
                    cur.pc = pc + 1;
                }
                COp::ConstStore(v, s) => {
                    local_step!(func, pc);
                    pc += 1;
                    slot!(s) = v;
                    cur.pc = pc + 1;
                }
                COp::JumpIfFalseConst(t, v) => {
                    sp -= 1;
                    if self.vals[sp].truthy() {
                        local_step!(func, pc);
                        pc += 1;
                        push!(v);
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
                        let r = self.write_field(code, prog, host, fd, at, sp);
                        sp -= 2;
                        r
                    } else {
                        self.read_field(code, prog, host, fd, at, sp)
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
                            sp -= 1;
                            if !self.vals[sp].truthy() {
                                cur.pc = t;
                            } else {
                                cur.pc = pc + 1;
                            }
                        }
                        COp::ReadLoad(_, s) | COp::WriteLoad(_, s) => {
                            push!(slot!(s));
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
                    if let Err(e) = self.builtin(prog, host, id, argc, at, sp) {
                        return e;
                    }
                    sp = sp - argc as usize + 1;
                    cur.pc = pc + 1;
                    after!(true, func, pc);
                    pc += 1;
                    sp -= 1;
                    if let COp::BuiltinStore(_, _, s) = op {
                        slot!(s) = self.vals[sp];
                    }
                    cur.pc = pc + 1;
                }
                COp::JumpIfFalseLoad(t, s) => {
                    sp -= 1;
                    if self.vals[sp].truthy() {
                        local_step!(func, pc);
                        pc += 1;
                        push!(slot!(s));
                        cur.pc = pc + 1;
                    } else {
                        cur.pc = t;
                    }
                }
            }
            after!(shared, func, pc);
        }
    }
}
