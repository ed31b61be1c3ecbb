//! A resumable model thread: its call stack (function, program counter, locals, operand stack)
//! and its heap of local struct instances. Threads are plain data, so the explorer can clone,
//! compare and hash them between steps.

use super::frame::Frame;
use super::host::{Host, HostError, ThreadId, Value};
use super::local::{binary, run_local};
use super::spare::{recycle, spare_values};
use super::step::{Event, Fault, FaultKind, Step};
use crate::lang::check::zero;
use crate::lang::program::{Field, FuncId, Op};
use crate::lang::types::Type;
use crate::lang::{Program, SrcLoc};

mod copy;
mod position;

/// Deepest call nesting before a [`FaultKind::StackOverflow`].
pub const MAX_CALL_DEPTH: usize = 64;

/// Operand stack capacity a frame starts with.
const STACK_ROOM: usize = 8;

/// Frame stack capacity a thread starts with.
const FRAMES_ROOM: usize = 8;

/// Most local-only instructions `step_visible` runs before deciding the model loops forever.
pub(crate) const MAX_LOCAL_RUN: u64 = 1_000_000;

/// A struct value owned by the thread (`struct vma_prepare vp;`).
#[derive(Debug, PartialEq, Eq, Hash)]
struct Instance {
    layout: u32,
    fields: Vec<Value>,
}

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
enum Outcome {
    Finished(Value),
    Failed(Fault),
}

/// One model thread (`Clone` in [`copy`]).
#[derive(Debug, PartialEq, Eq, Hash)]
pub struct Thread {
    frames: Vec<Frame>,
    heap: Vec<Instance>,
    outcome: Option<Outcome>,
    /// Whether steps describe themselves in `Event::what` (traces); off in the explorer's
    /// inner loop, where the text would only be thrown away.
    describe: bool,
}

/// What executing one instruction did (before it is turned into a [`Step`]).
enum Exec {
    Ran(bool, String),
    Blocked,
    Done(Value),
    Fault(FaultKind, String),
}

fn host_err(e: HostError) -> Exec {
    match e {
        HostError::Blocked => Exec::Blocked,
        HostError::Fault(m) => Exec::Fault(FaultKind::Host, m),
    }
}

fn runtime(msg: impl Into<String>) -> Exec {
    Exec::Fault(FaultKind::Runtime, msg.into())
}

/// Whether `v` may be passed where `t` is expected, converted to the slot's representation.
fn fit(t: &Type, v: Value) -> Option<Value> {
    match (t, v) {
        (Type::Int, Value::Int(_)) | (Type::Bool, Value::Bool(_)) => Some(v),
        (Type::Int, Value::Bool(b)) => Some(Value::Int(b as i64)),
        (Type::Bool, Value::Int(i)) => Some(Value::Bool(i != 0)),
        (Type::Ptr(_), Value::Null) => Some(v),
        (Type::Ptr(tag), Value::Obj(k, _)) if k.struct_tag() == tag => Some(v),
        _ => None,
    }
}

/// The function `entry` names and `args` fitted to its parameters, or why the call cannot
/// start (both engines start a call this way).
pub(crate) fn entry_args(
    prog: &Program,
    entry: &str,
    args: &[Value],
) -> Result<(FuncId, Vec<Value>), String> {
    let id = prog
        .function(entry)
        .ok_or_else(|| format!("the model has no function `{entry}`"))?;
    let sig = prog.func_sig(id);
    if sig.params.len() != args.len() {
        return Err(format!(
            "`{entry}` takes {} arguments but {} were given",
            sig.params.len(),
            args.len()
        ));
    }
    let mut fitted = Vec::with_capacity(args.len());
    for (i, ((pname, t), v)) in sig.params.iter().zip(args).enumerate() {
        match fit(t, *v) {
            Some(v) => fitted.push(v),
            None => {
                return Err(format!(
                    "argument {} (`{pname}`) of `{entry}` cannot be {v}",
                    i + 1
                ))
            }
        }
    }
    Ok((id, fitted))
}

impl Thread {
    /// A thread about to run `entry(args)`. Checks that the function exists and that the
    /// arguments fit its parameters.
    pub fn start(prog: &Program, entry: &str, args: &[Value]) -> Result<Thread, String> {
        let (id, fitted) = entry_args(prog, entry, args)?;
        let mut t = Thread {
            // room for the nesting of most calls, so that the stack does not grow frame by frame
            frames: Vec::with_capacity(FRAMES_ROOM),
            heap: Vec::new(),
            outcome: None,
            describe: true,
        };
        t.push_frame(prog, id, &fitted);
        Ok(t)
    }

