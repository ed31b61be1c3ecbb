//! Node records: [`RbNode`], the kernel's view of one node (links, colour, augmented value),
//! and [`Rec`], how the arena of [`super::RbRoot`] stores it: the same fields in 32 bytes
//! (links as ids, [`NO_NODE`] for none), plus the node's in-order neighbours, which the tree
//! keeps for the stale-descent check. Tests: the record's size and view, and that a tree's
//! hash, equality and `Debug` text are those of the views.

use std::ops::{Deref, DerefMut};

use super::types::{Color, NodeId};

/// The rb links, colour and augmented value of one node (`struct rb_node` plus
/// `rb_subtree_last`). The key is deliberately absent.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct RbNode {
    pub parent: Option<NodeId>,
    pub left: Option<NodeId>,
    pub right: Option<NodeId>,
    pub color: Color,
    pub subtree_last: u64,
}

/// "No node" in a [`Rec`]: no member may have this id, and a link to it reads as none.
pub(crate) const NO_NODE: NodeId = NodeId::MAX;

/// `x`, or none for [`NO_NODE`].
#[inline(always)]
pub(crate) fn opt(x: NodeId) -> Option<NodeId> {
    (x != NO_NODE).then_some(x)
}

/// `x` as a [`Rec`] field.
#[inline(always)]
pub(crate) fn raw(x: Option<NodeId>) -> NodeId {
    x.unwrap_or(NO_NODE)
}

/// The arena's record of a member: [`RbNode`]'s fields, and the in-order predecessor and
/// successor (`prev`, `next`), derived data the kernel's node does not have. Equality looks at
/// [`RbNode`]'s fields only.
#[derive(Clone, Copy)]
pub(crate) struct Rec {
    pub(crate) parent: NodeId,
    pub(crate) left: NodeId,
    pub(crate) right: NodeId,
    pub(crate) prev: NodeId,
    pub(crate) next: NodeId,
    pub(crate) color: Color,
    pub(crate) subtree_last: u64,
}

impl Rec {
    /// A detached red node with the given augmented value (what `rb_link_node` starts from).
    pub(crate) fn new_red(subtree_last: u64) -> Self {
        Rec {
            parent: NO_NODE,
            left: NO_NODE,
            right: NO_NODE,
            prev: NO_NODE,
            next: NO_NODE,
            color: Color::Red,
            subtree_last,
        }
    }

    /// The kernel's view of this record.
    #[inline]
    pub(crate) fn view(&self) -> RbNode {
        RbNode {
            parent: opt(self.parent),
            left: opt(self.left),
            right: opt(self.right),
            color: self.color,
            subtree_last: self.subtree_last,
        }
    }

    /// Take over `v`'s fields, keeping the neighbours.
    fn set_view(&mut self, v: &RbNode) {
        self.parent = raw(v.parent);
        self.left = raw(v.left);
        self.right = raw(v.right);
        self.color = v.color;
        self.subtree_last = v.subtree_last;
    }
}

impl PartialEq for Rec {
    fn eq(&self, other: &Self) -> bool {
        (
            self.parent,
            self.left,
            self.right,
            self.color,
            self.subtree_last,
        ) == (
            other.parent,
            other.left,
            other.right,
            other.color,
            other.subtree_last,
        )
    }
}

impl Eq for Rec {}

/// A member's [`RbNode`] to write ([`super::RbRoot::node_mut`]), stored back into its record
/// when dropped. A link to id `NodeId::MAX` cannot be stored: it reads back as none.
pub struct NodeMut<'a> {
    rec: &'a mut Rec,
    view: RbNode,
}

impl<'a> NodeMut<'a> {
    pub(crate) fn new(rec: &'a mut Rec) -> Self {
        let view = rec.view();
        NodeMut { rec, view }
    }
}

impl Deref for NodeMut<'_> {
    type Target = RbNode;
    fn deref(&self) -> &RbNode {
        &self.view
    }
}

impl DerefMut for NodeMut<'_> {
    fn deref_mut(&mut self) -> &mut RbNode {
        &mut self.view
    }
}

