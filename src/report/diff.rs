//! What changed in one rmap tree between the world before the last call and the world at the
//! failure. Node ids are stable inside a call (the canonical renumbering happens only between
//! calls), so a node is compared with the node of the same id. A node is *moved* when its parent
//! or its side under the parent differs (a rotation moves the nodes it turns; a leaf insert moves
//! only the new leaf, which is *added*).

use super::snap::{NodeSnap, TreeSnap};
use crate::tree::NodeId;
use std::collections::BTreeMap;

/// One kind of change of a node.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Change {
    Added,
    Removed,
    Moved,
    Recoloured,
    /// The key the tree reads (start or last pgoff) differs.
    Key,
    /// The augmented `subtree_last` differs.
    SubtreeLast,
}

impl Change {
    /// Name used in the page (`data-changed`, legend, lists).
    pub fn name(self) -> &'static str {
        match self {
            Change::Added => "added",
            Change::Removed => "removed",
            Change::Moved => "moved",
            Change::Recoloured => "recoloured",
            Change::Key => "key",
            Change::SubtreeLast => "subtree_last",
        }
    }

    /// Short form for the tag drawn above a changed node.
    pub fn tag(self) -> &'static str {
        match self {
            Change::Recoloured => "recolour",
            Change::SubtreeLast => "max",
            c => c.name(),
        }
    }

    /// Every kind, in legend order.
    pub const ALL: [Change; 6] = [
        Change::Added,
        Change::Removed,
        Change::Moved,
        Change::Recoloured,
        Change::Key,
        Change::SubtreeLast,
    ];
}

/// A change with what the node was (or is) on the other side, e.g. `was black`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Detail {
    pub change: Change,
    pub text: String,
}

/// The changes of each node that changed (nodes that did not change are absent).
pub(crate) type Changes = BTreeMap<NodeId, Vec<Detail>>;

fn colour(red: bool) -> &'static str {
    if red {
        "red"
    } else {
        "black"
    }
}

/// Where a node hangs: `root`, or `L`/`R`/`?` of its parent.
fn place(n: &NodeSnap, t: &TreeSnap) -> String {
    match n.parent {
        None => "root".to_string(),
        Some(p) => {
            let owner = t.nodes.get(&p).map_or(format!("#{p}"), |p| p.label.clone());
            match n.side(t) {
                "L" => format!("left child of {owner}"),
                "R" => format!("right child of {owner}"),
                _ => format!("parent {owner}, not linked back"),
            }
        }
    }
}

/// Changes of a node present in both trees.
fn compare(b: &NodeSnap, bt: &TreeSnap, a: &NodeSnap, at: &TreeSnap) -> Vec<Detail> {
    let mut out = Vec::new();
    let (was, now) = (place(b, bt), place(a, at));
    if b.parent != a.parent || b.side(bt) != a.side(at) {
        out.push(Detail {
            change: Change::Moved,
            text: format!("was {was}, now {now}"),
        });
    }
    if b.red != a.red {
        out.push(Detail {
            change: Change::Recoloured,
            text: format!("was {}, now {}", colour(b.red), colour(a.red)),
        });
    }
    if (b.start, b.last) != (a.start, a.last) {
        out.push(Detail {
            change: Change::Key,
            text: format!(
                "was [{}..{}], now [{}..{}]",
                b.start, b.last, a.start, a.last
            ),
        });
    }
    if b.subtree_last != a.subtree_last {
        out.push(Detail {
            change: Change::SubtreeLast,
            text: format!("max was {}, now {}", b.subtree_last, a.subtree_last),
        });
    }
    out
}

