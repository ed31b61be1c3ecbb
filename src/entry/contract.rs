//! The records of the contract-mode entry points: the internal functions that re-key a VMA,
//! called with any arguments their documented preconditions allow. Each also meets the
//! page-level rule of [`super::pages`], which [`super::check`] applies.

use super::offer::{int, Here};
use super::pick::{anon_compatible, contract_pgoff, inside, Pick};
use super::require::At;
use super::Arg::*;
use super::{Arg, Entry, EntryPoint, Mode, Site};
use crate::exec::host::{ObjKind, Value};

type Emit<'a> = &'a mut dyn FnMut(Vec<Value>);

/// A record of the contract mode, offered once per VMA.
const fn contract(
    point: EntryPoint,
    name: &'static str,
    kernel: &'static str,
    args: &'static [Arg],
) -> Entry {
    Entry {
        point,
        name,
        kernel,
        mode: Mode::Contract,
        tier: super::Tier::Core,
        args,
        site: Site::Vma,
        offer: |_, _| {},
        pick: |_| None,
        requires: |_| Ok(()),
    }
}

fn vma_v(v: u32) -> Value {
    Value::Obj(ObjKind::Vma, v)
}

/// `e` strictly inside the VMA that argument 1 names.
fn strictly_inside(a: &At, e: u64, what: &str) -> Result<(), String> {
    let x = &a.w.vmas[a.obj(1).unwrap_or(0) as usize];
    if e <= x.vm_start || e >= x.vm_end {
        return Err(format!("{what} is not strictly inside the VMA"));
    }
    Ok(())
}

// ---- contract_split: __split_vma() at a point strictly inside, new VMA below or above

pub(crate) const SPLIT: Entry = Entry {
    offer: |h: &Here, emit: Emit| {
        let v = h.v();
        for a in v.start + 1..v.end {
            for nb in [0, 1] {
                emit(vec![h.mmv(), h.vmav(), int(a), int(nb)]);
            }
        }
    },
    pick: split_pick,
    requires: |a| strictly_inside(a, a.page(2), "the split point"),
    ..contract(
        EntryPoint::ContractSplit,
        "contract_split",
        "__split_vma",
        &[Mm, Vma, Page, Flag],
    )
};

fn split_pick(p: &Pick) -> Option<Vec<Value>> {
    let v = p.vma()?;
    if v.x.pages() < 2 {
        return None;
    }
    let a = inside(v.x.vm_start, v.x.pages(), p.c.at);
    Some(vec![p.mmv(), vma_v(v.id), int(a), int(p.c.flag as u64)])
}

// ---- contract_shrink: vma_shrink() giving up the tail

pub(crate) const SHRINK: Entry = Entry {
    // v7.3-rc4's vma_shrink() gives up the tail only, keeping start and pgoff
    offer: |h: &Here, emit: Emit| {
        let v = h.v();
        for e in v.start + 1..v.end {
            emit(vec![h.mmv(), h.vmav(), int(e)]);
        }
    },
    pick: shrink_pick,
    requires: |a| strictly_inside(a, a.page(2), "the new end"),
    ..contract(
        EntryPoint::ContractShrink,
        "contract_shrink",
        "vma_shrink",
        &[Mm, Vma, Page],
    )
};

fn shrink_pick(p: &Pick) -> Option<Vec<Value>> {
    let v = p.vma()?;
    if v.x.pages() < 2 {
        return None;
    }
    // v7.3-rc4's vma_shrink() keeps [vm_start, vm_start + k) and gives up the tail
    let e = inside(v.x.vm_start, v.x.pages(), p.c.len);
    Some(vec![p.mmv(), vma_v(v.id), int(e)])
}

// ---- contract_adjust_next / contract_adjust_middle: commit_merge() moving a boundary

/// Whether a VMA starting at page `start` may be given page offset `pg` by commit_merge():
/// assert_sane_pgoff() (mm/vma.h, v7.3) warns when a truly anonymous VMA (no file, no
/// anon_vma yet) gets a pgoff other than its start page, so no caller does that, and a contract
/// call that did would be a bad call, not a finding (docs/FIDELITY.md, "Contract calls").
fn sane_pgoff(file: Option<u32>, anon_vma: Option<u32>, start: u64, pg: u64) -> bool {
    file.is_some() || anon_vma.is_some() || pg == start
}

pub(crate) const ADJUST_NEXT: Entry = Entry {
    offer: adjust_next_offer,
    pick: |p| adjust_pick(p, true),
    requires: |a| adjust_requires(a, true),
    ..contract(
        EntryPoint::ContractAdjustNext,
        "contract_adjust_next",
        "commit_merge (next's start moves down)",
        &[Mm, Vma, Page, Page],
    )
};

