//! The undo paths of issue 14 (models/v7.3-rc4/lib/undo.rmap): a munmap whose maple-tree clear
//! fails after the gather, a fork that fails after copying some VMAs, an mmap(MAP_FIXED) that
//! fails after the clean-up, the munmap downgrade's order, and the mutants only they reach.

use crate::model_fixtures::*;
use rmapcheck::check::Invariant;

fn m(name: &str) -> String {
    format!("models/mutants/{name}.rmap")
}

/// A file VMA [0, 4) and an anonymous VMA [5, 8) that has faulted in its anon_vma and a page.
const FILE_AND_ANON: [&str; 3] = [
    "sys_mmap(mm#0, file#0, 0, 4, 0, false)",
    "sys_mmap(mm#0, NULL, 5, 8, 0, false)",
    "do_anonymous_fault(mm#0, 6)",
];

/// The abort keeps the splits of the gather: the pieces are attached, listed, in the file tree,
/// and no pte changed (the assumption written in undo.rmap).
#[test]
fn munmap_abort_keeps_the_split_pieces_mapped() {
    let mut calls = FILE_AND_ANON.to_vec();
    calls.push("sys_munmap_abort(mm#0, 1, 7)");
    let before = run_clean(&load(BASELINE), EMPTY, &FILE_AND_ANON);
    let w = run_clean(&load(BASELINE), EMPTY, &calls);
    assert_eq!(
        layout(&w, 0),
        vec![(0, 1, 0), (1, 4, 1), (5, 7, 5), (7, 8, 7)]
    );
    for v in w.mm_vmas(0) {
        let x = &w.vmas[v as usize];
        assert!(!x.detached && !x.freed, "vma#{v} detached or freed");
    }
    assert_eq!(w.mms[0].ptes, before.mms[0].ptes);
}

/// A failed fork leaves what a fork followed by the child's exit leaves, for every number of
/// copied VMAs: every copied VMA left the file and anon trees and the anon_vmas' counts are back.
#[test]
fn fork_fail_equals_fork_then_exit_of_the_child() {
    let mut fe = FILE_AND_ANON.to_vec();
    fe.extend(["sys_fork(mm#0)", "sys_exit(mm#1)"]);
    let want = run_clean(&load(BASELINE), EMPTY, &fe).canonical();
    for k in 0..=2 {
        let call = format!("sys_fork_fail(mm#0, {k})");
        let mut calls = FILE_AND_ANON.to_vec();
        calls.push(&call);
        let got = run_clean(&load(BASELINE), EMPTY, &calls).canonical();
        assert!(
            got == want,
            "{call}:\n{}\nwant:\n{}",
            got.render(),
            want.render()
        );
    }
}

/// A MAP_FIXED failing after vms_clean_up_area() cannot reattach: vms_abort_munmap_vmas() leaves
/// a gap and completes the munmap, so the world is the one munmap(2) of the range leaves (the
/// assumption written in undo.rmap), with the mmap write lock released.
#[test]
fn mmap_fixed_fail_leaves_the_gap_munmap_leaves() {
    let mut calls = FILE_AND_ANON.to_vec();
    calls.push("sys_mmap_fixed_fail(mm#0, 1, 7)");
    let w = run_clean(&load(BASELINE), EMPTY, &calls);
    assert_eq!(layout(&w, 0), vec![(0, 1, 0), (7, 8, 7)]);
    let lock = &w.mms[0].mmap_lock;
    assert!(lock.writer.is_none() && lock.readers == 0);
    let mut um = FILE_AND_ANON.to_vec();
    um.push("sys_munmap(mm#0, 1, 7)");
    let want = run_clean(&load(BASELINE), EMPTY, &um).canonical();
    assert!(
        w.canonical() == want,
        "{}\nwant:\n{}",
        w.canonical().render(),
        want.render()
    );
}

/// The precondition: no more VMAs copied than the mm has.
#[test]
fn fork_fail_copies_at_most_every_vma() {
    let w = run_clean(&load(BASELINE), EMPTY, &FILE_AND_ANON);
    let c = rmapcheck::world::scenario::Call::parse("sys_fork_fail(mm#0, 3)").unwrap();
    let e = rmapcheck::entry::check(&w, &c).unwrap_err();
    assert!(e.contains("copies 3 VMAs but the mm has 2"), "{e}");
}

