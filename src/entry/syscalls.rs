//! The records of the callers-mode entry points: the system calls, exec's stack move, the two
//! page faults, fork and exit. Each record's `offer`, `pick` and `requires` sit together.

use super::offer::{int, Here};
use super::pick::{Pick, MAX_MMS, MAX_PGOFF, MAX_VMAS, SPACE};
use super::require::At;
use super::Arg::*;
use super::{Entry, EntryPoint, Mode, Site, MM, MM_PAGE, MM_PAGE_PAGE};
use crate::exec::host::{ObjKind, Value};
use crate::world::builtins::{VM_SHARED, VM_WRITE};
use crate::world::Folio;

type Emit<'a> = &'a mut dyn FnMut(Vec<Value>);

/// A record of the callers mode.
const fn callers(
    point: EntryPoint,
    name: &'static str,
    kernel: &'static str,
    args: &'static [super::Arg],
    site: Site,
) -> Entry {
    Entry {
        point,
        name,
        kernel,
        mode: Mode::Callers,
        tier: super::Tier::Core,
        args,
        site,
        offer: |_, _| {},
        pick: |_| None,
        requires: |_| Ok(()),
    }
}

fn bool_v(b: bool) -> Value {
    Value::Bool(b)
}

// ---- sys_mmap: a new mapping in a free range

pub(crate) const MMAP: Entry = Entry {
    offer: mmap_offer,
    pick: mmap_pick,
    requires: mmap_requires,
    ..callers(
        EntryPoint::Mmap,
        "sys_mmap",
        "mmap",
        &[Mm, FileOrNull, Page, Page, Page, Flag],
        Site::Mm,
    )
};

/// Every free range up to `max_len` pages: anonymous, each regular file at pgoff `start` (and
/// `start + pages` with `offsets`), private and (with `shared`) shared, and /dev/zero private.
fn mmap_offer(h: &Here, emit: Emit) {
    let (b, mmv) = (h.bounds, h.mmv());
    if h.vmas.len() >= b.max_vmas {
        return;
    }
    let p = b.pages;
    for s in 0..p {
        for e in s + 1..=p.min(s + b.max_len) {
            if (s..e).any(|a| h.used(a)) {
                break;
            }
            mappings(h, mmv, s, e, emit);
        }
    }
}

/// Every mapping of `[s, e)` an mmap offers, in this order: anonymous, each regular file at
/// pgoff `s` (and `s + pages` with `offsets`), private and (with `shared`) shared, and
/// /dev/zero private (`sys_mmap` and `sys_mmap_fixed`).
pub(super) fn mappings(h: &Here, mmv: Value, s: u64, e: u64, emit: Emit) {
    let b = h.bounds;
    let mapping = |f: Value, pg: u64, sh: bool| vec![mmv, f, int(s), int(e), int(pg), bool_v(sh)];
    emit(mapping(Value::Null, 0, false));
    for &f in h.regular {
        let fv = Value::Obj(ObjKind::File, f);
        let mut pgoffs = vec![s];
        if b.offsets {
            pgoffs.push(s + b.pages);
        }
        for pg in pgoffs {
            emit(mapping(fv, pg, false));
            if b.shared {
                emit(mapping(fv, pg, true));
            }
        }
    }
    for &f in h.dev_zero {
        emit(mapping(Value::Obj(ObjKind::File, f), s, false));
    }
}

/// The mapping of `[s, e)` an mmap's pick makes: file `file - 1` (modulo the count) or
/// anonymous for 0, at a pgoff from the choice, shared when the flag says so and the file is
/// not /dev/zero (`sys_mmap` and `sys_mmap_fixed`).
pub(super) fn picked_mapping(p: &Pick, s: u64, e: u64) -> Vec<Value> {
    let c = p.c;
    let fi = c.file as usize % (p.w.files.len() + 1);
    let (fv, pg, sh) = if fi == 0 {
        (Value::Null, 0, false)
    } else {
        let f = (fi - 1) as u32;
        let pg = super::pick::contract_pgoff(s, c.pgoff);
        let sh = c.flag && !p.w.files[f as usize].dev_zero;
        (Value::Obj(ObjKind::File, f), pg, sh)
    };
    vec![p.mmv(), fv, int(s), int(e), int(pg), bool_v(sh)]
}

/// An mmap's rule on its file: a shared /dev/zero mapping is not modelled.
pub(super) fn no_shared_dev_zero(a: &At) -> Result<(), String> {
    match a.obj(1) {
        Some(f) if a.w.files[f as usize].dev_zero && a.flag(5) => {
            Err("shared /dev/zero mappings are not modelled".into())
        }
        _ => Ok(()),
    }
}

