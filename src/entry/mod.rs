//! The entry points: one record per entry point a model may define, and the only place that
//! says what each one's arguments are, which argument tuples a search offers, how the fuzzer
//! picks one, and which preconditions a call must meet. Three users walk [`TABLE`]:
//!
//! - the exhaustive alphabet (`explore::alphabet`) calls each record's `offer` through
//!   [`offer::offers`], which yields every tuple the scope's bounds allow in a state;
//! - the fuzzer (`fuzzing::concretise`) calls each record's `pick` with the raw choice bytes of
//!   an abstract operation ([`pick::Choice`]) and gets one tuple, or none;
//! - replay, minimisation and the fuzzer's own checks call [`check`], which runs the record's
//!   argument kinds and `requires`, and the page-level rule of [`pages`].
//!
//! `offer` and `pick` build their tuples from the same candidate sets: a VMA of the mm, a range
//! strictly inside it, a free gap, a neighbour that may merge. `offer` enumerates each axis in
//! address order within the scope's bounds; `pick` takes each axis's raw choice byte modulo the
//! axis's length, within the fuzzer's own fixed bounds ([`pick::SPACE`] and friends). The
//! fuzzer does not index the alphabet's list: that list depends on the scope and would give
//! every committed fuzz corpus a new meaning. Both are judged by the same [`check`], so neither
//! can make a call replay refuses (tests/fuzz/entry_table.rs checks that on many worlds).
//! The alphabet keeps a call only when [`check`] accepts it.
//!
//! # Adding an entry point
//!
//! 1. Write the model function (`sys_...`, `do_..._fault` or `contract_...`) in the models.
//! 2. Add a variant to [`EntryPoint`] and one [`Entry`] to [`TABLE`] at the same index; the
//!    table's order is the order in which the alphabet offers calls (see [`Site`]), so put a new
//!    record where its calls should come (appending before `sys_fork` keeps every existing
//!    alphabet order). Give it its name, mode, [`Tier`] (`Extended` for a path that would
//!    grow every scope's search: offered only by scopes that ask for it), argument kinds,
//!    site, and three functions:
//!    `offer` (every tuple at its site, within [`offer::Bounds`]), `pick` (one tuple from a
//!    [`pick::Choice`], or `None`) and `requires` (the preconditions, each failing rule with
//!    its own message). Callers-mode functions sit in `syscalls.rs` (those that move a VMA or
//!    grow a stack in `moves.rs`, the extended moves and upward stacks in `remap_ext.rs`, the
//!    undo paths after an allocation failure in `undo.rs`),
//!    contract ones in `contract.rs`.
//! 3. For the fuzzer: add an `AbstractOp` variant at the END of `fuzzing::input::AbstractOp`
//!    (earlier positions would re-decode every committed corpus) and map it to the new entry
//!    point in `fuzzing::concretise::choice`.
//! 4. Optionally: its kernel form in `trace::calls::kernel_form`, and what kdiff does with it in
//!    `oracle::ops`.
//!
//! tests/fuzz/entry_table.rs then checks the new record with the others: every offered call
//! meets the preconditions, every pick does, and the names round-trip; add a refused call for
//! each new rule there.
//!
//! It names nothing above the world, the checks and the interpreter.

mod contract;
mod fixed;
mod moves;
pub mod offer;
pub mod pages;
pub mod pick;
mod remap_ext;
pub(crate) mod require;
mod syscalls;
mod undo;

use crate::exec::host::Value;
use crate::world::scenario::Call;
use crate::world::World;
use serde::{Deserialize, Serialize};

/// Which entry points are used.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Mode {
    /// Only the system-call level entry points, with the arguments the kernel passes.
    Callers,
    /// Also the internal functions (`contract_*` entry points) with any arguments their
    /// documented preconditions allow.
    Contract,
}

impl std::fmt::Display for Mode {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Mode::Callers => "callers",
            Mode::Contract => "contract",
        })
    }
}

