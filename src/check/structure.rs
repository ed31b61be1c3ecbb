//! `rb-shape`, `tree-order` and `augment` over the rmap trees of a world, skipping trees whose
//! write-side lock is held (an update in progress may legitimately leave them inconsistent):
//! every tree, or only the trees a step or a call marked (`super::dirty`).

use super::{Invariant, Violation};
use crate::tree::{validate, TreeViolation};
use crate::world::tree_marks::TreeSet;
use crate::world::{AnonKeys, FileKeys, World};

fn file_tree_locked(w: &World, m: usize) -> bool {
    let a = &w.mappings[m];
    a.i_mmap_rwsem.writer.is_some() || a.flush_dcache.owner.is_some()
}

fn anon_tree_locked(w: &World, a: usize) -> bool {
    let root = w.anon_vmas[a].root as usize;
    w.anon_vmas[root].rwsem.writer.is_some()
}

/// Validate the trees of `sel` (in the order of [`check_all_trees`]: file trees, then anon
/// trees, each by index), skipping those whose lock is held when `skip_locked`. Returns the
/// violations and the trees of `sel` it skipped for their lock.
fn check(w: &World, sel: &TreeSet, skip_locked: bool) -> (Vec<Violation>, TreeSet) {
    let mut out = Vec::new();
    let mut skipped = TreeSet::default();
    let fk = FileKeys { vmas: &w.vmas };
    for (m, a) in w.mappings.iter().enumerate() {
        if !sel.has_file(m) {
            continue;
        }
        if skip_locked && file_tree_locked(w, m) {
            skipped.add_file(m);
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
        if !sel.has_anon(i) || a.freed {
            continue;
        }
        if skip_locked && anon_tree_locked(w, i) {
            skipped.add_anon(i);
            continue;
        }
        for v in validate(&a.rb_root, &ak) {
            out.push(Violation::new(
                Invariant::from(&v),
                format!("tree of anon_vma#{i}: {}", describe(&v, "avc")),
            ));
        }
    }
    (out, skipped)
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

/// The per-step check: validate every tree marked since the last per-step check
/// (`TreeMarks::step`) whose lock is not held, and keep the marks of those whose lock is (they
/// are validated at the first check that finds them unlocked).
///
/// It reports what [`check_unlocked_trees_whole`] would: an unmarked tree is unchanged since it
/// last passed (at the call's start, or at an earlier per-step check; `world::tree_marks`
/// lists what marks a tree), and the validation of an unchanged tree gives the same answer.
pub(crate) fn check_unlocked_trees(w: &mut World) -> Vec<Violation> {
    let sel = w.scratch.tree_marks.step;
    if sel.is_empty() {
        return Vec::new();
    }
    let (v, mut keep) = check(w, &sel, true);
    if !v.is_empty() {
        // the call fails here; a tree that failed stays marked
        keep = sel;
    }
    w.scratch.tree_marks.step = keep;
    v
}

/// Validate every tree whose lock is not held, marked or not.
pub(crate) fn check_unlocked_trees_whole(w: &World) -> Vec<Violation> {
    check(w, &TreeSet::every(), true).0
}

/// Validate every tree marked since the call began (`TreeMarks::call`), held locks or not.
pub(crate) fn check_call_trees(w: &World) -> Vec<Violation> {
    check(w, &w.scratch.tree_marks.call, false).0
}

/// Validate every tree.
pub(crate) fn check_all_trees(w: &World) -> Vec<Violation> {
    check(w, &TreeSet::every(), false).0
}
