//! The red-black tree algorithms of lib/rbtree.c on the id arena: linking, the insert fixup
//! (`__rb_insert`), the augmented erase (`__rb_erase_augmented`) and the erase rebalancing
//! (`____rb_erase_color`), with augment callbacks (`propagate`, `copy`, `rotate`) invoked at the
//! points the kernel invokes them. The kernel writes the left-hand cases out and mirrors them
//! by hand; here each case is written once over a side `d` and its opposite, which performs the
//! same link and colour writes in the same order.
//!
//! None of these functions reads a key. They tolerate corrupted links (missing nodes read as
//! black leaves) instead of panicking, but then the result is unspecified.

use super::record::{opt, raw, Rec};
use super::types::{Color, NodeId, RbRoot, TreeObs};

/// Which child.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Side {
    Left,
    Right,
}

impl Side {
    fn flip(self) -> Side {
        match self {
            Side::Left => Side::Right,
            Side::Right => Side::Left,
        }
    }
}

/// Augment callbacks, as `struct rb_augment_callbacks`.
pub trait Augment {
    /// Recompute from `node` upwards, stopping at `stop` or when a value does not change.
    fn propagate(
        &self,
        t: &mut RbRoot,
        node: Option<NodeId>,
        stop: Option<NodeId>,
        obs: &mut TreeObs,
    );
    /// `new` takes over the place of `old`: copy the augmented value.
    fn copy(&self, t: &mut RbRoot, old: NodeId, new: NodeId);
    /// `new` rotated above `old`: `new` takes `old`'s value, `old` is recomputed.
    fn rotate(&self, t: &mut RbRoot, old: NodeId, new: NodeId, obs: &mut TreeObs);
}

/// The dummy callbacks of a plain (non-augmented) rbtree.
pub struct NoAugment;

impl Augment for NoAugment {
    fn propagate(&self, _: &mut RbRoot, _: Option<NodeId>, _: Option<NodeId>, _: &mut TreeObs) {}
    fn copy(&self, _: &mut RbRoot, _: NodeId, _: NodeId) {}
    fn rotate(&self, _: &mut RbRoot, _: NodeId, _: NodeId, _: &mut TreeObs) {}
}

// ---- small link accessors (missing nodes read as absent / black) ----

impl RbRoot {
    #[inline(always)]
    pub(crate) fn parent_of(&self, n: NodeId) -> Option<NodeId> {
        self.rec(n).and_then(|x| opt(x.parent))
    }
    #[inline(always)]
    pub(crate) fn left_of(&self, n: NodeId) -> Option<NodeId> {
        self.rec(n).and_then(|x| opt(x.left))
    }
    #[inline(always)]
    pub(crate) fn right_of(&self, n: NodeId) -> Option<NodeId> {
        self.rec(n).and_then(|x| opt(x.right))
    }
    pub(crate) fn child(&self, n: NodeId, s: Side) -> Option<NodeId> {
        match s {
            Side::Left => self.left_of(n),
            Side::Right => self.right_of(n),
        }
    }
    pub(crate) fn is_red(&self, n: NodeId) -> bool {
        self.rec(n).is_some_and(|x| x.color == Color::Red)
    }
    pub(crate) fn is_black(&self, n: NodeId) -> bool {
        !self.is_red(n)
    }
    #[inline(always)]
    pub(crate) fn subtree_last_of(&self, n: NodeId) -> u64 {
        self.rec(n).map_or(0, |x| x.subtree_last)
    }
    fn set_child(&mut self, n: NodeId, s: Side, c: Option<NodeId>) {
        if let Some(x) = self.rec_mut(n) {
            match s {
                Side::Left => x.left = raw(c),
                Side::Right => x.right = raw(c),
            }
        }
    }
    fn set_parent(&mut self, n: NodeId, p: Option<NodeId>) {
        if let Some(x) = self.rec_mut(n) {
            x.parent = raw(p);
        }
    }
    fn set_parent_color(&mut self, n: NodeId, p: Option<NodeId>, c: Color) {
        if let Some(x) = self.rec_mut(n) {
            x.parent = raw(p);
            x.color = c;
        }
    }
    fn parent_color(&self, n: NodeId) -> (Option<NodeId>, Color) {
        self.rec(n)
            .map_or((None, Color::Black), |x| (opt(x.parent), x.color))
    }
    /// `__rb_change_child`: make `new` take `old`'s place under `parent` (or at the root).
    fn change_child(&mut self, old: NodeId, new: Option<NodeId>, parent: Option<NodeId>) {
        match parent {
            Some(p) => {
                if self.left_of(p) == Some(old) {
                    self.set_child(p, Side::Left, new);
                } else {
                    self.set_child(p, Side::Right, new);
                }
            }
            None => self.put_root(new),
        }
    }
    /// `__rb_rotate_set_parents`: `new` takes `old`'s parent and colour, `old` goes under
    /// `new` with `color`, and `old`'s parent (or the root) now points at `new`.
    fn rotate_set_parents(&mut self, old: NodeId, new: NodeId, color: Color) {
        let (p, c) = self.parent_color(old);
        self.set_parent_color(new, p, c);
        self.set_parent_color(old, Some(new), color);
        self.change_child(old, Some(new), p);
    }
}