impl std::str::FromStr for Mode {
    type Err = String;
    fn from_str(s: &str) -> Result<Mode, String> {
        match s {
            "callers" => Ok(Mode::Callers),
            "contract" => Ok(Mode::Contract),
            _ => Err(format!("unknown mode {s:?} (expected callers or contract)")),
        }
    }
}

/// Which scopes offer an entry point when they name no `entries`.
///
/// The core entry points are the paths every scope explores; the extended ones (paths added
/// for fidelity to v7.3 whose state space is large: MAP_FIXED over existing mappings, the undo
/// paths, faults under the per-VMA lock, uprobes) are offered only by a scope with
/// `extended = true` or one that names them in `entries`, so that the default search and the
/// proofs written against it keep their size.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Tier {
    Core,
    Extended,
}

/// An entry point, by its record's index in [`TABLE`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum EntryPoint {
    Mmap,
    MmapGrowsdown,
    Munmap,
    Mprotect,
    MremapExpand,
    MremapShrink,
    MremapMove,
    StackFault,
    ShiftDown,
    AnonymousFault,
    FileFault,
    ContractSplit,
    ContractShrink,
    ContractAdjustNext,
    ContractAdjustMiddle,
    MmapFixed,
    AnonymousFaultVmaLock,
    MremapMoveShrink,
    MremapDontunmap,
    SetupStackGrowsup,
    StackFaultUp,
    MunmapAbort,
    ForkFail,
    MmapFixedFail,
    Fork,
    Exit,
}

impl EntryPoint {
    /// Its record.
    pub fn entry(self) -> &'static Entry {
        &TABLE[self as usize]
    }
    /// The model function's name (`sys_mmap`, ...).
    pub fn name(self) -> &'static str {
        self.entry().name
    }
    /// The entry point a model function name stands for.
    pub fn from_name(name: &str) -> Option<EntryPoint> {
        TABLE.iter().find(|e| e.name == name).map(|e| e.point)
    }
    /// Every entry point, in table order.
    pub fn all() -> impl Iterator<Item = EntryPoint> {
        TABLE.iter().map(|e| e.point)
    }
}

impl std::fmt::Display for EntryPoint {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// What an argument is; [`check`] refuses a call whose arguments are not of these kinds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Arg {
    /// A live mm (always the first argument).
    Mm,
    /// A live VMA of that mm.
    Vma,
    /// A file, or NULL for an anonymous mapping.
    FileOrNull,
    /// A page number, length or page offset: a non-negative integer (or a boolean, as 0 / 1).
    Page,
    /// A boolean (or any integer, true when not 0, as C passes one).
    Flag,
}

/// Where in a state the alphabet offers an entry point's calls: once per mm, once per VMA of
/// the mm, or once per page of each VMA. [`offer::offers`] walks the table in order for each
/// mm; a run of adjacent `Vma`/`Page` records is walked once per VMA, and inside it a run of
/// adjacent `Page` records once per page.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Site {
    Mm,
    Vma,
    Page,
}

/// Every tuple of arguments at one place, passed to `emit` one at a time.
pub(crate) type OfferFn = fn(&offer::Here, &mut dyn FnMut(Vec<Value>));
/// One tuple from the fuzzer's raw choices, or `None` when none fits the world now.
pub(crate) type PickFn = fn(&pick::Pick) -> Option<Vec<Value>>;
/// The entry point's own preconditions on well-kinded arguments: `Err` says which fails.
pub(crate) type RequiresFn = fn(&require::At) -> Result<(), String>;

/// One entry point.
pub struct Entry {
    pub point: EntryPoint,
    /// The model function's name.
    pub name: &'static str,
    /// What it stands for in the kernel (for docs and listings).
    pub kernel: &'static str,
    /// `Contract` for an internal function called with any arguments its documentation allows:
    /// offered and picked only in contract mode.
    pub mode: Mode,
    /// Whether a scope that names no `entries` offers it always (`Core`) or only when it asks
    /// for the extended set (`extended = true`, the built-in `extended` scope).
    pub tier: Tier,
    pub args: &'static [Arg],
    pub site: Site,
    pub offer: OfferFn,
    pub pick: PickFn,
    pub requires: RequiresFn,
}

