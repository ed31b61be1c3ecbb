//! The alphabet of calls offered in a state: every entry point the model defines, with every
//! argument tuple the scope allows that meets the entry point's preconditions in this world
//! (free ranges for mmap, ranges inside one VMA for mprotect, split points strictly inside, ...).

use super::contract_pages::contract_keeps_pages;
use super::scope::{Mode, Scope};
use crate::exec::host::{ObjKind, Value};
use crate::lang::Program;
use crate::world::builtins::{VM_GROWSDOWN, VM_SHARED, VM_WRITE};
use crate::world::scenario::Call;
use crate::world::{Folio, World};

/// One VMA as the alphabet sees it.
struct V {
    id: u32,
    start: u64,
    end: u64,
    pgoff: u64,
    /// The anonymous page offset (below `start` after an mremap move of a private file VMA).
    anon_pgoff: u64,
    flags: i64,
    file: Option<u32>,
    anon_vma: Option<u32>,
    /// Has a file and is not anonymous (a private /dev/zero VMA is anonymous).
    file_backed: bool,
}

impl V {
    /// What commit_merge() requires of two VMAs it merges: same file and flags, the file part
    /// linear, and one anon_vma (vma_merge_existing_range() dups it before committing).
    fn mergeable(&self, next: &V) -> bool {
        self.flags == next.flags
            && self.file == next.file
            && self.anon_vma == next.anon_vma
            && self.end == next.start
    }
}

/// Whether a write fault at `a` would change what the page table maps: the VMA is private and
/// writable, and the pte is empty, maps a file page (copy on write), maps an anonymous folio
/// shared with another pte (copy on write), or one only it maps but of another anon_vma (reuse
/// moves it). A write to a page already exclusively its own changes nothing and is not offered.
fn anon_fault_changes(w: &World, mm: u32, v: &V, a: u64) -> bool {
    if v.flags & VM_SHARED != 0 || v.flags & VM_WRITE == 0 {
        return false;
    }
    match w.mms[mm as usize].ptes.get(&a) {
        Some(&Folio::Anon(f)) => {
            w.folio_mapcount(Folio::Anon(f)) > 1
                || Some(w.anon_folios[f as usize].anon_vma) != v.anon_vma
        }
        _ => true,
    }
}

fn int(i: u64) -> Value {
    Value::Int(i as i64)
}
fn obj(k: ObjKind, i: u32) -> Value {
    Value::Obj(k, i)
}