/// `rb_link_node`: create `n`'s record as a red leaf under `parent` on `side` (or as the root).
/// The caller must have checked that `n` is not a member and that the slot is empty. The new
/// leaf's in-order neighbours follow from where it hangs: a left child comes right after its
/// parent's predecessor and before its parent, a right child right after its parent and
/// before its parent's successor.
pub fn link_node(t: &mut RbRoot, n: NodeId, parent: Option<NodeId>, side: Side, subtree_last: u64) {
    // None: not kept, or a misuse (parent not a member, or its child slot taken, or a new
    // root over a tree that has one: the old nodes are cut off)
    let around = match parent {
        None if t.root.is_some() => None,
        None => Some((None, None)),
        Some(p) if t.child(p, side).is_some() => None,
        Some(p) => t.neighbours(p).map(|(prev, next)| match side {
            Side::Left => (prev, Some(p)),
            Side::Right => (Some(p), next),
        }),
    };
    let mut rec = Rec::new_red(subtree_last);
    rec.parent = raw(parent);
    t.alloc(n, rec);
    match parent {
        Some(p) => t.set_child(p, side, Some(n)),
        None => t.put_root(Some(n)),
    }
    t.thread_in(n, around);
}

/// `__rb_insert`: rebalance after linking the red node `node`.
pub fn insert_color(t: &mut RbRoot, node: NodeId, aug: &impl Augment, obs: &mut TreeObs) {
    let mut node = node;
    let mut parent = t.parent_of(node);
    loop {
        // Loop invariant: node is red.
        let Some(p) = parent else {
            // node is the root: first node, or we recursed after a colour flip.
            t.set_parent_color(node, None, Color::Black);
            break;
        };
        if t.is_black(p) {
            break;
        }
        let Some(g) = t.parent_of(p) else {
            break; // red root: only in a corrupted tree
        };
        // d = the side of g on which parent hangs.
        let d = if t.right_of(g) != Some(p) {
            Side::Left
        } else {
            Side::Right
        };
        let uncle = t.child(g, d.flip());
        if let Some(u) = uncle.filter(|&u| t.is_red(u)) {
            // Case 1: red uncle, colour flips, continue from the grandparent.
            t.set_parent_color(u, Some(g), Color::Black);
            t.set_parent_color(p, Some(g), Color::Black);
            node = g;
            parent = t.parent_of(node);
            t.set_parent_color(node, parent, Color::Red);
            continue;
        }
        let mut p = p;
        let mut tmp = t.child(p, d.flip());
        if tmp == Some(node) {
            // Case 2: node is the inner child: rotate at parent towards d.
            let inner = t.child(node, d);
            t.set_child(p, d.flip(), inner);
            t.set_child(node, d, Some(p));
            if let Some(x) = inner {
                t.set_parent_color(x, Some(p), Color::Black);
            }
            t.set_parent_color(p, Some(node), Color::Red);
            obs.stats.rotations += 1;
            aug.rotate(t, p, node, obs);
            p = node;
            tmp = t.child(node, d.flip());
        }
        // Case 3: node is the outer child: rotate at grandparent away from d.
        t.set_child(g, d, tmp);
        t.set_child(p, d.flip(), Some(g));
        if let Some(x) = tmp {
            t.set_parent_color(x, Some(g), Color::Black);
        }
        t.rotate_set_parents(g, p, Color::Red);
        obs.stats.rotations += 1;
        aug.rotate(t, g, p, obs);
        break;
    }
}

