//! The records of the extended-tier entry points that finish mremap's moves and stack growth:
//! a move that shrinks (`sys_mremap_move_shrink`), a move that leaves the source mapped
//! (`sys_mremap_dontunmap`, MREMAP_DONTUNMAP), and CONFIG_STACK_GROWSUP's stack
//! (`setup_stack_growsup`) with the fault above it that grows it (`do_stack_fault_up`,
//! expand_upwards). Each record's `offer`, `pick` and `requires` sit together, as in
//! `moves.rs`.

use super::offer::{int, Here};
use super::pick::{Pick, MAX_PGOFF, MAX_VMAS, SPACE};
use super::require::At;
use super::Arg::*;
use super::{Entry, EntryPoint, Mode, Site, Tier, MM_PAGE};
use crate::exec::host::Value;
use crate::world::builtins::VM_GROWSUP;

type Emit<'a> = &'a mut dyn FnMut(Vec<Value>);

/// Whether `[a, a + al)` and `[b, b + bl)` overlap (mremap's `vrm_overlaps()`).
fn overlaps(a: u64, al: u64, b: u64, bl: u64) -> bool {
    a < b + bl && b < a + al
}

/// The first free range of `len` pages of the picked mm at or after `from % SPACE`, below
/// [`SPACE`], that does not overlap `[s, s + sl)`.
fn free_dest(p: &Pick, from: u8, len: u64, s: u64, sl: u64) -> Option<u64> {
    (u64::from(from) % SPACE..SPACE.saturating_sub(len) + 1)
        .find(|&n| !p.w.mm_overlaps(p.mm, n, n + len) && !overlaps(s, sl, n, len))
}

// ---- sys_mremap_move_shrink: mremap(MREMAP_MAYMOVE | MREMAP_FIXED) to a shorter length

pub(crate) const MREMAP_MOVE_SHRINK: Entry = Entry {
    point: EntryPoint::MremapMoveShrink,
    name: "sys_mremap_move_shrink",
    kernel: "mremap (MREMAP_MAYMOVE|MREMAP_FIXED, new_len < old_len: shrink_vma, move_vma)",
    mode: Mode::Callers,
    tier: Tier::Extended,
    args: &[Mm, Page, Page, Page, Page],
    site: Site::Vma,
    offer: shrink_move_offer,
    pick: shrink_move_pick,
    requires: shrink_move_requires,
};

/// Every range `[s, s + nl)` inside the VMA, as the kept part of an old range `[s, s + ol)`
/// with `nl < ol <= max_len` inside the explored space (its tail may reach past the VMA, as
/// the kernel allows), moved to every free range of `nl` pages apart from the old range.
fn shrink_move_offer(h: &Here, emit: Emit) {
    let (v, p) = (h.v(), h.bounds.pages);
    for s in v.start..v.end {
        for nl in 1..=v.end - s {
            for ol in nl + 1..=h.bounds.max_len.min(p - s) {
                for n in (0..=p - nl)
                    .filter(|&n| !(n..n + nl).any(|a| h.used(a)) && !overlaps(s, ol, n, nl))
                {
                    emit(vec![h.mmv(), int(s), int(ol), int(nl), int(n)]);
                }
            }
        }
    }
}

/// `[at, at + len)` of the chosen VMA kept, `1 + grow % 3` pages more unmapped after it, moved
/// to the first free range at or after `dest` that misses the old range.
fn shrink_move_pick(p: &Pick) -> Option<Vec<Value>> {
    let x = p.vma()?.x;
    let s = x.vm_start + u64::from(p.c.at) % x.pages();
    let nl = 1 + u64::from(p.c.len) % (x.vm_end - s);
    let ol = nl + 1 + u64::from(p.c.grow) % 3;
    let n = free_dest(p, p.c.dest, nl, s, ol)?;
    if x.vm_pgoff + (s - x.vm_start) + nl > MAX_PGOFF {
        return None;
    }
    Some(vec![p.mmv(), int(s), int(ol), int(nl), int(n)])
}

fn shrink_move_requires(a: &At) -> Result<(), String> {
    let (s, ol) = (a.page(1), a.page(2));
    let (nl, n) = (a.page(3), a.page(4));
    if nl == 0 || nl >= ol {
        return Err("not a shrinking move (0 < new_len < old_len)".into());
    }
    let (v, _, _) = a.vma_at(s)?;
    if s + nl > a.w.vmas[v as usize].vm_end {
        return Err("the part that moves is not inside one VMA".into());
    }
    if overlaps(s, ol, n, nl) {
        return Err("the new range overlaps the old one".into());
    }
    if a.w.mm_overlaps(a.mm, n, n + nl) {
        return Err("the new range is not free".into());
    }
    Ok(())
}

// ---- sys_mremap_dontunmap: mremap(MREMAP_MAYMOVE | MREMAP_FIXED | MREMAP_DONTUNMAP)

pub(crate) const MREMAP_DONTUNMAP: Entry = Entry {
    point: EntryPoint::MremapDontunmap,
    name: "sys_mremap_dontunmap",
    kernel: "mremap (MREMAP_MAYMOVE|MREMAP_FIXED|MREMAP_DONTUNMAP: move_vma, dontunmap_complete)",
    mode: Mode::Callers,
    tier: Tier::Extended,
    args: &[Mm, Page, Page, Page],
    site: Site::Vma,
    offer: dontunmap_offer,
    pick: dontunmap_pick,
    requires: dontunmap_requires,
};