    fn push_frame(&mut self, prog: &Program, id: FuncId, args: &[Value]) {
        let f = prog.func(id);
        let mut locals = spare_values();
        locals.extend_from_slice(&f.slot_init);
        for (slot, v) in locals.iter_mut().zip(args) {
            *slot = *v;
        }
        let heap_base = self.heap.len() as u32;
        for &(slot, layout) in &f.struct_slots {
            let mut fields = spare_values();
            fields.extend(
                prog.structs()[layout as usize]
                    .fields
                    .iter()
                    .map(|(_, t)| zero(t)),
            );
            locals[slot as usize] = Value::Local(self.heap.len() as u32);
            self.heap.push(Instance { layout, fields });
        }
        // room for the operand stack of most functions, so that it does not grow step by step
        let mut stack = spare_values();
        stack.reserve(STACK_ROOM);
        self.frames.push(Frame {
            func: id,
            pc: 0,
            locals,
            stack,
            heap_base,
        });
    }

    /// Whether the thread's entry function has returned.
    pub fn is_finished(&self) -> bool {
        matches!(self.outcome, Some(Outcome::Finished(_)))
    }

    /// The value the entry function returned, once finished.
    pub fn result(&self) -> Option<Value> {
        match &self.outcome {
            Some(Outcome::Finished(v)) => Some(*v),
            _ => None,
        }
    }

    /// Whether the thread stopped with a fault.
    pub(crate) fn is_failed(&self) -> bool {
        matches!(self.outcome, Some(Outcome::Failed(_)))
    }

    /// Turn step descriptions (`Event::what`) on or off; on by default.
    pub(crate) fn set_describe(&mut self, on: bool) {
        self.describe = on;
    }

    /// Whether steps describe themselves ([`Thread::set_describe`]).
    pub(crate) fn describes(&self) -> bool {
        self.describe
    }

    /// Runs local instructions until one that touches the world has run (included), or the
    /// thread blocks, finishes or fails. One call is one atomic step of the world.
    pub fn step_visible<H: Host + ?Sized>(
        &mut self,
        prog: &Program,
        host: &mut H,
        tid: ThreadId,
    ) -> Step {
        let mut local = 0u64;
        loop {
            // purely local instructions back to back, without a step each; the one that
            // reaches the bound goes through `step`, which reports it
            if self.outcome.is_none() {
                if let Some(fr) = self.frames.last_mut() {
                    let code = &prog.func(fr.func).code;
                    while local + 1 < MAX_LOCAL_RUN {
                        match code.get(fr.pc as usize) {
                            Some(i) if run_local(fr, &i.op) => local += 1,
                            _ => break,
                        }
                    }
                }
            }
            match self.step(prog, host, tid) {
                Step::Ran(ev) if !ev.shared => {
                    local += 1;
                    if local >= MAX_LOCAL_RUN {
                        let loc = ev.loc;
                        return self.fail(
                            loc,
                            FaultKind::Runtime,
                            format!(
                                "ran {MAX_LOCAL_RUN} instructions without touching the world (endless loop?)"
                            ),
                        );
                    }
                }
                other => return other,
            }
        }
    }

    fn fail(&mut self, loc: SrcLoc, kind: FaultKind, message: String) -> Step {
        let f = Fault { loc, kind, message };
        self.outcome = Some(Outcome::Failed(f.clone()));
        Step::Failed(f)
    }

    /// Executes exactly one instruction.
    pub fn step<H: Host + ?Sized>(&mut self, prog: &Program, host: &mut H, tid: ThreadId) -> Step {
        match &self.outcome {
            Some(Outcome::Finished(v)) => return Step::Finished(*v),
            Some(Outcome::Failed(f)) => return Step::Failed(f.clone()),
            None => {}
        }
        let Some(fr) = self.frames.last() else {
            return Step::Finished(Value::Void);
        };
        let Some(instr) = prog.func(fr.func).code.get(fr.pc as usize) else {
            let loc = prog.func(fr.func).loc;
            return self.fail(
                loc,
                FaultKind::Runtime,
                "ran past the end of a function".into(),
            );
        };
        let loc = instr.loc;
        match self.exec(prog, host, tid, &instr.op) {
            Exec::Ran(shared, what) => Step::Ran(Event { loc, shared, what }),
            Exec::Blocked => Step::Blocked,
            Exec::Done(v) => {
                self.outcome = Some(Outcome::Finished(v));
                Step::Finished(v)
            }
            Exec::Fault(kind, message) => self.fail(loc, kind, message),
        }
    }