/// `____rb_erase_color`: restore black height after a black node left from below `parent`.
pub(crate) fn erase_color(t: &mut RbRoot, parent: NodeId, aug: &impl Augment, obs: &mut TreeObs) {
    let mut node: Option<NodeId> = None;
    let mut parent = parent;
    loop {
        // Loop invariants: node is black (or None the first time) and not the root; paths
        // through parent and node are one black short.
        let d = if node != t.right_of(parent) {
            Side::Left
        } else {
            Side::Right
        };
        let Some(mut sib) = t.child(parent, d.flip()) else {
            break; // no sibling: only in a corrupted tree
        };
        if t.is_red(sib) {
            // Case 1: red sibling: rotate at parent towards d.
            let tmp1 = t.child(sib, d);
            t.set_child(parent, d.flip(), tmp1);
            t.set_child(sib, d, Some(parent));
            if let Some(x) = tmp1 {
                t.set_parent_color(x, Some(parent), Color::Black);
            }
            t.rotate_set_parents(parent, sib, Color::Red);
            obs.stats.rotations += 1;
            aug.rotate(t, parent, sib, obs);
            let Some(x) = tmp1 else { break };
            sib = x;
        }
        let mut tmp1 = t.child(sib, d.flip());
        if tmp1.is_none_or_black(t) {
            let tmp2 = t.child(sib, d);
            if tmp2.is_none_or_black(t) {
                // Case 2: sibling colour flip (parent may be either colour).
                t.set_parent_color(sib, Some(parent), Color::Red);
                if t.is_red(parent) {
                    if let Some(x) = t.rec_mut(parent) {
                        x.color = Color::Black;
                    }
                } else {
                    node = Some(parent);
                    if let Some(pp) = t.parent_of(parent) {
                        parent = pp;
                        continue;
                    }
                }
                break;
            }
            let Some(inner) = tmp2 else { break };
            // Case 3: sibling's outer child black, inner red: rotate at sibling away from d.
            let x = t.child(inner, d.flip());
            t.set_child(sib, d, x);
            t.set_child(inner, d.flip(), Some(sib));
            t.set_child(parent, d.flip(), Some(inner));
            if let Some(x) = x {
                t.set_parent_color(x, Some(sib), Color::Black);
            }
            obs.stats.rotations += 1;
            aug.rotate(t, sib, inner, obs);
            tmp1 = Some(sib);
            sib = inner;
        }
        // Case 4: sibling's outer child red: rotate at parent towards d, colour flips.
        let tmp2 = t.child(sib, d);
        t.set_child(parent, d.flip(), tmp2);
        t.set_child(sib, d, Some(parent));
        if let Some(x) = tmp1 {
            t.set_parent_color(x, Some(sib), Color::Black);
        }
        if let Some(x) = tmp2 {
            t.set_parent(x, Some(parent));
        }
        t.rotate_set_parents(parent, sib, Color::Black);
        obs.stats.rotations += 1;
        aug.rotate(t, parent, sib, obs);
        break;
    }
}

trait NoneOrBlack {
    fn is_none_or_black(&self, t: &RbRoot) -> bool;
}

impl NoneOrBlack for Option<NodeId> {
    fn is_none_or_black(&self, t: &RbRoot) -> bool {
        self.is_none_or(|x| t.is_black(x))
    }
}

