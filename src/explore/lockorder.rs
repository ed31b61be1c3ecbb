//! The lock-order graph: an edge A -> B for every time a thread acquired a lock of class B while
//! holding one of class A, over every step of every run explored. `lock-order` holds when the
//! graph has no cycle and every edge goes down the order documented at the top of mm/rmap.c,
//! restated: mmap_lock, (per-VMA lock), i_mmap_rwsem, anon_vma->rwsem, mm->page_table_lock,
//! and much further down the i_pages lock that flush_dcache_mmap_lock() takes on arm/parisc. Self-edges (two locks of
//! one class, e.g. fork's parent and child mmap_lock, annotated as nesting in the kernel) are
//! shown but not judged.

use crate::check::{Invariant, Violation};
use crate::world::conc::LockClass;
use petgraph::graph::{DiGraph, NodeIndex};
use std::collections::{BTreeMap, BTreeSet};

/// The observed graph, built with petgraph.
pub struct LockGraph {
    pub graph: DiGraph<LockClass, ()>,
    index: BTreeMap<LockClass, NodeIndex>,
}

impl LockGraph {
    pub fn new(edges: &BTreeSet<(LockClass, LockClass)>) -> LockGraph {
        let mut graph = DiGraph::new();
        let mut index = BTreeMap::new();
        for &(a, b) in edges {
            for c in [a, b] {
                index.entry(c).or_insert_with(|| graph.add_node(c));
            }
            graph.update_edge(index[&a], index[&b], ());
        }
        LockGraph { graph, index }
    }

    /// Violations of `lock-order`: cycles (through distinct classes) and edges against the
    /// documented order.
    pub fn check(&self) -> Vec<Violation> {
        let mut out = Vec::new();
        for scc in petgraph::algo::tarjan_scc(&self.graph) {
            if scc.len() > 1 {
                let mut names: Vec<&str> = scc.iter().map(|&n| self.graph[n].name()).collect();
                names.sort();
                out.push(Violation::new(
                    Invariant::LockOrder,
                    format!("cycle in the lock-order graph among {}", names.join(", ")),
                ));
            }
        }
        for e in self.graph.edge_indices() {
            let (a, b) = self.graph.edge_endpoints(e).expect("edge");
            let (a, b) = (self.graph[a], self.graph[b]);
            if a != b && a.rank() > b.rank() {
                out.push(Violation::new(
                    Invariant::LockOrder,
                    format!(
                        "{} taken while holding {}: against the order of mm/rmap.c",
                        b.name(),
                        a.name()
                    ),
                ));
            }
        }
        out
    }

    /// The graph as DOT, nodes in the documented order.
    pub fn dot(&self) -> String {
        let mut s = String::from("digraph lock_order {\n  rankdir=TB;\n");
        for c in LockClass::ALL {
            if self.index.contains_key(&c) {
                s += &format!("  \"{}\";\n", c.name());
            }
        }
        for e in self.graph.edge_indices() {
            let (a, b) = self.graph.edge_endpoints(e).expect("edge");
            let (a, b) = (self.graph[a], self.graph[b]);
            let bad = a != b && a.rank() > b.rank();
            s += &format!(
                "  \"{}\" -> \"{}\"{};\n",
                a.name(),
                b.name(),
                if bad { " [color=red]" } else { "" }
            );
        }
        s + "}\n"
    }
}
