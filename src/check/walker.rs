//! `walker-complete`: an rmap walk (an interval query for one pgoff) of every file and every
//! anon_vma finds exactly the VMAs that map that pgoff, compared with a brute-force scan of the
//! live VMAs.

use super::membership::vma_live;
use super::{Invariant, Violation};
use crate::tree::{interval, TreeObs};
use crate::world::{AnonKeys, FileKeys, World};

/// Whether VMA `v` maps page offset `p`: its file pgoff range for a file walk, its anonymous
/// pgoff range (the anon tree's key, v7.3-rc4) for an anon walk.
fn covers(w: &World, v: u32, p: u64, anon: bool) -> bool {
    let vma = &w.vmas[v as usize];
    let start = vma.pgoff_for(anon);
    start <= p && p < start + vma.pages().max(1)
}

/// The largest pgoff (file or anonymous) any live VMA maps, plus one.
fn pgoff_bound(w: &World, live: &[u32]) -> u64 {
    live.iter()
        .map(|&v| {
            let x = &w.vmas[v as usize];
            x.last_pgoff().max(x.last_anon_pgoff()) + 1
        })
        .max()
        .unwrap_or(0)
}

/// Sort `v` and drop repeats: a set as an ascending list.
fn as_set(v: &mut Vec<u32>) {
    v.sort_unstable();
    v.dedup();
}

/// Compare every walk with the scan. The live VMAs, and those of each tree's file or anon_vma,
/// are found once rather than at every pgoff; a tree with no root, and no live VMA of its
/// own, finds nothing and is owed nothing at every pgoff, so it is skipped.
pub(crate) fn check_walkers(w: &World) -> Vec<Violation> {
    let mut out = Vec::new();
    // ascending ids, as the scan lists them
    let live: Vec<u32> = (0..w.vmas.len() as u32)
        .filter(|&v| vma_live(w, v))
        .collect();
    let bound = pgoff_bound(w, &live);
    // the walk's answer and the scan's, as ascending sets, reused at every pgoff
    let (mut found, mut want, mut own) = (Vec::new(), Vec::new(), Vec::new());
    let fk = FileKeys { vmas: &w.vmas };
    for (m, a) in w.mappings.iter().enumerate() {
        own.clear();
        own.extend(
            live.iter()
                .copied()
                .filter(|&v| w.vma_mapping(v) == Some(m as u32)),
        );
        if a.i_mmap.root.is_none() && own.is_empty() {
            continue;
        }
        for p in 0..bound {
            let mut obs = TreeObs::default();
            found.clear();
            found.extend(interval::query_iter(&a.i_mmap, &fk, p, p, &mut obs));
            as_set(&mut found);
            want.clear();
            want.extend(
                own.iter()
                    .copied()
                    .filter(|&v| covers(w, v, p, false))
                    // an anonymous VMA with a file may be in the tree or not (see membership)
                    .filter(|&v| {
                        !w.vmas[v as usize].is_anonymous() || found.binary_search(&v).is_ok()
                    }),
            );
            if found != want {
                out.push(Violation::new(
                    Invariant::WalkerComplete,
                    format!(
                        "file walk of mapping#{m} at pgoff {p} finds {} but {} map it",
                        names("vma", &found),
                        names("vma", &want)
                    ),
                ));
            }
        }
    }
    let ak = AnonKeys {
        vmas: &w.vmas,
        avcs: &w.avcs,
    };
    for (a, av) in w.anon_vmas.iter().enumerate() {
        if av.freed {
            continue;
        }
        own.clear();
        own.extend(live.iter().copied().filter(|&v| {
            w.vmas[v as usize]
                .anon_vma_chain
                .iter()
                .any(|&c| w.avcs[c as usize].anon_vma == Some(a as u32))
        }));
        if av.rb_root.root.is_none() && own.is_empty() {
            continue;
        }
        for p in 0..bound {
            let mut obs = TreeObs::default();
            found.clear();
            found.extend(
                interval::query_iter(&av.rb_root, &ak, p, p, &mut obs)
                    .filter_map(|c| w.avcs[c as usize].vma),
            );
            as_set(&mut found);
            want.clear();
            want.extend(own.iter().copied().filter(|&v| covers(w, v, p, true)));
            if found != want {
                out.push(Violation::new(
                    Invariant::WalkerComplete,
                    format!(
                        "anon walk of anon_vma#{a} at pgoff {p} finds {} but {} map it",
                        names("vma", &found),
                        names("vma", &want)
                    ),
                ));
            }
        }
    }
    out
}

/// An ascending set of ids as text: `{vma#1, vma#3}`, or `none`.
fn names(kind: &str, s: &[u32]) -> String {
    if s.is_empty() {
        return "none".into();
    }
    let v: Vec<String> = s.iter().map(|i| format!("{kind}#{i}")).collect();
    format!("{{{}}}", v.join(", "))
}