/// The free gap holding `at` (or the next one, or the first), up to 8 pages from `at` clamped
/// into it; file `file - 1` (modulo the count) or anonymous for 0.
fn mmap_pick(p: &Pick) -> Option<Vec<Value>> {
    let c = p.c;
    let gaps = p.free_gaps();
    let want = u64::from(c.at) % SPACE;
    let &(gs, ge) = gaps
        .iter()
        .find(|&&(_, e)| e > want)
        .or_else(|| gaps.first())?;
    let s = want.clamp(gs, ge - 1);
    let e = s + 1 + u64::from(c.len) % (ge - s).min(8);
    Some(picked_mapping(p, s, e))
}

fn mmap_requires(a: &At) -> Result<(), String> {
    let (s, e) = (a.page(2), a.page(3));
    if s >= e {
        return Err("empty range".into());
    }
    if a.w.mm_overlaps(a.mm, s, e) {
        return Err("the range is not free".into());
    }
    no_shared_dev_zero(a)
}

// ---- sys_munmap: any range

pub(crate) const MUNMAP: Entry = Entry {
    offer: munmap_offer,
    pick: munmap_pick,
    requires: range_requires,
    ..callers(
        EntryPoint::Munmap,
        "sys_munmap",
        "munmap",
        MM_PAGE_PAGE,
        Site::Mm,
    )
};

/// Every range of the address space that touches a VMA.
pub(super) fn munmap_offer(h: &Here, emit: Emit) {
    let p = h.bounds.pages;
    for s in 0..p {
        for e in s + 1..=p {
            if (s..e).any(|a| h.used(a)) {
                emit(vec![h.mmv(), int(s), int(e)]);
            }
        }
    }
}

/// Even `at`: anchored on a VMA, starting inside or just before it, up to 12 pages; odd `at`
/// (or no VMA): anywhere below [`SPACE`], up to 16 pages.
pub(super) fn munmap_pick(p: &Pick) -> Option<Vec<Value>> {
    let (at, len) = (p.c.at, p.c.len);
    let (s, e) = match p.vma() {
        Some(v) if at & 1 == 0 => {
            let x = v.x;
            let s = (x.vm_start + u64::from(at >> 1) % (x.pages() + 2)).saturating_sub(1);
            (s, s + 1 + u64::from(len) % 12)
        }
        _ => {
            let s = u64::from(at) % SPACE;
            (s, s + 1 + u64::from(len) % 16)
        }
    };
    Some(vec![p.mmv(), int(s), int(e)])
}

pub(super) fn range_requires(a: &At) -> Result<(), String> {
    if a.page(1) >= a.page(2) {
        return Err("empty range".into());
    }
    Ok(())
}

// ---- sys_mprotect: a range inside one VMA

pub(crate) const MPROTECT: Entry = Entry {
    offer: mprotect_offer,
    pick: mprotect_pick,
    requires: mprotect_requires,
    ..callers(
        EntryPoint::Mprotect,
        "sys_mprotect",
        "mprotect",
        &[Mm, Page, Page, Flag],
        Site::Vma,
    )
};

/// Every sub-range of the VMA, toggling VM_WRITE.
fn mprotect_offer(h: &Here, emit: Emit) {
    let v = h.v();
    let writable = v.flags & VM_WRITE == 0;
    for s in v.start..v.end {
        for e in s + 1..=v.end {
            emit(vec![h.mmv(), int(s), int(e), bool_v(writable)]);
        }
    }
}

fn mprotect_pick(p: &Pick) -> Option<Vec<Value>> {
    let x = p.vma()?.x;
    let s = x.vm_start + u64::from(p.c.at) % x.pages();
    let e = s + 1 + u64::from(p.c.len) % (x.vm_end - s);
    Some(vec![p.mmv(), int(s), int(e), bool_v(p.c.flag)])
}

fn mprotect_requires(a: &At) -> Result<(), String> {
    let (s, e) = (a.page(1), a.page(2));
    let (v, _, _) = a.vma_at(s)?;
    if s >= e || e > a.w.vmas[v as usize].vm_end {
        return Err("the range is not inside one VMA".into());
    }
    Ok(())
}

// ---- sys_mremap_expand / sys_mremap_shrink: a VMA's end moves in place

pub(crate) const MREMAP_EXPAND: Entry = Entry {
    offer: expand_offer,
    pick: expand_pick,
    requires: expand_requires,
    ..callers(
        EntryPoint::MremapExpand,
        "sys_mremap_expand",
        "mremap (grow in place)",
        MM_PAGE_PAGE,
        Site::Vma,
    )
};

/// Every new end up to `max_len` pages further that stays below the next VMA (or the space).
fn expand_offer(h: &Here, emit: Emit) {
    let v = h.v();
    let limit = h.next().map_or(h.bounds.pages, |n| n.start);
    for ne in v.end + 1..=limit.min(v.end + h.bounds.max_len) {
        emit(vec![h.mmv(), int(v.start), int(ne)]);
    }
}

