//! Every invariant fires through a model: small mutants of the baseline (written inline, each a
//! baseline include plus one redefined function) are searched or run on a scenario, and the
//! named invariant must be the one reported. Counterexample traces round-trip through JSON and
//! replay to the same invariant at the same step. (`rb-shape` cannot be broken through a model:
//! every tree change goes through the kernel-exact rbtree code and a misuse is refused as a
//! `tree-precondition`; tests/tree/tree_corrupt.rs shows it firing on corrupted trees.)

use rmapcheck::check::Invariant;
use rmapcheck::explore::replay::replay;
use rmapcheck::explore::search::{search, Outcome};
use rmapcheck::lang::{load_str, Program};
use rmapcheck::scope::{Mode, Scope};
use rmapcheck::trace::Trace;
use rmapcheck::world::scenario::{Call, Scenario};
use std::path::Path;

fn model(src: &str) -> Program {
    let text = format!("#include \"baseline.rmap\"\n{src}");
    load_str(
        "mutant.rmap",
        &text,
        Path::new("models/v7.3-rc4"),
        &rmapcheck::world::schema(),
    )
    .unwrap_or_else(|d| panic!("{}", rmapcheck::lang::render_diagnostics(&d)))
}

fn scope(depth: u32, mode: Mode, invariants: &[Invariant]) -> Scope {
    Scope {
        max_depth: depth,
        mode,
        invariants: invariants.to_vec(),
        ..Scope::default()
    }
}

/// Search; expect a counterexample of `inv` with `len` calls; check it round-trips.
fn expect_cex(prog: &Program, s: &Scope, inv: Invariant, len: usize) -> Trace {
    let (outcome, _) = search(prog, "mutant.rmap", s, &mut |_| {});
    let Outcome::Counterexample(t) = outcome else {
        panic!("expected a counterexample of {inv}, got {outcome:?}");
    };
    assert_eq!(t.invariant(), Some(inv), "{}", t.to_json());
    assert_eq!(t.calls.len(), len, "shortest trace length: {:?}", t.calls);
    // JSON round trip and replay to the same invariant at the same step
    let back = Trace::from_json(&t.to_json()).unwrap();
    let r = replay(prog, &back, &|w, c| {
        rmapcheck::fuzzing::validate_call(prog, w, c)
    })
    .unwrap();
    assert!(r.reproduced, "{r:?}");
    assert_eq!(r.invariant, Some(inv));
    // the text rendering fits a patch review
    let text = rmapcheck::trace::text::render(&back, prog);
    assert!(
        text.lines().all(|l| l.len() <= 80 && l.is_ascii()),
        "{text}"
    );
    assert!(text.contains(inv.name()));
    *t
}

/// Run a scenario's calls on a model; the invariants of the last failure.
fn run(prog: &Program, scenario: &str, calls: &[&str]) -> Vec<Invariant> {
    let sc = Scenario::parse(scenario).unwrap();
    let calls: Vec<Call> = calls.iter().map(|c| Call::parse(c).unwrap()).collect();
    let r = rmapcheck::explore::replay::rerun(prog, &sc, &calls, Default::default()).unwrap();
    r.failure
        .map(|f| f.violations.into_iter().map(|v| v.invariant).collect())
        .unwrap_or_default()
}

const PREPARE_HEAD: &str = "static void vma_prepare(struct vma_prepare *vp)\n{\n\
    if (vp->file) {\n\
        i_mmap_lock_write(vp->mapping);\n\
        if (vp->insert && vp->insert->vm_file)\n\
            __vma_link_file(vp->insert, vp->insert->vm_file->f_mapping);\n\
    }\n\
    if (vp->anon_vma) {\n\
        anon_vma_lock_write(vp->anon_vma);\n\
        anon_vma_interval_tree_pre_update_vma(vp->vma);\n\
        if (vp->adj_next)\n\
            anon_vma_interval_tree_pre_update_vma(vp->adj_next);\n\
    }\n";

fn prepare_with_file_part(file_part: &str) -> String {
    format!("{PREPARE_HEAD}{file_part}\n}}\n")
}

#[test]
fn tree_precondition_remove_twice_shortest_trace() {
    let p = model(&prepare_with_file_part(
        "if (vp->file) {\n flush_dcache_mmap_lock(vp->mapping);\n\
         mapping_rmap_tree_remove(vp->vma, vp->mapping);\n\
         mapping_rmap_tree_remove(vp->vma, vp->mapping);\n\
         if (vp->adj_next) mapping_rmap_tree_remove(vp->adj_next, vp->mapping);\n}",
    ));
    // mmap a file, then anything that goes through vma_prepare: two calls
    let t = expect_cex(
        &p,
        &scope(3, Mode::Callers, &[]),
        Invariant::TreePrecondition,
        2,
    );
    let f = t.failure.unwrap();
    assert!(f.step.is_some() && f.loc.is_some(), "found at the step");
}