use Arg::*;

/// The entry points, in the order the alphabet offers them; `TABLE[p as usize].point == p`.
pub static TABLE: [Entry; 26] = [
    syscalls::MMAP,
    moves::MMAP_GROWSDOWN,
    syscalls::MUNMAP,
    syscalls::MPROTECT,
    syscalls::MREMAP_EXPAND,
    syscalls::MREMAP_SHRINK,
    moves::MREMAP_MOVE,
    moves::STACK_FAULT,
    syscalls::SHIFT_DOWN,
    syscalls::ANONYMOUS_FAULT,
    syscalls::FILE_FAULT,
    contract::SPLIT,
    contract::SHRINK,
    contract::ADJUST_NEXT,
    contract::ADJUST_MIDDLE,
    fixed::MMAP_FIXED,
    syscalls::ANONYMOUS_FAULT_VMA_LOCK,
    remap_ext::MREMAP_MOVE_SHRINK,
    remap_ext::MREMAP_DONTUNMAP,
    remap_ext::SETUP_STACK_GROWSUP,
    remap_ext::STACK_FAULT_UP,
    undo::MUNMAP_ABORT,
    undo::FORK_FAIL,
    undo::MMAP_FIXED_FAIL,
    syscalls::FORK,
    syscalls::EXIT,
];

/// Argument kinds shared by several records.
const MM: &[Arg] = &[Mm];
const MM_PAGE: &[Arg] = &[Mm, Page];
const MM_PAGE_PAGE: &[Arg] = &[Mm, Page, Page];

/// Whether `c` meets its entry point's preconditions in `w`: a known entry point, live objects
/// of the right kinds, the page-level rule of the contract calls ([`pages`]), then the record's
/// `requires`. `Err` says which rule fails, after the call.
pub fn check(w: &World, c: &Call) -> Result<(), String> {
    match EntryPoint::from_name(&c.func) {
        Some(p) => check_entry(w, p.entry(), c),
        None => Err(format!("{c}: not an entry point rmapcheck knows")),
    }
}

/// Why [`judge`] refuses a call; the message is built only when someone reads it.
#[derive(Debug)]
pub enum Refusal {
    /// The page-level rule of [`pages`].
    Pages,
    /// An argument of the wrong kind, or an object that is not live (the whole message).
    Args(String),
    /// A rule of the record's `requires` (the message after the call).
    Rule(String),
}

/// [`check`] for a call to `e`'s entry point.
pub(crate) fn check_entry(w: &World, e: &Entry, c: &Call) -> Result<(), String> {
    judge(w, e, c).map_err(|r| match r {
        Refusal::Pages => {
            format!("{c}: the call would leave a mapped page at another index, file or anon_vma")
        }
        Refusal::Args(m) => m,
        Refusal::Rule(why) => format!("{c}: {why}"),
    })
}

/// [`check_entry`] without building the message.
pub fn judge(w: &World, e: &Entry, c: &Call) -> Result<(), Refusal> {
    let mm = require::arg_obj(w, c, 0, crate::exec::host::ObjKind::Mm).map_err(Refusal::Args)?;
    if !pages::keeps_pages(w, e.point, c) {
        return Err(Refusal::Pages);
    }
    if c.args.len() != e.args.len() {
        let m = format!("{c}: {} takes {} arguments", e.name, e.args.len());
        return Err(Refusal::Args(m));
    }
    for (i, &kind) in e.args.iter().enumerate().skip(1) {
        require::arg_kind(w, c, mm, i, kind).map_err(Refusal::Args)?;
    }
    (e.requires)(&require::At { w, call: c, mm }).map_err(Refusal::Rule)
}
