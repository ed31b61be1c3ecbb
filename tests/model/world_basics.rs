//! World-level tests: scenario building, the maple-tree stand-in, and that builtins report tree
//! precondition, stale-descent and lock-discipline violations.

use rmapcheck::check::Invariant;
use rmapcheck::exec::host::{BuiltinId, FieldId, Host, HostError, ObjKind, Value};
use rmapcheck::tree::validate;
use rmapcheck::world::scenario::{Call, Scenario};
use rmapcheck::world::{FileKeys, World};

const TWO_VMAS: &str = r#"
[[file]]
name = "libc.so"

[[anon_vma]]
name = "A"

[[mm]]
[[mm.vma]]
start = 0
end = 4
pgoff = 0
file = "libc.so"
anon_vmas = ["A"]

[[mm.vma]]
start = 6
end = 8
pgoff = 10
file = "libc.so"
"#;

fn world() -> World {
    Scenario::parse(TWO_VMAS).unwrap().build().unwrap()
}

/// A builtin by name, as a compiled model names it.
fn b(name: &str) -> BuiltinId {
    rmapcheck::world::schema::builtin_id(name).expect("a builtin")
}

/// A kernel field by name, as a compiled model names it.
fn f(kind: ObjKind, name: &str) -> FieldId {
    rmapcheck::world::schema::field_id(kind, name).expect("a field")
}

fn vma(i: u32) -> Value {
    Value::Obj(ObjKind::Vma, i)
}
fn mapping(i: u32) -> Value {
    Value::Obj(ObjKind::Mapping, i)
}

#[test]
fn scenario_builds_trees_and_layout() {
    let w = world();
    assert_eq!(w.mm_vmas(0), vec![0, 1]);
    assert_eq!(w.mms[0].map_count, 2);
    let tree = &w.mappings[0].i_mmap;
    assert_eq!(tree.inorder(), vec![0, 1]);
    assert!(validate(tree, &FileKeys { vmas: &w.vmas }).is_empty());
    assert_eq!(w.anon_vmas[0].rb_root.len(), 1);
    assert_eq!(w.vmas[0].anon_vma_chain, vec![0]);
    assert_eq!(
        (w.avcs[0].cached_vma_start, w.avcs[0].cached_vma_last),
        (0, 3)
    );
}

#[test]
fn scenario_errors_are_reported() {
    let bad = TWO_VMAS.replace("file = \"libc.so\"\nanon", "file = \"nope\"\nanon");
    let e = Scenario::parse(&bad).unwrap().build().unwrap_err();
    assert!(e.to_string().contains("unknown file"), "{e}");
    let overlap = TWO_VMAS.replace("start = 6", "start = 3");
    let e = Scenario::parse(&overlap).unwrap().build().unwrap_err();
    assert!(e.to_string().contains("overlaps"), "{e}");
    assert!(Scenario::parse("[[mm]]\nbogus = 1").is_err());
}

#[test]
fn mm_store_overwrites_like_a_maple_tree() {
    let mut w = world();
    // a split-off upper half stored over the old range of vma#0
    let new = w.alloc_vma(Some(0));
    w.vmas[new as usize].vm_start = 2;
    w.vmas[new as usize].vm_end = 4;
    w.mm_store(0, new);
    let m: Vec<_> = w.mms[0]
        .vmas
        .iter()
        .map(|(&s, &(e, v))| (s, e, v))
        .collect();
    assert_eq!(m, vec![(0, 2, 0), (2, 4, new), (6, 8, 1)]);
    w.mm_clear(0, 1, 7);
    let m: Vec<_> = w.mms[0]
        .vmas
        .iter()
        .map(|(&s, &(e, v))| (s, e, v))
        .collect();
    assert_eq!(m, vec![(0, 1, 0), (7, 8, 1)]);
}

