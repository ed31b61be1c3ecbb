//! Turning an abstract operation into a concrete entry-point call against the world as it is
//! just before the call. The operation's raw choices go to the `pick` of its entry point's
//! record in the table of `crate::entry`, which chooses every argument so that the entry
//! point's preconditions hold (a free range for mmap, a range inside one VMA for mprotect, a
//! split point strictly inside, a neighbour that exists and is compatible for the contract
//! merges, ...); the call is then kept only when that table's [`check_preconditions`] accepts
//! it, so a failure the checks report is a finding and not a misuse. An operation with no valid
//! form in the current world (no VMA to pick, no free page, too many mms) is skipped.
//!
//! [`check_preconditions`] states the same preconditions for a call written by hand or kept in
//! a crash file, so replay and minimisation never count a misuse as the failure they look for.

use super::input::AbstractOp;
use crate::entry::pick::{live_mms, pick, Choice, Pick};
use crate::entry::EntryPoint;
use crate::world::scenario::Call;
use crate::world::World;

pub use crate::entry::pick::{MAX_MMS, MAX_PGOFF, MAX_VMAS, SPACE};
pub use crate::entry::Mode;

/// The entry points `op` may become, tried in order (the first whose pick fits the world
/// wins), and its raw choices.
pub fn choice(op: &AbstractOp) -> (&'static [EntryPoint], Choice) {
    use AbstractOp::*;
    use EntryPoint as E;
    let c = Choice::default();
    match *op {
        Mmap {
            mm,
            file,
            start,
            len,
            pgoff,
            shared,
        } => (
            &[E::Mmap],
            Choice {
                mm,
                file,
                at: start,
                len,
                pgoff,
                flag: shared,
                ..c
            },
        ),
        Munmap {
            mm,
            vma,
            start,
            len,
        } => (
            &[E::Munmap],
            Choice {
                mm,
                vma,
                at: start,
                len,
                ..c
            },
        ),
        Mprotect {
            mm,
            vma,
            start,
            len,
            writable,
        } => (
            &[E::Mprotect],
            Choice {
                mm,
                vma,
                at: start,
                len,
                flag: writable,
                ..c
            },
        ),
        MremapExpand { mm, vma, grow } => (
            &[E::MremapExpand],
            Choice {
                mm,
                vma,
                len: grow,
                ..c
            },
        ),
        MremapShrink { mm, vma, keep } => (
            &[E::MremapShrink],
            Choice {
                mm,
                vma,
                len: keep,
                ..c
            },
        ),
        ShiftDown { mm, vma, shift } => (
            &[E::ShiftDown],
            Choice {
                mm,
                vma,
                len: shift,
                ..c
            },
        ),
        Fork { mm } => (&[E::Fork], Choice { mm, ..c }),
        Exit { mm } => (&[E::Exit], Choice { mm, ..c }),
        // the top bit of `off` asks for a read fault, where the VMA maps a file's page cache
        Fault { mm, vma, off } => (
            &[E::FileFault, E::AnonymousFault],
            Choice {
                mm,
                vma,
                at: off,
                ..c
            },
        ),
        ContractSplit {
            mm,
            vma,
            at,
            new_below,
        } => (
            &[E::ContractSplit],
            Choice {
                mm,
                vma,
                at,
                flag: new_below,
                ..c
            },
        ),
        ContractShrink { mm, vma, keep } => (
            &[E::ContractShrink],
            Choice {
                mm,
                vma,
                len: keep,
                ..c
            },
        ),
        ContractAdjustNext { mm, vma, at, pgoff } => (
            &[E::ContractAdjustNext],
            Choice {
                mm,
                vma,
                at,
                pgoff,
                ..c
            },
        ),
        ContractAdjustMiddle { mm, vma, at, pgoff } => (
            &[E::ContractAdjustMiddle],
            Choice {
                mm,
                vma,
                at,
                pgoff,
                ..c
            },
        ),
        MremapMove {
            mm,
            vma,
            start,
            len,
            grow,
            dest,
        } => (
            &[E::MremapMove],
            Choice {
                mm,
                vma,
                at: start,
                len,
                grow,
                dest,
                ..c
            },
        ),
        MmapGrowsdown { mm, start, len } => (
            &[E::MmapGrowsdown],
            Choice {
                mm,
                at: start,
                len,
                ..c
            },
        ),
        StackFault { mm, vma, below } => (
            &[E::StackFault],
            Choice {
                mm,
                vma,
                len: below,
                ..c
            },
        ),
        MmapFixed {
            mm,
            vma,
            file,
            start,
            len,
            pgoff,
            shared,
        } => (
            &[E::MmapFixed],
            Choice {
                mm,
                vma,
                file,
                at: start,
                len,
                pgoff,
                flag: shared,
                ..c
            },
        ),
        FaultVmaLock { mm, vma, off } => (
            &[E::AnonymousFaultVmaLock],
            Choice {
                mm,
                vma,
                at: off,
                ..c
            },
        ),
        MremapMoveShrink {
            mm,
            vma,
            start,
            len,
            cut,
            dest,
        } => (
            &[E::MremapMoveShrink],
            Choice {
                mm,
                vma,
                at: start,
                len,
                grow: cut,
                dest,
                ..c
            },
        ),
        MremapDontunmap {
            mm,
            vma,
            start,
            len,
            dest,
        } => (
            &[E::MremapDontunmap],
            Choice {
                mm,
                vma,
                at: start,
                len,
                dest,
                ..c
            },
        ),
        SetupStackGrowsup { mm, start, len } => (
            &[E::SetupStackGrowsup],
            Choice {
                mm,
                at: start,
                len,
                ..c
            },
        ),
        StackFaultUp { mm, vma, above } => (
            &[E::StackFaultUp],
            Choice {
                mm,
                vma,
                len: above,
                ..c
            },
        ),
        MunmapAbort {
            mm,
            vma,
            start,
            len,
        } => (
            &[E::MunmapAbort],
            Choice {
                mm,
                vma,
                at: start,
                len,
                ..c
            },
        ),
        ForkFail { mm, copied } => (
            &[E::ForkFail],
            Choice {
                mm,
                len: copied,
                ..c
            },
        ),
        MmapFixedFail {
            mm,
            vma,
            start,
            len,
        } => (
            &[E::MmapFixedFail],
            Choice {
                mm,
                vma,
                at: start,
                len,
                ..c
            },
        ),
    }
}

