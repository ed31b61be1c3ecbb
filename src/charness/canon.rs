//! The world both sides are compared in: a [`Raw`] world (objects named by opaque ids: the C
//! harness's addresses, the model's arena ids) turned into canonical text lines by
//! [`Raw::canonical`]. Names do not depend on allocation: a VMA is `mmM:START`, an anon_vma
//! `avN` by first appearance (mms in order, VMAs in address order, each VMA's anon_vma then its
//! chain; then the roots and parents of those), an anon_vma_chain `avc(VMA,AV)`; an object a
//! tree still holds but no mm lists is `lost-vmaN` / `lost-avN`. Every tree is listed node by
//! node in preorder with colour, parent, children, `rb_subtree_last` (and an AVC's cached
//! keys), so two worlds with the same lines have the same shapes. The lines are also what the
//! fingerprint of a C state hashes.

use std::collections::HashMap;

/// A world with opaque ids.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Raw {
    pub mms: Vec<RawMm>,
    /// One tree per file, by file index.
    pub files: Vec<RawTree>,
    /// Live anon_vmas, in any order.
    pub anons: Vec<RawAnon>,
    /// Live anon_vma_chains: (avc, vma, anon_vma).
    pub avcs: Vec<(u64, u64, u64)>,
    /// Things only the C side records: lock violations, WARNs, locks held.
    pub notes: Vec<String>,
    /// The ghost ptes and folios (`super::pages`).
    pub pages: super::pages::RawPages,
}

#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct RawMm {
    pub map_count: i64,
    pub vmas: Vec<RawVma>,
}

#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct RawVma {
    pub id: u64,
    pub start: u64,
    pub end: u64,
    pub pgoff: u64,
    pub anon_pgoff: u64,
    pub file: Option<usize>,
    pub anonymous: bool,
    pub write: bool,
    pub shared: bool,
    pub growsdown: bool,
    /// `VM_ACCOUNT`, when the side records it (both do; a hand-made world may leave it out).
    pub account: Option<bool>,
    pub anon_vma: Option<u64>,
    /// The anon_vma_chain list, head first (avc ids).
    pub chain: Vec<u64>,
}

#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct RawTree {
    pub root: Option<u64>,
    /// The `rb_root_cached` leftmost pointer.
    pub leftmost: Option<u64>,
    /// Preorder.
    pub nodes: Vec<RawNode>,
}

#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct RawNode {
    pub id: u64,
    pub parent: Option<u64>,
    pub left: Option<u64>,
    pub right: Option<u64>,
    pub black: bool,
    pub last: u64,
    /// An AVC's DEBUG_VM_RB cached start and last.
    pub cached: Option<(u64, u64)>,
}

#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct RawAnon {
    pub id: u64,
    pub root: u64,
    pub parent: u64,
    pub refcount: i64,
    pub num_children: i64,
    pub num_active_vmas: i64,
    pub tree: RawTree,
}

/// The names of one world's objects.
struct Names {
    vma: HashMap<u64, String>,
    anon: HashMap<u64, String>,
    /// avc id -> (vma id, anon_vma id)
    avc: HashMap<u64, (u64, u64)>,
    lost_vmas: usize,
    lost_anons: usize,
}

impl Names {
    fn vma(&mut self, id: u64) -> String {
        if let Some(n) = self.vma.get(&id) {
            return n.clone();
        }
        let n = format!("lost-vma{}", self.lost_vmas);
        self.lost_vmas += 1;
        self.vma.insert(id, n.clone());
        n
    }
    fn anon(&mut self, id: u64) -> String {
        if let Some(n) = self.anon.get(&id) {
            return n.clone();
        }
        let n = format!("lost-av{}", self.lost_anons);
        self.lost_anons += 1;
        self.anon.insert(id, n.clone());
        n
    }
    fn avc(&mut self, id: u64) -> String {
        match self.avc.get(&id).copied() {
            Some((v, a)) => format!("avc({},{})", self.vma(v), self.anon(a)),
            None => format!("avc(unknown {id:#x})"),
        }
    }
}

fn opt(n: &mut Names, id: Option<u64>, f: fn(&mut Names, u64) -> String) -> String {
    id.map_or_else(|| "-".to_string(), |i| f(n, i))
}