#[test]
fn tree_builtins_check_locks_and_preconditions() {
    let mut w = world();
    // remove without any lock: three lock-discipline reports (i_mmap_rwsem, the flush_dcache
    // lock, and a VMA its mm still lists leaving the rmap without the mmap write lock), the
    // remove itself happens
    w.call(0, b("mapping_rmap_tree_remove"), &[vma(0), mapping(0)])
        .unwrap();
    let v = w.take_violations();
    assert_eq!(v.len(), 3, "{v:?}");
    assert!(v.iter().all(|x| x.invariant == Invariant::LockDiscipline));
    assert!(v[2].message.contains("still lists it"), "{v:?}");
    assert!(!w.mappings[0].i_mmap.contains(0));

    // with the locks held, removing it again is a precondition violation
    let mm0 = Value::Obj(ObjKind::Mm, 0);
    w.call(0, b("mmap_write_lock"), &[mm0]).unwrap();
    w.call(0, b("i_mmap_lock_write"), &[mapping(0)]).unwrap();
    w.call(0, b("flush_dcache_mmap_lock"), &[mapping(0)])
        .unwrap();
    w.call(0, b("mapping_rmap_tree_remove"), &[vma(0), mapping(0)])
        .unwrap();
    let v = w.take_violations();
    assert_eq!(v.len(), 1);
    assert_eq!(v[0].invariant, Invariant::TreePrecondition);

    // another thread cannot take the rwsem now
    assert_eq!(
        w.call(1, b("i_mmap_lock_read"), &[mapping(0)]),
        Err(HostError::Blocked)
    );
    w.call(0, b("flush_dcache_mmap_unlock"), &[mapping(0)])
        .unwrap();
    w.call(0, b("i_mmap_unlock_write"), &[mapping(0)]).unwrap();
    w.call(0, b("mmap_write_unlock"), &[mm0]).unwrap();
    assert!(w.take_violations().is_empty());
    // unlocking again is a lock-discipline violation
    w.call(0, b("i_mmap_unlock_write"), &[mapping(0)]).unwrap();
    assert_eq!(w.take_violations()[0].invariant, Invariant::LockDiscipline);
}

#[test]
fn stale_key_insert_is_reported_by_the_builtin() {
    let mut w = world();
    // a third VMA of the same file, in the tree
    let c = w.alloc_vma(Some(0));
    {
        let v = &mut w.vmas[c as usize];
        v.vm_start = 10;
        v.vm_end = 12;
        v.vm_pgoff = 20;
        v.vm_file = Some(0);
        v.has_vm_ops = true;
    }
    for n in ["i_mmap_lock_write", "flush_dcache_mmap_lock"] {
        w.call(0, b(n), &[mapping(0)]).unwrap();
    }
    w.call(0, b("mapping_rmap_tree_insert"), &[vma(c), mapping(0)])
        .unwrap();
    assert!(w.take_violations().is_empty());
    // vma#1 (pgoff 10, the root's right neighbour) gets re-keyed in place: stale
    w.vmas[1].vm_pgoff = 30;
    let d = w.alloc_vma(Some(0));
    {
        let v = &mut w.vmas[d as usize];
        v.vm_start = 20;
        v.vm_end = 21;
        v.vm_pgoff = 25;
        v.vm_file = Some(0);
        v.has_vm_ops = true;
    }
    w.call(0, b("mapping_rmap_tree_insert"), &[vma(d), mapping(0)])
        .unwrap();
    let v = w.take_violations();
    assert!(
        v.iter()
            .any(|x| x.invariant == Invariant::StaleDescent && x.message.contains("vma#1")),
        "{v:?}"
    );
}

#[test]
fn fields_read_and_write_through_host() {
    let mut w = world();
    assert_eq!(
        w.read_field(0, vma(1), f(ObjKind::Vma, "vm_pgoff")),
        Ok(Value::Int(10))
    );
    assert_eq!(
        w.read_field(0, vma(0), f(ObjKind::Vma, "vm_file")),
        Ok(Value::Obj(ObjKind::File, 0))
    );
    assert!(matches!(
        w.read_field(0, Value::Null, f(ObjKind::Vma, "vm_start")),
        Err(HostError::Fault(_))
    ));
    // changing the range of a VMA in an mm without vma_start_write is reported
    w.write_field(0, vma(0), f(ObjKind::Vma, "vm_end"), Value::Int(3))
        .unwrap();
    assert_eq!(w.take_violations()[0].invariant, Invariant::LockDiscipline);
    assert!(w
        .write_field(
            0,
            Value::Obj(ObjKind::File, 0),
            f(ObjKind::File, "f_mapping"),
            Value::Null,
        )
        .is_err());
}

#[test]
fn calls_parse_and_print() {
    let c = Call::parse("__split_vma(vma#0, 2, 0)").unwrap();
    assert_eq!(c.func, "__split_vma");
    assert_eq!(c.args, vec![vma(0), Value::Int(2), Value::Int(0)]);
    assert_eq!(c.to_string(), "__split_vma(vma#0, 2, 0)");
    assert!(Call::parse("f(x#1)").is_err());
    assert!(Call::parse("f(1").is_err());
}

#[test]
fn world_hash_ignores_scratch() {
    use std::collections::hash_map::DefaultHasher;
    use std::hash::{Hash, Hasher};
    let a = world();
    let mut b = world();
    b.violate(Invariant::ModelFault, "y");
    let h = |w: &World| {
        let mut s = DefaultHasher::new();
        w.hash(&mut s);
        s.finish()
    };
    assert_eq!(a, b);
    assert_eq!(h(&a), h(&b));
}