/// The concrete call for `op` in world `w`, or `None` when the operation has no valid form now
/// (or is a contract operation in callers mode).
pub fn concretise(op: &AbstractOp, w: &World, mode: Mode) -> Option<Call> {
    concretise_any(op, w, mode).filter(|c| check_preconditions(w, c).is_ok())
}

/// `concretise` before the preconditions are checked: the first pick of `op`'s entry points
/// that fits `w` (the tests check that every one meets the preconditions but the page rule).
pub fn concretise_any(op: &AbstractOp, w: &World, mode: Mode) -> Option<Call> {
    let (points, c) = choice(op);
    let mm = pick(&live_mms(w), c.mm)?;
    let p = Pick { w, mm, c };
    points
        .iter()
        .map(|&e| e.entry())
        .filter(|e| e.mode == Mode::Callers || mode == Mode::Contract)
        .find_map(|e| {
            (e.pick)(&p).map(|args| Call {
                func: e.name.to_string(),
                args,
            })
        })
}

/// Whether `c` satisfies its entry point's preconditions in `w`: the same rules
/// [`concretise`] builds calls by (the size bounds aside). `Err` says which rule fails.
pub fn check_preconditions(w: &World, c: &Call) -> Result<(), String> {
    crate::entry::check(w, c)
}
