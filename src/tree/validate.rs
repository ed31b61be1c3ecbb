//! Structural validators for an interval rbtree, returning named violations: `rb-shape`,
//! `tree-order` (on the keys as they are now) and `augment`.

use std::cell::RefCell;
use std::fmt;

use super::types::{Color, IntervalKeys, NodeId, RbRoot};

/// One broken invariant.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum TreeViolation {
    /// Colours, black height, parent links, reachability.
    RbShape { node: Option<NodeId>, what: String },
    /// In-order starts must not decrease; `node` comes right after `prev` in order.
    TreeOrder {
        node: NodeId,
        start: u64,
        prev: NodeId,
        prev_start: u64,
    },
    /// `subtree_last` differs from max(last(node), children's subtree_last).
    Augment {
        node: NodeId,
        stored: u64,
        expected: u64,
    },
}

impl TreeViolation {
    /// The name of the invariant broken, as traces cite it (`check::Invariant` maps the
    /// violation to its variant; the trees know nothing of the checker above them).
    pub fn name(&self) -> &'static str {
        match self {
            TreeViolation::RbShape { .. } => "rb-shape",
            TreeViolation::TreeOrder { .. } => "tree-order",
            TreeViolation::Augment { .. } => "augment",
        }
    }
}

impl fmt::Display for TreeViolation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: ", self.name())?;
        match self {
            TreeViolation::RbShape {
                node: Some(n),
                what,
            } => write!(f, "n{n}: {what}"),
            TreeViolation::RbShape { node: None, what } => write!(f, "{what}"),
            TreeViolation::TreeOrder {
                node,
                start,
                prev,
                prev_start,
            } => write!(
                f,
                "n{node} (start {start}) follows n{prev} (start {prev_start})"
            ),
            TreeViolation::Augment {
                node,
                stored,
                expected,
            } => write!(f, "n{node} has subtree_last {stored}, expected {expected}"),
        }
    }
}

/// Buffers of one validation, kept per thread between validations so that validating a sound
/// tree allocates nothing once they have grown to the largest arena seen.
#[derive(Default)]
struct Scratch {
    reached: Vec<bool>,
    /// (node, expanded?)
    stack: Vec<(NodeId, bool)>,
    black_height: Vec<u32>,
    inorder: Vec<NodeId>,
    inorder_seen: Vec<bool>,
    inorder_stack: Vec<NodeId>,
}

thread_local! {
    static SCRATCH: RefCell<Scratch> = RefCell::new(Scratch::default());
}

/// Check every invariant of the tree against the keys as they are now.
pub fn validate(t: &RbRoot, k: &impl IntervalKeys) -> Vec<TreeViolation> {
    SCRATCH.with(|s| match s.try_borrow_mut() {
        Ok(mut s) => validate_with(t, k, &mut s),
        // a key reader that validates another tree: buffers of its own
        Err(_) => validate_with(t, k, &mut Scratch::default()),
    })
}

fn validate_with(t: &RbRoot, k: &impl IntervalKeys, sc: &mut Scratch) -> Vec<TreeViolation> {
    let mut out = Vec::new();
    let shape = |node: Option<NodeId>, what: String| TreeViolation::RbShape { node, what };

    if let Some(r) = t.root {
        match t.node(r) {
            None => out.push(shape(None, format!("root n{r} is not a member"))),
            Some(rec) => {
                if rec.color == Color::Red {
                    out.push(shape(Some(r), "root is red".into()));
                }
                if rec.parent.is_some() {
                    out.push(shape(Some(r), "root has a parent".into()));
                }
            }
        }
    }

    // Depth-first walk over child links, post-order black heights, cycle-safe.
    let Scratch {
        reached,
        stack,
        black_height: bh,
        inorder,
        inorder_seen,
        inorder_stack,
    } = sc;
    reached.clear();
    reached.resize(t.nodes.len(), false);
    stack.clear();
    bh.clear();
    bh.resize(t.nodes.len(), 0);
    if let Some(r) = t.root.filter(|&r| t.contains(r)) {
        reached[r as usize] = true;
        stack.push((r, false));
    }
    while let Some((n, expanded)) = stack.pop() {
        let Some(rec) = t.node(n) else { continue };
        if !expanded {
            stack.push((n, true));
            for c in [rec.right, rec.left].into_iter().flatten() {
                let Some(crec) = t.node(c) else {
                    out.push(shape(Some(n), format!("child n{c} is not a member")));
                    continue;
                };
                if reached[c as usize] {
                    out.push(shape(
                        Some(c),
                        "reached twice (cycle or shared child)".into(),
                    ));
                    continue;
                }
                reached[c as usize] = true;
                if crec.parent != Some(n) {
                    out.push(shape(
                        Some(c),
                        format!(
                            "parent link is {} but n{n} is its parent",
                            crec.parent.map_or("none".to_string(), |p| format!("n{p}"))
                        ),
                    ));
                }
                if rec.color == Color::Red && crec.color == Color::Red {
                    out.push(shape(Some(c), format!("red child of red n{n}")));
                }
                stack.push((c, false));
            }
        } else {
            let h = |c: Option<NodeId>| {
                c.filter(|&c| t.contains(c) && reached[c as usize])
                    .map_or(0, |c| bh[c as usize])
            };
            let (lh, rh) = (h(rec.left), h(rec.right));
            if lh != rh {
                out.push(shape(
                    Some(n),
                    format!("black height {lh} on the left, {rh} on the right"),
                ));
            }
            bh[n as usize] = lh.max(rh) + u32::from(rec.color == Color::Black);

            let mut expected = k.last(n);
            for c in [rec.left, rec.right].into_iter().flatten() {
                if let Some(crec) = t.node(c) {
                    expected = expected.max(crec.subtree_last);
                }
            }
            if rec.subtree_last != expected {
                out.push(TreeViolation::Augment {
                    node: n,
                    stored: rec.subtree_last,
                    expected,
                });
            }
        }
    }
    for (m, slot) in t.nodes.iter().enumerate() {
        if slot.is_some() && !reached[m] {
            out.push(shape(
                Some(m as NodeId),
                "not reachable from the root".into(),
            ));
        }
    }

    t.inorder_into(inorder, inorder_seen, inorder_stack);
    for w in inorder.windows(2) {
        let (p, n) = (w[0], w[1]);
        let (ps, ns) = (k.start(p), k.start(n));
        if ns < ps {
            out.push(TreeViolation::TreeOrder {
                node: n,
                start: ns,
                prev: p,
                prev_start: ps,
            });
        }
    }
    out
}