/// Every range `[s, e)` inside the VMA moved to every free range of its length, while the mm
/// has room for the copy (the source stays).
fn dontunmap_offer(h: &Here, emit: Emit) {
    let (v, p) = (h.v(), h.bounds.pages);
    if h.vmas.len() >= h.bounds.max_vmas {
        return;
    }
    for s in v.start..v.end {
        for e in s + 1..=v.end {
            let l = e - s;
            for n in (0..=p - l).filter(|&n| !(n..n + l).any(|a| h.used(a))) {
                emit(vec![h.mmv(), int(s), int(l), int(n)]);
            }
        }
    }
}

/// `[at, at + len)` of the chosen VMA to the first free range at or after `dest`.
fn dontunmap_pick(p: &Pick) -> Option<Vec<Value>> {
    let x = p.vma()?.x;
    let s = x.vm_start + u64::from(p.c.at) % x.pages();
    let l = 1 + u64::from(p.c.len) % (x.vm_end - s);
    let n = free_dest(p, p.c.dest, l, s, l)?;
    if p.live_vma_count() >= MAX_VMAS {
        return None;
    }
    Some(vec![p.mmv(), int(s), int(l), int(n)])
}

fn dontunmap_requires(a: &At) -> Result<(), String> {
    let (s, l, n) = (a.page(1), a.page(2), a.page(3));
    let (v, _, _) = a.vma_at(s)?;
    if l == 0 || s + l > a.w.vmas[v as usize].vm_end {
        return Err("the old range is not inside one VMA".into());
    }
    if a.w.mm_overlaps(a.mm, n, n + l) {
        return Err("the new range is not free".into());
    }
    Ok(())
}

// ---- setup_stack_growsup: CONFIG_STACK_GROWSUP's stack VMA (exec's, on parisc)

pub(crate) const SETUP_STACK_GROWSUP: Entry = Entry {
    point: EntryPoint::SetupStackGrowsup,
    name: "setup_stack_growsup",
    kernel: "exec's VM_GROWSUP stack (CONFIG_STACK_GROWSUP, parisc: __bprm_mm_init)",
    mode: Mode::Callers,
    tier: Tier::Extended,
    args: &[Mm, Page, Page],
    site: Site::Mm,
    offer: super::moves::stack_offer,
    pick: growsup_pick,
    requires: super::moves::stack_requires,
};

/// `[at, at + 1 + len % 4)` below [`SPACE`] when it is free.
fn growsup_pick(p: &Pick) -> Option<Vec<Value>> {
    let s = u64::from(p.c.at) % SPACE;
    let e = s + 1 + u64::from(p.c.len) % 4;
    if e > SPACE || p.w.mm_overlaps(p.mm, s, e) || p.live_vma_count() >= MAX_VMAS {
        return None;
    }
    Some(vec![p.mmv(), int(s), int(e)])
}

// ---- do_stack_fault_up: a fault above a VM_GROWSUP VMA, which expand_upwards() grows

pub(crate) const STACK_FAULT_UP: Entry = Entry {
    point: EntryPoint::StackFaultUp,
    name: "do_stack_fault_up",
    kernel: "fault above a CONFIG_STACK_GROWSUP stack (expand_stack, expand_upwards)",
    mode: Mode::Callers,
    tier: Tier::Extended,
    args: MM_PAGE,
    site: Site::Vma,
    offer: stack_fault_up_offer,
    pick: stack_fault_up_pick,
    requires: stack_fault_up_requires,
};

/// Every page between a VM_GROWSUP VMA and the next VMA (or the end of the space) when the
/// next one is a VM_GROWSUP stack too or absent (stack_guard_gap is wider than the explored
/// space, so any other VMA above blocks growth).
fn stack_fault_up_offer(h: &Here, emit: Emit) {
    let v = h.v();
    let above_ok = h.next().is_none_or(|n| n.flags & VM_GROWSUP != 0);
    if v.flags & VM_GROWSUP == 0 || !above_ok {
        return;
    }
    let ceiling = h.next().map_or(h.bounds.pages, |n| n.start);
    for a in v.end..ceiling {
        emit(vec![h.mmv(), int(a)]);
    }
}

/// `len % room` pages above the chosen stack's end, under the same rules as the offer.
fn stack_fault_up_pick(p: &Pick) -> Option<Vec<Value>> {
    let v = p.vma()?;
    let x = v.x;
    let ceiling = v.next.map_or(SPACE, |q| q.vm_start);
    let next_ok = v.next.is_none_or(|q| q.vm_flags & VM_GROWSUP != 0);
    if x.vm_flags & VM_GROWSUP == 0 || !next_ok || x.vm_end >= ceiling {
        return None;
    }
    Some(vec![
        p.mmv(),
        int(x.vm_end + u64::from(p.c.len) % (ceiling - x.vm_end)),
    ])
}

fn stack_fault_up_requires(a: &At) -> Result<(), String> {
    let addr = a.page(1);
    if a.vma_at(addr).is_ok() {
        return Err("the address is mapped: no stack grows".into());
    }
    let below = a.w.mms[a.mm as usize]
        .vmas
        .range(..addr)
        .next_back()
        .map(|(_, &(_, v))| v);
    if below.is_none_or(|v| a.w.vmas[v as usize].vm_flags & VM_GROWSUP == 0) {
        return Err("no VM_GROWSUP VMA below the address".into());
    }
    Ok(())
}
