//! Core data types of the tree module: the per-id node arena ([`RbRoot`]; its node records
//! are in `record`), the key-reading trait, the work/stale-descent observer and the
//! precondition errors.

use std::fmt;
use std::hash::{Hash, Hasher};

use super::record::{opt, Rec, NO_NODE};
pub use super::record::{Color, NodeId, NodeMut, RbNode};

/// One tree (the kernel's `rb_root_cached`). A node is a member exactly when its arena slot
/// holds `Some`.
///
/// The arena holds each member's [`Rec`] (its [`RbNode`] in 32 bytes). Besides the kernel's
/// links the tree keeps, as derived data, every member's in-order neighbours (in its record)
/// and the leftmost member (the cache of `rb_root_cached`):
/// linking a node (`rb_link_node`, from the descent's parent and side) and erasing one (a
/// splice) keep them right, and rotations and recolouring never change them. A link written
/// by hand ([`RbRoot::node_mut`], [`RbRoot::set_root`]: corruption tests) may break the
/// in-order sequence, so from then on this tree no longer keeps them and its readers walk the
/// links instead. None of this takes part in equality, hashing or `Debug`.
#[derive(Default)]
pub struct RbRoot {
    pub(crate) root: Option<NodeId>,
    pub(crate) nodes: Vec<Option<Rec>>,
    pub(crate) count: usize,
    /// The leftmost member; meaningful while `hand_edited` is false.
    leftmost: Option<NodeId>,
    /// A link was written by hand: the neighbours and the leftmost are no longer kept.
    hand_edited: bool,
}

impl Clone for RbRoot {
    fn clone(&self) -> Self {
        RbRoot {
            root: self.root,
            nodes: self.nodes.clone(),
            count: self.count,
            leftmost: self.leftmost,
            hand_edited: self.hand_edited,
        }
    }
    /// The same as `*self = src.clone()`, keeping this arena's allocation.
    fn clone_from(&mut self, src: &Self) {
        self.root = src.root;
        self.nodes.clone_from(&src.nodes);
        self.count = src.count;
        self.leftmost = src.leftmost;
        self.hand_edited = src.hand_edited;
    }
}

impl fmt::Debug for RbRoot {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("RbRoot")
            .field("root", &self.root)
            .field("nodes", &Views(&self.nodes))
            .field("count", &self.count)
            .finish()
    }
}

/// The arena as `Debug` shows a `Vec<Option<RbNode>>`.
struct Views<'a>(&'a [Option<Rec>]);

impl fmt::Debug for Views<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list()
            .entries(self.0.iter().map(|r| r.as_ref().map(Rec::view)))
            .finish()
    }
}

impl RbRoot {
    /// Trimmed view of the arena: trailing empty slots do not take part in equality or hashing.
    fn significant(&self) -> &[Option<Rec>] {
        let end = self
            .nodes
            .iter()
            .rposition(|n| n.is_some())
            .map_or(0, |i| i + 1);
        &self.nodes[..end]
    }
}

impl PartialEq for RbRoot {
    fn eq(&self, other: &Self) -> bool {
        self.root == other.root && self.significant() == other.significant()
    }
}

impl Eq for RbRoot {}

/// Hashes as `(root, [Option<RbNode>])` (the slice's length, then each view): the neighbours
/// take no part.
impl Hash for RbRoot {
    fn hash<H: Hasher>(&self, state: &mut H) {
        self.root.hash(state);
        let sig = self.significant();
        state.write_usize(sig.len());
        for r in sig {
            r.as_ref().map(Rec::view).hash(state);
        }
    }
}

impl RbRoot {
    pub fn new() -> Self {
        Self::default()
    }

    pub fn root(&self) -> Option<NodeId> {
        self.root
    }

    /// Whether `n` is linked in this tree.
    pub fn contains(&self, n: NodeId) -> bool {
        self.node(n).is_some()
    }

    pub fn len(&self) -> usize {
        self.count
    }

    pub fn is_empty(&self) -> bool {
        self.count == 0
    }

    /// A member's node (a copy).
    pub fn node(&self, n: NodeId) -> Option<RbNode> {
        self.rec(n).map(Rec::view)
    }