#[test]
fn lock_discipline_flush_lock_taken_too_late() {
    let p = model(&prepare_with_file_part(
        "if (vp->file) {\n mapping_rmap_tree_remove(vp->vma, vp->mapping);\n\
         flush_dcache_mmap_lock(vp->mapping);\n\
         if (vp->adj_next) mapping_rmap_tree_remove(vp->adj_next, vp->mapping);\n}",
    ));
    expect_cex(
        &p,
        &scope(3, Mode::Callers, &[]),
        Invariant::LockDiscipline,
        2,
    );
}

#[test]
fn membership_batch_unlink_skipped() {
    let p = model(
        "void unlink_file_vma_batch_add(struct unlink_vma_file_batch *vb,\n\
         struct vm_area_struct *vma) { return; }",
    );
    expect_cex(&p, &scope(3, Mode::Callers, &[]), Invariant::Membership, 2);
}

#[test]
fn vma_layout_map_count_not_incremented_on_split() {
    // __split_vma stores the new VMA through vma_complete; this one forgets map_count
    let p = model(
        "int sys_mprotect(struct mm_struct *mm, unsigned long start, unsigned long end,\n\
         bool writable) {\n mmap_write_lock(mm);\n struct vm_area_struct *v = vma_lookup(mm, start);\n\
         if (v && v->vm_start < start && start < v->vm_end) {\n __split_vma(v, start, 1);\n\
         mm->map_count--;\n }\n mmap_write_unlock(mm);\n return 0;\n}",
    );
    expect_cex(&p, &scope(3, Mode::Callers, &[]), Invariant::VmaLayout, 2);
}

#[test]
fn model_assert_and_model_fault() {
    let p = model(
        "int do_anonymous_fault(struct mm_struct *mm, unsigned long addr) {\n\
         VM_WARN_ON_ONCE(vma_lookup(mm, addr) != NULL);\n return 0;\n}",
    );
    expect_cex(&p, &scope(3, Mode::Callers, &[]), Invariant::ModelAssert, 2);
    let p = model(
        "int do_anonymous_fault(struct mm_struct *mm, unsigned long addr) {\n\
         struct vm_area_struct *v = vma_lookup(mm, addr);\n\
         return v->anon_vma->num_children;\n}",
    );
    expect_cex(&p, &scope(3, Mode::Callers, &[]), Invariant::ModelFault, 2);
}

/// vp->vma is left in the file tree and only its end changes: a lower split without the
/// subtree_last propagate the split-skip patch adds.
const NO_REMOVE_NO_PROPAGATE: &str = "
static void vma_prepare(struct vma_prepare *vp)
{
    if (vp->file) {
        i_mmap_lock_write(vp->mapping);
        if (vp->insert && vp->insert->vm_file)
            __vma_link_file(vp->insert, vp->insert->vm_file->f_mapping);
    }
    if (vp->anon_vma) {
        anon_vma_lock_write(vp->anon_vma);
        anon_vma_interval_tree_pre_update_vma(vp->vma);
        if (vp->adj_next)
            anon_vma_interval_tree_pre_update_vma(vp->adj_next);
    }
    if (vp->file) {
        flush_dcache_mmap_lock(vp->mapping);
        if (vp->adj_next)
            mapping_rmap_tree_remove(vp->adj_next, vp->mapping);
    }
}
static void vma_complete(struct vma_prepare *vp, struct mm_struct *mm)
{
    if (vp->file) {
        if (vp->adj_next)
            mapping_rmap_tree_insert(vp->adj_next, vp->mapping);
        flush_dcache_mmap_unlock(vp->mapping);
    }
    if (vp->remove && vp->file) {
        __remove_shared_vm_struct(vp->remove, vp->mapping);
        if (vp->remove2)
            __remove_shared_vm_struct(vp->remove2, vp->mapping);
    } else if (vp->insert) {
        vma_iter_store(mm, vp->insert);
        mm->map_count++;
    }
    if (vp->anon_vma) {
        anon_vma_interval_tree_post_update_vma(vp->vma);
        if (vp->adj_next)
            anon_vma_interval_tree_post_update_vma(vp->adj_next);
        anon_vma_unlock_write(vp->anon_vma);
    }
    if (vp->file)
        i_mmap_unlock_write(vp->mapping);
    while (vp->remove) {
        vma_mark_detached(vp->remove);
        if (vp->remove->anon_vma)
            unlink_anon_vmas(vp->remove);
        mm->map_count--;
        vm_area_free(vp->remove);
        vp->remove = vp->remove2;
        vp->remove2 = NULL;
    }
}
";

