//! The interval tree of interval_tree_generic.h (plus `insert_after` from mm/interval_tree.c)
//! on top of [`super::rbtree`]: node key = START, augmented value `subtree_last` = the largest
//! LAST in the subtree. Keys are read through [`IntervalKeys`] at the moment of use, and every
//! key-driven descent can check each node it passes for a stale position (`stale-descent`).

use std::cell::Cell;

use super::rbtree::{self, Augment, Side};
use super::types::{IntervalKeys, NodeId, RbRoot, StaleDescent, TreeError, TreeObs};

/// The `RB_DECLARE_CALLBACKS_MAX` callbacks for `subtree_last`.
pub(crate) struct IntervalAugment<'a, K: ?Sized> {
    pub keys: &'a K,
}

impl<K: IntervalKeys + ?Sized> IntervalAugment<'_, K> {
    /// The `compute_max` helper: recompute `n`'s value; with `exit`, report `true` (and write
    /// nothing) when the stored value is already right.
    fn compute_max(&self, t: &mut RbRoot, n: NodeId, exit: bool, obs: &mut TreeObs) -> bool {
        obs.stats.augment_computes += 1;
        let mut max = self.keys.last(n);
        if let Some(l) = t.left_of(n) {
            max = max.max(t.subtree_last_of(l));
        }
        if let Some(r) = t.right_of(n) {
            max = max.max(t.subtree_last_of(r));
        }
        let Some(value) = t.subtree_last_mut(n) else {
            return true;
        };
        if exit && *value == max {
            return true;
        }
        *value = max;
        false
    }
}

impl<K: IntervalKeys + ?Sized> Augment for IntervalAugment<'_, K> {
    fn propagate(
        &self,
        t: &mut RbRoot,
        node: Option<NodeId>,
        stop: Option<NodeId>,
        obs: &mut TreeObs,
    ) {
        let mut rb = node;
        while rb != stop {
            let Some(n) = rb else { break };
            if self.compute_max(t, n, true, obs) {
                break;
            }
            rb = t.parent_of(n);
        }
    }

    fn copy(&self, t: &mut RbRoot, old: NodeId, new: NodeId) {
        let v = t.subtree_last_of(old);
        if let Some(value) = t.subtree_last_mut(new) {
            *value = v;
        }
    }

    fn rotate(&self, t: &mut RbRoot, old: NodeId, new: NodeId, obs: &mut TreeObs) {
        let v = t.subtree_last_of(old);
        if let Some(value) = t.subtree_last_mut(new) {
            *value = v;
        }
        self.compute_max(t, old, false, obs);
    }
}

/// What this thread knows of one node id for [`StaleCheck`].
#[derive(Clone, Copy, Default)]
struct Slot {
    /// The epoch of the operation that last examined the node.
    epoch: u32,
    /// The node's in-order neighbours (`NONE`: none) in the links of version `version` (0:
    /// nothing kept).
    prev: NodeId,
    next: NodeId,
    version: u64,
}

const NONE: NodeId = NodeId::MAX;

/// This thread's slots, indexed by node id, and the last epoch handed out. Every slot's epoch
/// is at most that epoch.
#[derive(Default)]
struct Marks {
    epoch: u32,
    slots: Vec<Slot>,
}

thread_local! {
    static MARKS: Cell<Marks> = const {
        Cell::new(Marks {
            epoch: 0,
            slots: Vec::new(),
        })
    };
}

/// Per-operation stale-descent checker: each node is examined once per operation, and each
/// examination costs O(1) while the tree's links are unchanged.
///
/// - Whether a node was already examined is one compare: the operation takes a fresh epoch
///   and marks each node it examines with it, in this thread's slot array (indexed by node
///   id, grown on demand and kept between operations, so nothing is allocated per operation
///   once it covers the ids).
/// - The node's in-order neighbours (`rb_prev`/`rb_next`, a walk of up to the tree's height)
///   are kept in the same slot with the links' version ([`RbRoot::links_version`]) and reused
///   while the version is the same: later queries of an unchanged tree find them at once.
///   Only the neighbours' ids are kept; their starts are read at the moment of use, as
///   every key is.
///
/// The slots are taken on the first examined node, so an operation with the check off never
/// touches them, and handed back when the operation ends.
struct StaleCheck {
    op: &'static str,
    marks: Marks,
    /// Whether `marks` was taken from [`MARKS`] (and goes back on drop).
    taken: bool,
}