#[test]
fn canonical_form_drops_garbage_and_renumbers() {
    use rmapcheck::tree::validate;
    let mut w = world();
    // garbage: a freed VMA at the front of the arena shifts every id in a fresh world
    let mut shifted = World::new();
    shifted.add_file("libc.so", false);
    shifted.alloc_vma(None);
    shifted.vmas[0].freed = true;
    assert_ne!(w, shifted);
    w.vmas.push(w.vmas[0].clone());
    w.vmas[2].freed = true;
    let c = w.canonical();
    assert_eq!(c.vmas.len(), 2, "the freed copy is dropped");
    assert_eq!(c, c.canonical(), "canonical form is a fixed point");
    assert!(validate(&c.mappings[0].i_mmap, &FileKeys { vmas: &c.vmas }).is_empty());
    // a world built in another order canonicalises to the same thing
    let mut other = World::new();
    let f = other.add_file("libc.so", false);
    let a = other.alloc_anon_vma();
    let mm = other.add_mm();
    let hi = other.alloc_vma(Some(mm));
    let lo = other.alloc_vma(Some(mm));
    for (v, s, e, p) in [(hi, 6, 8, 10), (lo, 0, 4, 0)] {
        let x = &mut other.vmas[v as usize];
        (x.vm_start, x.vm_end, x.vm_pgoff, x.vm_file, x.has_vm_ops) = (s, e, p, Some(f), true);
        // a private writable mapping: mmap charges it (VM_ACCOUNT), as the scenario does
        x.vm_flags = 0x2 | rmapcheck::world::builtins::VM_ACCOUNT;
        // mmap gives a file VMA its start page as anonymous pgoff (the scenario's default)
        x.vm_anon_pgoff = s;
    }
    let keys_insert = |o: &mut World, v: u32| {
        let k = FileKeys { vmas: &o.vmas };
        let mut obs = Default::default();
        rmapcheck::tree::interval::insert(&mut o.mappings[0].i_mmap, &k, v, &mut obs).unwrap();
    };
    keys_insert(&mut other, lo);
    keys_insert(&mut other, hi);
    let c2 = other.alloc_avc();
    other.avcs[c2 as usize].vma = Some(lo);
    other.avcs[c2 as usize].anon_vma = Some(a);
    other.vmas[lo as usize].anon_vma = Some(a);
    other.vmas[lo as usize].anon_vma_chain = vec![c2];
    {
        let k = rmapcheck::world::AnonKeys {
            vmas: &other.vmas,
            avcs: &other.avcs,
        };
        let mut obs = Default::default();
        rmapcheck::tree::interval::insert(&mut other.anon_vmas[0].rb_root, &k, c2, &mut obs)
            .unwrap();
    }
    other.avcs[c2 as usize].cached_vma_start = 0;
    other.avcs[c2 as usize].cached_vma_last = 3;
    other.anon_vmas[0].num_active_vmas = 1;
    other.mm_store(mm, lo);
    other.mm_store(mm, hi);
    other.mms[0].map_count = 2;
    assert_ne!(other, world());
    assert_eq!(other.canonical(), world().canonical());
}

/// A walk's query on a tree whose `subtree_last` is stale goes right to a missing child, as
/// the kernel's `_subtree_search` would (a NULL dereference there): reported as a model-fault.
/// With the tree made sound again the same query finds nothing, cleanly.
#[test]
fn query_past_a_stale_subtree_last_is_a_null_dereference() {
    let mut w = world();
    // vma#1 [6,8) pgoff 10 shrinks to [6,7) in place: its node still says subtree_last 11
    w.vmas[1].vm_end = 7;
    w.call(0, b("i_mmap_lock_read"), &[mapping(0)]).unwrap();
    let q = [mapping(0), Value::Int(11), Value::Int(11)];
    w.call(0, b("mapping_rmap_tree_iter_first"), &q).unwrap();
    let v = w.take_violations();
    assert!(
        v.iter().any(|x| x.invariant == Invariant::ModelFault
            && x.message.contains("dereferences NULL")
            && x.message.contains("vma#1")),
        "{v:?}"
    );
    w.call(0, b("i_mmap_unlock_read"), &[mapping(0)]).unwrap();
    w.vmas[1].vm_end = 8;
    w.call(0, b("i_mmap_lock_read"), &[mapping(0)]).unwrap();
    let q = [mapping(0), Value::Int(12), Value::Int(12)];
    assert_eq!(
        w.call(0, b("mapping_rmap_tree_iter_first"), &q),
        Ok(Value::Null)
    );
    assert!(w.take_violations().is_empty());
}