/// With a next VMA it may merge with: every new end strictly inside that keeps next's page
/// offsets non-negative (both move down with its start; an mremap move leaves a private file
/// VMA with an anonymous pgoff below its start), at the VMA's pgoff and one past it.
fn adjust_next_offer(h: &Here, emit: Emit) {
    let v = h.v();
    let Some(n) = h.next().filter(|n| v.mergeable(n)) else {
        return;
    };
    for end in v.start + 1..v.end {
        if n.pgoff.min(n.anon_pgoff) + end >= n.start {
            for pg in [v.pgoff, v.pgoff + 1] {
                if !sane_pgoff(v.file, v.anon_vma, v.start, pg) {
                    continue;
                }
                emit(vec![h.mmv(), h.vmav(), int(end), int(pg)]);
            }
        }
    }
}

pub(crate) const ADJUST_MIDDLE: Entry = Entry {
    offer: adjust_middle_offer,
    pick: |p| adjust_pick(p, false),
    requires: |a| adjust_requires(a, false),
    ..contract(
        EntryPoint::ContractAdjustMiddle,
        "contract_adjust_middle",
        "commit_merge (prev grows into the VMA)",
        &[Mm, Vma, Page, Page],
    )
};

/// With a previous VMA it may merge with: every new boundary strictly inside, at prev's pgoff
/// and one past it.
fn adjust_middle_offer(h: &Here, emit: Emit) {
    let v = h.v();
    let Some(pr) = h.prev().filter(|pr| pr.mergeable(v)) else {
        return;
    };
    for end in v.start + 1..v.end {
        for pg in [pr.pgoff, pr.pgoff + 1] {
            if sane_pgoff(pr.file, pr.anon_vma, pr.start, pg) {
                emit(vec![h.mmv(), h.vmav(), int(end), int(pg)]);
            }
        }
    }
}

/// A boundary strictly inside the VMA, with a neighbour (next when `next`, else prev) that
/// touches it, maps the same file and could share its anon_vma.
fn adjust_pick(p: &Pick, next: bool) -> Option<Vec<Value>> {
    let v = p.vma()?;
    let x = v.x;
    let o = if next { v.next? } else { v.prev? };
    let touches = if next {
        x.vm_end == o.vm_start
    } else {
        o.vm_end == x.vm_start
    };
    if x.pages() < 2 || !touches || x.vm_file != o.vm_file || !anon_compatible(x, o) {
        return None;
    }
    let e = inside(x.vm_start, x.pages(), p.c.at);
    // next's start moves down to e and both its page offsets with it: neither may go below 0
    if next && o.vm_pgoff.min(o.vm_anon_pgoff) < o.vm_start - e {
        return None;
    }
    let natural = if next { x.vm_pgoff } else { o.vm_pgoff };
    let pg = contract_pgoff(natural, p.c.pgoff);
    // the VMA that keeps its start takes pg: a truly anonymous one only its own start page
    let kept = if next { x } else { o };
    let pg = if sane_pgoff(kept.vm_file, kept.anon_vma, kept.vm_start, pg) {
        pg
    } else {
        kept.vm_start
    };
    Some(vec![p.mmv(), vma_v(v.id), int(e), int(pg)])
}

fn adjust_requires(a: &At, next: bool) -> Result<(), String> {
    let v = a.obj(1).unwrap_or(0);
    let x = &a.w.vmas[v as usize];
    let (_, prev, nxt) = a.vma_at(x.vm_start).map_err(|_| "lost VMA".to_string())?;
    let Some(o) = (if next { nxt } else { prev }) else {
        return Err("no neighbour on that side".into());
    };
    let o = &a.w.vmas[o as usize];
    let adjacent = o.vm_end == x.vm_start || x.vm_end == o.vm_start;
    if !adjacent || o.vm_file != x.vm_file || !anon_compatible(x, o) {
        return Err("the neighbour is not adjacent and compatible".into());
    }
    let e = a.page(2);
    strictly_inside(a, e, "the new boundary")?;
    if next && o.vm_pgoff.min(o.vm_anon_pgoff) < o.vm_start - e {
        return Err("next's pgoff would go below 0".into());
    }
    // the VMA that keeps its start takes the pgoff: middle when next moves, else prev
    let kept = if next { x } else { o };
    if !sane_pgoff(kept.vm_file, kept.anon_vma, kept.vm_start, a.page(3)) {
        return Err("a truly anonymous VMA would get a pgoff other than its start page".into());
    }
    Ok(())
}