fn expand_pick(p: &Pick) -> Option<Vec<Value>> {
    let v = p.vma()?;
    let x = v.x;
    let limit = v.next.map_or(SPACE + 16, |n| n.vm_start);
    if limit <= x.vm_end || x.vm_pgoff + (limit - x.vm_start) > MAX_PGOFF {
        return None;
    }
    let e = x.vm_end + 1 + u64::from(p.c.len) % (limit - x.vm_end).min(8);
    Some(vec![p.mmv(), int(x.vm_start), int(e)])
}

fn expand_requires(a: &At) -> Result<(), String> {
    let (s, e) = (a.page(1), a.page(2));
    let (v, _, next) = a.vma_at(s)?;
    let x = &a.w.vmas[v as usize];
    if x.vm_start != s || e <= x.vm_end {
        return Err("not a VMA start, or no growth".into());
    }
    if next.is_some_and(|n| a.w.vmas[n as usize].vm_start < e) {
        return Err("the new end overlaps the next VMA".into());
    }
    Ok(())
}

pub(crate) const MREMAP_SHRINK: Entry = Entry {
    offer: shrink_offer,
    pick: shrink_pick,
    requires: shrink_requires,
    ..callers(
        EntryPoint::MremapShrink,
        "sys_mremap_shrink",
        "mremap (shrink)",
        MM_PAGE_PAGE,
        Site::Vma,
    )
};

/// Every new end strictly inside the VMA.
fn shrink_offer(h: &Here, emit: Emit) {
    let v = h.v();
    for ne in v.start + 1..v.end {
        emit(vec![h.mmv(), int(v.start), int(ne)]);
    }
}

fn shrink_pick(p: &Pick) -> Option<Vec<Value>> {
    let x = p.vma()?.x;
    if x.pages() < 2 {
        return None;
    }
    let e = super::pick::inside(x.vm_start, x.pages(), p.c.len);
    Some(vec![p.mmv(), int(x.vm_start), int(e)])
}

fn shrink_requires(a: &At) -> Result<(), String> {
    let (s, e) = (a.page(1), a.page(2));
    let (v, _, _) = a.vma_at(s)?;
    let x = &a.w.vmas[v as usize];
    if x.vm_start != s || e <= s || e >= x.vm_end {
        return Err("the new end is not strictly inside the VMA".into());
    }
    Ok(())
}

// ---- sys_shift_down: exec's stack move (relocate_vma_down)

pub(crate) const SHIFT_DOWN: Entry = Entry {
    offer: shift_offer,
    pick: shift_pick,
    requires: shift_requires,
    ..callers(
        EntryPoint::ShiftDown,
        "sys_shift_down",
        "exec's stack move (relocate_vma_down)",
        MM_PAGE_PAGE,
        Site::Vma,
    )
};

/// Every shift that keeps the VMA above the previous one and overlapping its old range, of
/// an anonymous VMA that has been faulted. exec never moves a stack without an anon_vma:
/// copy_strings() writes the arguments into it before setup_arg_pages() calls
/// relocate_vma_down() (fs/exec.c), and on one without, assert_sane_pgoff() (mm/vma.h, v7.3)
/// warns at the move, which keeps the pgoff.
fn shift_offer(h: &Here, emit: Emit) {
    let v = h.v();
    if v.file_backed || v.anon_vma.is_none() {
        return;
    }
    let floor = h.prev().map_or(0, |p| p.end);
    for k in 1..v.end - v.start {
        if v.start >= floor + k {
            emit(vec![h.mmv(), int(v.start), int(k)]);
        }
    }
}

fn shift_pick(p: &Pick) -> Option<Vec<Value>> {
    let v = p.vma()?;
    let x = v.x;
    if !x.is_anonymous() || x.anon_vma.is_none() {
        return None;
    }
    let floor = v.prev.map_or(0, |p| p.vm_end);
    let most = (x.vm_start - floor).min(x.pages().saturating_sub(1));
    if most == 0 {
        return None;
    }
    let sh = 1 + u64::from(p.c.len) % most;
    Some(vec![p.mmv(), int(x.vm_start), int(sh)])
}

fn shift_requires(a: &At) -> Result<(), String> {
    let (s, sh) = (a.page(1), a.page(2));
    let (v, prev, _) = a.vma_at(s)?;
    let x = &a.w.vmas[v as usize];
    let floor = prev.map_or(0, |p| a.w.vmas[p as usize].vm_end);
    if x.vm_start != s || sh == 0 || sh > s - floor || sh >= x.pages() {
        return Err("the shift does not fit below the VMA".into());
    }
    if !x.is_anonymous() || x.anon_vma.is_none() {
        return Err("exec moves only a faulted anonymous stack (one with an anon_vma)".into());
    }
    Ok(())
}

