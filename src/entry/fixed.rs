//! The record of `sys_mmap_fixed`: mmap(MAP_FIXED) over existing mappings, an extended entry
//! point. Its arguments are those of `sys_mmap`; it is offered only for ranges that overlap at
//! least one VMA (plain `sys_mmap` keeps the free ranges) and at most [`MAX_REPLACED`] (a
//! bound of the offer only: the side tree of models/v7.3-rc4/lib/vms.rmap, shared with munmap,
//! holds any number of VMAs; the bound keeps the offer, its tests and the fuzz corpus as they
//! were when the side tree had four slots).

use super::offer::Here;
use super::pick::{Pick, SPACE};
use super::require::At;
use super::Arg::*;
use super::{Entry, EntryPoint, Mode, Site, Tier};
use crate::exec::host::Value;
use crate::world::World;

type Emit<'a> = &'a mut dyn FnMut(Vec<Value>);

/// The most VMAs one call may replace.
pub(crate) const MAX_REPLACED: usize = 4;

pub(crate) const MMAP_FIXED: Entry = Entry {
    point: EntryPoint::MmapFixed,
    name: "sys_mmap_fixed",
    kernel: "mmap (MAP_FIXED over existing mappings: __mmap_region, vms_gather_munmap_vmas)",
    mode: Mode::Callers,
    tier: Tier::Extended,
    args: &[Mm, FileOrNull, Page, Page, Page, Flag],
    site: Site::Mm,
    offer: fixed_offer,
    pick: fixed_pick,
    requires: fixed_requires,
};

/// How many VMAs of `mm` the range `[s, e)` overlaps.
pub(super) fn overlapped(w: &World, mm: u32, s: u64, e: u64) -> usize {
    w.mms[mm as usize]
        .vmas
        .iter()
        .filter(|(&vs, &(ve, _))| vs < e && ve > s)
        .count()
}

/// Every range up to `max_len` pages that overlaps one to [`MAX_REPLACED`] VMAs, with the
/// mappings `sys_mmap` offers on a free range: anonymous, each regular file at pgoff `start`
/// (and `start + pages` with `offsets`), private and (with `shared`) shared, /dev/zero
/// private. A replacing map splits at most two VMAs, so it may leave one more VMA than it
/// found: it is offered while the mm has fewer than `max_vmas`.
fn fixed_offer(h: &Here, emit: Emit) {
    let mmv = h.mmv();
    replaced_ranges(h, &mut |s, e| super::syscalls::mappings(h, mmv, s, e, emit));
}

/// Every range `[s, e)` up to `max_len` pages that overlaps one to [`MAX_REPLACED`] VMAs,
/// while the mm has fewer than `max_vmas` (shared with `sys_mmap_fixed_fail`).
pub(super) fn replaced_ranges(h: &Here, f: &mut dyn FnMut(u64, u64)) {
    let b = h.bounds;
    if h.vmas.len() >= b.max_vmas {
        return;
    }
    let p = b.pages;
    for s in 0..p {
        for e in s + 1..=p.min(s + b.max_len) {
            let n = h.vmas.iter().filter(|v| v.start < e && v.end > s).count();
            if n == 0 || n > MAX_REPLACED {
                continue;
            }
            f(s, e);
        }
    }
}

/// The chosen VMA's range shifted by `at % 5 - 2` pages and `1 + len % 8` pages long (so it
/// may cover, straddle or reach past either end), kept below [`SPACE`]; file `file - 1`
/// (modulo the count) or anonymous for 0, as `sys_mmap`'s pick.
fn fixed_pick(p: &Pick) -> Option<Vec<Value>> {
    let (s, e) = picked_range(p)?;
    Some(super::syscalls::picked_mapping(p, s, e))
}

/// The range of [`fixed_pick`], when it overlaps one to [`MAX_REPLACED`] VMAs.
pub(super) fn picked_range(p: &Pick) -> Option<(u64, u64)> {
    let c = p.c;
    let x = p.vma()?.x;
    let s = (x.vm_start + u64::from(c.at) % 5).checked_sub(2)?;
    let e = (s + 1 + u64::from(c.len) % 8).min(SPACE);
    if s >= e || !(1..=MAX_REPLACED).contains(&overlapped(p.w, p.mm, s, e)) {
        return None;
    }
    Some((s, e))
}

fn fixed_requires(a: &At) -> Result<(), String> {
    replaced_range(a, a.page(2), a.page(3))?;
    super::syscalls::no_shared_dev_zero(a)
}

/// `[s, e)` is not empty and overlaps one to [`MAX_REPLACED`] VMAs.
pub(super) fn replaced_range(a: &At, s: u64, e: u64) -> Result<(), String> {
    if s >= e {
        return Err("empty range".into());
    }
    match overlapped(a.w, a.mm, s, e) {
        0 => Err("the range overlaps no VMA (sys_mmap maps a free range)".into()),
        n if n > MAX_REPLACED => Err(format!(
            "the range overlaps {n} VMAs (offered over at most {MAX_REPLACED})"
        )),
        _ => Ok(()),
    }
}
