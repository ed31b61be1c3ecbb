//! Turning an abstract operation into a concrete entry-point call against the world as it is
//! just before the call. Every argument is chosen so that the entry point's preconditions hold
//! (a free range for mmap, a range inside one VMA for mprotect, a split point strictly inside,
//! a neighbour that exists and is compatible for the contract merges, ...), so a failure the
//! checks report is a finding and not a misuse. An operation with no valid form in the current
//! world (no VMA to pick, no free page, too many mms) is skipped.
//!
//! [`check_preconditions`] states the same preconditions for a call written by hand or kept in
//! a crash file, so replay and minimisation never count a misuse as the failure they look for.

use super::input::AbstractOp;
use crate::check::membership::vma_live;
use crate::exec::host::{ObjKind, Value};
use crate::explore::contract_pages::contract_keeps_pages;
use crate::world::builtins::VM_GROWSDOWN;
use crate::world::scenario::Call;
use crate::world::{Vma, World};

/// Pages that generated calls address: mmap ranges and munmap ranges lie below this (mremap may
/// grow a VMA a little past it).
pub const SPACE: u64 = 64;
/// Fork is skipped once this many mms exist.
pub const MAX_MMS: usize = 4;
/// Fork is skipped when it would take the live VMA count past this.
pub const MAX_VMAS: usize = 48;
/// Largest pgoff a generated call gives a VMA (keeps rmap walks short).
pub const MAX_PGOFF: u64 = 128;

/// Which entry points are generated.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    /// Only the system-call level entry points (the kernel's real call sites).
    Callers,
    /// Also the `contract_*` entry points: internal functions with any arguments their
    /// documented preconditions allow.
    Contract,
}

fn pick<T: Copy>(xs: &[T], i: u8) -> Option<T> {
    (!xs.is_empty()).then(|| xs[i as usize % xs.len()])
}

fn live_mms(w: &World) -> Vec<u32> {
    (0..w.mms.len() as u32)
        .filter(|&m| !w.mms[m as usize].freed)
        .collect()
}

fn live_vma_count(w: &World) -> usize {
    (0..w.vmas.len() as u32).filter(|&v| vma_live(w, v)).count()
}

/// The VMA at position `i` (modulo the count) of mm's list, with its neighbours.
fn pick_vma(w: &World, mm: u32, i: u8) -> Option<(u32, Option<u32>, Option<u32>)> {
    let list = w.mm_vmas(mm);
    if list.is_empty() {
        return None;
    }
    let k = i as usize % list.len();
    let prev = k.checked_sub(1).map(|j| list[j]);
    let next = list.get(k + 1).copied();
    Some((list[k], prev, next))
}

/// Free ranges [s, e) of mm below [`SPACE`], in address order.
fn free_gaps(w: &World, mm: u32) -> Vec<(u64, u64)> {
    let mut gaps = Vec::new();
    let mut at = 0;
    for (&s, &(e, _)) in &w.mms[mm as usize].vmas {
        if s >= SPACE {
            break;
        }
        if s > at {
            gaps.push((at, s));
        }
        at = at.max(e);
    }
    if at < SPACE {
        gaps.push((at, SPACE));
    }
    gaps
}

fn anon_compatible(a: &Vma, b: &Vma) -> bool {
    !(a.anon_vma.is_some() && b.anon_vma.is_some() && a.anon_vma != b.anon_vma)
}

fn mm(m: u32) -> Value {
    Value::Obj(ObjKind::Mm, m)
}
fn vma(v: u32) -> Value {
    Value::Obj(ObjKind::Vma, v)
}
fn int(x: u64) -> Value {
    Value::Int(x as i64)
}
fn call(func: &str, args: Vec<Value>) -> Option<Call> {
    Some(Call {
        func: func.to_string(),
        args,
    })
}

/// A pgoff for a contract call: the VMA's natural one for `choice < 128`, otherwise an
/// arbitrary small one (contract mode allows any pgoff).
fn contract_pgoff(natural: u64, choice: u8) -> u64 {
    if choice & 0x80 == 0 {
        natural
    } else {
        u64::from(choice % 64)
    }
}