    fn instance(&mut self, v: Value) -> Result<&mut Instance, Exec> {
        match v {
            Value::Local(i) => self
                .heap
                .get_mut(i as usize)
                .ok_or_else(|| runtime("use of a local struct after its function returned")),
            _ => Err(runtime("not a local struct")),
        }
    }

    /// Field `slot` of the local struct instance `v` points to, which must have layout `layout`.
    fn local_field(
        &mut self,
        prog: &Program,
        v: Value,
        layout: u32,
        slot: u32,
    ) -> Result<&mut Value, Exec> {
        let inst = self.instance(v)?;
        if inst.layout != layout {
            let name = prog.any_field_name(Field::Local { layout, slot });
            return Err(runtime(format!("local struct has no field `{name}`")));
        }
        inst.fields
            .get_mut(slot as usize)
            .ok_or_else(|| runtime("local struct field out of range"))
    }

    fn exec<H: Host + ?Sized>(
        &mut self,
        prog: &Program,
        host: &mut H,
        tid: ThreadId,
        op: &Op,
    ) -> Exec {
        let describe = self.describe;
        // the text of a step, built only when steps are described
        macro_rules! what {
            ($($arg:tt)*) => {
                if describe {
                    format!($($arg)*)
                } else {
                    String::new()
                }
            };
        }
        let depth = self.frames.len();
        let fr = self
            .frames
            .last_mut()
            .expect("a running thread has a frame");
        let n = fr.stack.len();
        let top = fr.stack.last().copied().unwrap_or(Value::Void);
        let second = if n >= 2 { fr.stack[n - 2] } else { Value::Void };
        let local = || Exec::Ran(false, String::new());
        if run_local(fr, op) {
            return local();
        }
        match op {
            Op::Const(_)
            | Op::Load(_)
            | Op::Store(_)
            | Op::Pop
            | Op::Dup
            | Op::Truth
            | Op::ToInt
            | Op::Unary(_)
            | Op::Jump(_)
            | Op::JumpIfFalse(_) => unreachable!("run_local runs every purely local instruction"),
            // what run_local leaves of the purely local instructions: a failing operator
            Op::Binary(b) => match binary(*b, second, top) {
                Ok(_) => unreachable!("run_local runs every binary operator that succeeds"),
                Err(m) => runtime(m),
            },
            Op::Warn { macro_name, cond } => {
                if top.truthy() {
                    return Exec::Fault(
                        FaultKind::Assertion {
                            macro_name: macro_name.clone(),
                            cond: cond.clone(),
                        },
                        format!("{macro_name}({cond}) triggered"),
                    );
                }
                fr.stack.pop();
                fr.stack.push(Value::Bool(false));
                fr.pc += 1;
                local()
            }
            Op::ReadField(f) => match (top, *f) {
                (Value::Obj(..), Field::Kernel(id)) => match host.read_field(tid, top, id) {
                    Ok(v) => {
                        fr.stack.pop();
                        fr.stack.push(v);
                        fr.pc += 1;
                        Exec::Ran(true, what!("read {top}->{} = {v}", prog.field_name(id)))
                    }
                    Err(e) => host_err(e),
                },
                (Value::Local(_), Field::Local { layout, slot }) => {
                    let v = match self.local_field(prog, top, layout, slot) {
                        Ok(p) => *p,
                        Err(e) => return e,
                    };
                    let fr = self.frames.last_mut().expect("frame");
                    fr.stack.pop();
                    fr.stack.push(v);
                    fr.pc += 1;
                    local()
                }
                (Value::Null, _) => runtime(format!(
                    "NULL pointer dereference reading `->{}`",
                    prog.any_field_name(*f)
                )),
                (other, _) => runtime(format!(
                    "reading `->{}` of {other}, which is not a pointer",
                    prog.any_field_name(*f)
                )),
            },
            Op::WriteField(f) => match (second, *f) {
                (Value::Obj(..), Field::Kernel(id)) => {
                    match host.write_field(tid, second, id, top) {
                        Ok(()) => {
                            fr.stack.truncate(n - 2);
                            fr.pc += 1;
                            Exec::Ran(true, what!("{second}->{} = {top}", prog.field_name(id)))
                        }
                        Err(e) => host_err(e),
                    }
                }
                (Value::Local(_), Field::Local { layout, slot }) => {
                    match self.local_field(prog, second, layout, slot) {
                        Ok(p) => *p = top,
                        Err(e) => return e,
                    }
                    let fr = self.frames.last_mut().expect("frame");
                    fr.stack.truncate(n - 2);
                    fr.pc += 1;
                    local()
                }
                (Value::Null, _) => runtime(format!(
                    "NULL pointer dereference writing `->{}`",
                    prog.any_field_name(*f)
                )),
                (other, _) => runtime(format!(
                    "writing `->{}` of {other}, which is not a pointer",
                    prog.any_field_name(*f)
                )),
            },
            Op::Mark(m) => {
                prog.marks.hit(*m);
                fr.pc += 1;
                local()
            }
            Op::ZeroStruct(s) => {
                let v = fr.locals.get(*s as usize).copied().unwrap_or(Value::Void);
                fr.pc += 1;
                let inst = match self.instance(v) {
                    Ok(i) => i,
                    Err(e) => return e,
                };
                let layout = &prog.structs()[inst.layout as usize];
                for (slot, (_, t)) in inst.fields.iter_mut().zip(&layout.fields) {
                    *slot = zero(t);
                }
                local()
            }
            Op::Builtin(id, argc) => {
                let argc = *argc as usize;
                if argc > n {
                    return runtime("operand stack underflow");
                }
                match host.call(tid, *id, &fr.stack[n - argc..]) {
                    Ok(v) => {
                        let mut what = String::new();
                        if describe {
                            let args: Vec<String> =
                                fr.stack[n - argc..].iter().map(|a| a.to_string()).collect();
                            what = format!("{}({})", prog.builtin_name(*id), args.join(", "));
                            if v != Value::Void {
                                what.push_str(&format!(" = {v}"));
                            }
                        }
                        fr.stack.truncate(n - argc);
                        fr.stack.push(v);
                        fr.pc += 1;
                        Exec::Ran(true, what)
                    }
                    Err(e) => host_err(e),
                }
            }
            Op::ListFirst(list) | Op::ListLast(list) => match top {
                Value::Obj(..) => match if matches!(op, Op::ListLast(_)) {
                    host.list_last(tid, top, *list)
                } else {
                    host.list_first(tid, top, *list)
                } {
                    Ok(v) => {
                        fr.stack.pop();
                        fr.stack.push(v);
                        fr.pc += 1;
                        let f = if matches!(op, Op::ListLast(_)) {
                            "list_last"
                        } else {
                            "list_first"
                        };
                        let l = prog.field_name(*list);
                        Exec::Ran(true, what!("{f}({top}->{l}) = {v}"))
                    }
                    Err(e) => host_err(e),
                },
                Value::Null => runtime(format!(
                    "NULL pointer dereference: list head `->{}`",
                    prog.field_name(*list)
                )),
                other => runtime(format!("list head {other} is not a kernel object")),
            },
            Op::ListNext(list) | Op::ListPrev(list) => match if matches!(op, Op::ListPrev(_)) {
                host.list_prev(tid, second, *list, top)
            } else {
                host.list_next(tid, second, *list, top)
            } {
                Ok(v) => {
                    fr.stack.truncate(n.saturating_sub(2));
                    fr.stack.push(v);
                    fr.pc += 1;
                    let f = if matches!(op, Op::ListPrev(_)) {
                        "list_prev"
                    } else {
                        "list_next"
                    };
                    let l = prog.field_name(*list);
                    Exec::Ran(true, what!("{f}({second}->{l}, {top}) = {v}"))
                }
                Err(e) => host_err(e),
            },
            Op::Call(id, argc) => {
                let argc = *argc as usize;
                if depth >= MAX_CALL_DEPTH {
                    return Exec::Fault(
                        FaultKind::StackOverflow,
                        format!("calls nested deeper than {MAX_CALL_DEPTH}"),
                    );
                }
                if argc > n {
                    return runtime("operand stack underflow");
                }
                // the arguments go straight from the caller's stack into the callee's locals
                let mut args = [Value::Void; 8];
                if argc <= args.len() {
                    args[..argc].copy_from_slice(&fr.stack[n - argc..]);
                    fr.stack.truncate(n - argc);
                    self.push_frame(prog, *id, &args[..argc]);
                } else {
                    let args = fr.stack.split_off(n - argc);
                    self.push_frame(prog, *id, &args);
                }
                Exec::Ran(false, what!("call {}", prog.func_sig(*id).name))
            }
            Op::Return => {
                let v = fr.stack.pop().unwrap_or(Value::Void);
                let done = self.frames.pop().expect("frame");
                let base = (done.heap_base as usize).min(self.heap.len());
                for inst in self.heap.drain(base..) {
                    recycle(inst.fields);
                }
                recycle(done.locals);
                recycle(done.stack);
                match self.frames.last_mut() {
                    None => Exec::Done(v),
                    Some(caller) => {
                        caller.stack.push(v);
                        caller.pc += 1;
                        Exec::Ran(false, String::new())
                    }
                }
            }
        }
    }
}
