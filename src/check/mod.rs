//! Invariants and properties, each with a stable name that traces cite. Structural tree checks
//! run at every step where the tree's lock is not held; whole-world checks run at operation
//! boundaries; step-local checks (stale-descent, tree preconditions, lock misuse) are raised by
//! the builtins themselves and collected here.

pub mod layout;
pub mod membership;
pub mod pages;
pub mod structure;
pub mod walker;

use crate::world::World;
use serde::{Deserialize, Serialize};

/// One violated invariant.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Violation {
    /// Stable invariant name (see [`INVARIANTS`]).
    pub invariant: String,
    /// What was found, naming the objects involved (`vma#3`, `mapping#0`, ...).
    pub message: String,
}

impl Violation {
    pub fn new(invariant: &str, message: impl Into<String>) -> Self {
        Violation {
            invariant: invariant.to_string(),
            message: message.into(),
        }
    }
}

impl std::fmt::Display for Violation {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {}", self.invariant, self.message)
    }
}

/// Every invariant the checker knows, with a one-line description.
pub const INVARIANTS: &[(&str, &str)] = &[
    (
        "rb-shape",
        "red-black colours, black height and parent links are consistent",
    ),
    (
        "tree-order",
        "in-order starts are non-decreasing on the objects' current keys",
    ),
    (
        "augment",
        "every node's subtree_last is the max LAST of its subtree",
    ),
    (
        "membership",
        "each VMA/AVC is in exactly the rmap trees it belongs to",
    ),
    (
        "stale-descent",
        "no insert or query descends past a node whose key is out of place",
    ),
    (
        "tree-precondition",
        "no erase of a non-member, insert of a member, bad insert_after",
    ),
    (
        "cached-keys",
        "DEBUG_VM_RB: each AVC's cached start/last equal its VMA's",
    ),
    (
        "lock-discipline",
        "trees change only under their write locks; all locks dropped",
    ),
    (
        "walker-complete",
        "an rmap walk finds every VMA mapping its pgoff (also concurrently)",
    ),
    (
        "rmap-complete",
        "the rmap walk from each mapped folio finds every pte mapping it",
    ),
    (
        "rmap-exact",
        "a walk from a folio returns each VMA once, live, able to map it",
    ),
    (
        "mapping-preserved",
        "ptes change only as the call may; each pte's VMA maps its folio",
    ),
    (
        "vma-lock-stable",
        "a per-VMA read-lock holder sees its VMA's bounds unchanged",
    ),
    (
        "deadlock",
        "some thread can always move (not every live thread waits)",
    ),
    (
        "lock-order",
        "observed lock order is acyclic and follows mm/rmap.c's order",
    ),
    (
        "vma-layout",
        "each mm's VMAs are sorted, non-overlapping, non-empty, counted",
    ),
    (
        "model-assert",
        "a VM_WARN_ON / VM_BUG_ON in the model fired",
    ),
    (
        "model-fault",
        "the model did something meaningless (NULL dereference, freed use)",
    ),
    (
        "equivalent",
        "a patch gives the same walker answers and layout as the baseline",
    ),
];

/// A set of invariants to check (by index into [`INVARIANTS`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct InvariantSet(u32);

impl Default for InvariantSet {
    fn default() -> Self {
        InvariantSet::all()
    }
}

impl InvariantSet {
    pub fn all() -> Self {
        InvariantSet((1u32 << INVARIANTS.len()) - 1)
    }

    /// The named invariants (all of them when `names` is empty); unknown names are an error.
    pub fn from_names(names: &[String]) -> Result<Self, String> {
        if names.is_empty() {
            return Ok(InvariantSet::all());
        }
        let mut bits = 0;
        for n in names {
            let i = INVARIANTS
                .iter()
                .position(|(name, _)| name == n)
                .ok_or_else(|| format!("unknown invariant {n:?} (see `rmapcheck list`)"))?;
            bits |= 1 << i;
        }
        Ok(InvariantSet(bits))
    }

    pub fn contains(&self, name: &str) -> bool {
        INVARIANTS
            .iter()
            .position(|(n, _)| *n == name)
            .is_some_and(|i| self.0 & (1 << i) != 0)
    }

    /// Keep only the violations of invariants in the set.
    pub fn filter(&self, v: Vec<Violation>) -> Vec<Violation> {
        v.into_iter()
            .filter(|x| self.contains(&x.invariant))
            .collect()
    }
}

/// Checks to run after a step: the structural validators of every tree whose lock is free.
/// They run only when the step changed something they depend on (`Scratch::trees_dirty`).
pub fn after_step(w: &mut World, set: InvariantSet) -> Vec<Violation> {
    if !std::mem::take(&mut w.scratch.trees_dirty) {
        return Vec::new();
    }
    if !(set.contains("rb-shape") || set.contains("tree-order") || set.contains("augment")) {
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
    if v.is_empty() && set.contains("walker-complete") {
        // Reported when nothing else is: the structural invariants imply it, and a walker's
        // answer on a broken tree says less than what broke it.
        v.extend(walker::check_walkers(w));
    }
    let (complete, exact) = (set.contains("rmap-complete"), set.contains("rmap-exact"));
    if v.is_empty() && (complete || exact) {
        // page level, reported when the trees themselves are sound (as walker-complete)
        v.extend(pages::check_rmap(w, complete, exact));
    }
    v
}

/// Turn the violations builtins recorded into checker violations.
pub fn from_world(w: &mut World) -> Vec<Violation> {
    w.take_violations()
        .into_iter()
        .map(|x| Violation::new(x.invariant, x.message))
        .collect()
}