    /// A member's node to write (used by corruption tests), stored back when the guard is
    /// dropped: the links may be written by hand, so this tree stops keeping in-order
    /// neighbours (see [`RbRoot`]).
    pub fn node_mut(&mut self, n: NodeId) -> Option<NodeMut<'_>> {
        self.hand_edited = true;
        self.rec_mut(n).map(NodeMut::new)
    }

    /// A member's record.
    #[inline(always)]
    pub(crate) fn rec(&self, n: NodeId) -> Option<&Rec> {
        self.nodes.get(n as usize).and_then(|s| s.as_ref())
    }

    /// Mutable access to a member's record for the tree algorithms, which keep the in-order
    /// sequence (or say how it changes: [`RbRoot::thread_in`], [`RbRoot::thread_out`]).
    #[inline(always)]
    pub(crate) fn rec_mut(&mut self, n: NodeId) -> Option<&mut Rec> {
        self.nodes.get_mut(n as usize).and_then(|s| s.as_mut())
    }

    /// A member's `subtree_last`, to write without changing a link.
    pub(crate) fn subtree_last_mut(&mut self, n: NodeId) -> Option<&mut u64> {
        self.rec_mut(n).map(|r| &mut r.subtree_last)
    }

    /// Overwrite the root pointer (tests only; no checking): as [`RbRoot::node_mut`], this
    /// tree stops keeping in-order neighbours.
    pub fn set_root(&mut self, r: Option<NodeId>) {
        self.hand_edited = true;
        self.root = r;
    }

    /// The root pointer, written by the tree algorithms.
    pub(crate) fn put_root(&mut self, r: Option<NodeId>) {
        self.root = r;
    }

    /// `n`'s in-order predecessor and successor (`rb_prev`, `rb_next`) as kept in its record:
    /// two reads. `None` when this tree no longer keeps them (a link was written by hand) or
    /// `n` is not a member; the caller then walks the links.
    #[inline]
    pub(crate) fn neighbours(&self, n: NodeId) -> Option<(Option<NodeId>, Option<NodeId>)> {
        if self.hand_edited {
            return None;
        }
        let r = self.rec(n)?;
        Some((opt(r.prev), opt(r.next)))
    }

    /// A hint that `n`'s record will be read soon (a descent about to choose between children).
    #[inline(always)]
    pub(crate) fn prefetch(&self, n: Option<NodeId>) {
        #[cfg(target_arch = "x86_64")]
        if let Some(n) = n {
            let p = self.nodes.as_ptr().wrapping_add(n as usize);
            // SAFETY: a prefetch reads nothing the program sees and never faults, whatever
            // the address; SSE is part of x86_64.
            unsafe {
                std::arch::x86_64::_mm_prefetch::<{ std::arch::x86_64::_MM_HINT_T0 }>(p.cast());
            }
        }
        #[cfg(not(target_arch = "x86_64"))]
        let _ = n;
    }

    /// Whether this tree keeps the in-order neighbours: no link was written by hand, so its
    /// links are those the tree algorithms left (a binary tree with consistent parents).
    #[inline(always)]
    pub(crate) fn keeps_order(&self) -> bool {
        !self.hand_edited
    }

    /// The leftmost member as kept (`rb_first_cached`); `None` when this tree no longer keeps
    /// it (the caller then walks the links).
    pub(crate) fn kept_leftmost(&self) -> Option<Option<NodeId>> {
        (!self.hand_edited).then_some(self.leftmost)
    }

    /// `n`, just linked as a leaf, sits between `around`'s `prev` and `next` in order (read
    /// from its parent and side before linking): record that in the three records and the
    /// leftmost. `around` is `None` when they could not be told (the parent was not a member
    /// or its child slot was taken): this tree then stops keeping neighbours, as after a
    /// link written by hand.
    pub(crate) fn thread_in(
        &mut self,
        n: NodeId,
        around: Option<(Option<NodeId>, Option<NodeId>)>,
    ) {
        if self.hand_edited {
            return;
        }
        let Some((prev, next)) = around.filter(|_| n != NO_NODE) else {
            // (an id of NO_NODE cannot be kept either; never in practice)
            self.hand_edited = true;
            return;
        };
        if let Some(r) = self.rec_mut(n) {
            r.prev = prev.unwrap_or(NO_NODE);
            r.next = next.unwrap_or(NO_NODE);
        }
        match prev.and_then(|p| self.rec_mut(p)) {
            Some(r) => r.next = n,
            None => self.leftmost = Some(n),
        }
        if let Some(r) = next.and_then(|s| self.rec_mut(s)) {
            r.prev = n;
        }
    }

    /// `n` (still holding its record) leaves the in-order sequence: splice it out.
    pub(crate) fn thread_out(&mut self, n: NodeId) {
        if self.hand_edited {
            return;
        }
        let Some((prev, next)) = self.neighbours(n) else {
            return;
        };
        match prev.and_then(|p| self.rec_mut(p)) {
            Some(r) => r.next = next.unwrap_or(NO_NODE),
            None => self.leftmost = next,
        }
        if let Some(r) = next.and_then(|s| self.rec_mut(s)) {
            r.prev = prev.unwrap_or(NO_NODE);
        }
    }

    /// The same tree with every node id `n` renamed `map(n)` (links included), for
    /// renumbering the objects that embed the nodes. `map` must be injective on members.
    pub fn remap(&self, map: &dyn Fn(NodeId) -> NodeId) -> RbRoot {
        let mut out = RbRoot::new();
        self.remap_into(map, &mut out);
        out
    }

    /// Overwrite `out` with [`RbRoot::remap`]'s tree, keeping `out`'s arena allocation.
    pub fn remap_into(&self, map: &dyn Fn(NodeId) -> NodeId, out: &mut RbRoot) {
        out.nodes.clear();
        out.root = self.root.map(map);
        out.count = self.count;
        // what a tree no longer keeping them holds may name non-members: not mapped
        let keeps = !self.hand_edited;
        out.hand_edited = self.hand_edited;
        out.leftmost = self.leftmost.filter(|_| keeps).map(map);
        let kept = |x: NodeId| {
            if keeps && x != NO_NODE {
                map(x)
            } else {
                NO_NODE
            }
        };
        for (i, slot) in self.nodes.iter().enumerate() {
            if let Some(n) = slot {
                let m = map(i as NodeId) as usize;
                if out.nodes.len() <= m {
                    out.nodes.resize(m + 1, None);
                }
                let link = |x: NodeId| if x == NO_NODE { NO_NODE } else { map(x) };
                out.nodes[m] = Some(Rec {
                    parent: link(n.parent),
                    left: link(n.left),
                    right: link(n.right),
                    prev: kept(n.prev),
                    next: kept(n.next),
                    color: n.color,
                    subtree_last: n.subtree_last,
                });
            }
        }
    }

    /// Ids of all member nodes in ascending id order (arena order, not tree order).
    pub fn members(&self) -> Vec<NodeId> {
        self.nodes
            .iter()
            .enumerate()
            .filter(|(_, s)| s.is_some())
            .map(|(i, _)| i as NodeId)
            .collect()
    }

    /// In-order node ids, following links from the root. Robust against corrupted links: a node
    /// reached twice (a cycle) is not followed again.
    pub fn inorder(&self) -> Vec<NodeId> {
        let mut out = Vec::with_capacity(self.count);
        self.inorder_into(&mut out, &mut Vec::new(), &mut Vec::new());
        out
    }

    /// [`RbRoot::inorder`] into `out`, with `seen` and `stack` as working space (all three are
    /// cleared first), so that a caller that keeps them allocates nothing.
    pub(crate) fn inorder_into(
        &self,
        out: &mut Vec<NodeId>,
        seen: &mut Vec<bool>,
        stack: &mut Vec<NodeId>,
    ) {
        out.clear();
        seen.clear();
        seen.resize(self.nodes.len(), false);
        stack.clear();
        let mut cur = self.root;
        loop {
            while let Some(c) = cur {
                let Some(node) = self.rec(c) else { break };
                if seen[c as usize] {
                    break;
                }
                seen[c as usize] = true;
                stack.push(c);
                cur = opt(node.left);
            }
            let Some(top) = stack.pop() else { break };
            out.push(top);
            cur = self.rec(top).and_then(|n| opt(n.right));
        }
    }

    /// Insert a fresh node record for `n` (growing the arena on demand).
    pub(crate) fn alloc(&mut self, n: NodeId, node: Rec) {
        let i = n as usize;
        if self.nodes.len() <= i {
            self.nodes.resize(i + 1, None);
        }
        if self.nodes[i].is_none() {
            self.count += 1;
        }
        self.nodes[i] = Some(node);
    }

    /// Drop the record of `n` after it has been unlinked.
    pub(crate) fn free(&mut self, n: NodeId) {
        if let Some(slot) = self.nodes.get_mut(n as usize) {
            if slot.take().is_some() {
                self.count -= 1;
            }
        }
    }
}