#[test]
fn augment_and_walker_complete_without_propagate() {
    let p = model(NO_REMOVE_NO_PROPAGATE);
    // mmap then a split or a merge leaves subtree_last stale
    expect_cex(&p, &scope(3, Mode::Callers, &[]), Invariant::Augment, 2);
    // with only walker-complete checked, a merge that grows vp->vma makes a walk miss it
    expect_cex(
        &p,
        &scope(3, Mode::Callers, &[Invariant::WalkerComplete]),
        Invariant::WalkerComplete,
        2,
    );
}

const THREE_ADJACENT: &str = r#"
[[file]]
name = "f"
[[mm]]
[[mm.vma]]
start = 0
end = 2
pgoff = 10
file = "f"
[[mm.vma]]
start = 2
end = 4
pgoff = 20
file = "f"
[[mm.vma]]
start = 4
end = 6
pgoff = 30
file = "f"
"#;

#[test]
fn tree_order_when_a_key_changes_in_place() {
    // vma_shrink that re-keys the VMA (a new pgoff) without taking it out of the trees
    let p = model(
        "int vma_shrink(struct vm_area_struct *vma, unsigned long end) {\n vma_start_write(vma);\n\
         vma_iter_clear(vma->vm_mm, end, vma->vm_end);\n\
         vma->vm_pgoff = end;\n vma->vm_end = end;\n return 0;\n}",
    );
    let inv = run(&p, THREE_ADJACENT, &["contract_shrink(mm#0, vma#2, 5)"]);
    assert!(inv.contains(&Invariant::TreeOrder), "{inv:?}");
    // the baseline, which removes and re-inserts, is fine with the same call
    let base = model("");
    assert!(run(&base, THREE_ADJACENT, &["contract_shrink(mm#0, vma#2, 5)"]).is_empty());
}

#[test]
fn stale_descent_adj_next_inserted_before_rekey() {
    // the split-skip patch's shape with the order wrong: vp->vma stays in the tree through
    // the update and is re-keyed only after adj_next's insert has descended past it
    let p = model(&NO_REMOVE_NO_PROPAGATE.replace(
        "        if (vp->adj_next)\n            mapping_rmap_tree_insert(vp->adj_next, vp->mapping);\n        flush_dcache_mmap_unlock",
        "        if (vp->adj_next)\n            mapping_rmap_tree_insert(vp->adj_next, vp->mapping);\n\
         mapping_rmap_tree_remove(vp->vma, vp->mapping);\n\
         mapping_rmap_tree_insert(vp->vma, vp->mapping);\n        flush_dcache_mmap_unlock",
    ));
    // middle (vma#1) shrinks to [2,3) at a new pgoff 5, below vma#0's 10, while next
    // (vma#2) grows down to 3: inserting next descends through the stale middle
    let call = "contract_adjust_next(mm#0, vma#1, 3, 5)";
    let inv = run(&p, THREE_ADJACENT, &[call]);
    assert_eq!(inv.first(), Some(&Invariant::StaleDescent), "{inv:?}");
    assert!(run(&model(""), THREE_ADJACENT, &[call]).is_empty());
}

#[test]
fn cached_keys_anon_updated_in_place_without_refresh() {
    // anon side: AVCs of vp->vma stay in their trees and are only propagated (no cached
    // key refresh); a split of a VMA with an anon_vma changes its last page
    let p = model(
        "static void anon_vma_interval_tree_pre_update_vma(struct vm_area_struct *vma) { }\n\
         static void anon_vma_interval_tree_post_update_vma(struct vm_area_struct *vma) {\n\
         struct anon_vma_chain *avc;\n\
         list_for_each_entry(avc, &vma->anon_vma_chain, same_vma)\n\
         anon_rmap_tree_propagate(avc);\n}",
    );
    // two calls since issue 14: a MAP_GROWSDOWN mmap and a fault below it (the stack's start
    // moves while its AVC stays in the tree); three (mmap, fault, split) before
    expect_cex(&p, &scope(3, Mode::Callers, &[]), Invariant::CachedKeys, 2);
}