impl StaleCheck {
    fn new(op: &'static str) -> Self {
        StaleCheck {
            op,
            marks: Marks::default(),
            taken: false,
        }
    }

    fn take(&mut self) {
        let mut m = MARKS.with(Cell::take);
        m.epoch = match m.epoch.checked_add(1) {
            Some(e) => e,
            None => {
                // after 2^32 operations: forget every mark (the neighbours stay right)
                for s in &mut m.slots {
                    s.epoch = 0;
                }
                1
            }
        };
        self.marks = m;
        self.taken = true;
    }

    fn visit(&mut self, t: &RbRoot, k: &impl IntervalKeys, n: NodeId, obs: &mut TreeObs) {
        obs.stats.visits += 1;
        if !obs.check_stale {
            return;
        }
        if !self.taken {
            self.take();
        }
        let i = n as usize;
        if i >= self.marks.slots.len() {
            self.marks.slots.resize(i + 1, Slot::default());
        }
        let epoch = self.marks.epoch;
        let slot = &mut self.marks.slots[i];
        if slot.epoch == epoch {
            return;
        }
        slot.epoch = epoch;
        let version = t.links_version();
        let (p, s) = if slot.version == version {
            let id = |x: NodeId| (x != NONE).then_some(x);
            (id(slot.prev), id(slot.next))
        } else {
            let (p, s) = (rbtree::prev(t, n), rbtree::next(t, n));
            // an id of NodeId::MAX cannot be kept: it is a slot's "none"
            if p != Some(NONE) && s != Some(NONE) {
                slot.prev = p.unwrap_or(NONE);
                slot.next = s.unwrap_or(NONE);
                slot.version = version;
            }
            (p, s)
        };
        let start = k.start(n);
        let pred = p.map(|p| (p, k.start(p)));
        let succ = s.map(|s| (s, k.start(s)));
        let before_pred = pred.is_some_and(|(_, ps)| start < ps);
        let after_succ = succ.is_some_and(|(_, ss)| start > ss);
        if before_pred || after_succ {
            obs.stale.push(StaleDescent {
                op: self.op,
                node: n,
                start,
                pred,
                succ,
            });
        }
    }
}

impl Drop for StaleCheck {
    fn drop(&mut self) {
        if self.taken {
            // A check that overlapped this one (two live query iterators) may have put its
            // slots back meanwhile; either array keeps every mark at most its epoch.
            let marks = std::mem::take(&mut self.marks);
            MARKS.with(|m| m.set(marks));
        }
    }
}

/// Insert `n` by key descent (ties go right), raising `subtree_last` along the path, then
/// rebalance with the augmented insert fixup.
pub fn insert(
    t: &mut RbRoot,
    k: &impl IntervalKeys,
    n: NodeId,
    obs: &mut TreeObs,
) -> Result<(), TreeError> {
    if t.contains(n) {
        return Err(TreeError::AlreadyInTree(n));
    }
    let start = k.start(n);
    let last = k.last(n);
    let mut check = StaleCheck::new("insert");
    let mut parent = None;
    let mut side = Side::Left;
    let mut cur = t.root;
    while let Some(p) = cur {
        check.visit(t, k, p, obs);
        if let Some(value) = t.subtree_last_mut(p) {
            if *value < last {
                *value = last;
            }
        }
        parent = Some(p);
        if start < k.start(p) {
            side = Side::Left;
            cur = t.left_of(p);
        } else {
            side = Side::Right;
            cur = t.right_of(p);
        }
    }
    rbtree::link_node(t, n, parent, side, last);
    rbtree::insert_color(t, n, &IntervalAugment { keys: k }, obs);
    Ok(())
}

