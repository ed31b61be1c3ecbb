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
use super::host::{FieldId, Host, HostError, Value};
use super::local::{as_int, binary};
use super::step::{Fault, FaultKind};
use super::thread::{MAX_CALL_DEPTH, MAX_LOCAL_RUN};
use crate::lang::ast::UnOp;
use crate::lang::program::{Field, FuncId, Op};
use crate::lang::{Program, SrcLoc};
use std::cell::RefCell;

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

/// Run `entry(args)` (already fitted to its parameters) on `host` as thread 0. `visible` is
/// called after each instruction that touched the world, with that instruction's location;
/// `true` stops the call. At most `max_visible` visible steps run.
pub(crate) fn run_call<H: Host + ?Sized>(
    code: &Code,
    prog: &Program,
    host: &mut H,
    entry: FuncId,
    args: &[Value],
    max_visible: usize,
    visible: &mut dyn FnMut(&mut H, SrcLoc) -> bool,
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

fn runtime(loc: SrcLoc, message: String) -> Ended {
    Ended::Failed(Fault {
        loc,
        kind: FaultKind::Runtime,
        message,
    })
}

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

    /// The field `slot` of layout `layout` of the instance `v` points to.
    fn local_field(
        &self,
        code: &Code,
        prog: &Program,
        v: Value,
        layout: u32,
        slot: u32,
    ) -> Result<usize, String> {
        let Value::Local(i) = v else {
            return Err("not a local struct".into());
        };
        let Some(&(l, start)) = self.inst.get(i as usize) else {
            return Err("use of a local struct after its function returned".into());
        };
        if l != layout {
            let name = prog.any_field_name(Field::Local { layout, slot });
            return Err(format!("local struct has no field `{name}`"));
        }
        if slot as usize >= code.zeros[l as usize].len() {
            return Err("local struct field out of range".into());
        }
        Ok((start + slot) as usize)
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
        visible: &mut dyn FnMut(&mut H, SrcLoc) -> bool,
    ) -> Ended {
        let mut local = 0u64;
        let mut steps = 0usize;
        let mut f = &code.funcs[cur.func as usize];
        loop {
            let (func, pc) = (cur.func, cur.pc);
            let op = f.ops[pc as usize];
            // whether the instruction touched the world
            let mut shared = false;
            match op {
                COp::Const(v) => {
                    self.vals.push(v);
                    cur.pc += 1;
                }
                COp::Load(s) => {
                    self.vals.push(self.vals[(cur.base + s) as usize]);
                    cur.pc += 1;
                }
                COp::Store(s) => {
                    let v = self.pop();
                    self.vals[(cur.base + s) as usize] = v;
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
                COp::Warn
                | COp::ZeroStruct(_)
                | COp::ReadField(_)
                | COp::WriteField(_)
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
            }
            if shared {
                local = 0;
                steps += 1;
                if visible(host, loc_at(prog, func, pc)) {
                    return Ended::Stopped;
                }
                if steps >= max_visible {
                    let next = (cur.pc < f.len).then(|| loc_at(prog, func, cur.pc));
                    return Ended::Limit(next);
                }
            } else {
                local += 1;
                if local >= MAX_LOCAL_RUN {
                    let m = format!(
                        "ran {MAX_LOCAL_RUN} instructions without touching the world (endless loop?)"
                    );
                    return runtime(loc_at(prog, func, pc), m);
                }
            }
        }
    }
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

/// The instructions that reach objects: kernel objects through the host, or the local
/// structs. Each advances to the next instruction when it succeeds (the caller moves the
/// program counter) and says whether it touched the world.
impl Machine {
    #[inline]
    fn object_op<H: Host + ?Sized>(
        &mut self,
        code: &Code,
        prog: &Program,
        host: &mut H,
        op: COp,
        at: At,
    ) -> Result<bool, Ended> {
        match op {
            COp::Warn => self.warn(prog, at).map(|()| false),
            COp::ZeroStruct(s) => self.zero_struct(code, prog, s, at).map(|()| false),
            COp::ReadField(fd) => self.read_field(code, prog, host, fd, at),
            COp::WriteField(fd) => self.write_field(code, prog, host, fd, at),
            COp::Builtin(id, argc) => {
                let n = self.vals.len();
                let argc = argc as usize;
                let v = host
                    .call(0, id, &self.vals[n - argc..])
                    .map_err(|e| host_err(at.loc(prog), e))?;
                self.vals.truncate(n - argc);
                self.vals.push(v);
                Ok(true)
            }
            COp::ListFirst(list) | COp::ListLast(list) => {
                self.list_end(prog, host, list, matches!(op, COp::ListLast(_)), at)
            }
            COp::ListNext(list) | COp::ListPrev(list) => {
                let (head, cur) = (self.second(), self.top());
                let v = if matches!(op, COp::ListPrev(_)) {
                    host.list_prev(0, head, list, cur)
                } else {
                    host.list_next(0, head, list, cur)
                }
                .map_err(|e| host_err(at.loc(prog), e))?;
                self.vals.pop();
                *self.vals.last_mut().expect("verified height") = v;
                Ok(true)
            }
            _ => unreachable!("run dispatches only object instructions here"),
        }
    }

    /// `VM_WARN_ON*(cond)`: an assertion fault when the condition on top holds.
    fn warn(&mut self, prog: &Program, at: At) -> Result<(), Ended> {
        if self.top().truthy() {
            let Op::Warn { macro_name, cond } = &prog.func(FuncId(at.func)).code[at.pc as usize].op
            else {
                unreachable!("a decoded Warn is a Warn")
            };
            return Err(Ended::Failed(Fault {
                loc: at.loc(prog),
                kind: FaultKind::Assertion {
                    macro_name: macro_name.clone(),
                    cond: cond.clone(),
                },
                message: format!("{macro_name}({cond}) triggered"),
            }));
        }
        *self.vals.last_mut().expect("verified height") = Value::Bool(false);
        Ok(())
    }

    fn zero_struct(&mut self, code: &Code, prog: &Program, s: u32, at: At) -> Result<(), Ended> {
        let inst = match self.vals[(at.base + s) as usize] {
            Value::Local(i) => self.inst.get(i as usize).copied(),
            _ => return Err(runtime(at.loc(prog), "not a local struct".into())),
        };
        let Some((layout, start)) = inst else {
            let m = "use of a local struct after its function returned";
            return Err(runtime(at.loc(prog), m.into()));
        };
        let z = &code.zeros[layout as usize];
        let start = start as usize;
        self.fields[start..start + z.len()].copy_from_slice(z);
        Ok(())
    }

    /// A read or write of `->field` through a pointer that is neither a kernel object nor a
    /// local struct of the field's layout.
    fn bad_pointer(prog: &Program, p: Value, fd: Field, verb: &str, at: At) -> Ended {
        let name = prog.any_field_name(fd);
        let m = match p {
            Value::Null => format!("NULL pointer dereference {verb} `->{name}`"),
            other => format!("{verb} `->{name}` of {other}, which is not a pointer"),
        };
        runtime(at.loc(prog), m)
    }

    fn read_field<H: Host + ?Sized>(
        &mut self,
        code: &Code,
        prog: &Program,
        host: &mut H,
        fd: Field,
        at: At,
    ) -> Result<bool, Ended> {
        let p = self.top();
        let (v, touched) = match (p, fd) {
            (Value::Obj(..), Field::Kernel(id)) => {
                let v = host
                    .read_field(0, p, id)
                    .map_err(|e| host_err(at.loc(prog), e))?;
                (v, true)
            }
            (Value::Local(_), Field::Local { layout, slot }) => {
                let i = self
                    .local_field(code, prog, p, layout, slot)
                    .map_err(|m| runtime(at.loc(prog), m))?;
                (self.fields[i], false)
            }
            _ => return Err(Self::bad_pointer(prog, p, fd, "reading", at)),
        };
        *self.vals.last_mut().expect("verified height") = v;
        Ok(touched)
    }

    fn write_field<H: Host + ?Sized>(
        &mut self,
        code: &Code,
        prog: &Program,
        host: &mut H,
        fd: Field,
        at: At,
    ) -> Result<bool, Ended> {
        let (p, v) = (self.second(), self.top());
        let touched = match (p, fd) {
            (Value::Obj(..), Field::Kernel(id)) => {
                host.write_field(0, p, id, v)
                    .map_err(|e| host_err(at.loc(prog), e))?;
                true
            }
            (Value::Local(_), Field::Local { layout, slot }) => {
                let i = self
                    .local_field(code, prog, p, layout, slot)
                    .map_err(|m| runtime(at.loc(prog), m))?;
                self.fields[i] = v;
                false
            }
            _ => return Err(Self::bad_pointer(prog, p, fd, "writing", at)),
        };
        let n = self.vals.len();
        self.vals.truncate(n - 2);
        Ok(touched)
    }

    /// `list_first` / `list_last` of the list head on top.
    fn list_end<H: Host + ?Sized>(
        &mut self,
        prog: &Program,
        host: &mut H,
        list: FieldId,
        last: bool,
        at: At,
    ) -> Result<bool, Ended> {
        let head = self.top();
        match head {
            Value::Obj(..) => {
                let v = if last {
                    host.list_last(0, head, list)
                } else {
                    host.list_first(0, head, list)
                }
                .map_err(|e| host_err(at.loc(prog), e))?;
                *self.vals.last_mut().expect("verified height") = v;
                Ok(true)
            }
            Value::Null => {
                let l = prog.field_name(list);
                let m = format!("NULL pointer dereference: list head `->{l}`");
                Err(runtime(at.loc(prog), m))
            }
            other => {
                let m = format!("list head {other} is not a kernel object");
                Err(runtime(at.loc(prog), m))
            }
        }
    }
}

/// The source location of instruction `pc` of function `func`.
#[inline]
fn loc_at(prog: &Program, func: u32, pc: u32) -> SrcLoc {
    prog.func(FuncId(func)).code[pc as usize].loc
}
