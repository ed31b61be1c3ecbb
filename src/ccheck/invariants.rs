//! The sequential invariants, checked on the C world as the harness dumps it after a call
//! ([`Raw`]: every VMA, every file and anon_vma tree node by node, the anon_vma_chains, the
//! locks still held and the violations and WARNs the glue recorded). Keys are the objects'
//! current ones, computed from the VMAs as mm/interval_tree.c does: a file VMA's start is its
//! `vm_pgoff` and its last `vm_pgoff + pages - 1`; an AVC's are its VMA's anon pgoff and the
//! same length.
//!
//! Checked here: `rb-shape`, `tree-order`, `augment`, `membership`, `cached-keys`,
//! `vma-layout`; `lock-discipline`, `tree-precondition` and `stale-descent` from what the glue
//! recorded (a tree operation without its lock, a lock still held when the call returned, a
//! precondition or descent check of the glue's tree wrappers); `model-assert` for a WARN the C
//! fired; the page-level invariants and the walker checkpoints' findings from the ghost pages
//! ([`super::pages`]), `vma-lock-stable` among them (the per-VMA-lock readers of a
//! checkpoint). Deadlock and lock order need threads.

use crate::charness::canon::{Raw, RawNode, RawTree, RawVma};
use crate::invariant::{Invariant, InvariantSet};
use std::collections::{HashMap, HashSet};

/// The invariants the C search checks.
pub const CHECKED: &[Invariant] = &[
    Invariant::RbShape,
    Invariant::TreeOrder,
    Invariant::Augment,
    Invariant::Membership,
    Invariant::StaleDescent,
    Invariant::TreePrecondition,
    Invariant::CachedKeys,
    Invariant::LockDiscipline,
    Invariant::VmaLayout,
    Invariant::ModelAssert,
    Invariant::MappingPreserved,
    Invariant::RmapComplete,
    Invariant::RmapExact,
    Invariant::WalkerComplete,
    // at the walker checkpoints: a VMA's bounds moved while a per-VMA-lock reader could hold it
    Invariant::VmaLockStable,
    // on a patched tree only, by the search itself (`super::diverge`): the patched C's VMA
    // layout against the unpatched C's
    Invariant::Equivalent,
];

/// Why each invariant the C search does not check is left out.
pub fn not_checked(i: Invariant) -> Option<&'static str> {
    use Invariant::*;
    match i {
        Deadlock | LockOrder => Some(
            "needs concurrent threads; the harness runs one call at a time (its walker \
             checkpoints run the walkers at each lock moment, not threads, and no walker \
             waits there)",
        ),
        ModelFault => Some("a model's own fault; the C's is a crash, always reported"),
        FuzzSetup => Some("a fuzz harness check"),
        _ => None,
    }
}

pub use super::violation::Violation;

fn v(invariant: Invariant, what: String) -> Violation {
    Violation { invariant, what }
}

/// A VMA in words: `mm0:[2,4)`.
fn vname(mm: usize, x: &RawVma) -> String {
    format!("mm{mm}:[{},{})", x.start, x.end)
}

struct Index<'a> {
    vmas: HashMap<u64, (usize, &'a RawVma)>,
    avcs: HashMap<u64, (u64, u64)>,
}

impl Index<'_> {
    fn vma(&self, id: u64) -> Option<String> {
        self.vmas.get(&id).map(|&(m, x)| vname(m, x))
    }
    fn avc(&self, id: u64) -> String {
        match self.avcs.get(&id).and_then(|&(vma, _)| self.vma(vma)) {
            Some(n) => format!("the AVC of {n}"),
            None => format!("AVC {id:#x} (of no live VMA)"),
        }
    }
}

/// A tree's nodes with keys: (start, last) per node id.
struct Keyed<'a> {
    t: &'a RawTree,
    nodes: HashMap<u64, &'a RawNode>,
    keys: HashMap<u64, (u64, u64)>,
    what: String,
}

fn pages(x: &RawVma) -> u64 {
    x.end.saturating_sub(x.start).max(1)
}

