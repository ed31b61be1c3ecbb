//! Invariants and properties, each an [`Invariant`] with a stable name that traces cite (one
//! table in `crate::invariant` gives names, descriptions and phases). Structural tree checks run at
//! every step where the tree's lock is not held; whole-world checks run at operation
//! boundaries; step-local checks (stale-descent, tree preconditions, lock misuse) are raised by
//! the builtins themselves and collected here.
//!
//! It names nothing above the world: no search, trace or command.

pub mod crosscheck;
pub mod dirty;
pub mod layout;
pub mod membership;
pub mod pages;
pub(crate) mod structure;
pub mod walker;

pub use crate::invariant::{Invariant, InvariantSet, Phase, Violation};

use crate::world::World;

/// Checks to run after a step: the structural validators of the trees the step (or an earlier
/// one) marked whose lock is free (`structure::check_unlocked_trees`). They run only when the
/// step changed something they depend on (`Scratch::trees_dirty`), at the same steps and with
/// the same answer as when every unlocked tree was validated (cross-checked by [`crosscheck`]).
pub(crate) fn after_step(w: &mut World, set: InvariantSet) -> Vec<Violation> {
    if !std::mem::take(&mut w.scratch.trees_dirty) {
        return Vec::new();
    }
    if !tree_checks(set) {
        return Vec::new();
    }
    let whole = crosscheck::on().then(|| set.filter(structure::check_unlocked_trees_whole(w)));
    let v = set.filter(structure::check_unlocked_trees(w));
    if let Some(whole) = whole {
        crosscheck::compare("after a step", &v, &whole);
    }
    v
}

/// The structural tree invariants, which the tree marks (`world::tree_marks`) serve.
const TREE_INVARIANTS: [Invariant; 3] =
    [Invariant::RbShape, Invariant::TreeOrder, Invariant::Augment];

/// Whether `set` holds any structural tree invariant.
fn tree_checks(set: InvariantSet) -> bool {
    TREE_INVARIANTS.iter().any(|&i| set.contains(i))
}

/// Checks to run when an operation has returned, on a world of unknown history: every tree.
pub fn at_boundary(w: &World, set: InvariantSet) -> Vec<Violation> {
    boundary(w, set, structure::check_all_trees(w))
}

/// [`at_boundary`] at the end of a call, validating only the trees the call marked
/// (`TreeMarks::call`); the other checks look at the whole world as [`at_boundary`] does.
///
/// Why that is the same answer: the call began on a world whose trees passed every checked
/// invariant. The explorer's initial world is checked whole (`CallSystem::initial`), and each
/// later state is the canonical form of a world a call left after passing these checks (a
/// failed call's world is never expanded). A world built from a scenario, as `rmapcheck run`,
/// replay and fuzzing start from, has trees made by the tree's own insertions from the VMAs'
/// keys. The canonical form renumbers objects without changing a tree's shape or any key, and
/// it keeps every node a tree holds and the VMA it reads (a freed node left in a tree fails
/// `membership` first), so its trees validate as the world's did. A tree the call did not
/// mark is unchanged since then (`world::tree_marks` lists what marks one), so it still
/// validates clean.
pub(crate) fn at_call_end(w: &World, set: InvariantSet) -> Vec<Violation> {
    let v = boundary(w, set, structure::check_call_trees(w));
    if crosscheck::on() {
        crosscheck::compare("at the end of a call", &v, &at_boundary(w, set));
    }
    v
}

/// The boundary checks after the structural ones (`trees`, their violations).
fn boundary(w: &World, set: InvariantSet, trees: Vec<Violation>) -> Vec<Violation> {
    let mut v = trees;
    v.extend(layout::check_vma_layout(w));
    v.extend(layout::check_locks_released(w));
    v.extend(membership::check_membership(w));
    v.extend(layout::check_cached_keys(w));
    let mut v = set.filter(v);
    if v.is_empty() && set.contains(Invariant::WalkerComplete) {
        // Reported when nothing else is: the structural invariants imply it, and a walker's
        // answer on a broken tree says less than what broke it.
        v.extend(walker::check_walkers(w));
    }
    let (complete, exact) = (
        set.contains(Invariant::RmapComplete),
        set.contains(Invariant::RmapExact),
    );
    if v.is_empty() && (complete || exact) {
        // page level, reported when the trees themselves are sound (as walker-complete)
        v.extend(pages::check_rmap(w, complete, exact));
    }
    v
}

/// After a call passed the end-of-call checks: its trees are known clean, so nothing stays
/// marked (when the checks covered every structural invariant; otherwise the marks stay).
pub(crate) fn passed(w: &mut World, set: InvariantSet) {
    if TREE_INVARIANTS.iter().all(|&i| set.contains(i)) {
        w.scratch.tree_marks = dirty::TreeMarks::default();
    }
}

/// Turn the violations builtins recorded into checker violations.
pub fn from_world(w: &mut World) -> Vec<Violation> {
    w.take_violations()
}