/// Insert `n` as the in-order successor of `prev` without comparing keys (fork's
/// `vma_interval_tree_insert_after`). As in the kernel, `subtree_last` is raised only on the
/// path below `prev` (its right child and that child's left spine), not on `prev` or above:
/// the kernel relies on `n` having the same interval as `prev`.
pub fn insert_after(
    t: &mut RbRoot,
    k: &impl IntervalKeys,
    n: NodeId,
    prev: NodeId,
    obs: &mut TreeObs,
) -> Result<(), TreeError> {
    if t.contains(n) {
        return Err(TreeError::AlreadyInTree(n));
    }
    if !t.contains(prev) {
        return Err(TreeError::PrevNotInTree(prev));
    }
    let last = k.last(n);
    let (parent, side) = match t.right_of(prev) {
        None => (prev, Side::Right),
        Some(mut p) => {
            loop {
                obs.stats.visits += 1;
                if let Some(value) = t.subtree_last_mut(p) {
                    if *value < last {
                        *value = last;
                    }
                }
                match t.left_of(p) {
                    Some(l) => p = l,
                    None => break,
                }
            }
            (p, Side::Left)
        }
    };
    rbtree::link_node(t, n, Some(parent), side, last);
    rbtree::insert_color(t, n, &IntervalAugment { keys: k }, obs);
    Ok(())
}

/// Erase `n` (`rb_erase_augmented` with the interval callbacks).
pub fn remove(
    t: &mut RbRoot,
    k: &impl IntervalKeys,
    n: NodeId,
    obs: &mut TreeObs,
) -> Result<(), TreeError> {
    if !t.contains(n) {
        return Err(TreeError::NotInTree(n));
    }
    rbtree::erase(t, n, &IntervalAugment { keys: k }, obs);
    Ok(())
}

/// The augment `propagate(n, NULL)`: recompute `subtree_last` from `n` upwards, stopping as
/// soon as a value is unchanged.
pub fn propagate(
    t: &mut RbRoot,
    k: &impl IntervalKeys,
    n: NodeId,
    obs: &mut TreeObs,
) -> Result<(), TreeError> {
    if !t.contains(n) {
        return Err(TreeError::NotInTree(n));
    }
    IntervalAugment { keys: k }.propagate(t, Some(n), None, obs);
    Ok(())
}

/// `subtree_search`: the leftmost node under `node` overlapping [start, last], given that
/// `start <= subtree_last(node)`.
/// `subtree_search`: the leftmost node under `node` overlapping [start, last], given that
/// `start <= subtree_last(node)`. As the kernel's since commit 19811285784f ("lib/interval_tree:
/// skip the check before go to the right subtree", in mainline before v6.18, so in v7.3): when
/// `node` starts at or before `last` but ends before `start`, and no left node reaches `start`,
/// the search goes right without re-checking the right child's `subtree_last`, since the loop
/// invariant says the match must be there. In a tree with a stale `subtree_last` the invariant
/// is false: the search may then return a node it should not, or reach a missing right child
/// (a NULL dereference in the kernel), recorded in [`TreeObs::null_descent`].
fn subtree_search(
    t: &RbRoot,
    k: &impl IntervalKeys,
    node: NodeId,
    start: u64,
    last: u64,
    obs: &mut TreeObs,
    check: &mut StaleCheck,
) -> Option<NodeId> {
    let mut node = node;
    loop {
        check.visit(t, k, node, obs);
        if let Some(l) = t.left_of(node) {
            if start <= t.subtree_last_of(l) {
                // Some node on the left reaches start: the leftmost such one is the only
                // candidate.
                node = l;
                continue;
            }
        }
        if k.start(node) <= last {
            if start <= k.last(node) {
                return Some(node);
            }
            match t.right_of(node) {
                Some(r) => {
                    node = r;
                    continue;
                }
                None => {
                    obs.null_descent.get_or_insert(node);
                    return None;
                }
            }
        }
        return None;
    }
}

fn iter_first_with(
    t: &RbRoot,
    k: &impl IntervalKeys,
    first: u64,
    last: u64,
    obs: &mut TreeObs,
    check: &mut StaleCheck,
) -> Option<NodeId> {
    let root = t.root?;
    if t.subtree_last_of(root) < first {
        return None;
    }
    // The kernel keeps the leftmost node cached (rb_root_cached); we find it structurally,
    // which is the same node, and do not count it as visits.
    let leftmost = rbtree::first(t)?;
    if k.start(leftmost) > last {
        return None;
    }
    subtree_search(t, k, root, first, last, obs, check)
}

