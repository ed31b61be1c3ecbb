//! The exhaustive side of [`super::TABLE`]: the bounds a scope puts on offered calls, the view
//! of one mm each record's `offer` reads, and [`offers`], which walks the table's sites for
//! every live mm and keeps each call that [`super::check`] accepts.

use super::{judge, Entry, EntryPoint, Site, TABLE};
use crate::exec::host::{ObjKind, Value};
use crate::world::scenario::Call;
use crate::world::World;

/// The bounds a scope puts on the calls offered.
#[derive(Clone, Copy, Debug)]
pub struct Bounds {
    /// Address space `[0, pages)`.
    pub pages: u64,
    /// Longest range mmap creates and mremap grows by.
    pub max_len: u64,
    /// mmap is offered while an mm has fewer VMAs than this.
    pub max_vmas: usize,
    /// fork is offered while fewer mms are live.
    pub max_mms: usize,
    /// Shared file mappings are offered.
    pub shared: bool,
    /// File mappings at pgoff `start + pages` are offered besides pgoff `start`.
    pub offsets: bool,
}

/// One VMA as the offers see it.
pub struct V {
    pub id: u32,
    pub start: u64,
    pub end: u64,
    pub pgoff: u64,
    /// The anonymous page offset (below `start` after an mremap move of a private file VMA).
    pub anon_pgoff: u64,
    pub flags: i64,
    pub file: Option<u32>,
    pub anon_vma: Option<u32>,
    /// Has a file and is not anonymous (a private /dev/zero VMA is anonymous).
    pub file_backed: bool,
}

impl V {
    /// What commit_merge() requires of two VMAs it merges: same file and flags, the file part
    /// linear, and one anon_vma (vma_merge_existing_range() dups it before committing).
    pub fn mergeable(&self, next: &V) -> bool {
        self.flags == next.flags
            && self.file == next.file
            && self.anon_vma == next.anon_vma
            && self.end == next.start
    }
}

/// Where an offer is made: an mm, and for the `Vma` and `Page` sites one of its VMAs (an index
/// into `vmas`) and for `Page` one page of it.
pub struct Here<'a> {
    pub w: &'a World,
    pub bounds: Bounds,
    pub mm: u32,
    /// The mm's VMAs in address order.
    pub vmas: &'a [V],
    /// Regular files and /dev/zero files of the world.
    pub regular: &'a [u32],
    pub dev_zero: &'a [u32],
    pub live_mms: usize,
    pub vma: usize,
    pub page: u64,
}

impl Here<'_> {
    pub(crate) fn mmv(&self) -> Value {
        Value::Obj(ObjKind::Mm, self.mm)
    }
    /// The VMA of a `Vma` or `Page` site.
    pub fn v(&self) -> &V {
        &self.vmas[self.vma]
    }
    pub(crate) fn vmav(&self) -> Value {
        Value::Obj(ObjKind::Vma, self.v().id)
    }
    /// The previous and next VMAs of the site's VMA.
    pub fn prev(&self) -> Option<&V> {
        self.vma.checked_sub(1).map(|i| &self.vmas[i])
    }
    pub fn next(&self) -> Option<&V> {
        self.vmas.get(self.vma + 1)
    }
    /// Whether page `a` lies in one of the mm's VMAs.
    pub fn used(&self, a: u64) -> bool {
        self.vmas.iter().any(|v| v.start <= a && a < v.end)
    }
}

pub fn int(i: u64) -> Value {
    Value::Int(i as i64)
}

fn view(w: &World, mm: u32) -> Vec<V> {
    w.mm_vmas(mm)
        .into_iter()
        .map(|id| {
            let x = &w.vmas[id as usize];
            V {
                id,
                start: x.vm_start,
                end: x.vm_end,
                pgoff: x.vm_pgoff,
                anon_pgoff: x.vm_anon_pgoff,
                flags: x.vm_flags,
                file: x.vm_file,
                anon_vma: x.anon_vma,
                file_backed: x.vm_file.is_some() && !x.is_anonymous(),
            }
        })
        .collect()
}

/// Every call the records `allowed` says yes to offer in `w`, in table order per mm (see
/// [`Site`]), each kept only when [`super::check`] accepts it.
pub fn offers(w: &World, bounds: Bounds, allowed: &dyn Fn(EntryPoint) -> bool) -> Vec<Call> {
    let mut out = Vec::new();
    each_offer(w, bounds, allowed, &mut |e, call| {
        if judge(w, e, &call).is_ok() {
            out.push(call);
        }
    });
    out
}

/// Every tuple the records `allowed` says yes to offer in `w`, before the preconditions are
/// checked, passed to `f` with its record in the order [`offers`] keeps them.
pub fn each_offer(
    w: &World,
    bounds: Bounds,
    allowed: &dyn Fn(EntryPoint) -> bool,
    f: &mut dyn FnMut(&'static Entry, Call),
) {
    let on: Vec<bool> = TABLE.iter().map(|e| allowed(e.point)).collect();
    let files = |dz: bool| -> Vec<u32> {
        (0..w.files.len() as u32)
            .filter(|&f| w.files[f as usize].dev_zero == dz)
            .collect()
    };
    let (regular, dev_zero) = (files(false), files(true));
    let live_mms = w.mms.iter().filter(|m| !m.freed).count();
    let mut offer = |k: usize, here: &Here| {
        if on[k] {
            let e = &TABLE[k];
            (e.offer)(here, &mut |args| {
                let func = e.name.to_string();
                f(e, Call { func, args });
            });
        }
    };
    for (m, mm) in w.mms.iter().enumerate() {
        if mm.freed {
            continue;
        }
        let vmas = view(w, m as u32);
        let mut here = Here {
            w,
            bounds,
            mm: m as u32,
            vmas: &vmas,
            regular: &regular,
            dev_zero: &dev_zero,
            live_mms,
            vma: 0,
            page: 0,
        };
        let mut k = 0;
        while k < TABLE.len() {
            if TABLE[k].site == Site::Mm {
                offer(k, &here);
                k += 1;
                continue;
            }
            // a run of per-VMA records, walked once per VMA
            let run = k + TABLE[k..].iter().take_while(|e| e.site != Site::Mm).count();
            for (i, v) in vmas.iter().enumerate() {
                here.vma = i;
                let mut j = k;
                while j < run {
                    if TABLE[j].site == Site::Vma {
                        offer(j, &here);
                        j += 1;
                        continue;
                    }
                    // a run of per-page records, walked once per page of the VMA
                    let pages = j + TABLE[j..run]
                        .iter()
                        .take_while(|e| e.site == Site::Page)
                        .count();
                    for a in v.start..v.end {
                        here.page = a;
                        for p in j..pages {
                            offer(p, &here);
                        }
                    }
                    j = pages;
                }
            }
            k = run;
        }
    }
}
