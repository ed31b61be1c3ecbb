//! The compiled engine's instructions that reach objects: kernel object fields, lists and
//! builtins through the host, local struct fields and the `VM_WARN_ON*` assertions. Each
//! fault carries the same text and location as the reference interpreter's.

use super::{host_err, runtime, At, Ended, Machine};
use crate::exec::compiled::{COp, Code};
use crate::exec::host::{BuiltinId, FieldId, Host, Value};
use crate::exec::step::{Fault, FaultKind};
use crate::lang::program::{Field, FuncId, Op};
use crate::lang::Program;

/// The instructions that reach objects: kernel objects through the host, or the local
/// structs. Each advances to the next instruction when it succeeds (the caller moves the
/// program counter) and says whether it touched the world.
impl Machine {
    /// `sp` is the height of the value vector's used part (the operand stack's top); the
    /// caller moves it by the instruction's arity once it succeeds.
    #[inline]
    pub(super) fn object_op<H: Host + ?Sized>(
        &mut self,
        code: &Code,
        prog: &Program,
        host: &mut H,
        op: COp,
        at: At,
        sp: usize,
    ) -> Result<bool, Ended> {
        match op {
            COp::Warn => self.warn(prog, at, sp).map(|()| false),
            COp::ZeroStruct(s) => self.zero_struct(code, prog, s, at).map(|()| false),
            COp::Builtin(id, argc) => self.builtin(prog, host, id, argc, at, sp).map(|()| true),
            COp::ListFirst(list) | COp::ListLast(list) => {
                self.list_end(prog, host, list, matches!(op, COp::ListLast(_)), at, sp)
            }
            COp::ListNext(list) | COp::ListPrev(list) => {
                let (head, cur) = (self.vals[sp - 2], self.vals[sp - 1]);
                let v = if matches!(op, COp::ListPrev(_)) {
                    host.list_prev(0, head, list, cur)
                } else {
                    host.list_next(0, head, list, cur)
                }
                .map_err(|e| host_err(at.loc(prog), e))?;
                self.vals[sp - 2] = v;
                Ok(true)
            }
            _ => unreachable!("run dispatches only object instructions here"),
        }
    }

    /// A builtin call on the `argc` values under `sp`; its result goes where the first of
    /// them was (the caller leaves `sp` one above it).
    #[inline(always)]
    pub(super) fn builtin<H: Host + ?Sized>(
        &mut self,
        prog: &Program,
        host: &mut H,
        id: BuiltinId,
        argc: u32,
        at: At,
        sp: usize,
    ) -> Result<(), Ended> {
        let first = sp - argc as usize;
        let v = host
            .call(0, id, &self.vals[first..sp])
            .map_err(|e| host_err(at.loc(prog), e))?;
        self.vals[first] = v;
        Ok(())
    }

    /// `VM_WARN_ON*(cond)`: an assertion fault when the condition on top holds.
    fn warn(&mut self, prog: &Program, at: At, sp: usize) -> Result<(), Ended> {
        if self.vals[sp - 1].truthy() {
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
        self.vals[sp - 1] = Value::Bool(false);
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
    #[cold]
    #[inline(never)]
    fn bad_pointer(prog: &Program, p: Value, fd: Field, verb: &str, at: At) -> Ended {
        let name = prog.any_field_name(fd);
        let m = match p {
            Value::Null => format!("NULL pointer dereference {verb} `->{name}`"),
            other => format!("{verb} `->{name}` of {other}, which is not a pointer"),
        };
        runtime(at.loc(prog), m)
    }

    #[inline(always)]
    pub(super) fn read_field<H: Host + ?Sized>(
        &mut self,
        code: &Code,
        prog: &Program,
        host: &mut H,
        fd: Field,
        at: At,
        sp: usize,
    ) -> Result<bool, Ended> {
        let p = self.vals[sp - 1];
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
        self.vals[sp - 1] = v;
        Ok(touched)
    }

    /// The write of the value on top through the pointer under it; the caller takes both off.
    #[inline(always)]
    pub(super) fn write_field<H: Host + ?Sized>(
        &mut self,
        code: &Code,
        prog: &Program,
        host: &mut H,
        fd: Field,
        at: At,
        sp: usize,
    ) -> Result<bool, Ended> {
        let (p, v) = (self.vals[sp - 2], self.vals[sp - 1]);
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
        sp: usize,
    ) -> Result<bool, Ended> {
        let head = self.vals[sp - 1];
        match head {
            Value::Obj(..) => {
                let v = if last {
                    host.list_last(0, head, list)
                } else {
                    host.list_first(0, head, list)
                }
                .map_err(|e| host_err(at.loc(prog), e))?;
                self.vals[sp - 1] = v;
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
