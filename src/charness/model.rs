//! The model's world as a [`Raw`] world, field for field what the C harness dumps: each live
//! mm's VMAs in address order, each file's i_mmap and each live anon_vma's tree node by node
//! (preorder), the live anon_vma_chains, each VMA's flags as the C's (`VM_ACCOUNT` included),
//! the ghost ptes and folios. The harness's WARNs and lock records have no model counterpart (a
//! model `VM_WARN_ON` fails the model's own check first), so they are not part of the
//! comparison.

use super::canon::{Raw, RawAnon, RawMm, RawNode, RawTree, RawVma};
use crate::tree::{Color, RbRoot};
use crate::world::builtins::{VM_ACCOUNT, VM_GROWSDOWN, VM_SHARED, VM_WRITE};
use crate::world::World;

fn tree(t: &RbRoot, cached: &dyn Fn(u32) -> Option<(u64, u64)>) -> RawTree {
    let mut nodes = Vec::new();
    let mut stack: Vec<u32> = t.root().into_iter().collect();
    while let Some(n) = stack.pop() {
        let Some(x) = t.node(n) else { continue };
        nodes.push(RawNode {
            id: u64::from(n),
            parent: x.parent.map(u64::from),
            left: x.left.map(u64::from),
            right: x.right.map(u64::from),
            black: x.color == Color::Black,
            last: x.subtree_last,
            cached: cached(n),
        });
        // preorder: left subtree first
        stack.extend(x.right);
        stack.extend(x.left);
    }
    let mut leftmost = t.root();
    while let Some(l) = leftmost.and_then(|n| t.node(n)).and_then(|x| x.left) {
        leftmost = Some(l);
    }
    RawTree {
        root: t.root().map(u64::from),
        leftmost: leftmost.map(u64::from),
        nodes,
    }
}

/// The model world `w` as a raw world.
pub fn raw(w: &World) -> Raw {
    let mut r = Raw::default();
    for mm in w.mms.iter().filter(|m| !m.freed) {
        let mut m = RawMm {
            map_count: mm.map_count,
            vmas: Vec::new(),
        };
        for (_, &(_, v)) in &mm.vmas {
            let x = &w.vmas[v as usize];
            m.vmas.push(RawVma {
                id: u64::from(v),
                start: x.vm_start,
                end: x.vm_end,
                pgoff: x.vm_pgoff,
                anon_pgoff: x.vm_anon_pgoff,
                file: x.vm_file.map(|f| f as usize),
                anonymous: x.is_anonymous(),
                write: x.vm_flags & VM_WRITE != 0,
                shared: x.vm_flags & VM_SHARED != 0,
                growsdown: x.vm_flags & VM_GROWSDOWN != 0,
                account: Some(x.vm_flags & VM_ACCOUNT != 0),
                anon_vma: x.anon_vma.map(u64::from),
                chain: x.anon_vma_chain.iter().map(|&c| u64::from(c)).collect(),
            });
        }
        r.mms.push(m);
    }
    for f in &w.files {
        r.files
            .push(tree(&w.mappings[f.f_mapping as usize].i_mmap, &|_| None));
    }
    let cached = |c: u32| {
        let a = &w.avcs[c as usize];
        Some((a.cached_vma_start, a.cached_vma_last))
    };
    for (i, a) in w.anon_vmas.iter().enumerate() {
        if a.freed {
            continue;
        }
        r.anons.push(RawAnon {
            id: i as u64,
            root: u64::from(a.root),
            parent: u64::from(a.parent),
            refcount: a.refcount,
            num_children: a.num_children,
            num_active_vmas: a.num_active_vmas,
            tree: tree(&a.rb_root, &cached),
        });
    }
    for (i, c) in w.avcs.iter().enumerate() {
        if c.freed {
            continue;
        }
        if let (Some(v), Some(a)) = (c.vma, c.anon_vma) {
            r.avcs.push((i as u64, u64::from(v), u64::from(a)));
        }
    }
    r.pages = super::pages::model_pages(w);
    r
}