fn iter_next_with(
    t: &RbRoot,
    k: &impl IntervalKeys,
    n: NodeId,
    first: u64,
    last: u64,
    obs: &mut TreeObs,
    check: &mut StaleCheck,
) -> Option<NodeId> {
    let mut node = n;
    let mut rb = t.right_of(node);
    loop {
        // Invariant: start(node) <= last and rb is node's right child.
        if let Some(r) = rb {
            if first <= t.subtree_last_of(r) {
                return subtree_search(t, k, r, first, last, obs, check);
            }
        }
        // Climb until we arrive from a left child.
        loop {
            let p = t.parent_of(node)?;
            let from = node;
            node = p;
            rb = t.right_of(node);
            if rb != Some(from) {
                break;
            }
        }
        check.visit(t, k, node, obs);
        if last < k.start(node) {
            return None;
        } else if first <= k.last(node) {
            return Some(node);
        }
    }
}

/// The leftmost node overlapping [first, last].
pub fn iter_first(
    t: &RbRoot,
    k: &impl IntervalKeys,
    first: u64,
    last: u64,
    obs: &mut TreeObs,
) -> Option<NodeId> {
    iter_first_with(t, k, first, last, obs, &mut StaleCheck::new("query"))
}

/// The next node after `n` (in order) overlapping [first, last].
pub(crate) fn iter_next(
    t: &RbRoot,
    k: &impl IntervalKeys,
    n: NodeId,
    first: u64,
    last: u64,
    obs: &mut TreeObs,
) -> Option<NodeId> {
    iter_next_with(t, k, n, first, last, obs, &mut StaleCheck::new("query"))
}

/// All nodes overlapping [first, last], in tree order (iter_first then iter_next); each
/// node is checked for staleness at most once for the whole query. The same as
/// [`query_iter`] collected.
pub fn query(
    t: &RbRoot,
    k: &impl IntervalKeys,
    first: u64,
    last: u64,
    obs: &mut TreeObs,
) -> Vec<NodeId> {
    query_iter(t, k, first, last, obs).collect()
}

/// [`query`] as an iterator: each `next` runs iter_first (the first time) or iter_next from
/// the node it returned before, sharing one stale-descent check for the whole query. In a
/// corrupted tree whose links loop it stops after one node more than the tree holds.
pub(crate) fn query_iter<'a, K: IntervalKeys + ?Sized>(
    t: &'a RbRoot,
    k: &'a K,
    first: u64,
    last: u64,
    obs: &'a mut TreeObs,
) -> QueryIter<'a, K> {
    QueryIter {
        t,
        k,
        first,
        last,
        obs,
        check: StaleCheck::new("query"),
        started: false,
        at: None,
        returned: 0,
    }
}

/// The iterator of [`query_iter`].
pub(crate) struct QueryIter<'a, K: ?Sized> {
    t: &'a RbRoot,
    k: &'a K,
    first: u64,
    last: u64,
    obs: &'a mut TreeObs,
    check: StaleCheck,
    started: bool,
    /// The node returned last (`None` before the first and after the last).
    at: Option<NodeId>,
    returned: usize,
}

impl<K: IntervalKeys + ?Sized> Iterator for QueryIter<'_, K> {
    type Item = NodeId;

    fn next(&mut self) -> Option<NodeId> {
        let (t, k, first, last) = (self.t, self.k, self.first, self.last);
        let found = match self.at {
            None if self.started => return None,
            None => {
                self.started = true;
                iter_first_with(t, &k, first, last, self.obs, &mut self.check)
            }
            Some(n) => {
                if self.returned > t.len() {
                    self.at = None;
                    return None; // only reachable in a corrupted tree
                }
                iter_next_with(t, &k, n, first, last, self.obs, &mut self.check)
            }
        };
        self.at = found;
        self.returned += usize::from(found.is_some());
        found
    }
}

impl<K: IntervalKeys + ?Sized> std::iter::FusedIterator for QueryIter<'_, K> {}

#[cfg(test)]
#[path = "interval_tests.rs"]
mod tests;
