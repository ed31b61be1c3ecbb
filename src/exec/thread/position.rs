//! Where a thread stands: the instruction it runs next, its call stack, the instruction its
//! last shared step ran, and whether its next instruction touches the world (for traces, the
//! explorers' footprints and the interleaving explorer's choice of steps).

use super::Thread;
use crate::exec::host::Value;
use crate::lang::program::{FuncId, Op};
use crate::lang::{Program, SrcLoc};

impl Thread {
    /// Where the next instruction comes from (`None` once finished).
    pub fn loc(&self, prog: &Program) -> Option<SrcLoc> {
        if self.is_finished() {
            return None;
        }
        let fr = self.frames.last()?;
        prog.func(fr.func).code.get(fr.pc as usize).map(|i| i.loc)
    }

    /// The call stack, innermost first: function name and the position in it.
    pub fn backtrace(&self, prog: &Program) -> Vec<(String, SrcLoc)> {
        self.frames
            .iter()
            .rev()
            .map(|fr| {
                let f = prog.func(fr.func);
                let loc = f.code.get(fr.pc as usize).map(|i| i.loc).unwrap_or(f.loc);
                (f.sig.name.clone(), loc)
            })
            .collect()
    }

    /// The instruction the last shared step ran: shared instructions never change frames, so it
    /// is the one before the innermost frame's program counter.
    pub(crate) fn last_op<'p>(&self, prog: &'p Program) -> Option<&'p Op> {
        let (f, pc) = self.last_pc(prog)?;
        Some(&prog.func(f).code[pc].op)
    }

    /// Where the instruction [`Thread::last_op`] returns sits: its function and index.
    pub(crate) fn last_pc(&self, prog: &Program) -> Option<(FuncId, usize)> {
        let fr = self.frames.last()?;
        let pc = (fr.pc as usize).checked_sub(1)?;
        (pc < prog.func(fr.func).code.len()).then_some((fr.func, pc))
    }

    /// Each frame's function and program counter, outermost first: for the innermost frame
    /// the instruction it runs next, for a caller the call it waits in.
    pub(crate) fn frame_positions(&self) -> impl DoubleEndedIterator<Item = (FuncId, usize)> + '_ {
        self.frames.iter().map(|fr| (fr.func, fr.pc as usize))
    }

    /// Whether any value the thread holds (its frames' locals and operands, its struct
    /// instances) satisfies `pred`: the kernel objects the thread can still reach without
    /// looking them up again.
    pub(crate) fn holds_any(&self, pred: impl Fn(Value) -> bool) -> bool {
        self.frames
            .iter()
            .any(|fr| fr.locals.iter().chain(&fr.stack).any(|&v| pred(v)))
            || self.heap.iter().any(|i| i.fields.iter().any(|&v| pred(v)))
    }

    /// Whether the next instruction would touch the world.
    pub fn next_is_shared(&self, prog: &Program) -> bool {
        if self.outcome.is_some() {
            return false;
        }
        let Some(fr) = self.frames.last() else {
            return false;
        };
        let Some(instr) = prog.func(fr.func).code.get(fr.pc as usize) else {
            return false;
        };
        let n = fr.stack.len();
        match &instr.op {
            Op::ReadField(_) => matches!(fr.stack.last(), Some(Value::Obj(..))),
            Op::WriteField(_) => n >= 2 && matches!(fr.stack[n - 2], Value::Obj(..)),
            op => op.always_shared(),
        }
    }
}
