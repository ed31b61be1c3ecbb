//! Laying out one rmap tree and drawing it as inline SVG: a node's column is its in-order
//! position and its row its depth below the root; members the walk from the root does not reach
//! (a corrupted tree) follow in a row of their own with a dashed outline. Red and black nodes
//! are filled in their colour; nodes that changed get a thick orange outline and a tag naming
//! the change. Links that the walk does not follow as tree edges (a cycle, a child reached
//! twice) are drawn dashed.

use super::diff::{kinds, tag, Changes};
use super::html::{esc, BLACK_FILL, CHANGED_STROKE, RED_FILL};
use super::snap::TreeSnap;
use crate::textbuf::PushFmt;
use crate::tree::NodeId;
use std::collections::{BTreeMap, HashSet};

/// Where one node goes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Placed {
    pub id: NodeId,
    /// In-order position (0 = leftmost).
    pub col: usize,
    /// Depth below the root; unreachable members get the row below the deepest one.
    pub row: usize,
    /// Reached from the root.
    pub attached: bool,
    /// The node the walk reached it from (`None` for the root and unreachable members).
    pub tree_parent: Option<NodeId>,
}

/// Lay out `t`: in-order columns from the root, rows by depth, then the unreachable members.
pub fn layout(t: &TreeSnap) -> Vec<Placed> {
    let mut out: Vec<Placed> = Vec::with_capacity(t.len());
    let mut seen: HashSet<NodeId> = HashSet::new();
    // explicit in-order walk: (node, depth, parent in the walk)
    let mut stack: Vec<(NodeId, usize, Option<NodeId>)> = Vec::new();
    let mut cur = t.root.map(|r| (r, 0, None));
    loop {
        while let Some((n, depth, from)) = cur {
            let Some(node) = t.nodes.get(&n) else { break };
            if !seen.insert(n) {
                break;
            }
            stack.push((n, depth, from));
            cur = node.left.map(|l| (l, depth + 1, Some(n)));
        }
        let Some((n, depth, from)) = stack.pop() else {
            break;
        };
        out.push(Placed {
            id: n,
            col: out.len(),
            row: depth,
            attached: true,
            tree_parent: from,
        });
        cur = t.nodes[&n].right.map(|r| (r, depth + 1, Some(n)));
    }
    let loose_row = out.iter().map(|p| p.row + 1).max().unwrap_or(0);
    for id in t.nodes.keys() {
        if !seen.contains(id) {
            out.push(Placed {
                id: *id,
                col: out.len(),
                row: loose_row,
                attached: false,
                tree_parent: None,
            });
        }
    }
    out
}

/// Geometry of one drawing, in pixels.
struct Geom {
    box_w: f64,
    box_h: f64,
    col_w: f64,
    row_h: f64,
    margin: f64,
}

/// Width of a monospace character at the node font size (12px), slightly generous.
const CHAR_W: f64 = 7.4;

fn geometry(t: &TreeSnap, changes: &Changes) -> Geom {
    // the tag is drawn at 11px: 11 of its characters take the room of 10 label characters
    let chars = t
        .nodes
        .values()
        .map(|n| {
            let tag = tag(changes, n.id).len() * 11 / 12 + 1;
            n.label.len().max(n.keys_text().len()).max(tag)
        })
        .max()
        .unwrap_or(8)
        .max(8);
    let box_w = (chars as f64 * CHAR_W + 16.0).ceil();
    Geom {
        box_w,
        box_h: 38.0,
        col_w: box_w + 14.0,
        row_h: 80.0,
        margin: 22.0,
    }
}

impl Geom {
    /// Top-left corner of a node's box.
    fn at(&self, p: &Placed) -> (f64, f64) {
        (
            self.margin + p.col as f64 * self.col_w,
            self.margin + p.row as f64 * self.row_h,
        )
    }
}

/// One link from `from` to `to`; `tree_edge` false draws it dashed.
fn edge(svg: &mut String, g: &Geom, from: &Placed, to: &Placed, side: &str, tree_edge: bool) {
    let (fx, fy) = g.at(from);
    let (tx, ty) = g.at(to);
    let (x1, y1) = (fx + g.box_w / 2.0, fy + g.box_h);
    let (x2, y2) = (tx + g.box_w / 2.0, ty);
    let dash = if tree_edge {
        ""
    } else {
        " stroke-dasharray=\"5 4\""
    };
    svg.push_line(format_args!("<g class=\"edge\"><line x1=\"{x1}\" y1=\"{y1}\" x2=\"{x2}\" y2=\"{y2}\" \
         stroke=\"#555\" stroke-width=\"1.5\"{dash}/>\
         <text x=\"{}\" y=\"{}\" font-size=\"10\" fill=\"#555\" text-anchor=\"middle\">{side}</text></g>",
        (x1 + x2) / 2.0 + if side == "L" { -7.0 } else { 7.0 },
        (y1 + y2) / 2.0));
}

