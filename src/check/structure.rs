//! `rb-shape`, `tree-order` and `augment` over every rmap tree of a world, skipping trees whose
//! write-side lock is held (an update in progress may legitimately leave them inconsistent).

use super::{Invariant, Violation};
use crate::tree::{validate, TreeViolation};
use crate::world::{AnonKeys, FileKeys, World};

fn file_tree_locked(w: &World, m: usize) -> bool {
    let a = &w.mappings[m];
    a.i_mmap_rwsem.writer.is_some() || a.flush_dcache.owner.is_some()
}

fn anon_tree_locked(w: &World, a: usize) -> bool {
    let root = w.anon_vmas[a].root as usize;
    w.anon_vmas[root].rwsem.writer.is_some()
}

fn check(w: &World, skip_locked: bool) -> Vec<Violation> {
    let mut out = Vec::new();
    let fk = FileKeys { vmas: &w.vmas };
    for (m, a) in w.mappings.iter().enumerate() {
        if skip_locked && file_tree_locked(w, m) {
            continue;
        }
        for v in validate(&a.i_mmap, &fk) {
            out.push(Violation::new(
                Invariant::from(&v),
                format!("file tree of mapping#{m}: {}", describe(&v, "vma")),
            ));
        }
    }
    let ak = AnonKeys {
        vmas: &w.vmas,
        avcs: &w.avcs,
    };
    for (i, a) in w.anon_vmas.iter().enumerate() {
        if a.freed || (skip_locked && anon_tree_locked(w, i)) {
            continue;
        }
        for v in validate(&a.rb_root, &ak) {
            out.push(Violation::new(
                Invariant::from(&v),
                format!("tree of anon_vma#{i}: {}", describe(&v, "avc")),
            ));
        }
    }
    out
}

/// Describe a tree violation naming nodes by the object that embeds them (`vma#3`).
fn describe(v: &TreeViolation, kind: &str) -> String {
    match v {
        TreeViolation::RbShape {
            node: Some(n),
            what,
        } => format!("{kind}#{n}: {what}"),
        TreeViolation::RbShape { node: None, what } => what.clone(),
        TreeViolation::TreeOrder {
            node,
            start,
            prev,
            prev_start,
        } => format!("{kind}#{node} (start {start}) follows {kind}#{prev} (start {prev_start})"),
        TreeViolation::Augment {
            node,
            stored,
            expected,
        } => format!("{kind}#{node} has subtree_last {stored}, expected {expected}"),
    }
}

/// Validate every tree whose lock is not held.
pub(crate) fn check_unlocked_trees(w: &World) -> Vec<Violation> {
    check(w, true)
}

/// Validate every tree.
pub(crate) fn check_all_trees(w: &World) -> Vec<Violation> {
    check(w, false)
}
