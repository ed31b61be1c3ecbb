//! Plain-text rendering of a world: each mm's VMAs, each file tree and each anon_vma tree, in
//! ASCII within 80 columns, for `rmapcheck run` and counterexample traces.

use super::{AnonKeys, FileKeys, World};
use crate::textbuf::PushFmt;
use crate::tree::render;

impl World {
    /// One line describing a VMA: `vma#1 [2, 4) pgoff 2 file#0 anon_vma#0 (2 avcs)`.
    pub(crate) fn describe_vma(&self, v: u32) -> String {
        let vma = &self.vmas[v as usize];
        let mut s = format!(
            "vma#{v} [{}, {}) pgoff {}",
            vma.vm_start, vma.vm_end, vma.vm_pgoff
        );
        // the anon tree's key, shown where it differs from vm_pgoff on a private mapping
        if vma.vm_anon_pgoff != vma.vm_pgoff && vma.vm_flags & super::builtins::VM_SHARED == 0 {
            s.push_fmt(format_args!(" anon_pgoff {}", vma.vm_anon_pgoff));
        }
        if let Some(f) = vma.vm_file {
            s.push_fmt(format_args!(" file#{f}"));
            if vma.is_anonymous() {
                s += " (anonymous)";
            }
        }
        s += if vma.vm_flags & super::builtins::VM_WRITE != 0 {
            " rw"
        } else {
            " ro"
        };
        if vma.vm_flags & super::builtins::VM_SHARED != 0 {
            s += " shared";
        }
        if vma.vm_flags & super::builtins::VM_GROWSDOWN != 0 {
            s += " growsdown";
        }
        if let Some(a) = vma.anon_vma {
            s.push_fmt(format_args!(" anon_vma#{a}"));
        }
        if !vma.anon_vma_chain.is_empty() {
            let chain: Vec<String> = vma
                .anon_vma_chain
                .iter()
                .map(|c| format!("avc#{c}"))
                .collect();
            s.push_fmt(format_args!(" avcs {}", chain.join(",")));
        }
        if vma.freed {
            s += " FREED";
        } else if vma.detached {
            s += " detached";
        }
        s
    }

    /// The whole world as text.
    pub fn render(&self) -> String {
        let mut out = String::new();
        for (m, mm) in self.mms.iter().enumerate() {
            if mm.freed {
                continue;
            }
            out.push_line(format_args!("mm#{m} (map_count {}):", mm.map_count));
            for (&s, &(e, v)) in &mm.vmas {
                let vma = &self.vmas[v as usize];
                let stale = if (vma.vm_start, vma.vm_end) != (s, e) {
                    format!("  <- stored as [{s}, {e})")
                } else {
                    String::new()
                };
                out.push_line(format_args!("  {}{stale}", self.describe_vma(v)));
            }
            for (&addr, &f) in &mm.ptes {
                out.push_line(format_args!("  pte {addr} -> {}", self.describe_folio(f)));
            }
        }
        let fk = FileKeys { vmas: &self.vmas };
        for (i, f) in self.files.iter().enumerate() {
            let tree = &self.mappings[f.f_mapping as usize].i_mmap;
            out.push_line(format_args!(
                "file#{i} {} mapping#{} i_mmap ({} nodes):",
                f.name,
                f.f_mapping,
                tree.len()
            ));
            let r = render(tree, &fk, &|n| format!("vma#{n}"));
            for line in r.lines() {
                out.push_line(format_args!("  {line}"));
            }
        }
        let ak = AnonKeys {
            vmas: &self.vmas,
            avcs: &self.avcs,
        };
        for (i, a) in self.anon_vmas.iter().enumerate() {
            if a.freed {
                continue;
            }
            out.push_line(format_args!(
                "anon_vma#{i} root anon_vma#{} ({} nodes):",
                a.root,
                a.rb_root.len()
            ));
            let r = render(&a.rb_root, &ak, &|n| {
                let vma = self.avcs[n as usize].vma;
                match vma {
                    Some(v) => format!("avc#{n}(vma#{v})"),
                    None => format!("avc#{n}"),
                }
            });
            for line in r.lines() {
                out.push_line(format_args!("  {line}"));
            }
        }
        out
    }
}