// ---- do_anonymous_fault / do_file_fault: one page of a VMA

pub(crate) const ANONYMOUS_FAULT: Entry = Entry {
    offer: anon_fault_offer,
    pick: anon_fault_pick,
    ..callers(
        EntryPoint::AnonymousFault,
        "do_anonymous_fault",
        "write fault (do_anonymous_page / do_wp_page)",
        MM_PAGE,
        Site::Page,
    )
};

/// A write fault where it would change what the page table maps: the VMA is private and
/// writable, and the pte is empty, maps a file page (copy on write), maps an anonymous folio
/// shared with another pte (copy on write), or one only it maps but of another anon_vma (reuse
/// moves it). A write to a page already exclusively its own changes nothing and is not offered.
fn anon_fault_offer(h: &Here, emit: Emit) {
    let (v, a, w) = (h.v(), h.page, h.w);
    if v.flags & VM_SHARED != 0 || v.flags & VM_WRITE == 0 {
        return;
    }
    let changes = match w.mms[h.mm as usize].ptes.get(&a) {
        Some(&Folio::Anon(f)) => {
            w.folio_mapcount(Folio::Anon(f)) > 1
                || Some(w.anon_folios[f as usize].anon_vma) != v.anon_vma
        }
        _ => true,
    };
    if changes {
        emit(vec![h.mmv(), int(a)]);
    }
}

// ---- do_anonymous_fault_vma_lock: the same write fault, under the per-VMA lock

/// The write fault of [`ANONYMOUS_FAULT`] as the kernel runs it first: under the VMA's read
/// lock alone, taking the mmap lock with a trylock to prepare an anon_vma (extended tier).
/// The same calls are offered and picked; sequentially it ends as `do_anonymous_fault` does.
pub(crate) const ANONYMOUS_FAULT_VMA_LOCK: Entry = Entry {
    offer: anon_fault_offer,
    pick: anon_fault_pick,
    tier: super::Tier::Extended,
    ..callers(
        EntryPoint::AnonymousFaultVmaLock,
        "do_anonymous_fault_vma_lock",
        "write fault under the per-VMA lock (lock_vma_under_rcu, vmf_anon_prepare)",
        MM_PAGE,
        Site::Page,
    )
};

/// The page of a fault: `at`'s low 7 bits modulo the VMA's pages.
fn fault_page(p: &Pick) -> Option<(u64, bool)> {
    let x = p.vma()?.x;
    let a = x.vm_start + u64::from(p.c.at & 0x7f) % x.pages();
    Some((a, x.vm_file.is_some() && !x.is_anonymous()))
}

fn anon_fault_pick(p: &Pick) -> Option<Vec<Value>> {
    let (a, _) = fault_page(p)?;
    Some(vec![p.mmv(), int(a)])
}

pub(crate) const FILE_FAULT: Entry = Entry {
    offer: file_fault_offer,
    pick: file_fault_pick,
    ..callers(
        EntryPoint::FileFault,
        "do_file_fault",
        "read fault of a file page (do_read_fault)",
        MM_PAGE,
        Site::Page,
    )
};

/// A read fault on a page of a file-backed VMA with no pte yet.
fn file_fault_offer(h: &Here, emit: Emit) {
    if h.v().file_backed && !h.w.mms[h.mm as usize].ptes.contains_key(&h.page) {
        emit(vec![h.mmv(), int(h.page)]);
    }
}

/// `at`'s top bit asks for a read fault; there is none where the VMA maps no file's pages.
fn file_fault_pick(p: &Pick) -> Option<Vec<Value>> {
    let (a, file_backed) = fault_page(p)?;
    (p.c.at & 0x80 != 0 && file_backed).then(|| vec![p.mmv(), int(a)])
}

// ---- sys_fork / sys_exit

pub(crate) const FORK: Entry = Entry {
    offer: |h, emit| {
        if h.live_mms < h.bounds.max_mms {
            emit(vec![h.mmv()]);
        }
    },
    pick: fork_pick,
    ..callers(
        EntryPoint::Fork,
        "sys_fork",
        "fork (dup_mmap)",
        MM,
        Site::Mm,
    )
};

fn fork_pick(p: &Pick) -> Option<Vec<Value>> {
    if p.w.mms.len() >= MAX_MMS || p.live_vma_count() + p.w.mm_vmas(p.mm).len() > MAX_VMAS {
        return None;
    }
    Some(vec![p.mmv()])
}

pub(crate) const EXIT: Entry = Entry {
    offer: |h, emit| {
        if !h.vmas.is_empty() {
            emit(vec![h.mmv()]);
        }
    },
    pick: |p| Some(vec![p.mmv()]),
    ..callers(EntryPoint::Exit, "sys_exit", "exit_mmap", MM, Site::Mm)
};