impl Drop for NodeMut<'_> {
    fn drop(&mut self) {
        self.rec.set_view(&self.view);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tree::{RbRoot, TreeObs};
    use std::collections::hash_map::DefaultHasher;
    use std::hash::{Hash, Hasher};

    fn hash(t: &RbRoot) -> u64 {
        let mut h = DefaultHasher::new();
        t.hash(&mut h);
        h.finish()
    }

    /// Every call a hasher gets, in order.
    #[derive(Default)]
    struct Calls(Vec<String>);

    impl Hasher for Calls {
        fn finish(&self) -> u64 {
            0
        }
        fn write(&mut self, b: &[u8]) {
            self.0.push(format!("{b:?}"));
        }
        fn write_u8(&mut self, i: u8) {
            self.0.push(format!("u8 {i}"));
        }
        fn write_u32(&mut self, i: u32) {
            self.0.push(format!("u32 {i}"));
        }
        fn write_u64(&mut self, i: u64) {
            self.0.push(format!("u64 {i}"));
        }
        fn write_usize(&mut self, i: usize) {
            self.0.push(format!("usize {i}"));
        }
        fn write_isize(&mut self, i: isize) {
            self.0.push(format!("isize {i}"));
        }
    }

    #[test]
    fn hash_debug_and_equality_are_those_of_the_kernel_fields() {
        let keys: Vec<(u64, u64)> = [5, 1, 9, 3, 7].iter().map(|&s| (s, s + 2)).collect();
        let mut t = RbRoot::new();
        for n in 0..5 {
            crate::tree::interval::insert(&mut t, &keys, n, &mut TreeObs::checking()).unwrap();
        }
        crate::tree::interval::remove(&mut t, &keys, 2, &mut TreeObs::default()).unwrap();
        let views: Vec<Option<RbNode>> = (0..5).map(|n| t.node(n)).collect();
        let (mut got, mut want) = (Calls::default(), Calls::default());
        t.hash(&mut got);
        t.root.hash(&mut want);
        views.as_slice().hash(&mut want);
        assert_eq!(got.0, want.0);
        let want_debug = format!(
            "RbRoot {{ root: {:?}, nodes: {:?}, count: 4 }}",
            t.root, views
        );
        assert_eq!(format!("{t:?}"), want_debug);
        assert!(format!("{t:#?}").contains("subtree_last"));
        // the same links without kept neighbours: equal, same hash
        let mut w = t.clone();
        w.set_root(t.root);
        for n in w.members() {
            if let Some(r) = w.rec_mut(n) {
                r.prev = NO_NODE;
                r.next = NO_NODE;
            }
        }
        assert_eq!(t, w);
        assert_eq!(hash(&t), hash(&w));
    }

    /// Linking a node as the root of a tree that has one cuts the old nodes off: the tree no
    /// longer keeps the neighbours, so the stale-descent check walks the links.
    #[test]
    fn a_second_root_link_stops_keeping_the_neighbours() {
        let keys: Vec<(u64, u64)> = vec![(1, 2), (5, 6)];
        let mut t = RbRoot::new();
        crate::tree::interval::insert(&mut t, &keys, 0, &mut TreeObs::checking()).unwrap();
        assert!(t.keeps_order());
        crate::tree::rbtree::link_node(&mut t, 1, None, crate::tree::rbtree::Side::Left, 6);
        assert!(!t.keeps_order());
    }

    #[test]
    fn a_record_is_32_bytes_and_reads_back_its_view() {
        assert_eq!(std::mem::size_of::<Option<Rec>>(), 32);
        let mut r = Rec::new_red(7);
        r.prev = 4;
        let v = RbNode {
            parent: Some(0),
            left: None,
            right: Some(9),
            color: Color::Black,
            subtree_last: 12,
        };
        {
            let mut m = NodeMut::new(&mut r);
            *m = v;
            assert_eq!(m.subtree_last, 12);
        }
        assert_eq!(r.view(), v);
        assert_eq!((r.prev, r.next), (4, NO_NODE));
        let mut s = r;
        s.next = 1;
        assert!(r == s, "the neighbours take no part in equality");
        s.subtree_last = 13;
        assert!(r != s);
    }
}
