//! Invariants and properties, each an [`Invariant`] with a stable name that traces cite (one
//! table in `crate::invariant` gives names, descriptions and phases). Structural tree checks run at
//! every step where the tree's lock is not held; whole-world checks run at operation
//! boundaries; step-local checks (stale-descent, tree preconditions, lock misuse) are raised by
//! the builtins themselves and collected here.

pub mod layout;
pub mod membership;
pub mod pages;
pub(crate) mod structure;
pub mod walker;

pub use crate::invariant::{Invariant, InvariantSet, Phase, Violation};

use crate::world::World;

/// Checks to run after a step: the structural validators of every tree whose lock is free.
/// They run only when the step changed something they depend on (`Scratch::trees_dirty`).
pub(crate) fn after_step(w: &mut World, set: InvariantSet) -> Vec<Violation> {
    if !std::mem::take(&mut w.scratch.trees_dirty) {
        return Vec::new();
    }
    if ![Invariant::RbShape, Invariant::TreeOrder, Invariant::Augment]
        .iter()
        .any(|&i| set.contains(i))
    {
        return Vec::new();
    }
    set.filter(structure::check_unlocked_trees(w))
}

/// Checks to run when an operation has returned.
pub fn at_boundary(w: &World, set: InvariantSet) -> Vec<Violation> {
    let mut v = structure::check_all_trees(w);
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

/// Turn the violations builtins recorded into checker violations.
pub fn from_world(w: &mut World) -> Vec<Violation> {
    w.take_violations()
}
