//! One VMA layout in the terms both sides can show: range, backing (anonymous or which model
//! file), file offset, protection, shared/private and anonymous memory. Built from a model mm
//! and from the kernel's smaps; compared field by field and rendered side by side with the
//! differing VMAs marked.

use super::procmaps::KernelVma;
use crate::textbuf::PushFmt;
use crate::world::builtins::{VM_ACCOUNT, VM_SHARED, VM_WRITE};
use crate::world::World;

/// What a VMA maps.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Backing {
    /// No file (MAP_ANONYMOUS).
    Anon,
    /// Model file `file#N` (a temp file, or /dev/zero for the zero file).
    File(usize),
    /// A kernel VMA whose file is none of the model's (device, inode).
    Other(u64, u64),
}

/// One VMA, in model pages.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LVma {
    pub start: u64,
    pub end: u64,
    pub backing: Backing,
    /// File offset in pages; compared only for file VMAs (the kernel shows 0 for anonymous ones).
    pub pgoff: u64,
    pub writable: bool,
    pub shared: bool,
    /// `VM_ACCOUNT` (kernel: smaps `VmFlags` shows `ac`).
    pub account: bool,
    /// Model: the VMA has an anon_vma. Kernel: smaps shows anonymous memory.
    pub anon: bool,
    /// Kernel only: anonymous pages (smaps `Anonymous:` / 4 KiB).
    pub anon_pages: u64,
    /// Model only: which anon_vma (canonical id), to tell whether two VMAs could merge.
    pub anon_id: Option<u32>,
}

impl LVma {
    /// The fields that must be equal (anonymous memory is compared separately).
    pub(crate) fn same_shape(&self, o: &LVma) -> bool {
        self.start == o.start
            && self.end == o.end
            && self.backing == o.backing
            && (self.backing == Backing::Anon || self.pgoff == o.pgoff)
            && self.writable == o.writable
            && self.shared == o.shared
            && self.account == o.account
    }

    /// `[0, 2) file#0 pgoff 0 rw private anon` (`names` names model files).
    pub fn describe(&self, names: &[String], kernel: bool) -> String {
        let mut s = format!("[{}, {})", self.start, self.end);
        match self.backing {
            Backing::Anon => s += " anonymous",
            Backing::File(f) => {
                let n = names.get(f).map_or("?", |n| n.as_str());
                s.push_fmt(format_args!(" file#{f} ({n}) pgoff {}", self.pgoff));
            }
            Backing::Other(d, i) => {
                s.push_fmt(format_args!(
                    " foreign file dev {d:x} inode {i} pgoff {}",
                    self.pgoff
                ));
            }
        }
        s += if self.writable { " rw" } else { " ro" };
        s += if self.shared { " shared" } else { " private" };
        if self.account {
            s += " account";
        }
        if kernel {
            if self.anon_pages > 0 {
                s.push_fmt(format_args!(" anon pages {}", self.anon_pages));
            }
        } else if self.anon {
            s += " anon_vma";
        }
        s
    }
}

/// The VMAs of model mm `mm`, in address order.
pub(crate) fn model_layout(w: &World, mm: usize) -> Vec<LVma> {
    w.mm_vmas(mm as u32)
        .into_iter()
        .map(|v| {
            let x = &w.vmas[v as usize];
            LVma {
                start: x.vm_start,
                end: x.vm_end,
                backing: x
                    .vm_file
                    .map_or(Backing::Anon, |f| Backing::File(f as usize)),
                pgoff: x.vm_pgoff,
                writable: x.vm_flags & VM_WRITE != 0,
                shared: x.vm_flags & VM_SHARED != 0,
                account: x.vm_flags & VM_ACCOUNT != 0,
                anon: x.anon_vma.is_some(),
                anon_pages: 0,
                anon_id: x.anon_vma,
            }
        })
        .collect()
}

/// The kernel's VMAs as layout entries: `ids[i]` is the (device, inode) of model file `i`.
pub(crate) fn kernel_layout(vmas: &[KernelVma], base: u64, ids: &[(u64, u64)]) -> Vec<LVma> {
    let page = super::PAGE;
    vmas.iter()
        .map(|k| {
            let backing = if k.inode == 0 {
                Backing::Anon
            } else {
                ids.iter()
                    .position(|&id| id == (k.dev, k.inode))
                    .map_or(Backing::Other(k.dev, k.inode), Backing::File)
            };
            LVma {
                start: (k.start.saturating_sub(base)) / page,
                end: (k.end.saturating_sub(base)) / page,
                backing,
                // a private /dev/zero mapping is at the file offset of its absolute address
                // (see `KOp::Mmap`); a regular file's offsets are far below the base
                pgoff: (k.offset / page)
                    .checked_sub(base / page)
                    .unwrap_or(k.offset / page),
                writable: k.perms.get(1..2) == Some("w"),
                shared: k.perms.get(3..4) == Some("s"),
                account: k.account,
                anon: k.anonymous_kb > 0,
                anon_pages: k.anonymous_kb * 1024 / page,
                anon_id: None,
            }
        })
        .collect()
}

/// Both layouts side by side; lines of VMAs that differ are marked `<-`.
pub(crate) fn render_pair(
    model: &[LVma],
    kernel: &[LVma],
    names: &[String],
    bad: &[u64],
) -> String {
    let mut out = String::new();
    out.push_line(format_args!("    model:"));
    for v in model {
        let mark = if bad.contains(&v.start) || !kernel.iter().any(|k| k.same_shape(v)) {
            "  <- differs"
        } else {
            ""
        };
        out.push_line(format_args!("      {}{mark}", v.describe(names, false)));
    }
    if model.is_empty() {
        out.push_line(format_args!("      (no VMAs)"));
    }
    out.push_line(format_args!("    kernel:"));
    for v in kernel {
        let mark = if bad.contains(&v.start) || !model.iter().any(|m| m.same_shape(v)) {
            "  <- differs"
        } else {
            ""
        };
        out.push_line(format_args!("      {}{mark}", v.describe(names, true)));
    }
    if kernel.is_empty() {
        out.push_line(format_args!("      (no VMAs)"));
    }
    out
}
