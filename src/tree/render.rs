//! Plain-text rendering of an interval tree: one node per line, indented by depth, showing the
//! side (L/R), the label, the current [start..last], the colour and the stored subtree_last.

use std::fmt::Write;

use super::types::{Color, IntervalKeys, NodeId, RbRoot};

/// Render `t` top-down, pre-order (node, then left, then right). Example line:
/// `  L n3 [10..19] R max=25`. An empty tree renders as `(empty tree)`.
pub fn render(t: &RbRoot, k: &impl IntervalKeys, label: &dyn Fn(NodeId) -> String) -> String {
    let mut out = String::new();
    let Some(root) = t.root else {
        out.push_str("(empty tree)\n");
        return out;
    };
    let mut seen = vec![false; t.nodes.len()];
    // (node, depth, side tag)
    let mut stack: Vec<(NodeId, usize, &'static str)> = vec![(root, 0, "*")];
    while let Some((n, depth, side)) = stack.pop() {
        let indent = "  ".repeat(depth);
        let Some(rec) = t.node(n) else {
            writeln!(out, "{indent}{side} {} (not a member)", label(n))
                .expect("a String takes any text");
            continue;
        };
        if seen[n as usize] {
            writeln!(out, "{indent}{side} {} (seen before: cycle)", label(n))
                .expect("a String takes any text");
            continue;
        }
        seen[n as usize] = true;
        let c = match rec.color {
            Color::Red => 'R',
            Color::Black => 'B',
        };
        writeln!(
            out,
            "{indent}{side} {} [{}..{}] {c} max={}",
            label(n),
            k.start(n),
            k.last(n),
            rec.subtree_last
        )
        .expect("a String takes any text");
        if let Some(r) = rec.right {
            stack.push((r, depth + 1, "R"));
        }
        if let Some(l) = rec.left {
            stack.push((l, depth + 1, "L"));
        }
    }
    out
}