/// The first violation of `set` in the world `r`, in the order of [`CHECKED`].
pub fn check(r: &Raw, set: InvariantSet) -> Option<Violation> {
    let mut found: Vec<Violation> = Vec::new();
    let ix = Index {
        vmas: r
            .mms
            .iter()
            .enumerate()
            .flat_map(|(m, mm)| mm.vmas.iter().map(move |x| (x.id, (m, x))))
            .collect(),
        avcs: r.avcs.iter().map(|&(c, vma, av)| (c, (vma, av))).collect(),
    };
    let mut trees: Vec<Keyed<'_>> = Vec::new();
    for (f, t) in r.files.iter().enumerate() {
        let mut k = keyed(t, format!("file#{f}'s i_mmap"));
        for n in &t.nodes {
            match ix.vmas.get(&n.id) {
                Some(&(_, x)) => {
                    k.keys.insert(n.id, (x.pgoff, x.pgoff + pages(x) - 1));
                }
                None => found.push(v(
                    Invariant::Membership,
                    format!(
                        "{} holds VMA {:#x}, which no mm lists (freed or lost)",
                        k.what, n.id
                    ),
                )),
            }
        }
        // membership: exactly the VMAs mapping the file
        let want: HashSet<u64> = ix
            .vmas
            .iter()
            .filter(|(_, (_, x))| x.file == Some(f))
            .map(|(id, _)| *id)
            .collect();
        let have: HashSet<u64> = t.nodes.iter().map(|n| n.id).collect();
        let mut missing: Vec<String> = want
            .difference(&have)
            .filter_map(|id| ix.vma(*id))
            .collect();
        missing.sort();
        if !missing.is_empty() {
            found.push(v(
                Invariant::Membership,
                format!(
                    "{} lacks {} (which map the file)",
                    k.what,
                    missing.join(", ")
                ),
            ));
        }
        trees.push(k);
    }
    for a in &r.anons {
        let mut k = keyed(&a.tree, format!("anon_vma {:#x}'s tree", a.id));
        for n in &a.tree.nodes {
            let vma = ix.avcs.get(&n.id).and_then(|&(vma, _)| ix.vmas.get(&vma));
            match vma {
                Some(&(_, x)) => {
                    let key = (x.anon_pgoff, x.anon_pgoff + pages(x) - 1);
                    k.keys.insert(n.id, key);
                    if let Some(c) = n.cached {
                        if c != key {
                            found.push(v(
                                Invariant::CachedKeys,
                                format!(
                                    "{} in {} caches [{}, {}]; its VMA's keys are [{}, {}]",
                                    ix.avc(n.id),
                                    k.what,
                                    c.0,
                                    c.1,
                                    key.0,
                                    key.1
                                ),
                            ));
                        }
                    }
                }
                None => found.push(v(
                    Invariant::Membership,
                    format!("{} holds {}", k.what, ix.avc(n.id)),
                )),
            }
            if ix.avcs.get(&n.id).is_some_and(|&(_, av)| av != a.id) {
                found.push(v(
                    Invariant::Membership,
                    format!(
                        "{} holds {}, which belongs to another anon_vma",
                        k.what,
                        ix.avc(n.id)
                    ),
                ));
            }
        }
        let have: HashSet<u64> = a.tree.nodes.iter().map(|n| n.id).collect();
        for (&c, &(_, av)) in &ix.avcs {
            if av == a.id && !have.contains(&c) {
                found.push(v(
                    Invariant::Membership,
                    format!("{} lacks {}", k.what, ix.avc(c)),
                ));
            }
        }
        trees.push(k);
    }
    for t in &trees {
        shape(t, &mut found);
    }
    chains(r, &ix, &mut found);
    layout(r, &mut found);
    super::pages::check(r, &mut found);
    for n in &r.notes {
        if let Some(x) = n.strip_prefix("C violation ") {
            let inv = if let Some(i) = super::pages::note_invariant(x) {
                i
            } else if x.starts_with("tree-precondition") {
                Invariant::TreePrecondition
            } else if x.starts_with("stale-descent") {
                Invariant::StaleDescent
            } else {
                Invariant::LockDiscipline
            };
            found.push(v(inv, x.to_string()));
        } else if let Some(x) = n.strip_prefix("C held ") {
            found.push(v(
                Invariant::LockDiscipline,
                format!("{x} still held when the call returned"),
            ));
        } else if let Some(x) = n.strip_prefix("C warn ") {
            found.push(v(
                Invariant::ModelAssert,
                format!("the kernel's WARN fired in the C: {x}"),
            ));
        }
    }
    let rank = |i: Invariant| CHECKED.iter().position(|c| *c == i).unwrap_or(usize::MAX);
    found
        .into_iter()
        .filter(|x| set.contains(x.invariant))
        .min_by_key(|x| rank(x.invariant))
}

fn keyed(t: &RawTree, what: String) -> Keyed<'_> {
    Keyed {
        t,
        nodes: t.nodes.iter().map(|n| (n.id, n)).collect(),
        keys: HashMap::new(),
        what,
    }
}

