//! Node records: [`RbNode`], the kernel's view of one node (links, colour, augmented value),
//! and [`Rec`], how the arena of [`super::RbRoot`] stores it: the same fields in 32 bytes
//! (links as ids, [`NO_NODE`] for none), plus the node's in-order neighbours, which the tree
//! keeps for the stale-descent check; and the ids and colours they hold. Tests: the record's
//! size and view (a tree's hash, equality and `Debug` text are tested with the interval tree).

use std::ops::{Deref, DerefMut};

/// Id of the object that embeds a tree node (a VMA id or an AVC id).
pub type NodeId = u32;

/// Node colour, as `RB_RED` / `RB_BLACK`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Color {
    Red,
    Black,
}

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