/// How START and LAST of a node are read at the moment of use (file tree: the VMA's vm_pgoff
/// and vm_pgoff + pages - 1; anon tree: the AVC's VMA's values).
pub trait IntervalKeys {
    fn start(&self, n: NodeId) -> u64;
    fn last(&self, n: NodeId) -> u64;
}

impl<K: IntervalKeys + ?Sized> IntervalKeys for &K {
    fn start(&self, n: NodeId) -> u64 {
        (**self).start(n)
    }
    fn last(&self, n: NodeId) -> u64 {
        (**self).last(n)
    }
}

/// A plain table of intervals indexed by id: `keys[id] = (start, last)`; missing ids read 0.
impl IntervalKeys for Vec<(u64, u64)> {
    fn start(&self, n: NodeId) -> u64 {
        self.get(n as usize).map_or(0, |k| k.0)
    }
    fn last(&self, n: NodeId) -> u64 {
        self.get(n as usize).map_or(0, |k| k.1)
    }
}

/// Work counters, used to compare the cost of critical sections.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct TreeStats {
    /// Nodes stepped onto by descents, searches and the erase successor walk.
    pub visits: u64,
    /// Single rotations performed by insert and erase rebalancing.
    pub rotations: u64,
    /// Augmented-value recomputations (in `rotate` and `propagate` callbacks).
    pub augment_computes: u64,
}