/// munmap(2) ends with nothing detached or locked and the range gone, as before the downgrade.
#[test]
fn munmap_downgrades_and_unlinks_after_the_clear() {
    let mut calls = FILE_AND_ANON.to_vec();
    calls.push("sys_munmap(mm#0, 1, 7)");
    let w = run_clean(&load(BASELINE), EMPTY, &calls);
    assert_eq!(layout(&w, 0), vec![(0, 1, 0), (7, 8, 7)]);
    let lock = &w.mms[0].mmap_lock;
    assert!(lock.writer.is_none() && lock.readers == 0);
}

#[test]
fn munmap_unlink_before_clear_is_caught_only_by_the_unlink_rule() {
    let p = load(&m("munmap-unlink-before-clear"));
    let calls = ["sys_munmap(mm#0, 3, 5)"];
    let s = run_fails(&p, ONE_FILE_VMA, &calls, 0, Invariant::LockDiscipline);
    let msg = &s.failure.violations[0].message;
    assert!(
        msg.contains("leaves the rmap while mm#0 still lists it"),
        "{msg}"
    );
}

#[test]
fn munmap_abort_relinks_is_caught_and_needs_the_abort() {
    let p = load(&m("munmap-abort-relinks"));
    run_fails(
        &p,
        ONE_FILE_VMA,
        &["sys_munmap_abort(mm#0, 3, 5)"],
        0,
        Invariant::TreePrecondition,
    );
    run_clean(&p, ONE_FILE_VMA, &["sys_munmap(mm#0, 3, 5)"]);
}

#[test]
fn fixed_abort_reattaches_is_caught_and_needs_the_failure() {
    let p = load(&m("fixed-abort-reattaches"));
    run_fails(
        &p,
        ONE_FILE_VMA,
        &["sys_mmap_fixed_fail(mm#0, 3, 5)"],
        0,
        Invariant::Membership,
    );
    run_clean(
        &p,
        ONE_FILE_VMA,
        &["sys_mmap_fixed(mm#0, NULL, 3, 5, 3, false)"],
    );
    run_clean(&p, ONE_FILE_VMA, &["sys_munmap_abort(mm#0, 3, 5)"]);
}

#[test]
fn fork_fail_skips_last_anon_is_caught_and_needs_the_failure() {
    let p = load(&m("fork-fail-skips-last-anon"));
    let mut calls = FILE_AND_ANON.to_vec();
    calls.push("sys_fork_fail(mm#0, 2)");
    run_fails(&p, EMPTY, &calls, 3, Invariant::Membership);
    let mut ok = FILE_AND_ANON.to_vec();
    ok.extend(["sys_fork(mm#0)", "sys_exit(mm#1)"]);
    run_clean(&p, EMPTY, &ok);
}

/// Against exit_mmap() of an mm, no walker reaches that mm through the mm itself (its last user
/// is gone: no fault, no MADV_DONTNEED); the rmap walks and the other calls keep every walker.
#[test]
fn exit_leaves_out_the_walkers_that_need_a_user_of_its_mm() {
    use rmapcheck::exec::host::{ObjKind, Value};
    use rmapcheck::explore::walkers::{against, walker_calls};
    use rmapcheck::world::scenario::Call;
    let p = load(BASELINE);
    let w = run_clean(&p, EMPTY, &FILE_AND_ANON);
    let kinds: Vec<String> = ["file", "anon", "madv", "fault"].map(String::from).to_vec();
    let all = walker_calls(&p, &w, &kinds);
    let mm0 = Some(&Value::Obj(ObjKind::Mm, 0));
    let by_mm = all.iter().filter(|c| c.args.first() == mm0).count();
    assert!(by_mm > 0 && all.iter().any(|c| c.func == "do_anonymous_fault_vma_lock"));
    let exit = Call::parse("sys_exit(mm#0)").unwrap();
    let left = against(&exit, all.clone());
    assert_eq!(left.len(), all.len() - by_mm);
    assert!(left.iter().all(|c| c.args.first() != mm0));
    assert!(left.iter().any(|c| c.func == "rmap_walk_file"));
    assert!(left.iter().any(|c| c.func == "rmap_walk_anon"));
    let munmap = Call::parse("sys_munmap(mm#0, 1, 7)").unwrap();
    assert_eq!(against(&munmap, all.clone()).len(), all.len());
}
