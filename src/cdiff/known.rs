//! Known findings: differences between the model and the kernel's C that are understood and
//! named, with the kernel text that explains them. Each recognises only its own mismatches;
//! anything else is reported as unexplained. What could be fixed in the model was fixed there
//! (docs/CDIFF.md, "Findings"); what stays here is a deliberate simplification of the model or
//! a call sequence the kernel itself never makes.

use super::canon::{Raw, RawVma};
use super::run::Mismatch;
use std::collections::HashMap;

/// A named finding.
pub struct Known {
    pub name: &'static str,
    /// What the C does that the model does not, with the kernel evidence.
    pub why: &'static str,
    recognise: fn(&Mismatch) -> bool,
}

/// Every known finding.
pub const ALL: &[Known] = &[
    Known {
        name: "shift-down-unfaulted-warns",
        why: "relocate_vma_down() (mm/vma_exec.c) expands the stack down keeping its pgoff, and \
              vma_set_range() -> vma_set_pgoff() -> assert_sane_pgoff() (mm/vma.h) fires \
              VM_WARN_ON_ONCE(pgoff != vma->vm_start >> PAGE_SHIFT) for an anonymous VMA \
              without an anon_vma. At exec the stack always has an anon_vma (copy_strings() \
              wrote the arguments into it), so the kernel never warns there; the model's \
              sys_shift_down is also offered on a never-faulted VMA. The worlds are otherwise \
              the same.",
        recognise: shift_down_unfaulted_warns,
    },
    Known {
        name: "mprotect-drops-vm-account",
        why: "mprotect_fixup() (mm/mprotect.c) clears VM_ACCOUNT when it makes an anonymous \
              private VMA without anon_vma read-only, and sets it again when one becomes \
              writable; VMAs that differ in VM_ACCOUNT do not merge (is_mergeable_vma() \
              compares the flags). The model has no VM_ACCOUNT and merges them (kdiff's \
              finding of the same name, on the running kernel).",
        recognise: vm_account_split,
    },
];

/// The known finding that explains `m`, if one does.
pub fn explain(m: &Mismatch) -> Option<&'static str> {
    ALL.iter().find(|k| (k.recognise)(m)).map(|k| k.name)
}

/// Lines of `a` that `b` does not have (as multisets).
fn only_in<'a>(a: &'a [String], b: &[String]) -> Vec<&'a str> {
    let mut left: HashMap<&str, usize> = HashMap::new();
    for l in b {
        *left.entry(l.as_str()).or_default() += 1;
    }
    a.iter()
        .filter(|l| match left.get_mut(l.as_str()) {
            Some(n) if *n > 0 => {
                *n -= 1;
                false
            }
            _ => true,
        })
        .map(String::as_str)
        .collect()
}

fn shift_down_unfaulted_warns(m: &Mismatch) -> bool {
    m.c_raw.is_some()
        && m.calls
            .get(m.at)
            .is_some_and(|c| c.func == "sys_shift_down")
        && only_in(&m.model, &m.c).is_empty()
        && only_in(&m.c, &m.model)
            .iter()
            .all(|l| l.starts_with("C warn ") && l.contains("pgoff != vma->vm_start"))
}

/// Every difference of layout is a model VMA that the C keeps as two or more VMAs tiling
/// its range, split where VM_ACCOUNT differs, and the C reports nothing else (no WARN).
fn vm_account_split(m: &Mismatch) -> bool {
    let Some(c) = &m.c_raw else { return false };
    if !c.notes.is_empty() || c.mms.len() != m.model_raw.mms.len() {
        return false;
    }
    let mut found = false;
    for (mm, cm) in m.model_raw.mms.iter().zip(&c.mms) {
        match account_tiles(&mm.vmas, &cm.vmas) {
            None => return false,
            Some(n) => found |= n > 0,
        }
    }
    found && trees_follow(&m.model_raw, c)
}

/// How many model VMAs the C splits at a VM_ACCOUNT boundary, or None when the layouts
/// differ otherwise.
fn account_tiles(model: &[RawVma], c: &[RawVma]) -> Option<usize> {
    let range = |v: &RawVma| (v.start, v.end);
    let mut splits = 0;
    for v in model {
        if c.iter().any(|x| range(x) == range(v)) {
            continue;
        }
        let parts: Vec<&RawVma> = c
            .iter()
            .filter(|x| x.start >= v.start && x.end <= v.end)
            .collect();
        let tiles = parts.len() >= 2
            && parts.first().map(|x| x.start) == Some(v.start)
            && parts.last().map(|x| x.end) == Some(v.end)
            && parts.windows(2).all(|w| w[0].end == w[1].start);
        let at_account = parts.windows(2).any(|w| w[0].account != w[1].account);
        if !tiles || !at_account {
            return None;
        }
        splits += 1;
    }
    // every C VMA is either the model's or a part of a split model VMA
    let covered = c.iter().all(|x| {
        model
            .iter()
            .any(|v| range(v) == range(x) || (x.start >= v.start && x.end <= v.end))
    });
    covered.then_some(splits)
}

/// The trees hold the same VMAs' files: a file tree differs only in nodes the split touches.
/// (A cheap guard: both sides have the same files and anon_vmas.)
fn trees_follow(model: &Raw, c: &Raw) -> bool {
    model.files.len() == c.files.len() && model.anons.len() == c.anons.len()
}