/// Changes between `before` and `after` (`None`: the tree does not exist on that side, e.g. a
/// freed anon_vma, so all its nodes are added or removed).
pub fn diff(before: Option<&TreeSnap>, after: Option<&TreeSnap>) -> Changes {
    let empty = TreeSnap::default();
    let (bt, at) = (before.unwrap_or(&empty), after.unwrap_or(&empty));
    let mut out = Changes::new();
    for (id, b) in &bt.nodes {
        let details = match at.nodes.get(id) {
            Some(a) => compare(b, bt, a, at),
            None => vec![Detail {
                change: Change::Removed,
                text: format!("was {}", place(b, bt)),
            }],
        };
        if !details.is_empty() {
            out.insert(*id, details);
        }
    }
    for (id, a) in &at.nodes {
        if !bt.nodes.contains_key(id) {
            out.insert(
                *id,
                vec![Detail {
                    change: Change::Added,
                    text: format!("now {}", place(a, at)),
                }],
            );
        }
    }
    out
}

/// The tag drawn above node `n`: the short forms of its changes (empty when it did not change).
pub fn tag(changes: &Changes, n: NodeId) -> String {
    changes.get(&n).map_or(String::new(), |d| {
        d.iter()
            .map(|d| d.change.tag())
            .collect::<Vec<_>>()
            .join(" ")
    })
}

/// The kinds of change of node `n`, space-separated (empty when it did not change).
pub fn kinds(changes: &Changes, n: NodeId) -> String {
    changes.get(&n).map_or(String::new(), |d| {
        d.iter()
            .map(|d| d.change.name())
            .collect::<Vec<_>>()
            .join(" ")
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn node(id: NodeId, parent: Option<NodeId>, red: bool, key: (u64, u64)) -> NodeSnap {
        NodeSnap {
            id,
            label: format!("vma#{id}"),
            parent,
            left: None,
            right: None,
            red,
            start: key.0,
            last: key.1,
            subtree_last: key.1,
            note: String::new(),
        }
    }

    fn tree(nodes: Vec<NodeSnap>) -> TreeSnap {
        let mut t = TreeSnap {
            root: nodes.iter().find(|n| n.parent.is_none()).map(|n| n.id),
            nodes: nodes.into_iter().map(|n| (n.id, n)).collect(),
        };
        // link children back from the parent pointers (left first)
        let links: Vec<(NodeId, NodeId)> = t
            .nodes
            .values()
            .filter_map(|n| n.parent.map(|p| (p, n.id)))
            .collect();
        for (p, c) in links {
            let p = t.nodes.get_mut(&p).unwrap();
            if p.left.is_none() {
                p.left = Some(c);
            } else {
                p.right = Some(c);
            }
        }
        t
    }

    #[test]
    fn added_removed_and_unchanged() {
        let b = tree(vec![
            node(0, None, false, (0, 3)),
            node(1, Some(0), true, (0, 1)),
        ]);
        let a = tree(vec![
            node(0, None, false, (0, 3)),
            node(2, Some(0), true, (5, 6)),
        ]);
        let c = diff(Some(&b), Some(&a));
        assert_eq!(kinds(&c, 0), "");
        assert_eq!(kinds(&c, 1), "removed");
        assert_eq!(kinds(&c, 2), "added");
        assert_eq!(c.len(), 2);
    }

    #[test]
    fn recolour_key_subtree_last_and_move() {
        let b = tree(vec![
            node(0, None, false, (0, 3)),
            node(1, Some(0), true, (0, 1)),
        ]);
        let mut a = tree(vec![
            node(1, None, false, (0, 2)),
            node(0, Some(1), true, (0, 3)),
        ]);
        a.nodes.get_mut(&1).unwrap().subtree_last = 3;
        let c = diff(Some(&b), Some(&a));
        assert_eq!(kinds(&c, 0), "moved recoloured");
        assert_eq!(kinds(&c, 1), "moved recoloured key subtree_last");
        assert_eq!(tag(&c, 1), "moved recolour key max");
        assert!(c[&1][0].text.contains("was left child of vma#0, now root"));
    }

    #[test]
    fn missing_side_adds_or_removes_everything() {
        let b = tree(vec![node(0, None, false, (0, 3))]);
        assert_eq!(kinds(&diff(Some(&b), None), 0), "removed");
        assert_eq!(kinds(&diff(None, Some(&b)), 0), "added");
    }
}
