//! How a compiled call ends and where: the outcomes of [`super::run_call`], the faults the
//! engine raises itself (a runtime error, a host error, an endless local run), and the sites
//! of instructions with their source locations, looked up only when asked for.

use super::super::host::HostError;
use super::super::step::{Fault, FaultKind};
use super::super::thread::MAX_LOCAL_RUN;
use crate::lang::program::FuncId;
use crate::lang::{Program, SrcLoc};

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

/// An instruction of a compiled call: its function and index. Its source location is looked
/// up only when asked for (a visible step is reported far more often than one fails).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Site {
    pub(super) func: u32,
    pub(super) pc: u32,
}

impl Site {
    /// The instruction's source location.
    pub(crate) fn loc(self, prog: &Program) -> SrcLoc {
        loc_at(prog, self.func, self.pc)
    }
}

#[cold]
pub(super) fn runtime(loc: SrcLoc, message: String) -> Ended {
    Ended::Failed(Fault {
        loc,
        kind: FaultKind::Runtime,
        message,
    })
}

#[cold]
pub(super) fn host_err(loc: SrcLoc, e: HostError) -> Ended {
    match e {
        HostError::Blocked => Ended::Blocked(loc),
        HostError::Fault(message) => Ended::Failed(Fault {
            loc,
            kind: FaultKind::Host,
            message,
        }),
    }
}

/// The fault of a run of instructions none of which touched the world, at `loc`.
#[cold]
pub(super) fn endless(loc: SrcLoc) -> Ended {
    let m = format!("ran {MAX_LOCAL_RUN} instructions without touching the world (endless loop?)");
    runtime(loc, m)
}

/// Where an instruction runs: its function, its index, and its frame's first local.
#[derive(Clone, Copy)]
pub(super) struct At {
    pub(super) func: u32,
    pub(super) pc: u32,
    pub(super) base: u32,
}

impl At {
    pub(super) fn loc(self, prog: &Program) -> SrcLoc {
        loc_at(prog, self.func, self.pc)
    }
}

/// The source location of instruction `pc` of function `func`.
#[inline]
pub(super) fn loc_at(prog: &Program, func: u32, pc: u32) -> SrcLoc {
    prog.func(FuncId(func)).code[pc as usize].loc
}
