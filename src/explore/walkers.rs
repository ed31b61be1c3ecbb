//! The walker calls offered against a writer in a world: one per walker kind and target, for
//! every pgoff a VMA maps (file and flush_dcache walks per mapping, anon walks per anon_vma) and,
//! for MADV_DONTNEED, each VMA's whole range and each of its pages. Kinds are named `file`,
//! `anon`, `flush`, `madv`; only those whose model function exists are offered. The extended
//! kinds `fault` (a write fault under the per-VMA lock at each page of each private writable
//! VMA) and `uprobe` (uprobe registration's walk of the file tree, per mapping and pgoff as
//! `file`) are offered only when named, so that a scope naming no kinds explores what it did
//! before issue 14.

use crate::exec::host::{ObjKind, Value};
use crate::lang::Program;
use crate::world::builtins::{VM_SHARED, VM_WRITE};
use crate::world::scenario::Call;
use crate::world::World;
use std::collections::BTreeSet;

pub use crate::scope::check_kinds;

/// Walker calls for `w` of the given kinds (all but the extended ones when empty).
pub fn walker_calls(prog: &Program, w: &World, kinds: &[String]) -> Vec<Call> {
    let on = |k: &str| kinds.is_empty() || kinds.iter().any(|x| x == k);
    let named = |k: &str| kinds.iter().any(|x| x == k);
    let mut out = Vec::new();
    let mut push = |f: &str, args: Vec<Value>| {
        if prog.function(f).is_some() {
            out.push(Call {
                func: f.to_string(),
                args,
            });
        }
    };
    let live = |v: usize| !w.vmas[v].freed && !w.vmas[v].detached;
    for m in 0..w.mappings.len() {
        let pgoffs: BTreeSet<u64> = (0..w.vmas.len())
            .filter(|&v| live(v) && w.vma_mapping(v as u32) == Some(m as u32))
            .flat_map(|v| w.vmas[v].start_pgoff()..=w.vmas[v].last_pgoff())
            .collect();
        for p in pgoffs {
            let args = vec![Value::Obj(ObjKind::Mapping, m as u32), Value::Int(p as i64)];
            if on("file") {
                push("rmap_walk_file", args.clone());
            }
            if named("uprobe") {
                push("uprobe_register_walk", args.clone());
            }
            if on("flush") {
                push("flush_dcache_walk", args);
            }
        }
    }
    if on("anon") {
        for a in 0..w.anon_vmas.len() {
            if w.anon_vmas[a].freed {
                continue;
            }
            let tree = &w.anon_vmas[a].rb_root;
            let pgoffs: BTreeSet<u64> = (0..w.avcs.len() as u32)
                .filter(|&c| tree.contains(c))
                .filter_map(|c| w.avcs[c as usize].vma)
                .filter(|&v| live(v as usize))
                .flat_map(|v| {
                    let x = &w.vmas[v as usize];
                    x.start_anon_pgoff()..=x.last_anon_pgoff()
                })
                .collect();
            for p in pgoffs {
                push(
                    "rmap_walk_anon",
                    vec![Value::Obj(ObjKind::AnonVma, a as u32), Value::Int(p as i64)],
                );
            }
        }
    }
    if on("madv") {
        for (m, mm) in w.mms.iter().enumerate() {
            if mm.freed {
                continue;
            }
            let mut ranges = BTreeSet::new();
            for (&s, &(e, _)) in &mm.vmas {
                ranges.insert((s, e));
                for a in s..e {
                    ranges.insert((a, a + 1));
                }
            }
            for (s, e) in ranges {
                push(
                    "madvise_dontneed",
                    vec![
                        Value::Obj(ObjKind::Mm, m as u32),
                        Value::Int(s as i64),
                        Value::Int(e as i64),
                    ],
                );
            }
        }
    }
    if named("fault") {
        for (m, mm) in w.mms.iter().enumerate() {
            if mm.freed {
                continue;
            }
            for (&s, &(e, v)) in &mm.vmas {
                let f = w.vmas[v as usize].vm_flags;
                if f & VM_SHARED != 0 || f & VM_WRITE == 0 {
                    continue;
                }
                for a in s..e {
                    push(
                        "do_anonymous_fault_vma_lock",
                        vec![Value::Obj(ObjKind::Mm, m as u32), Value::Int(a as i64)],
                    );
                }
            }
        }
    }
    out
}

/// The walker calls of `cands` that can run next to `writer`: all but those that reach the mm
/// an exit tears down through the mm itself (MADV_DONTNEED, a write fault under the per-VMA
/// lock: the walkers whose first argument is an mm). exit_mmap() runs once the mm's last user is
/// gone: no thread of the process is left to fault or madvise, and another process first takes
/// a user reference (mmget_not_zero() in process_madvise() and in remote access), which then
/// fails. The rmap walks, which reach the mm through a file or an anon_vma, stay.
pub fn against(writer: &Call, cands: Vec<Call>) -> Vec<Call> {
    if writer.func != "sys_exit" {
        return cands;
    }
    let mm = writer.args.first().copied();
    cands
        .into_iter()
        .filter(|c| {
            !matches!(c.args.first(), Some(&Value::Obj(ObjKind::Mm, _)))
                || c.args.first().copied() != mm
        })
        .collect()
}

/// Every multiset of `n` walkers out of `cands` (combinations with repetition), in order.
pub fn combinations(cands: &[Call], n: usize) -> Vec<Vec<Call>> {
    fn go(c: &[Call], n: usize, from: usize, cur: &mut Vec<Call>, out: &mut Vec<Vec<Call>>) {
        if cur.len() == n {
            out.push(cur.clone());
            return;
        }
        for i in from..c.len() {
            cur.push(c[i].clone());
            go(c, n, i, cur, out);
            cur.pop();
        }
    }
    let mut out = Vec::new();
    go(cands, n, 0, &mut Vec::new(), &mut out);
    out
}
