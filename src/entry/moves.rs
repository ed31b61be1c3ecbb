//! The records of the callers-mode entry points that move a VMA or grow one downwards: mremap
//! moving a range to a free destination (`sys_mremap_move`), an anonymous MAP_GROWSDOWN mapping
//! (`sys_mmap_growsdown`) and the fault below such a stack that grows it (`do_stack_fault`).
//! Each record's `offer`, `pick` and `requires` sit together, as in `syscalls.rs`.

use super::offer::{int, Here};
use super::pick::{Pick, MAX_PGOFF, MAX_VMAS, SPACE};
use super::require::At;
use super::Arg::*;
use super::{Entry, EntryPoint, Mode, Site, MM_PAGE};
use crate::exec::host::Value;
use crate::world::builtins::VM_GROWSDOWN;

type Emit<'a> = &'a mut dyn FnMut(Vec<Value>);

// ---- sys_mremap_move: mremap(MREMAP_MAYMOVE | MREMAP_FIXED) of a range inside one VMA

pub(crate) const MREMAP_MOVE: Entry = Entry {
    point: EntryPoint::MremapMove,
    name: "sys_mremap_move",
    kernel: "mremap (MREMAP_MAYMOVE|MREMAP_FIXED: move_vma, copy_vma)",
    mode: Mode::Callers,
    tier: super::Tier::Core,
    args: &[Mm, Page, Page, Page, Page],
    site: Site::Vma,
    offer: move_offer,
    pick: move_pick,
    requires: move_requires,
};

/// Every range `[s, e)` inside the VMA moved to every free range of the same or a larger
/// length, up to `max_len` pages (mremap_to() refuses a destination overlapping the source,
/// and the source lies in a VMA, so a free destination never overlaps it).
fn move_offer(h: &Here, emit: Emit) {
    let (v, p) = (h.v(), h.bounds.pages);
    for s in v.start..v.end {
        for e in s + 1..=v.end {
            for nl in e - s..=h.bounds.max_len.min(p) {
                for n in (0..=p - nl).filter(|&n| !(n..n + nl).any(|a| h.used(a))) {
                    emit(vec![h.mmv(), int(s), int(e - s), int(nl), int(n)]);
                }
            }
        }
    }
}

/// `[at, at + len)` of the chosen VMA, grown by `grow % 3` pages, to the first free range at
/// or after `dest` below [`SPACE`].
fn move_pick(p: &Pick) -> Option<Vec<Value>> {
    let x = p.vma()?.x;
    let s = x.vm_start + u64::from(p.c.at) % x.pages();
    let ol = 1 + u64::from(p.c.len) % (x.vm_end - s);
    let nl = ol + u64::from(p.c.grow) % 3;
    let n = (u64::from(p.c.dest) % SPACE..SPACE).find(|&n| !p.w.mm_overlaps(p.mm, n, n + nl))?;
    if x.vm_pgoff + (s - x.vm_start) + nl > MAX_PGOFF {
        return None;
    }
    Some(vec![p.mmv(), int(s), int(ol), int(nl), int(n)])
}

fn move_requires(a: &At) -> Result<(), String> {
    let (s, ol) = (a.page(1), a.page(2));
    let (nl, n) = (a.page(3), a.page(4));
    let (v, _, _) = a.vma_at(s)?;
    if ol == 0 || s + ol > a.w.vmas[v as usize].vm_end {
        return Err("the old range is not inside one VMA".into());
    }
    if nl < ol {
        return Err("a move that shrinks is not offered".into());
    }
    if a.w.mm_overlaps(a.mm, n, n + nl) {
        return Err("the new range is not free".into());
    }
    Ok(())
}

// ---- sys_mmap_growsdown: an anonymous MAP_GROWSDOWN mapping in a free range

pub(crate) const MMAP_GROWSDOWN: Entry = Entry {
    point: EntryPoint::MmapGrowsdown,
    name: "sys_mmap_growsdown",
    kernel: "mmap (MAP_PRIVATE|MAP_ANONYMOUS|MAP_GROWSDOWN)",
    mode: Mode::Callers,
    tier: super::Tier::Core,
    args: &[Mm, Page, Page],
    site: Site::Mm,
    offer: stack_offer,
    pick: growsdown_pick,
    requires: stack_requires,
};

/// Every free page, as a one-page stack (longer stacks come from growth; every length would
/// more than double the default scope's states). Also the offer of the upward stack
/// (`remap_ext`).
pub(super) fn stack_offer(h: &Here, emit: Emit) {
    if h.vmas.len() >= h.bounds.max_vmas {
        return;
    }
    for s in (0..h.bounds.pages).filter(|&s| !h.used(s)) {
        emit(vec![h.mmv(), int(s), int(s + 1)]);
    }
}

/// `[at, at + 1 + len % 4)` below [`SPACE`] when it is free.
fn growsdown_pick(p: &Pick) -> Option<Vec<Value>> {
    let s = u64::from(p.c.at) % SPACE;
    let e = s + 1 + u64::from(p.c.len) % 4;
    if p.w.mm_overlaps(p.mm, s, e) || p.live_vma_count() >= MAX_VMAS {
        return None;
    }
    Some(vec![p.mmv(), int(s), int(e)])
}

/// A new stack's range is non-empty and free (both stack directions).
pub(super) fn stack_requires(a: &At) -> Result<(), String> {
    let (s, e) = (a.page(1), a.page(2));
    if s >= e {
        return Err("empty range".into());
    }
    if a.w.mm_overlaps(a.mm, s, e) {
        return Err("the range is not free".into());
    }
    Ok(())
}

// ---- do_stack_fault: a fault below a VM_GROWSDOWN VMA, which expand_downwards() grows

pub(crate) const STACK_FAULT: Entry = Entry {
    point: EntryPoint::StackFault,
    name: "do_stack_fault",
    kernel: "fault below a stack (expand_stack, expand_downwards)",
    mode: Mode::Callers,
    tier: super::Tier::Core,
    args: MM_PAGE,
    site: Site::Vma,
    offer: stack_fault_offer,
    pick: stack_fault_pick,
    requires: |_| Ok(()),
};

/// Every page between the previous VMA (or 0) and a stack whose previous VMA is a stack too or
/// absent (the kernel's stack_guard_gap is wider than the whole explored space, so any other
/// VMA below blocks growth), as far down as the stack's pgoff allows.
fn stack_fault_offer(h: &Here, emit: Emit) {
    let v = h.v();
    let below_ok = h.prev().is_none_or(|p| p.flags & VM_GROWSDOWN != 0);
    if v.flags & VM_GROWSDOWN == 0 || !below_ok {
        return;
    }
    let floor = h.prev().map_or(0, |p| p.end);
    for a in (floor..v.start).filter(|&a| v.start - a <= v.pgoff) {
        emit(vec![h.mmv(), int(a)]);
    }
}

/// `1 + below % room` pages below the chosen stack, under the same rules as the offer.
fn stack_fault_pick(p: &Pick) -> Option<Vec<Value>> {
    let v = p.vma()?;
    let x = v.x;
    let floor = v.prev.map_or(0, |q| q.vm_end);
    let prev_ok = v.prev.is_none_or(|q| q.vm_flags & VM_GROWSDOWN != 0);
    if x.vm_flags & VM_GROWSDOWN == 0 || !prev_ok || x.vm_start == floor {
        return None;
    }
    let k = 1 + u64::from(p.c.len) % (x.vm_start - floor).min(x.vm_pgoff.max(1));
    if k > x.vm_pgoff {
        return None;
    }
    Some(vec![p.mmv(), int(x.vm_start - k)])
}
