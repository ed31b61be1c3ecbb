//! The interval tree of interval_tree_generic.h (plus `insert_after` from mm/interval_tree.c)
//! on top of [`super::rbtree`]: node key = START, augmented value `subtree_last` = the largest
//! LAST in the subtree. Keys are read through [`IntervalKeys`] at the moment of use, and every
//! key-driven descent can check each node it passes for a stale position (`stale-descent`).

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

/// Per-operation stale-descent checker: each node the operation passes is examined (its
/// current start against its in-order neighbours'), and a stale one is reported once per
/// operation however often the operation passes it.
///
/// - An examination is O(1): the neighbours (`rb_prev`/`rb_next`) are read from the node's
///   record, where the tree keeps them (see [`RbRoot`]); only a tree whose links were written
///   by hand makes it walk the links instead. Their starts are read at the moment of use, as
///   every key is.
/// - Nothing is marked and nothing allocated: within one operation the keys and links do not
///   change, so a node examined again gets the same verdict, and only a stale node looks
///   whether this operation already reported it (among this operation's reports).
struct StaleCheck {
    op: &'static str,
    /// Where this operation's reports begin in `obs.stale` (`usize::MAX`: none yet).
    first_report: usize,
    /// The operation is a whole query from the root ([`query_iter`]), not one `iter_next`.
    whole_query: bool,
}

/// `rb_prev` and `rb_next` by walking the links, for a tree that no longer keeps them.
#[cold]
#[inline(never)]
fn walk_neighbours(t: &RbRoot, n: NodeId) -> (Option<NodeId>, Option<NodeId>) {
    (rbtree::prev(t, n), rbtree::next(t, n))
}

impl StaleCheck {
    fn new(op: &'static str) -> Self {
        StaleCheck {
            op,
            first_report: usize::MAX,
            whole_query: false,
        }
    }

    /// The check of a whole query ([`query_iter`]).
    fn whole_query() -> Self {
        StaleCheck {
            whole_query: true,
            ..StaleCheck::new("query")
        }
    }

    /// `iter_next` climbed to `n` from its left subtree. A whole query entered that subtree
    /// only by descending through `n` (it starts at the root, and its other descents start at
    /// right children), so it examined `n` then, with the verdict it would get now: counted as
    /// a visit, not examined again. Not so for one `iter_next` on its own, nor in a tree whose
    /// links were written by hand (its parent links may lead anywhere).
    #[inline(always)]
    fn revisit(&mut self, t: &RbRoot, k: &impl IntervalKeys, n: NodeId, obs: &mut TreeObs) {
        if self.whole_query && t.keeps_order() {
            obs.stats.visits += 1;
        } else {
            self.visit(t, k, n, obs);
        }
    }

    #[inline(always)]
    fn visit(&mut self, t: &RbRoot, k: &impl IntervalKeys, n: NodeId, obs: &mut TreeObs) {
        obs.stats.visits += 1;
        if !obs.check_stale {
            return;
        }
        let (p, s) = match t.neighbours(n) {
            Some(ps) => ps,
            None => walk_neighbours(t, n),
        };
        let start = k.start(n);
        let before_pred = p.is_some_and(|p| start < k.start(p));
        let after_succ = s.is_some_and(|s| start > k.start(s));
        if before_pred || after_succ {
            self.report(n, start, p, s, k, obs);
        }
    }

    #[cold]
    #[inline(never)]
    fn report(
        &mut self,
        n: NodeId,
        start: u64,
        p: Option<NodeId>,
        s: Option<NodeId>,
        k: &impl IntervalKeys,
        obs: &mut TreeObs,
    ) {
        if self.first_report == usize::MAX {
            self.first_report = obs.stale.len();
        } else if obs.stale[self.first_report..].iter().any(|r| r.node == n) {
            return;
        }
        obs.stale.push(StaleDescent {
            op: self.op,
            node: n,
            start,
            pred: p.map(|p| (p, k.start(p))),
            succ: s.map(|s| (s, k.start(s))),
        });
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
        // the right child's record is read when the search goes right: ask for it now, while
        // the left child's value and this node's key are read
        t.prefetch(t.right_of(node));
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
    // The kernel keeps the leftmost node cached (rb_root_cached), and so does the tree (or
    // finds it structurally, the same node, once it no longer keeps it): not counted as
    // visits.
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
        check.revisit(t, k, node, obs);
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

/// All nodes overlapping [first, last], in tree order (iter_first then iter_next); a stale
/// node the query passes is reported once for the whole query. The same as
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
        check: StaleCheck::whole_query(),
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