/// rb-shape, tree-order and augment of one tree.
fn shape(k: &Keyed<'_>, found: &mut Vec<Violation>) {
    let Some(root) = k.t.root else {
        if k.t.leftmost.is_some() {
            found.push(v(
                Invariant::RbShape,
                format!("{} is empty but caches a leftmost node", k.what),
            ));
        }
        return;
    };
    let node = |id: u64| k.nodes.get(&id).copied();
    let Some(r) = node(root) else { return };
    if r.parent.is_some() {
        found.push(v(
            Invariant::RbShape,
            format!("{}: the root has a parent", k.what),
        ));
    }
    if !r.black {
        found.push(v(
            Invariant::RbShape,
            format!("{}: the root is red", k.what),
        ));
    }
    // black heights, parent links, red-red, augment; in-order keys
    let mut inorder: Vec<u64> = Vec::new();
    fn walk(
        k: &Keyed<'_>,
        id: u64,
        found: &mut Vec<Violation>,
        inorder: &mut Vec<u64>,
    ) -> Option<usize> {
        let n = k.nodes.get(&id)?;
        let mut heights = Vec::new();
        let mut max_last = k.keys.get(&id).map(|x| x.1);
        for c in [n.left, n.right].into_iter().flatten() {
            let Some(cn) = k.nodes.get(&c) else { continue };
            if cn.parent != Some(id) {
                found.push(v(
                    Invariant::RbShape,
                    format!("{}: a child's parent link is wrong", k.what),
                ));
            }
            if !n.black && !cn.black {
                found.push(v(
                    Invariant::RbShape,
                    format!("{}: a red node has a red child", k.what),
                ));
            }
            max_last = max_last.max(Some(cn.last));
        }
        let lh = match n.left {
            Some(l) => walk(k, l, found, inorder)?,
            None => 0,
        };
        inorder.push(id);
        let rh = match n.right {
            Some(r) => walk(k, r, found, inorder)?,
            None => 0,
        };
        heights.push(lh);
        heights.push(rh);
        if lh != rh {
            found.push(v(
                Invariant::RbShape,
                format!("{}: unequal black heights ({lh} and {rh})", k.what),
            ));
        }
        if let Some(m) = max_last {
            if k.keys.contains_key(&id) && m != n.last {
                found.push(v(
                    Invariant::Augment,
                    format!(
                        "{}: a node's rb_subtree_last is {}, the max last of its subtree is {m}",
                        k.what, n.last
                    ),
                ));
            }
        }
        Some(lh.max(rh) + usize::from(n.black))
    }
    walk(k, root, found, &mut inorder);
    let mut leftmost = Some(root);
    while let Some(l) = leftmost.and_then(node).and_then(|n| n.left) {
        leftmost = Some(l);
    }
    if leftmost != k.t.leftmost {
        found.push(v(
            Invariant::RbShape,
            format!("{}: the cached leftmost node is not the leftmost", k.what),
        ));
    }
    let starts: Vec<u64> = inorder
        .iter()
        .filter_map(|id| k.keys.get(id).map(|x| x.0))
        .collect();
    if let Some(w) = starts.windows(2).find(|w| w[0] > w[1]) {
        found.push(v(
            Invariant::TreeOrder,
            format!(
                "{}: in-order starts {:?} decrease ({} before {})",
                k.what, starts, w[0], w[1]
            ),
        ));
    }
}

/// Each VMA's anon_vma_chain list against the AVCs.
fn chains(r: &Raw, ix: &Index<'_>, found: &mut Vec<Violation>) {
    let mut listed: HashSet<u64> = HashSet::new();
    for (m, mm) in r.mms.iter().enumerate() {
        for x in &mm.vmas {
            for c in &x.chain {
                listed.insert(*c);
                match ix.avcs.get(c) {
                    Some(&(vma, _)) if vma == x.id => {}
                    _ => found.push(v(
                        Invariant::Membership,
                        format!("{}'s anon_vma_chain lists {}", vname(m, x), ix.avc(*c)),
                    )),
                }
            }
            if let Some(a) = x.anon_vma {
                if !x
                    .chain
                    .iter()
                    .any(|c| ix.avcs.get(c).is_some_and(|&(_, av)| av == a))
                {
                    found.push(v(
                        Invariant::Membership,
                        format!(
                            "{} has an anon_vma but no AVC linking it to it",
                            vname(m, x)
                        ),
                    ));
                }
            }
        }
    }
    for (&c, &(vma, _)) in &ix.avcs {
        if ix.vmas.contains_key(&vma) && !listed.contains(&c) {
            found.push(v(
                Invariant::Membership,
                format!("{} is not on its VMA's anon_vma_chain", ix.avc(c)),
            ));
        }
    }
}

