//! Which rmap trees a step, and a call, may have changed: the marks that let the structural
//! checks (`rb-shape`, `tree-order`, `augment`) validate only those trees.
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
//! skipped because their lock was held (see [`super::structure`]), and the release still
//! raises `Scratch::trees_dirty`, so a tree changed under its lock is validated at the same
//! step as before, the one that released the lock.
//!
//! Marks never raise `Scratch::trees_dirty` themselves: the steps at which the per-step check
//! runs stay exactly the steps at which it ran when it validated every tree.

use crate::world::World;

/// The width of a [`TreeSet`]'s bitmaps; trees of a higher index are marked all at once.
const WIDTH: usize = u64::BITS as usize;

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
/// canonical successor of a call that passed them (see [`super::at_call_end`]).
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_set_holds_what_was_added_and_past_its_width_everything_of_the_kind() {
        let mut s = TreeSet::default();
        assert!(s.is_empty());
        s.add_file(3);
        s.add_anon(0);
        assert!(s.has_file(3) && !s.has_file(2) && s.has_anon(0) && !s.has_anon(1));
        assert!(!s.has_file(WIDTH + 5));
        s.add_anon(WIDTH);
        assert!(s.has_anon(1) && s.has_anon(WIDTH + 9) && !s.has_file(4));
        let e = TreeSet::every();
        assert!(e.has_file(0) && e.has_anon(1000) && !e.is_empty());
        let u = TreeSet::default().union(s);
        assert_eq!(u, s);
        assert!(s.union(e).has_file(7));
    }

    #[test]
    fn marks_go_to_both_the_step_and_the_call() {
        let mut m = TreeMarks::default();
        m.file(1);
        m.anon(2);
        assert!(m.step.has_file(1) && m.call.has_file(1));
        assert!(m.step.has_anon(2) && m.call.has_anon(2));
        m.step = TreeSet::default();
        assert!(m.call.has_anon(2) && !m.step.has_anon(2));
    }

    use crate::check::{after_step, structure, Invariant, InvariantSet, Violation};
    use crate::exec::host::{FieldId, Host, ObjKind, Value};
    use crate::tree::{interval, TreeObs};
    use crate::world::builtins::fields_of;
    use crate::world::scenario::Scenario;
    use crate::world::{AnonKeys, FileKeys};

    /// Two files and two anon_vmas; vma#1 and vma#2 map f1 and hang off anon_vma B. A stray
    /// VMA of f0, in no mm, sits in f1's tree, and a stray AVC of it (naming anon_vma A) in
    /// B's tree: both trees still valid, as mutants leave them. Returns the world, the stray
    /// VMA, f1's address_space and B.
    fn stray_world() -> (World, u32, usize, usize) {
        let text = "[[file]]\nname = \"f0\"\n[[file]]\nname = \"f1\"\n\
                    [[anon_vma]]\nname = \"A\"\n[[anon_vma]]\nname = \"B\"\n[[mm]]\n\
                    [[mm.vma]]\nstart = 0\nend = 2\nfile = \"f0\"\nanon_vmas = [\"A\"]\n\
                    [[mm.vma]]\nstart = 4\nend = 6\npgoff = 10\nfile = \"f1\"\nanon_vmas = [\"B\"]\n\
                    [[mm.vma]]\nstart = 8\nend = 10\npgoff = 20\nfile = \"f1\"\nanon_vmas = [\"B\"]\n";
        let mut w = Scenario::parse(text).unwrap().build().unwrap();
        let s = w.alloc_vma(None);
        let v = &mut w.vmas[s as usize];
        (v.vm_start, v.vm_end, v.vm_file) = (0, 2, Some(0));
        let f1 = w.files[1].f_mapping as usize;
        let keys = FileKeys { vmas: &w.vmas };
        interval::insert(
            &mut w.mappings[f1].i_mmap,
            &keys,
            s,
            &mut TreeObs::default(),
        )
        .unwrap();
        let c = w.alloc_avc();
        (w.avcs[c as usize].vma, w.avcs[c as usize].anon_vma) = (Some(s), Some(0));
        let keys = AnonKeys {
            vmas: &w.vmas,
            avcs: &w.avcs,
        };
        interval::insert(
            &mut w.anon_vmas[1].rb_root,
            &keys,
            c,
            &mut TreeObs::default(),
        )
        .unwrap();
        w.scratch.trees_dirty = true;
        assert!(after_step(&mut w, InvariantSet::all()).is_empty());
        assert!(w.scratch.tree_marks.call.is_empty());
        (w, s, f1, 1)
    }

    /// `vma->field = x` as a model writes it (thread 0).
    fn write_vma(w: &mut World, v: u32, field: &str, x: i64) {
        let index = fields_of(ObjKind::Vma)
            .iter()
            .position(|r| r.name == field)
            .unwrap() as u16;
        let id = FieldId {
            kind: ObjKind::Vma,
            index,
        };
        w.write_field(0, Value::Obj(ObjKind::Vma, v), id, Value::Int(x))
            .unwrap();
    }

    /// The per-step check after the write, which must equal the whole one and report
    /// `tree-order` in the tree named `tree`.
    fn caught(w: &mut World, tree: &str) -> Vec<Violation> {
        let whole = structure::check_unlocked_trees_whole(w);
        let v = after_step(w, InvariantSet::all());
        assert_eq!(v, whole);
        assert!(
            v.iter()
                .any(|x| x.invariant == Invariant::TreeOrder && x.message.starts_with(tree)),
            "{v:?}"
        );
        v
    }

    #[test]
    fn a_key_write_into_a_file_tree_the_vma_should_not_be_in_is_caught() {
        let (mut w, s, f1, _) = stray_world();
        // sorts it after vma#1 (pgoff 10) while it stays leftmost
        write_vma(&mut w, s, "vm_pgoff", 15);
        assert!(w.scratch.tree_marks.step.has_file(f1));
        // the tree of its own file, f0, does not hold it: not marked
        assert!(!w
            .scratch
            .tree_marks
            .step
            .has_file(w.files[0].f_mapping as usize));
        caught(&mut w, &format!("file tree of mapping#{f1}"));
        assert!(w.scratch.tree_marks.call.has_file(f1));
    }

    #[test]
    fn a_key_write_read_through_an_avc_in_a_tree_it_should_not_be_in_is_caught() {
        let (mut w, s, _, b) = stray_world();
        write_vma(&mut w, s, "vm_anon_pgoff", 6);
        assert!(w.scratch.tree_marks.step.has_anon(b) && !w.scratch.tree_marks.step.has_anon(0));
        caught(&mut w, &format!("tree of anon_vma#{b}"));
    }
}
