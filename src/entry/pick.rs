//! The fuzzer's side of [`super::TABLE`]: the raw choices an abstract operation carries, the
//! fixed bounds its calls stay in, and the world view each record's `pick` reads. Every axis
//! of a pick (which VMA, where in it, how long) takes its choice byte modulo the axis's length,
//! so a byte sequence keeps meaning the same call as long as the world is the same.

use crate::check::membership::vma_live;
use crate::exec::host::{ObjKind, Value};
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

/// The raw choices of one abstract operation, by what they choose. An operation fills the
/// slots it has; the rest stay 0.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Choice {
    /// Which live mm.
    pub mm: u8,
    /// Which VMA of the mm's list.
    pub vma: u8,
    /// Which file, or none (0).
    pub file: u8,
    /// Where: a start address, a point inside a VMA.
    pub at: u8,
    /// How many pages: a length, how far to grow, shrink or shift.
    pub len: u8,
    /// A page offset: top bit clear for the natural one, set for `pgoff % 64`.
    pub pgoff: u8,
    /// A yes/no choice: shared, writable, new below.
    pub flag: bool,
    /// How many pages a move grows the range by.
    pub grow: u8,
    /// Where a move goes: a destination address.
    pub dest: u8,
}

/// A pick in the world before the call: the mm already chosen.
pub struct Pick<'a> {
    pub w: &'a World,
    pub mm: u32,
    pub c: Choice,
}

/// The VMA a pick chose, with its neighbours in the mm's list.
pub struct Picked<'a> {
    pub id: u32,
    pub x: &'a Vma,
    pub prev: Option<&'a Vma>,
    pub next: Option<&'a Vma>,
}

impl<'a> Pick<'a> {
    pub(crate) fn mmv(&self) -> Value {
        Value::Obj(ObjKind::Mm, self.mm)
    }
    /// The VMA at position `c.vma` (modulo the count) of the mm's list; `None` when it has none.
    pub fn vma(&self) -> Option<Picked<'a>> {
        let list = self.w.mm_vmas(self.mm);
        if list.is_empty() {
            return None;
        }
        let k = self.c.vma as usize % list.len();
        let at = |i: usize| &self.w.vmas[list[i] as usize];
        Some(Picked {
            id: list[k],
            x: at(k),
            prev: k.checked_sub(1).map(at),
            next: (k + 1 < list.len()).then(|| at(k + 1)),
        })
    }
    /// Free ranges [s, e) of the mm below [`SPACE`], in address order.
    pub(crate) fn free_gaps(&self) -> Vec<(u64, u64)> {
        let mut gaps = Vec::new();
        let mut at = 0;
        for (&s, &(e, _)) in &self.w.mms[self.mm as usize].vmas {
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
    /// How many VMAs of the world are live.
    pub(crate) fn live_vma_count(&self) -> usize {
        (0..self.w.vmas.len() as u32)
            .filter(|&v| vma_live(self.w, v))
            .count()
    }
}

/// Element `i` (modulo the length) of `xs`; `None` when it is empty.
pub fn pick<T: Copy>(xs: &[T], i: u8) -> Option<T> {
    (!xs.is_empty()).then(|| xs[i as usize % xs.len()])
}

/// The live mms of `w`, in id order.
pub(crate) fn live_mms(w: &World) -> Vec<u32> {
    (0..w.mms.len() as u32)
        .filter(|&m| !w.mms[m as usize].freed)
        .collect()
}

/// A page `1..pages` past `start`, strictly inside a VMA of `pages` pages (at least 2).
pub fn inside(start: u64, pages: u64, choice: u8) -> u64 {
    start + 1 + u64::from(choice) % (pages - 1)
}

/// A pgoff for a contract call: the VMA's natural one for `choice < 128`, otherwise an
/// arbitrary small one (contract mode allows any pgoff).
pub(crate) fn contract_pgoff(natural: u64, choice: u8) -> u64 {
    if choice & 0x80 == 0 {
        natural
    } else {
        u64::from(choice % 64)
    }
}

/// Whether two VMAs could share an anon_vma: not two different ones.
pub(crate) fn anon_compatible(a: &Vma, b: &Vma) -> bool {
    !(a.anon_vma.is_some() && b.anon_vma.is_some() && a.anon_vma != b.anon_vma)
}
