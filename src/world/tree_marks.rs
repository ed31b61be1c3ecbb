//! Which rmap trees a step, and a call, may have changed: the marks the builtins leave in the
//! world's scratch record so that the structural checks (`rb-shape`, `tree-order`, `augment`)
//! validate only those trees. The world keeps the marks; the checks read them.
//!
//! A tree's validation result depends on its node records (links, colours, stored
//! `subtree_last`) and on the keys its nodes read: a file tree's node is a VMA and reads its
//! `vm_pgoff`, `vm_start` and `vm_end` (`vma_start_pgoff`, `vma_last_pgoff`); an anon tree's
//! node is an AVC and reads `avc->vma`, then that VMA's `vm_anon_pgoff`, `vm_start` and
//! `vm_end`. Whether the per-step check looks at it at all depends on its lock and, for an
//! anon_vma, on `freed`. So a tree is marked by
//! - any tree operation on it (`World::tree_change`),
//! - a write of a key field of a VMA one of its nodes reads, found by looking at every tree
//!   (a VMA left in, or put in, a tree it should not be in is exactly what a mutant makes), and
//!   a write of `avc->vma` of one of its nodes,
//! - conservatively, a write of its anon_vma's `root` (which lock guards it) and its freeing.
//!
//! A lock release needs no mark of its own: the per-step check keeps the marks of the trees it
//! skipped because their lock was held (the per-step structural check), and the release still
//! raises `Scratch::trees_dirty`, so a tree changed under its lock is validated at the same
//! step as before, the one that released the lock.
//!
//! Marks never raise `Scratch::trees_dirty` themselves: the steps at which the per-step check
//! runs stay exactly the steps at which it ran when it validated every tree.

use crate::world::World;

/// The width of a [`TreeSet`]'s bitmaps; trees of a higher index are marked all at once.
pub(crate) const WIDTH: usize = u64::BITS as usize;

/// A set of rmap trees: file trees by address_space index, anon trees by anon_vma index. An
/// index past the bitmap's width marks every tree of its kind (never fewer than asked).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct TreeSet {
    file: u64,
    anon: u64,
    every_file: bool,
    every_anon: bool,
}

impl TreeSet {
    /// Every tree of a world.
    pub fn every() -> Self {
        TreeSet {
            file: 0,
            anon: 0,
            every_file: true,
            every_anon: true,
        }
    }

    pub fn is_empty(&self) -> bool {
        *self == Self::default()
    }

    /// Add the file tree of address_space `m`.
    pub fn add_file(&mut self, m: usize) {
        if m < WIDTH {
            self.file |= 1 << m;
        } else {
            self.every_file = true;
        }
    }

    /// Add the tree of anon_vma `a`.
    pub fn add_anon(&mut self, a: usize) {
        if a < WIDTH {
            self.anon |= 1 << a;
        } else {
            self.every_anon = true;
        }
    }

    pub fn has_file(&self, m: usize) -> bool {
        self.every_file || (m < WIDTH && self.file & (1 << m) != 0)
    }

    pub fn has_anon(&self, a: usize) -> bool {
        self.every_anon || (a < WIDTH && self.anon & (1 << a) != 0)
    }

    /// Every tree in either set.
    pub fn union(self, o: TreeSet) -> TreeSet {
        TreeSet {
            file: self.file | o.file,
            anon: self.anon | o.anon,
            every_file: self.every_file || o.every_file,
            every_anon: self.every_anon || o.every_anon,
        }
    }
}

/// The trees marked since the per-step check last cleared them (`step`) and since the call
/// began (`call`), kept in the world's scratch record.
///
/// The default, nothing marked, says that the world's trees passed the checks: a world built
/// from a scenario (its trees made by the tree's own insertions from the VMAs' keys) or the
/// canonical successor of a call that passed them (the end-of-call check).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct TreeMarks {
    pub step: TreeSet,
    pub call: TreeSet,
}

impl TreeMarks {
    pub fn file(&mut self, m: usize) {
        self.step.add_file(m);
        self.call.add_file(m);
    }

    pub fn anon(&mut self, a: usize) {
        self.step.add_anon(a);
        self.call.add_anon(a);
    }
}

impl World {
    /// Mark the tree a tree operation changed (`file`: the file tree of address_space
    /// `owner`, else the tree of anon_vma `owner`).
    pub(crate) fn mark_tree(&mut self, file: bool, owner: u32) {
        if file {
            self.scratch.tree_marks.file(owner as usize);
        } else {
            self.scratch.tree_marks.anon(owner as usize);
        }
    }

    /// Before a key field of VMA `v` changes: mark every tree holding a node that reads it, the
    /// file trees holding the VMA and the anon trees holding one of its AVCs (an AVC naming
    /// `v` through `avc->vma`, whatever chain it is on), wherever they are.
    pub(crate) fn mark_trees_reading_vma(&mut self, v: u32) {
        let marks = &mut self.scratch.tree_marks;
        for (m, a) in self.mappings.iter().enumerate() {
            if a.i_mmap.contains(v) {
                marks.file(m);
            }
        }
        for (c, avc) in self.avcs.iter().enumerate() {
            if avc.vma != Some(v) {
                continue;
            }
            for (a, av) in self.anon_vmas.iter().enumerate() {
                if av.rb_root.contains(c as u32) {
                    marks.anon(a);
                }
            }
        }
    }

    /// Before `avc->vma` of AVC `c` changes: mark every anon tree holding it.
    pub(crate) fn mark_trees_holding_avc(&mut self, c: u32) {
        let marks = &mut self.scratch.tree_marks;
        for (a, av) in self.anon_vmas.iter().enumerate() {
            if av.rb_root.contains(c) {
                marks.anon(a);
            }
        }
    }
}
