//! The checks' side of the tree marks (`world::tree_marks`): the sets of marked trees the
//! structural checks validate, and tests that a key write reaches every tree reading the key,
//! also a tree the VMA or AVC should not be in.

pub use crate::world::tree_marks::{TreeMarks, TreeSet};

#[cfg(test)]
mod tests {
    use super::*;
    use crate::world::tree_marks::WIDTH;
    use crate::world::World;

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