/// A key-driven descent passed a node whose current start does not fit between its in-order
/// neighbours' starts (the `stale-descent` invariant).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StaleDescent {
    /// `"insert"` or `"query"`.
    pub op: &'static str,
    pub node: NodeId,
    pub start: u64,
    pub pred: Option<(NodeId, u64)>,
    pub succ: Option<(NodeId, u64)>,
}

impl fmt::Display for StaleDescent {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "stale-descent: {} passed n{} (start {})",
            self.op, self.node, self.start
        )?;
        match self.pred {
            Some((p, s)) => write!(f, " after n{p} (start {s})")?,
            None => write!(f, " with no predecessor")?,
        }
        match self.succ {
            Some((p, s)) => write!(f, " before n{p} (start {s})"),
            None => write!(f, " with no successor"),
        }
    }
}

/// Observer passed to every operation: counts work and collects stale-descent reports.
#[derive(Clone, Debug, Default)]
pub struct TreeObs {
    pub stats: TreeStats,
    pub stale: Vec<StaleDescent>,
    pub check_stale: bool,
    /// A query followed a NULL child: the kernel's `_subtree_search` descends right without
    /// looking (its loop invariant promises a right child), so with a stale `subtree_last` it
    /// would dereference NULL. The node it was at; the query returned no node from there.
    pub null_descent: Option<NodeId>,
}

impl TreeObs {
    /// An observer with stale-descent checking switched on.
    pub fn checking() -> Self {
        TreeObs {
            check_stale: true,
            ..Default::default()
        }
    }
}

/// Precondition violations; the tree is left unchanged when one is returned.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum TreeError {
    AlreadyInTree(NodeId),
    NotInTree(NodeId),
    PrevNotInTree(NodeId),
}

impl fmt::Display for TreeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TreeError::AlreadyInTree(n) => write!(f, "node n{n} is already in the tree"),
            TreeError::NotInTree(n) => write!(f, "node n{n} is not in the tree"),
            TreeError::PrevNotInTree(n) => write!(f, "prev node n{n} is not in the tree"),
        }
    }
}

impl std::error::Error for TreeError {}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::hash_map::DefaultHasher;

    fn hash(t: &RbRoot) -> u64 {
        let mut h = DefaultHasher::new();
        t.hash(&mut h);
        h.finish()
    }

    #[test]
    fn equality_and_hash_ignore_trailing_empty_slots() {
        let mut a = RbRoot::new();
        a.alloc(0, Rec::new_red(5));
        a.set_root(Some(0));
        let mut b = a.clone();
        b.alloc(9, Rec::new_red(1));
        b.free(9);
        assert_eq!(b.nodes.len(), 10);
        assert_eq!(a, b);
        assert_eq!(hash(&a), hash(&b));
        assert_eq!(b.len(), 1);
        // A differing record is not equal.
        b.node_mut(0).unwrap().subtree_last = 6;
        assert_ne!(a, b);
    }

    #[test]
    fn membership_and_lookups_out_of_range() {
        let mut t = RbRoot::new();
        assert!(t.is_empty() && !t.contains(3) && t.node(u32::MAX).is_none());
        assert!(t.node_mut(7).is_none());
        t.alloc(3, Rec::new_red(0));
        assert!(t.contains(3) && !t.contains(2));
        assert_eq!(t.members(), vec![3]);
        t.free(3);
        t.free(3);
        assert_eq!(t.len(), 0);
    }

    #[test]
    fn error_messages() {
        assert_eq!(
            TreeError::AlreadyInTree(2).to_string(),
            "node n2 is already in the tree"
        );
        assert_eq!(
            TreeError::PrevNotInTree(4).to_string(),
            "prev node n4 is not in the tree"
        );
    }
}