impl Raw {
    /// The canonical lines.
    pub fn canonical(&self) -> Vec<String> {
        let mut n = Names {
            vma: HashMap::new(),
            anon: HashMap::new(),
            avc: self.avcs.iter().map(|&(c, v, a)| (c, (v, a))).collect(),
            lost_vmas: 0,
            lost_anons: 0,
        };
        for (m, mm) in self.mms.iter().enumerate() {
            for v in &mm.vmas {
                n.vma.insert(v.id, format!("mm{m}:{}", v.start));
            }
        }
        // anon_vmas by first appearance from the VMAs, then their roots and parents
        let mut order: Vec<u64> = Vec::new();
        let add = |order: &mut Vec<u64>, id: u64| {
            if !order.contains(&id) {
                order.push(id);
            }
        };
        for mm in &self.mms {
            for v in &mm.vmas {
                if let Some(a) = v.anon_vma {
                    add(&mut order, a);
                }
                for c in &v.chain {
                    if let Some(&(_, a)) = n.avc.get(c) {
                        add(&mut order, a);
                    }
                }
            }
        }
        let by_id: HashMap<u64, &RawAnon> = self.anons.iter().map(|a| (a.id, a)).collect();
        let mut i = 0;
        while i < order.len() {
            if let Some(a) = by_id.get(&order[i]) {
                add(&mut order, a.root);
                add(&mut order, a.parent);
            }
            i += 1;
        }
        // live anon_vmas nothing named: by their own fields, for a stable order
        let mut rest: Vec<&RawAnon> = self
            .anons
            .iter()
            .filter(|a| !order.contains(&a.id))
            .collect();
        rest.sort_by_key(|a| {
            (
                a.refcount,
                a.num_children,
                a.num_active_vmas,
                a.tree.nodes.len(),
            )
        });
        for a in rest {
            add(&mut order, a.id);
        }
        for (k, id) in order.iter().enumerate() {
            n.anon.insert(*id, format!("av{k}"));
        }

        let mut out = Vec::new();
        for (m, mm) in self.mms.iter().enumerate() {
            out.push(format!("mm#{m} map_count {}", mm.map_count));
            for v in &mm.vmas {
                let mut s = format!(
                    "  vma mm{m}:{} [{}, {}) pgoff {} anon_pgoff {}",
                    v.start, v.start, v.end, v.pgoff, v.anon_pgoff
                );
                if let Some(f) = v.file {
                    s += &format!(" file#{f}");
                }
                s += if v.anonymous {
                    " anonymous"
                } else {
                    " file-backed"
                };
                s += if v.write { " rw" } else { " ro" };
                if v.shared {
                    s += " shared";
                }
                if v.growsdown {
                    s += " growsdown";
                }
                if v.account == Some(true) {
                    s += " account";
                }
                s += &format!(" anon_vma {}", opt(&mut n, v.anon_vma, Names::anon));
                let chain: Vec<String> = v.chain.iter().map(|&c| n.avc(c)).collect();
                s += &format!(" chain [{}]", chain.join(" "));
                out.push(s);
            }
        }
        for (f, t) in self.files.iter().enumerate() {
            out.push(format!(
                "file#{f} i_mmap root {} leftmost {}",
                opt(&mut n, t.root, Names::vma),
                opt(&mut n, t.leftmost, Names::vma)
            ));
            tree_lines(&mut out, t, &mut n, Names::vma);
        }
        for id in &order {
            let Some(a) = by_id.get(id) else {
                // named as a root or parent but not live: a dangling pointer
                out.push(format!(
                    "{} FREED (still named as a root or parent)",
                    n.anon(*id)
                ));
                continue;
            };
            let name = n.anon(a.id);
            let root = n.anon(a.root);
            let parent = n.anon(a.parent);
            out.push(format!(
                "{name} root {root} parent {parent} refcount {} num_children {} num_active_vmas {} tree root {} leftmost {}",
                a.refcount,
                a.num_children,
                a.num_active_vmas,
                opt(&mut n, a.tree.root, Names::avc),
                opt(&mut n, a.tree.leftmost, Names::avc)
            ));
            tree_lines(&mut out, &a.tree, &mut n, Names::avc);
        }
        let mut avcs: Vec<String> = self.avcs.iter().map(|&(c, _, _)| n.avc(c)).collect();
        avcs.sort();
        out.push(format!("avcs {}", avcs.join(" ")));
        out.extend(self.pages.lines(&mut |a| n.anon(a)));
        out.extend(self.notes.iter().cloned());
        out
    }
}

fn tree_lines(out: &mut Vec<String>, t: &RawTree, n: &mut Names, f: fn(&mut Names, u64) -> String) {
    for x in &t.nodes {
        let mut s = format!(
            "  {} {} last {} parent {} left {} right {}",
            f(n, x.id),
            if x.black { "black" } else { "red" },
            x.last,
            opt(n, x.parent, f),
            opt(n, x.left, f),
            opt(n, x.right, f)
        );
        if let Some((a, b)) = x.cached {
            s += &format!(" cached [{a}, {b}]");
        }
        out.push(s);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn world(ptr: u64) -> Raw {
        // one anonymous VMA with an anon_vma, ids shifted by ptr
        Raw {
            mms: vec![RawMm {
                map_count: 1,
                vmas: vec![RawVma {
                    id: ptr + 1,
                    start: 0,
                    end: 2,
                    anonymous: true,
                    write: true,
                    anon_vma: Some(ptr + 2),
                    chain: vec![ptr + 3],
                    ..RawVma::default()
                }],
            }],
            files: vec![RawTree::default()],
            anons: vec![RawAnon {
                id: ptr + 2,
                root: ptr + 2,
                parent: ptr + 2,
                refcount: 1,
                num_children: 1,
                num_active_vmas: 1,
                tree: RawTree {
                    root: Some(ptr + 3),
                    leftmost: Some(ptr + 3),
                    nodes: vec![RawNode {
                        id: ptr + 3,
                        black: true,
                        last: 1,
                        cached: Some((0, 1)),
                        ..RawNode::default()
                    }],
                },
            }],
            avcs: vec![(ptr + 3, ptr + 1, ptr + 2)],
            notes: vec![],
            pages: Default::default(),
        }
    }

    #[test]
    fn names_do_not_depend_on_ids() {
        assert_eq!(world(0).canonical(), world(0x6000).canonical());
        let c = world(0).canonical().join("\n");
        assert!(
            c.contains("avc(mm0:0,av0) black last 1 parent - left - right - cached [0, 1]"),
            "{c}"
        );
    }

    #[test]
    fn a_changed_subtree_last_changes_the_lines() {
        let mut w = world(0);
        w.anons[0].tree.nodes[0].last = 2;
        assert_ne!(w.canonical(), world(0).canonical());
    }
}
