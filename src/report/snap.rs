//! Snapshots of one rmap tree for drawing and comparing: every member node with its links,
//! colour, augmented value and the key the tree reads for it in that world (the VMA's pgoff range,
//! through the AVC for an anon_vma tree). Keys are read without panicking, so a corrupted world
//! (a node id with no object behind it) still draws.

use crate::tree::{Color, NodeId, RbRoot};
use crate::world::World;
use std::collections::BTreeMap;

/// One node of a tree as it was in one world.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NodeSnap {
    pub id: NodeId,
    /// First label line: `vma#N`, or `avc#N vma#M` in an anon_vma tree.
    pub label: String,
    pub parent: Option<NodeId>,
    pub left: Option<NodeId>,
    pub right: Option<NodeId>,
    pub red: bool,
    /// The key (`start..last` pgoff) the tree reads for the node.
    pub start: u64,
    pub last: u64,
    pub subtree_last: u64,
    /// More facts for the node's tooltip (an AVC's cached keys), possibly empty.
    pub note: String,
}

impl NodeSnap {
    /// Second label line, as src/trace/dot.rs writes it.
    pub(crate) fn keys_text(&self) -> String {
        format!("[{}..{}] max={}", self.start, self.last, self.subtree_last)
    }

    /// Which side of its parent the node hangs on, read from the parent's links in `tree`:
    /// `L`, `R`, `root`, or `?` when the parent does not link back to it.
    pub fn side(&self, tree: &TreeSnap) -> &'static str {
        match self.parent.and_then(|p| tree.nodes.get(&p)) {
            None if self.parent.is_none() => "root",
            None => "?",
            Some(p) if p.left == Some(self.id) => "L",
            Some(p) if p.right == Some(self.id) => "R",
            Some(_) => "?",
        }
    }
}

/// A whole tree as it was in one world.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct TreeSnap {
    pub root: Option<NodeId>,
    /// Member nodes by id.
    pub nodes: BTreeMap<NodeId, NodeSnap>,
}

impl TreeSnap {
    pub fn len(&self) -> usize {
        self.nodes.len()
    }

    pub fn is_empty(&self) -> bool {
        self.nodes.is_empty()
    }
}

/// Capture `t`; `node_facts(n)` gives the label, key and tooltip note of member `n`.
fn capture(t: &RbRoot, node_facts: &dyn Fn(NodeId) -> (String, u64, u64, String)) -> TreeSnap {
    let mut nodes = BTreeMap::new();
    for n in t.members() {
        let Some(rb) = t.node(n) else { continue };
        let (label, start, last, note) = node_facts(n);
        nodes.insert(
            n,
            NodeSnap {
                id: n,
                label,
                parent: rb.parent,
                left: rb.left,
                right: rb.right,
                red: rb.color == Color::Red,
                start,
                last,
                subtree_last: rb.subtree_last,
                note,
            },
        );
    }
    TreeSnap {
        root: t.root(),
        nodes,
    }
}

/// The pgoff range of VMA `v`, or 0..0 when there is no such VMA.
fn vma_keys(w: &World, v: u32) -> (u64, u64) {
    w.vmas
        .get(v as usize)
        .map_or((0, 0), |v| (v.start_pgoff(), v.last_pgoff()))
}

/// The anonymous pgoff range of VMA `v` (the anon tree's key), or 0..0 when there is none.
fn anon_keys(w: &World, v: u32) -> (u64, u64) {
    w.vmas
        .get(v as usize)
        .map_or((0, 0), |v| (v.start_anon_pgoff(), v.last_anon_pgoff()))
}

/// The file tree `i_mmap` of mapping `m`; `None` when the world has no such mapping.
pub(crate) fn file_tree(w: &World, m: usize) -> Option<TreeSnap> {
    let a = w.mappings.get(m)?;
    Some(capture(&a.i_mmap, &|n| {
        let (start, last) = vma_keys(w, n);
        (format!("vma#{n}"), start, last, String::new())
    }))
}

/// The tree of AVCs of anon_vma `i`; `None` when there is no such anon_vma or it is freed.
pub(crate) fn anon_tree(w: &World, i: usize) -> Option<TreeSnap> {
    let a = w.anon_vmas.get(i).filter(|a| !a.freed)?;
    Some(capture(&a.rb_root, &|n| match w.avcs.get(n as usize) {
        Some(avc) => {
            let (start, last) = avc.vma.map_or((0, 0), |v| anon_keys(w, v));
            let vma = avc.vma.map_or("no vma".to_string(), |v| format!("vma#{v}"));
            let note = format!("cached [{}..{}]", avc.cached_vma_start, avc.cached_vma_last);
            (format!("avc#{n} {vma}"), start, last, note)
        }
        None => (format!("avc#{n} ?"), 0, 0, "no such avc".to_string()),
    }))
}

/// Title of mapping `m`: `mapping#m`, with the file(s) whose f_mapping it is.
pub(crate) fn mapping_title(w: &World, m: usize) -> String {
    let files: Vec<String> = w
        .files
        .iter()
        .enumerate()
        .filter(|(_, f)| f.f_mapping as usize == m)
        .map(|(i, f)| format!("file#{i} {}", f.name))
        .collect();
    if files.is_empty() {
        format!("mapping#{m}")
    } else {
        format!("mapping#{m} ({})", files.join(", "))
    }
}