/// One node: box, two label lines, tooltip, and a tag naming its changes.
fn node(svg: &mut String, g: &Geom, t: &TreeSnap, p: &Placed, changes: &Changes) {
    let n = &t.nodes[&p.id];
    let (x, y) = g.at(p);
    let changed = kinds(changes, p.id);
    let fill = if n.red { RED_FILL } else { BLACK_FILL };
    let (stroke, width) = if changed.is_empty() {
        ("#777", 1.0)
    } else {
        (CHANGED_STROKE, 5.0)
    };
    let dash = if p.attached {
        ""
    } else {
        " stroke-dasharray=\"6 3\""
    };
    let mut tip = format!(
        "{} {} {}",
        n.label,
        n.keys_text(),
        if n.red { "red" } else { "black" }
    );
    if !n.note.is_empty() {
        tip += &format!(", {}", n.note);
    }
    if !p.attached {
        tip += ", not reached from the root";
    }
    for d in changes.get(&p.id).into_iter().flatten() {
        tip += &format!("\n{}: {}", d.change.name(), d.text);
    }
    svg.push_fmt(format_args!(
        "<g class=\"node\" data-id=\"{}\" data-changed=\"{}\" transform=\"translate({x},{y})\">\
         <title>{}</title>\
         <rect width=\"{}\" height=\"{}\" rx=\"4\" fill=\"{fill}\" stroke=\"{stroke}\" \
         stroke-width=\"{width}\"{dash}/>\
         <text x=\"{}\" y=\"15\" fill=\"#fff\" text-anchor=\"middle\">{}</text>\
         <text x=\"{}\" y=\"31\" fill=\"#fff\" text-anchor=\"middle\">{}</text>",
        p.id,
        esc(&changed),
        esc(&tip),
        g.box_w,
        g.box_h,
        g.box_w / 2.0,
        esc(&n.label),
        g.box_w / 2.0,
        esc(&n.keys_text())
    ));
    if !changed.is_empty() {
        svg.push_fmt(format_args!(
            "<text x=\"{}\" y=\"-6\" font-size=\"11\" font-weight=\"bold\" fill=\"#c45f00\" \
             text-anchor=\"middle\">{}</text>",
            g.box_w / 2.0,
            esc(&tag(changes, p.id))
        ));
    }
    svg.push_str("</g>\n");
}

/// The SVG of `t` with `changes` highlighted; `tree` and `side` name it in data attributes
/// (`data-tree="mapping#0" data-side="before"`).
pub fn draw(t: &TreeSnap, changes: &Changes, tree: &str, side: &str) -> String {
    let g = geometry(t, changes);
    let placed = layout(t);
    let cols = placed.len().max(1);
    let rows = placed.iter().map(|p| p.row + 1).max().unwrap_or(1);
    let width = (2.0 * g.margin + cols as f64 * g.col_w - 14.0).ceil();
    let height = (2.0 * g.margin + (rows - 1) as f64 * g.row_h + g.box_h).ceil();
    let mut svg = format!(
        "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"tree\" data-tree=\"{}\" \
         data-side=\"{}\" data-nodes=\"{}\" width=\"{width}\" height=\"{height}\" \
         viewBox=\"0 0 {width} {height}\" font-family=\"monospace\" font-size=\"12\">\n",
        esc(tree),
        esc(side),
        t.len()
    );
    let by_id: BTreeMap<NodeId, &Placed> = placed.iter().map(|p| (p.id, p)).collect();
    for p in &placed {
        let n = &t.nodes[&p.id];
        for (child, side) in [(n.left, "L"), (n.right, "R")] {
            if let Some(c) = child.and_then(|c| by_id.get(&c)) {
                edge(&mut svg, &g, p, c, side, c.tree_parent == Some(p.id));
            }
        }
    }
    for p in &placed {
        node(&mut svg, &g, t, p, changes);
    }
    svg.push_str("</svg>\n");
    svg
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::snap::NodeSnap;

    fn n(
        id: NodeId,
        parent: Option<NodeId>,
        left: Option<NodeId>,
        right: Option<NodeId>,
    ) -> NodeSnap {
        NodeSnap {
            id,
            label: format!("vma#{id}"),
            parent,
            left,
            right,
            red: false,
            start: id as u64,
            last: id as u64,
            subtree_last: id as u64,
            note: String::new(),
        }
    }

    fn snap(nodes: Vec<NodeSnap>, root: Option<NodeId>) -> TreeSnap {
        TreeSnap {
            root,
            nodes: nodes.into_iter().map(|n| (n.id, n)).collect(),
        }
    }

    #[test]
    fn inorder_columns_and_depth_rows() {
        // 1 is the root with children 0 and 2; 3 hangs right of 2
        let t = snap(
            vec![
                n(0, Some(1), None, None),
                n(1, None, Some(0), Some(2)),
                n(2, Some(1), None, Some(3)),
                n(3, Some(2), None, None),
            ],
            Some(1),
        );
        let l = layout(&t);
        let got: Vec<(NodeId, usize, usize)> = l.iter().map(|p| (p.id, p.col, p.row)).collect();
        assert_eq!(got, vec![(0, 0, 1), (1, 1, 0), (2, 2, 1), (3, 3, 2)]);
        assert!(l.iter().all(|p| p.attached));
    }

    #[test]
    fn cycles_and_unreachable_members_still_draw_once() {
        // 0 -> left 1 -> left 0 (a cycle); 2 is a member nothing links to
        let t = snap(
            vec![
                n(0, None, Some(1), None),
                n(1, Some(0), Some(0), None),
                n(2, None, None, None),
            ],
            Some(0),
        );
        let l = layout(&t);
        assert_eq!(l.len(), 3);
        assert_eq!(l[2].id, 2);
        assert!(!l[2].attached);
        let svg = draw(&t, &Changes::new(), "mapping#0", "after");
        assert_eq!(svg.matches("<g class=\"node\"").count(), 3);
        assert!(svg.contains("stroke-dasharray=\"5 4\""), "{svg}");
    }
}