/// `__rb_erase_augmented`: unlink `node` (a member), returning the node from which the erase
/// rebalancing must start, if any. The node's record is left in the arena (unlinked).
fn erase_augmented(
    t: &mut RbRoot,
    node: NodeId,
    aug: &impl Augment,
    obs: &mut TreeObs,
) -> Option<NodeId> {
    let child = t.right_of(node);
    let left = t.left_of(node);
    let rebalance;
    let from;
    if left.is_none() {
        // Case 1: at most one child (the right one). A lone child is red and node black, so
        // recolouring locally avoids the rebalancing.
        let (parent, color) = t.parent_color(node);
        t.change_child(node, child, parent);
        if let Some(c) = child {
            t.set_parent_color(c, parent, color);
            rebalance = None;
        } else {
            rebalance = if color == Color::Black { parent } else { None };
        }
        from = parent;
    } else if child.is_none() {
        // Case 1 again, the lone child being the left one.
        let (parent, color) = t.parent_color(node);
        if let Some(l) = left {
            t.set_parent_color(l, parent, color);
        }
        t.change_child(node, left, parent);
        rebalance = None;
        from = parent;
    } else {
        let child = child?;
        let mut successor = child;
        let parent;
        let child2;
        let mut tmp = t.left_of(child);
        if tmp.is_none() {
            // Case 2: the successor is node's right child.
            parent = successor;
            child2 = t.right_of(successor);
            aug.copy(t, node, successor);
        } else {
            // Case 3: the successor is the leftmost node of node's right subtree.
            let mut p = successor;
            while let Some(x) = tmp {
                obs.stats.visits += 1;
                p = successor;
                successor = x;
                tmp = t.left_of(x);
            }
            parent = p;
            child2 = t.right_of(successor);
            t.set_child(parent, Side::Left, child2);
            t.set_child(successor, Side::Right, Some(child));
            t.set_parent(child, Some(successor));
            aug.copy(t, node, successor);
            aug.propagate(t, Some(parent), Some(successor), obs);
        }
        t.set_child(successor, Side::Left, left);
        if let Some(l) = left {
            t.set_parent(l, Some(successor));
        }
        let (np, nc) = t.parent_color(node);
        t.change_child(node, Some(successor), np);
        if let Some(c2) = child2 {
            t.set_parent_color(c2, Some(parent), Color::Black);
            rebalance = None;
        } else {
            rebalance = if t.is_black(successor) {
                Some(parent)
            } else {
                None
            };
        }
        t.set_parent_color(successor, np, nc);
        from = Some(successor);
    }
    aug.propagate(t, from, None, obs);
    rebalance
}

/// `rb_erase_augmented`: unlink `node` (which must be a member), rebalance, and drop its record.
/// The erased node's neighbours become each other's (the successor that may take its place
/// keeps its own place in order).
pub fn erase(t: &mut RbRoot, node: NodeId, aug: &impl Augment, obs: &mut TreeObs) {
    t.thread_out(node);
    let rebalance = erase_augmented(t, node, aug, obs);
    t.free(node);
    if let Some(p) = rebalance {
        erase_color(t, p, aug, obs);
    }
}

/// `rb_first`: the leftmost node (`rb_first_cached` while the tree keeps it, see
/// [`RbRoot`]).
pub fn first(t: &RbRoot) -> Option<NodeId> {
    if let Some(kept) = t.kept_leftmost() {
        return kept;
    }
    let mut n = t.root?;
    while let Some(l) = t.left_of(n) {
        n = l;
    }
    Some(n)
}

/// `rb_last`: the rightmost node.
pub fn last(t: &RbRoot) -> Option<NodeId> {
    let mut n = t.root?;
    while let Some(r) = t.right_of(n) {
        n = r;
    }
    Some(n)
}

/// `rb_next`: the in-order successor of a member.
pub fn next(t: &RbRoot, n: NodeId) -> Option<NodeId> {
    if let Some(mut x) = t.right_of(n) {
        while let Some(l) = t.left_of(x) {
            x = l;
        }
        return Some(x);
    }
    let mut cur = n;
    let mut steps = 0usize;
    while let Some(p) = t.parent_of(cur) {
        if t.right_of(p) != Some(cur) {
            return Some(p);
        }
        cur = p;
        steps += 1;
        if steps > t.nodes.len() {
            return None; // cycle in a corrupted tree
        }
    }
    None
}

/// `rb_prev`: the in-order predecessor of a member.
pub fn prev(t: &RbRoot, n: NodeId) -> Option<NodeId> {
    if let Some(mut x) = t.left_of(n) {
        while let Some(r) = t.right_of(x) {
            x = r;
        }
        return Some(x);
    }
    let mut cur = n;
    let mut steps = 0usize;
    while let Some(p) = t.parent_of(cur) {
        if t.left_of(p) != Some(cur) {
            return Some(p);
        }
        cur = p;
        steps += 1;
        if steps > t.nodes.len() {
            return None;
        }
    }
    None
}