/// The concrete call for `op` in world `w`, or `None` when the operation has no valid form now
/// (or is a contract operation in callers mode).
pub fn concretise(op: &AbstractOp, w: &World, mode: Mode) -> Option<Call> {
    concretise_any(op, w, mode).filter(|c| contract_keeps_pages(w, c))
}

/// `concretise` before the page-level precondition of the contract calls.
fn concretise_any(op: &AbstractOp, w: &World, mode: Mode) -> Option<Call> {
    use AbstractOp::*;
    let mms = live_mms(w);
    let contract = mode == Mode::Contract;
    match *op {
        Mmap {
            mm: m,
            file,
            start,
            len,
            pgoff,
            shared,
        } => {
            let m = pick(&mms, m)?;
            let gaps = free_gaps(w, m);
            let want = u64::from(start) % SPACE;
            let &(gs, ge) = gaps
                .iter()
                .find(|&&(_, e)| e > want)
                .or_else(|| gaps.first())?;
            let s = want.clamp(gs, ge - 1);
            let e = s + 1 + u64::from(len) % (ge - s).min(8);
            let fi = file as usize % (w.files.len() + 1);
            let (fv, pg, sh) = if fi == 0 {
                (Value::Null, 0, false)
            } else {
                let f = (fi - 1) as u32;
                let pg = if pgoff & 0x80 == 0 {
                    s
                } else {
                    u64::from(pgoff % 64)
                };
                let sh = shared && !w.files[f as usize].dev_zero;
                (Value::Obj(ObjKind::File, f), pg, sh)
            };
            call(
                "sys_mmap",
                vec![mm(m), fv, int(s), int(e), int(pg), Value::Bool(sh)],
            )
        }
        Munmap {
            mm: m,
            vma: vi,
            start,
            len,
        } => {
            let m = pick(&mms, m)?;
            let (s, e) = match pick_vma(w, m, vi) {
                // anchored on a VMA: start inside or just before it
                Some((v, _, _)) if start & 1 == 0 => {
                    let x = &w.vmas[v as usize];
                    let s =
                        (x.vm_start + u64::from(start >> 1) % (x.pages() + 2)).saturating_sub(1);
                    (s, s + 1 + u64::from(len) % 12)
                }
                _ => {
                    let s = u64::from(start) % SPACE;
                    (s, s + 1 + u64::from(len) % 16)
                }
            };
            call("sys_munmap", vec![mm(m), int(s), int(e)])
        }
        Mprotect {
            mm: m,
            vma: vi,
            start,
            len,
            writable,
        } => {
            let m = pick(&mms, m)?;
            let (v, _, _) = pick_vma(w, m, vi)?;
            let x = &w.vmas[v as usize];
            let s = x.vm_start + u64::from(start) % x.pages();
            let e = s + 1 + u64::from(len) % (x.vm_end - s);
            call(
                "sys_mprotect",
                vec![mm(m), int(s), int(e), Value::Bool(writable)],
            )
        }
        MremapExpand {
            mm: m,
            vma: vi,
            grow,
        } => {
            let m = pick(&mms, m)?;
            let (v, _, next) = pick_vma(w, m, vi)?;
            let x = &w.vmas[v as usize];
            let limit = next.map_or(SPACE + 16, |n| w.vmas[n as usize].vm_start);
            if limit <= x.vm_end || x.vm_pgoff + (limit - x.vm_start) > MAX_PGOFF {
                return None;
            }
            let e = x.vm_end + 1 + u64::from(grow) % (limit - x.vm_end).min(8);
            call("sys_mremap_expand", vec![mm(m), int(x.vm_start), int(e)])
        }
        MremapShrink {
            mm: m,
            vma: vi,
            keep,
        } => {
            let m = pick(&mms, m)?;
            let (v, _, _) = pick_vma(w, m, vi)?;
            let x = &w.vmas[v as usize];
            if x.pages() < 2 {
                return None;
            }
            let e = x.vm_start + 1 + u64::from(keep) % (x.pages() - 1);
            call("sys_mremap_shrink", vec![mm(m), int(x.vm_start), int(e)])
        }
        ShiftDown {
            mm: m,
            vma: vi,
            shift,
        } => {
            let m = pick(&mms, m)?;
            let (v, prev, _) = pick_vma(w, m, vi)?;
            let x = &w.vmas[v as usize];
            let floor = prev.map_or(0, |p| w.vmas[p as usize].vm_end);
            let most = (x.vm_start - floor).min(x.pages().saturating_sub(1));
            if most == 0 {
                return None;
            }
            let sh = 1 + u64::from(shift) % most;
            call("sys_shift_down", vec![mm(m), int(x.vm_start), int(sh)])
        }
        Fork { mm: m } => {
            let m = pick(&mms, m)?;
            if w.mms.len() >= MAX_MMS || live_vma_count(w) + w.mm_vmas(m).len() > MAX_VMAS {
                return None;
            }
            call("sys_fork", vec![mm(m)])
        }
        Exit { mm: m } => call("sys_exit", vec![mm(pick(&mms, m)?)]),
        Fault {
            mm: m,
            vma: vi,
            off,
        } => {
            let m = pick(&mms, m)?;
            let (v, _, _) = pick_vma(w, m, vi)?;
            let x = &w.vmas[v as usize];
            let a = x.vm_start + u64::from(off & 0x7f) % x.pages();
            // the top bit asks for a read fault, where the VMA maps a file's page cache
            let read = off & 0x80 != 0 && x.vm_file.is_some() && !x.is_anonymous();
            let func = if read {
                "do_file_fault"
            } else {
                "do_anonymous_fault"
            };
            call(func, vec![mm(m), int(a)])
        }
        ContractSplit {
            mm: m,
            vma: vi,
            at,
            new_below,
        } if contract => {
            let m = pick(&mms, m)?;
            let (v, _, _) = pick_vma(w, m, vi)?;
            let x = &w.vmas[v as usize];
            if x.pages() < 2 {
                return None;
            }
            let a = x.vm_start + 1 + u64::from(at) % (x.pages() - 1);
            call(
                "contract_split",
                vec![mm(m), vma(v), int(a), int(new_below as u64)],
            )
        }
        ContractShrink {
            mm: m,
            vma: vi,
            keep,
        } if contract => {
            let m = pick(&mms, m)?;
            let (v, _, _) = pick_vma(w, m, vi)?;
            let x = &w.vmas[v as usize];
            if x.pages() < 2 {
                return None;
            }
            // v7.3-rc4's vma_shrink() keeps [vm_start, vm_start + k) and gives up the tail
            let k = 1 + u64::from(keep) % (x.pages() - 1);
            call("contract_shrink", vec![mm(m), vma(v), int(x.vm_start + k)])
        }
        ContractAdjustNext {
            mm: m,
            vma: vi,
            at,
            pgoff,
        } if contract => {
            let m = pick(&mms, m)?;
            let (v, _, next) = pick_vma(w, m, vi)?;
            let (x, n) = (&w.vmas[v as usize], &w.vmas[next? as usize]);
            if x.pages() < 2 || x.vm_end != n.vm_start || x.vm_file != n.vm_file {
                return None;
            }
            if !anon_compatible(x, n) {
                return None;
            }
            let e = x.vm_start + 1 + u64::from(at) % (x.pages() - 1);
            // next's start moves down to e and its pgoff with it: it must not go below 0
            if n.vm_pgoff.min(n.vm_anon_pgoff) < n.vm_start - e {
                return None;
            }
            let pg = contract_pgoff(x.vm_pgoff, pgoff);
            call("contract_adjust_next", vec![mm(m), vma(v), int(e), int(pg)])
        }
        ContractAdjustMiddle {
            mm: m,
            vma: vi,
            at,
            pgoff,
        } if contract => {
            let m = pick(&mms, m)?;
            let (v, prev, _) = pick_vma(w, m, vi)?;
            let (x, p) = (&w.vmas[v as usize], &w.vmas[prev? as usize]);
            if x.pages() < 2 || p.vm_end != x.vm_start || x.vm_file != p.vm_file {
                return None;
            }
            if !anon_compatible(x, p) {
                return None;
            }
            let e = x.vm_start + 1 + u64::from(at) % (x.pages() - 1);
            let pg = contract_pgoff(p.vm_pgoff, pgoff);
            call(
                "contract_adjust_middle",
                vec![mm(m), vma(v), int(e), int(pg)],
            )
        }
        // sys_mremap_move (issue 14): [s, s + len) of one VMA to the first free range of the
        // new length at or after `dest` (mremap_to() refuses an overlap with the old range)
        MremapMove {
            mm: m,
            vma: vi,
            start,
            len,
            grow,
            dest,
        } => {
            let m = pick(&mms, m)?;
            let (v, _, _) = pick_vma(w, m, vi)?;
            let x = &w.vmas[v as usize];
            let s = x.vm_start + u64::from(start) % x.pages();
            let ol = 1 + u64::from(len) % (x.vm_end - s);
            let nl = ol + u64::from(grow) % 3;
            let free = |n: u64| {
                !w.mms[m as usize]
                    .vmas
                    .iter()
                    .any(|(&vs, &(ve, _))| vs < n + nl && ve > n)
            };
            let n = (u64::from(dest) % SPACE..SPACE).find(|&n| free(n))?;
            if x.vm_pgoff + (s - x.vm_start) + nl > MAX_PGOFF {
                return None;
            }
            call(
                "sys_mremap_move",
                vec![mm(m), int(s), int(ol), int(nl), int(n)],
            )
        }
        // sys_mmap_growsdown (issue 14): a free range, as an anonymous mmap
        MmapGrowsdown { mm: m, start, len } => {
            let m = pick(&mms, m)?;
            let s = u64::from(start) % SPACE;
            let e = s + 1 + u64::from(len) % 4;
            let taken = w.mms[m as usize]
                .vmas
                .iter()
                .any(|(&vs, &(ve, _))| vs < e && ve > s);
            if taken || live_vma_count(w) >= MAX_VMAS {
                return None;
            }
            call("sys_mmap_growsdown", vec![mm(m), int(s), int(e)])
        }
        // do_stack_fault (issue 14): below a stack whose lower neighbour is a stack or absent
        StackFault {
            mm: m,
            vma: vi,
            below,
        } => {
            let m = pick(&mms, m)?;
            let (v, prev, _) = pick_vma(w, m, vi)?;
            let x = &w.vmas[v as usize];
            let floor = prev.map_or(0, |p| w.vmas[p as usize].vm_end);
            let prev_ok = prev.is_none_or(|p| w.vmas[p as usize].vm_flags & VM_GROWSDOWN != 0);
            if x.vm_flags & VM_GROWSDOWN == 0 || !prev_ok || x.vm_start == floor {
                return None;
            }
            let k = 1 + u64::from(below) % (x.vm_start - floor).min(x.vm_pgoff.max(1));
            if k > x.vm_pgoff {
                return None;
            }
            call("do_stack_fault", vec![mm(m), int(x.vm_start - k)])
        }
        _ => None,
    }
}