#[test]
fn baseline_holds_and_state_count_is_deterministic() {
    let p = model("");
    let s = scope(3, Mode::Callers, &[]);
    let (o1, st1) = search(&p, "baseline", &s, &mut |_| {});
    let (o2, st2) = search(&p, "baseline", &s, &mut |_| {});
    assert!(matches!(o1, Outcome::Holds { .. }), "{o1:?}");
    assert!(matches!(o2, Outcome::Holds { .. }));
    assert_eq!(st1.states, st2.states);
    assert_eq!(st1.transitions, st2.transitions);
    assert!(st1.states > 1000, "the default scope explores a real space");
}

#[test]
fn bounded_search_is_incomplete_not_holds() {
    let p = model("");
    let s = Scope {
        max_states: 50,
        ..scope(3, Mode::Callers, &[])
    };
    let (o, _) = search(&p, "baseline", &s, &mut |_| {});
    assert!(matches!(o, Outcome::Incomplete { .. }), "{o:?}");
}

/// Typed invariants: every variant a builtin can raise reaches the report. `World::violate`
/// takes an `Invariant`, so nothing can name one the checker does not know; the set filter
/// keeps each violation whose invariant is in the set, for every variant, and drops only those
/// outside it.
#[test]
fn no_violation_is_dropped_for_want_of_a_known_name() {
    use rmapcheck::check::{from_world, InvariantSet};
    use rmapcheck::world::World;
    for &i in Invariant::ALL {
        for (set, kept) in [
            (InvariantSet::all(), true),
            (InvariantSet::empty().with(i), true),
            (InvariantSet::all().without(i), false),
        ] {
            let mut w = World::new();
            w.violate(i, format!("raised {i}"));
            let v = set.filter(from_world(&mut w));
            if kept {
                assert_eq!(v.len(), 1, "{i}: {v:?}");
                assert_eq!(v[0].invariant, i);
                assert_eq!(v[0].message, format!("raised {i}"));
                assert_eq!(v[0].to_string(), format!("{}: raised {i}", i.name()));
            } else {
                assert!(v.is_empty(), "{i}: {v:?}");
            }
        }
    }
}

/// Each variant round-trips through its name, in JSON as traces write it; the names are
/// distinct; an unknown name in a trace is an error naming it, not a dropped violation.
#[test]
fn invariants_round_trip_through_their_names() {
    use rmapcheck::check::Violation;
    let mut names = std::collections::BTreeSet::new();
    for &i in Invariant::ALL {
        assert!(names.insert(i.name()), "duplicate name {}", i.name());
        assert_eq!(Invariant::from_name(i.name()), Some(i));
        let v = Violation::new(i, "m");
        let json = serde_json::to_string(&v).unwrap();
        assert_eq!(
            json,
            format!("{{\"invariant\":\"{}\",\"message\":\"m\"}}", i.name())
        );
        assert_eq!(serde_json::from_str::<Violation>(&json).unwrap(), v);
    }
    let e = serde_json::from_str::<Violation>("{\"invariant\":\"tree-ordr\",\"message\":\"m\"}")
        .unwrap_err()
        .to_string();
    assert!(e.contains("tree-ordr") && e.contains("tree-order"), "{e}");
    // the tree validator's violations map onto the same variants
    use rmapcheck::tree::TreeViolation;
    let tv = [
        TreeViolation::RbShape {
            node: None,
            what: "w".into(),
        },
        TreeViolation::TreeOrder {
            node: 1,
            start: 0,
            prev: 0,
            prev_start: 1,
        },
        TreeViolation::Augment {
            node: 0,
            stored: 0,
            expected: 1,
        },
    ];
    let got: Vec<Invariant> = tv.iter().map(Invariant::from).collect();
    assert_eq!(
        got,
        [Invariant::RbShape, Invariant::TreeOrder, Invariant::Augment]
    );
    for v in &tv {
        assert!(v.to_string().starts_with(&format!("{}: ", v.name())));
    }
}

/// `rmapcheck list` prints every invariant, with its description, under its phase.
#[test]
fn list_prints_every_invariant_under_its_phase() {
    let mut out = Vec::new();
    assert_eq!(
        rmapcheck::cmd::list::list(&mut out).unwrap(),
        rmapcheck::cmd::Exit::Ok
    );
    let out = String::from_utf8(out).unwrap();
    let lines: Vec<&str> = out.lines().collect();
    for &i in Invariant::ALL {
        let line = format!("  {:<18} {}", i.name(), i.description());
        let at = lines
            .iter()
            .position(|l| *l == line)
            .unwrap_or_else(|| panic!("{i} not listed:\n{out}"));
        let heading = lines[..at]
            .iter()
            .rev()
            .find(|l| !l.starts_with("  "))
            .unwrap();
        assert_eq!(*heading, format!(" {}:", i.phase().describe()), "{i}");
    }
}