/// The calls to try from `w`, in a fixed order.
pub fn calls(scope: &Scope, prog: &Program, w: &World) -> Vec<Call> {
    let mut out = Vec::new();
    let mut push = |func: &str, args: Vec<Value>| {
        let allowed = prog.function(func).is_some()
            && (scope.entries.is_empty() || scope.entries.iter().any(|e| e == func));
        if allowed {
            let call = Call {
                func: func.to_string(),
                args,
            };
            if contract_keeps_pages(w, &call) {
                out.push(call);
            }
        }
    };
    let p = scope.pages;
    let regular: Vec<u32> = (0..w.files.len() as u32)
        .filter(|&f| !w.files[f as usize].dev_zero)
        .collect();
    let dev_zero: Vec<u32> = (0..w.files.len() as u32)
        .filter(|&f| w.files[f as usize].dev_zero)
        .collect();
    let live_mms = w.mms.iter().filter(|m| !m.freed).count();
    for (m, mm) in w.mms.iter().enumerate() {
        if mm.freed {
            continue;
        }
        let m32 = m as u32;
        let mmv = obj(ObjKind::Mm, m32);
        let vs: Vec<V> = w
            .mm_vmas(m32)
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
            .collect();
        let used = |a: u64| vs.iter().any(|v| v.start <= a && a < v.end);

        // mmap into free ranges
        if vs.len() < scope.max_vmas {
            for s in 0..p {
                for e in s + 1..=p.min(s + scope.max_len) {
                    if (s..e).any(used) {
                        break;
                    }
                    push(
                        "sys_mmap",
                        vec![mmv, Value::Null, int(s), int(e), int(0), Value::Bool(false)],
                    );
                    // stack growth (issue 14): an anonymous MAP_GROWSDOWN mapping, one page long
                    // (longer stacks come from growth: this keeps the default scope under 2x)
                    if e == s + 1 {
                        push("sys_mmap_growsdown", vec![mmv, int(s), int(e)]);
                    }
                    for &f in &regular {
                        let fv = obj(ObjKind::File, f);
                        let mut pgoffs = vec![s];
                        if scope.offsets {
                            pgoffs.push(s + p);
                        }
                        for pg in pgoffs {
                            push(
                                "sys_mmap",
                                vec![mmv, fv, int(s), int(e), int(pg), Value::Bool(false)],
                            );
                            if scope.shared {
                                push(
                                    "sys_mmap",
                                    vec![mmv, fv, int(s), int(e), int(pg), Value::Bool(true)],
                                );
                            }
                        }
                    }
                    for &f in &dev_zero {
                        push(
                            "sys_mmap",
                            vec![
                                mmv,
                                obj(ObjKind::File, f),
                                int(s),
                                int(e),
                                int(s),
                                Value::Bool(false),
                            ],
                        );
                    }
                }
            }
        }
        // munmap of any range touching a VMA
        for s in 0..p {
            for e in s + 1..=p {
                if (s..e).any(used) {
                    push("sys_munmap", vec![mmv, int(s), int(e)]);
                }
            }
        }
        for (i, v) in vs.iter().enumerate() {
            let vv = obj(ObjKind::Vma, v.id);
            let prev_end = if i > 0 { vs[i - 1].end } else { 0 };
            let next_start = vs.get(i + 1).map_or(p, |n| n.start);
            // mprotect of a sub-range, toggling VM_WRITE
            let writable = v.flags & VM_WRITE == 0;
            for s in v.start..v.end {
                for e in s + 1..=v.end {
                    push(
                        "sys_mprotect",
                        vec![mmv, int(s), int(e), Value::Bool(writable)],
                    );
                }
            }
            for ne in v.end + 1..=next_start.min(v.end + scope.max_len) {
                push("sys_mremap_expand", vec![mmv, int(v.start), int(ne)]);
            }
            for ne in v.start + 1..v.end {
                push("sys_mremap_shrink", vec![mmv, int(v.start), int(ne)]);
            }
            // sys_mremap_move (issue 14): [s, e) inside v moved to a free range of the same or a
            // larger length (MREMAP_MAYMOVE|MREMAP_FIXED; mremap_to() refuses an overlap)
            for s in v.start..v.end {
                for e in s + 1..=v.end {
                    for nl in e - s..=scope.max_len.min(p) {
                        for n in (0..=p - nl).filter(|&n| !(n..n + nl).any(used)) {
                            push(
                                "sys_mremap_move",
                                vec![mmv, int(s), int(e - s), int(nl), int(n)],
                            );
                        }
                    }
                }
            }
            // do_stack_fault (issue 14): a fault below a stack grows it down, when the VMA below
            // is a stack too or absent (stack_guard_gap) and its pgoff allows
            let below_ok = i == 0 || vs[i - 1].flags & VM_GROWSDOWN != 0;
            if v.flags & VM_GROWSDOWN != 0 && below_ok {
                for a in prev_end..v.start {
                    if v.start - a <= v.pgoff {
                        push("do_stack_fault", vec![mmv, int(a)]);
                    }
                }
            }
            for k in 1..v.end - v.start {
                if v.start >= prev_end + k {
                    push("sys_shift_down", vec![mmv, int(v.start), int(k)]);
                }
            }
            for a in v.start..v.end {
                if anon_fault_changes(w, m32, v, a) {
                    push("do_anonymous_fault", vec![mmv, int(a)]);
                }
                if v.file_backed && !mm.ptes.contains_key(&a) {
                    push("do_file_fault", vec![mmv, int(a)]);
                }
            }
            if scope.mode == Mode::Contract {
                for a in v.start + 1..v.end {
                    for nb in [0, 1] {
                        push("contract_split", vec![mmv, vv, int(a), int(nb)]);
                    }
                }
                for e in v.start + 1..v.end {
                    // v7.3-rc4's vma_shrink() gives up the tail only, keeping start and pgoff
                    push("contract_shrink", vec![mmv, vv, int(e)]);
                }
                if let Some(n) = vs.get(i + 1).filter(|n| v.mergeable(n)) {
                    for end in v.start + 1..v.end {
                        // next's page offsets move down with its start: neither may go below 0
                        if n.pgoff.min(n.anon_pgoff) + end >= n.start {
                            for pg in [v.pgoff, v.pgoff + 1] {
                                push("contract_adjust_next", vec![mmv, vv, int(end), int(pg)]);
                            }
                        }
                    }
                }
                if let Some(pr) = (i > 0).then(|| &vs[i - 1]).filter(|pr| pr.mergeable(v)) {
                    for end in v.start + 1..v.end {
                        for pg in [pr.pgoff, pr.pgoff + 1] {
                            push("contract_adjust_middle", vec![mmv, vv, int(end), int(pg)]);
                        }
                    }
                }
            }
        }
        if live_mms < scope.max_mms {
            push("sys_fork", vec![mmv]);
        }
        if !vs.is_empty() {
            push("sys_exit", vec![mmv]);
        }
    }
    out
}