fn arg_int(c: &Call, i: usize) -> Result<u64, String> {
    match c.args.get(i) {
        Some(Value::Int(x)) if *x >= 0 => Ok(*x as u64),
        Some(Value::Bool(b)) => Ok(*b as u64),
        other => Err(format!("{c}: argument {} is {other:?}, not a page", i + 1)),
    }
}

fn arg_obj(w: &World, c: &Call, i: usize, kind: ObjKind) -> Result<u32, String> {
    let id = match c.args.get(i) {
        Some(Value::Obj(k, id)) if *k == kind => *id,
        other => {
            return Err(format!(
                "{c}: argument {} is {other:?}, not a {kind:?}",
                i + 1
            ))
        }
    };
    let exists = match kind {
        ObjKind::Mm => (id as usize) < w.mms.len() && !w.mms[id as usize].freed,
        ObjKind::Vma => vma_live(w, id),
        ObjKind::File => (id as usize) < w.files.len(),
        _ => false,
    };
    if !exists {
        return Err(format!("{c}: no live {kind:?}#{id}"));
    }
    Ok(id)
}

/// The VMA of mm containing page `a`, with its neighbours in the mm's list.
fn vma_at(w: &World, m: u32, a: u64) -> Option<(u32, Option<u32>, Option<u32>)> {
    let list = w.mm_vmas(m);
    let k = list.iter().position(|&v| {
        let x = &w.vmas[v as usize];
        x.vm_start <= a && a < x.vm_end
    })?;
    Some((
        list[k],
        k.checked_sub(1).map(|j| list[j]),
        list.get(k + 1).copied(),
    ))
}

