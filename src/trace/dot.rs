//! DOT (Graphviz) drawings of a world's rmap trees, built as a petgraph graph: one cluster of
//! nodes per file tree and per anon_vma tree, edges labelled L and R, red nodes drawn red.

use crate::tree::{Color, IntervalKeys, RbRoot};
use crate::world::{AnonKeys, FileKeys, World};
use petgraph::graph::{Graph, NodeIndex};
use std::collections::HashMap;

fn add_tree(
    g: &mut Graph<String, &'static str>,
    t: &RbRoot,
    keys: &dyn IntervalKeys,
    prefix: &str,
    label: &dyn Fn(u32) -> String,
) {
    let mut idx: HashMap<u32, NodeIndex> = HashMap::new();
    for n in t.inorder() {
        let node = t.node(n).expect("member");
        let colour = if node.color == Color::Red {
            "red"
        } else {
            "black"
        };
        let text = format!(
            "{prefix}{}\\n[{}..{}] max={}|{colour}",
            label(n),
            keys.start(n),
            keys.last(n),
            node.subtree_last
        );
        idx.insert(n, g.add_node(text));
    }
    for n in t.inorder() {
        let node = t.node(n).expect("member");
        for (child, side) in [(node.left, "L"), (node.right, "R")] {
            if let Some(c) = child.and_then(|c| idx.get(&c)) {
                g.add_edge(idx[&n], *c, side);
            }
        }
    }
}

/// DOT text of every non-empty rmap tree of `w`.
pub(crate) fn trees_dot(w: &World) -> String {
    let mut g: Graph<String, &'static str> = Graph::new();
    let fk = FileKeys { vmas: &w.vmas };
    for (m, a) in w.mappings.iter().enumerate() {
        add_tree(&mut g, &a.i_mmap, &fk, &format!("mapping#{m}: "), &|n| {
            format!("vma#{n}")
        });
    }
    let ak = AnonKeys {
        vmas: &w.vmas,
        avcs: &w.avcs,
    };
    for (i, a) in w.anon_vmas.iter().enumerate() {
        if a.freed {
            continue;
        }
        add_tree(&mut g, &a.rb_root, &ak, &format!("anon_vma#{i}: "), &|n| {
            format!("avc#{n}")
        });
    }
    let mut out = String::from("digraph rmap {\n  node [shape=box, fontname=monospace];\n");
    for i in g.node_indices() {
        let (text, colour) = g[i].rsplit_once('|').unwrap_or((&g[i], "black"));
        out += &format!(
            "  n{} [label=\"{}\", color={colour}, fontcolor={colour}];\n",
            i.index(),
            text
        );
    }
    for e in g.edge_indices() {
        if let Some((a, b)) = g.edge_endpoints(e) {
            out += &format!("  n{} -> n{} [label=\"{}\"];\n", a.index(), b.index(), g[e]);
        }
    }
    out += "}\n";
    out
}