/// vma-layout: each mm's VMAs sorted, non-empty, non-overlapping, counted.
fn layout(r: &Raw, found: &mut Vec<Violation>) {
    for (m, mm) in r.mms.iter().enumerate() {
        for x in &mm.vmas {
            if x.start >= x.end {
                found.push(v(Invariant::VmaLayout, format!("{} is empty", vname(m, x))));
            }
        }
        for w in mm.vmas.windows(2) {
            if w[0].end > w[1].start {
                found.push(v(
                    Invariant::VmaLayout,
                    format!(
                        "{} and {} overlap or are out of order",
                        vname(m, &w[0]),
                        vname(m, &w[1])
                    ),
                ));
            }
        }
        if mm.map_count != mm.vmas.len() as i64 {
            found.push(v(
                Invariant::VmaLayout,
                format!(
                    "mm#{m}'s map_count is {}, it has {} VMAs",
                    mm.map_count,
                    mm.vmas.len()
                ),
            ));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::charness::canon::{RawAnon, RawMm};

    fn world() -> Raw {
        Raw {
            mms: vec![RawMm {
                map_count: 2,
                vmas: vec![
                    RawVma {
                        id: 1,
                        start: 0,
                        end: 2,
                        pgoff: 0,
                        file: Some(0),
                        ..RawVma::default()
                    },
                    RawVma {
                        id: 2,
                        start: 2,
                        end: 4,
                        pgoff: 2,
                        anon_pgoff: 2,
                        file: Some(0),
                        anon_vma: Some(10),
                        chain: vec![20],
                        ..RawVma::default()
                    },
                ],
            }],
            files: vec![RawTree {
                root: Some(1),
                leftmost: Some(1),
                nodes: vec![
                    RawNode {
                        id: 1,
                        right: Some(2),
                        black: true,
                        last: 3,
                        ..RawNode::default()
                    },
                    RawNode {
                        id: 2,
                        parent: Some(1),
                        black: false,
                        last: 3,
                        ..RawNode::default()
                    },
                ],
            }],
            anons: vec![RawAnon {
                id: 10,
                root: 10,
                parent: 10,
                refcount: 1,
                num_children: 1,
                num_active_vmas: 1,
                tree: RawTree {
                    root: Some(20),
                    leftmost: Some(20),
                    nodes: vec![RawNode {
                        id: 20,
                        black: true,
                        last: 3,
                        cached: Some((2, 3)),
                        ..RawNode::default()
                    }],
                },
            }],
            avcs: vec![(20, 2, 10)],
            notes: vec![],
            pages: Default::default(),
        }
    }

    fn fires(r: &Raw) -> Option<Invariant> {
        check(r, InvariantSet::all()).map(|x| x.invariant)
    }

    #[test]
    fn a_good_world_holds_and_each_check_fires() {
        assert_eq!(check(&world(), InvariantSet::all()), None);
        let mut w = world();
        w.files[0].nodes[0].last = 2;
        assert_eq!(fires(&w), Some(Invariant::Augment));
        let mut w = world();
        w.mms[0].vmas[1].pgoff = 0;
        w.mms[0].vmas[0].pgoff = 5;
        w.files[0].nodes[0].last = 6;
        w.files[0].nodes[1].last = 1;
        assert_eq!(fires(&w), Some(Invariant::TreeOrder));
        let mut w = world();
        w.files[0].nodes[1].black = true;
        assert_eq!(fires(&w), Some(Invariant::RbShape));
        let mut w = world();
        w.files[0].nodes.pop();
        w.files[0].nodes[0].right = None;
        w.files[0].nodes[0].last = 1;
        assert_eq!(fires(&w), Some(Invariant::Membership));
        let mut w = world();
        w.anons[0].tree.nodes[0].cached = Some((1, 3));
        assert_eq!(fires(&w), Some(Invariant::CachedKeys));
        let mut w = world();
        w.notes.push("C held i_mmap_rwsem".into());
        assert_eq!(fires(&w), Some(Invariant::LockDiscipline));
        let mut w = world();
        w.notes
            .push("C violation tree-precondition: insert of a member".into());
        assert_eq!(fires(&w), Some(Invariant::TreePrecondition));
        let mut w = world();
        w.mms[0].map_count = 3;
        assert_eq!(fires(&w), Some(Invariant::VmaLayout));
        let mut w = world();
        w.notes.push("C warn mm/vma.c:1 x".into());
        assert_eq!(fires(&w), Some(Invariant::ModelAssert));
        let mut w = world();
        w.mms[0].vmas[1].chain.clear();
        assert_eq!(fires(&w), Some(Invariant::Membership));
    }
}