/// Whether `c` satisfies its entry point's preconditions in `w`: the same rules
/// [`concretise`] builds calls by (the size bounds aside). `Err` says which rule fails.
pub fn check_preconditions(w: &World, c: &Call) -> Result<(), String> {
    let bad = |why: &str| Err(format!("{c}: {why}"));
    let m = arg_obj(w, c, 0, ObjKind::Mm)?;
    // the VMA a contract call names must belong to the mm it names
    let own_vma = |i: usize| -> Result<u32, String> {
        let v = arg_obj(w, c, i, ObjKind::Vma)?;
        if w.vmas[v as usize].vm_mm != Some(m) || !w.mm_vmas(m).contains(&v) {
            return Err(format!("{c}: vma#{v} is not in mm#{m}"));
        }
        Ok(v)
    };
    if !contract_keeps_pages(w, c) {
        return bad("the call would leave a mapped page at another index, file or anon_vma");
    }
    match c.func.as_str() {
        "sys_mmap" => {
            if c.args.len() != 6 {
                return bad("sys_mmap takes 6 arguments");
            }
            let (s, e) = (arg_int(c, 2)?, arg_int(c, 3)?);
            if s >= e {
                return bad("empty range");
            }
            if w.mms[m as usize]
                .vmas
                .iter()
                .any(|(&vs, &(ve, _))| vs < e && ve > s)
            {
                return bad("the range is not free");
            }
            if let Some(Value::Obj(_, _)) = c.args.get(1) {
                let f = arg_obj(w, c, 1, ObjKind::File)?;
                if w.files[f as usize].dev_zero && c.args[5] == Value::Bool(true) {
                    return bad("shared /dev/zero mappings are not modelled");
                }
            }
            Ok(())
        }
        "sys_munmap" => {
            let (s, e) = (arg_int(c, 1)?, arg_int(c, 2)?);
            if s >= e {
                return bad("empty range");
            }
            Ok(())
        }
        "sys_mprotect" => {
            let (s, e) = (arg_int(c, 1)?, arg_int(c, 2)?);
            let (v, _, _) = vma_at(w, m, s).ok_or(format!("{c}: no VMA at {s}"))?;
            if s >= e || e > w.vmas[v as usize].vm_end {
                return bad("the range is not inside one VMA");
            }
            Ok(())
        }
        "sys_mremap_expand" => {
            let (a, e) = (arg_int(c, 1)?, arg_int(c, 2)?);
            let (v, _, next) = vma_at(w, m, a).ok_or(format!("{c}: no VMA at {a}"))?;
            let x = &w.vmas[v as usize];
            if x.vm_start != a || e <= x.vm_end {
                return bad("not a VMA start, or no growth");
            }
            if next.is_some_and(|n| w.vmas[n as usize].vm_start < e) {
                return bad("the new end overlaps the next VMA");
            }
            Ok(())
        }
        "sys_mremap_shrink" => {
            let (a, e) = (arg_int(c, 1)?, arg_int(c, 2)?);
            let (v, _, _) = vma_at(w, m, a).ok_or(format!("{c}: no VMA at {a}"))?;
            let x = &w.vmas[v as usize];
            if x.vm_start != a || e <= a || e >= x.vm_end {
                return bad("the new end is not strictly inside the VMA");
            }
            Ok(())
        }
        "sys_shift_down" => {
            let (a, sh) = (arg_int(c, 1)?, arg_int(c, 2)?);
            let (v, prev, _) = vma_at(w, m, a).ok_or(format!("{c}: no VMA at {a}"))?;
            let x = &w.vmas[v as usize];
            let floor = prev.map_or(0, |p| w.vmas[p as usize].vm_end);
            if x.vm_start != a || sh == 0 || sh > a - floor || sh >= x.pages() {
                return bad("the shift does not fit below the VMA");
            }
            Ok(())
        }
        "sys_mremap_move" => {
            let (a, ol) = (arg_int(c, 1)?, arg_int(c, 2)?);
            let (nl, n) = (arg_int(c, 3)?, arg_int(c, 4)?);
            let (v, _, _) = vma_at(w, m, a).ok_or(format!("{c}: no VMA at {a}"))?;
            if ol == 0 || a + ol > w.vmas[v as usize].vm_end {
                return bad("the old range is not inside one VMA");
            }
            if nl < ol {
                return bad("a move that shrinks is not offered");
            }
            if w.mms[m as usize]
                .vmas
                .iter()
                .any(|(&vs, &(ve, _))| vs < n + nl && ve > n)
            {
                return bad("the new range is not free");
            }
            Ok(())
        }
        "sys_mmap_growsdown" => {
            let (s, e) = (arg_int(c, 1)?, arg_int(c, 2)?);
            if s >= e {
                return bad("empty range");
            }
            if w.mms[m as usize]
                .vmas
                .iter()
                .any(|(&vs, &(ve, _))| vs < e && ve > s)
            {
                return bad("the range is not free");
            }
            Ok(())
        }
        "do_stack_fault" => {
            arg_int(c, 1)?;
            Ok(())
        }
        "sys_fork" | "sys_exit" => Ok(()),
        "do_anonymous_fault" | "do_file_fault" => {
            arg_int(c, 1)?;
            Ok(())
        }
        "contract_split" => {
            let v = own_vma(1)?;
            let a = arg_int(c, 2)?;
            let x = &w.vmas[v as usize];
            if a <= x.vm_start || a >= x.vm_end {
                return bad("the split point is not strictly inside the VMA");
            }
            Ok(())
        }
        "contract_shrink" => {
            let v = own_vma(1)?;
            let e = arg_int(c, 2)?;
            let x = &w.vmas[v as usize];
            if e <= x.vm_start || e >= x.vm_end {
                return bad("the new end is not strictly inside the VMA");
            }
            Ok(())
        }
        "contract_adjust_next" | "contract_adjust_middle" => {
            let v = own_vma(1)?;
            let e = arg_int(c, 2)?;
            arg_int(c, 3)?;
            let x = &w.vmas[v as usize];
            let (_, prev, next) = vma_at(w, m, x.vm_start).ok_or(format!("{c}: lost VMA"))?;
            let other = if c.func == "contract_adjust_next" {
                next
            } else {
                prev
            };
            let Some(o) = other else {
                return bad("no neighbour on that side");
            };
            let o = &w.vmas[o as usize];
            let adjacent = o.vm_end == x.vm_start || x.vm_end == o.vm_start;
            if !adjacent || o.vm_file != x.vm_file || !anon_compatible(x, o) {
                return bad("the neighbour is not adjacent and compatible");
            }
            if e <= x.vm_start || e >= x.vm_end {
                return bad("the new boundary is not strictly inside the VMA");
            }
            // both page offsets of next move down (an mremap move leaves a private file VMA
            // with an anonymous pgoff below its start)
            if c.func == "contract_adjust_next" && o.vm_pgoff.min(o.vm_anon_pgoff) < o.vm_start - e
            {
                return bad("next's pgoff would go below 0");
            }
            Ok(())
        }
        _ => bad("not an entry point the fuzzer knows"),
    }
}
