//! mmap(MAP_FIXED) over existing mappings (issue 14): the baseline's `sys_mmap_fixed` on small
//! scenarios (the replaced VMAs leave every tree and their ptes go, ptes outside the range stay,
//! the new range merges with the neighbours outside it), the precondition that it overlaps one
//! to four VMAs, a concurrent file walk in every interleaving, and the mutant only it reaches.

use crate::model_fixtures::*;
use rmapcheck::check::Invariant;
use rmapcheck::entry::check;
use rmapcheck::explore::interleave::{explore, Config, IOutcome};
use rmapcheck::world::scenario::{Call, Scenario};
use rmapcheck::world::Folio;

const MUTANT: &str = "models/mutants/fixed-clear-ptes-twice.rmap";

/// A shared file VMA [0, 4) at pgoff 0 and an anonymous one [4, 6), both faulted at each page.
const FILE_THEN_ANON: [&str; 8] = [
    "sys_mmap(mm#0, file#0, 0, 4, 0, true)",
    "sys_mmap(mm#0, NULL, 4, 6, 0, false)",
    "do_file_fault(mm#0, 0)",
    "do_file_fault(mm#0, 1)",
    "do_file_fault(mm#0, 2)",
    "do_file_fault(mm#0, 3)",
    "do_anonymous_fault(mm#0, 4)",
    "do_anonymous_fault(mm#0, 5)",
];

/// An anonymous mapping over the end of the file VMA and the start of the anonymous one: the
/// edges split, the middle's ptes go, the rest stay, the replaced parts are in no tree, and the
/// new range merges with what is left of the anonymous VMA (its pgoff, the address, lines up).
#[test]
fn the_replaced_range_is_unmapped_and_the_rest_kept() {
    let mut calls = FILE_THEN_ANON.to_vec();
    calls.push("sys_mmap_fixed(mm#0, NULL, 2, 5, 0, false)");
    let w = run_clean(&load(BASELINE), EMPTY, &calls);
    assert_eq!(layout(&w, 0), vec![(0, 2, 0), (2, 6, 2)]);
    let ptes: Vec<u64> = w.mms[0].ptes.keys().copied().collect();
    assert_eq!(ptes, vec![0, 1, 5]);
    assert_eq!(
        w.mms[0].ptes[&1],
        Folio::File {
            mapping: 0,
            index: 1
        }
    );
    assert!(matches!(w.mms[0].ptes[&5], Folio::Anon(_)));
    // the file's tree holds only the lower part; the merged VMA keeps next's anon_vma
    let vmas = w.mm_vmas(0);
    let f = w.files[0].f_mapping as usize;
    assert_eq!(w.mappings[f].i_mmap.members(), vec![vmas[0]]);
    assert!(w.vmas[vmas[1] as usize].anon_vma.is_some());
}

/// A file mapping at the offsets its neighbours continue merges with both of them.
#[test]
fn the_new_range_merges_with_the_neighbours_outside_it() {
    let calls = [
        "sys_mmap(mm#0, file#0, 0, 1, 0, true)",
        "sys_mmap(mm#0, NULL, 1, 2, 0, false)",
        "sys_mmap(mm#0, file#0, 2, 3, 2, true)",
        "sys_mmap_fixed(mm#0, file#0, 1, 2, 1, true)",
    ];
    let w = run_clean(&load(BASELINE), EMPTY, &calls);
    assert_eq!(layout(&w, 0), vec![(0, 3, 0)]);
}

/// Replacing every VMA of the range, two of them whole.
#[test]
fn several_whole_vmas_are_replaced() {
    let calls = [
        "sys_mmap(mm#0, file#0, 0, 1, 0, false)",
        "sys_mmap(mm#0, NULL, 1, 2, 0, false)",
        "do_anonymous_fault(mm#0, 1)",
        "sys_mmap_fixed(mm#0, file#0, 0, 3, 7, false)",
    ];
    let w = run_clean(&load(BASELINE), EMPTY, &calls);
    assert_eq!(layout(&w, 0), vec![(0, 3, 7)]);
    assert!(w.mms[0].ptes.is_empty());
    assert!(w.anon_vmas.iter().all(|a| a.rb_root.members().is_empty()));
}

#[test]
fn the_range_must_overlap_one_to_four_vmas() {
    let five = [
        "sys_mmap(mm#0, NULL, 0, 1, 0, false)",
        "sys_mmap(mm#0, file#0, 1, 2, 0, false)",
        "sys_mmap(mm#0, NULL, 2, 3, 0, false)",
        "sys_mmap(mm#0, file#0, 3, 4, 0, false)",
        "sys_mmap(mm#0, NULL, 4, 5, 0, false)",
    ];
    let w = run_clean(&load(BASELINE), EMPTY, &five);
    let verdict = |c: &str| check(&w, &Call::parse(c).unwrap());
    verdict("sys_mmap_fixed(mm#0, NULL, 0, 4, 0, false)").unwrap();
    for (c, why) in [
        (
            "sys_mmap_fixed(mm#0, NULL, 0, 5, 0, false)",
            "overlaps 5 VMAs",
        ),
        (
            "sys_mmap_fixed(mm#0, NULL, 5, 7, 0, false)",
            "overlaps no VMA",
        ),
        ("sys_mmap_fixed(mm#0, NULL, 3, 3, 0, false)", "empty range"),
        (
            "sys_mmap_fixed(mm#0, file#1, 0, 2, 0, true)",
            "shared /dev/zero",
        ),
    ] {
        let e = verdict(c).expect_err(c);
        assert!(e.contains(why), "{c}: want {why:?} in {e:?}");
    }
}

/// The walk from the faulted folio reaches its pte in every interleaving with the replacing
/// map (examples/interleave/mmap-fixed-over-file.toml): the pte is zapped before the old VMA
/// leaves i_mmap, and the new one is linked only after.
#[test]
fn a_concurrent_file_walk_stays_complete() {
    let text = std::fs::read_to_string("examples/interleave/mmap-fixed-over-file.toml").unwrap();
    let sc = Scenario::parse(&text).unwrap();
    let calls: Vec<&str> = sc.calls.iter().map(String::as_str).collect();
    let w = run_clean(&load(BASELINE), &text, &calls[..1]);
    let threads: Vec<Call> = [calls[1], "rmap_walk_file(mapping#0, 101)"]
        .iter()
        .map(|c| Call::parse(c).unwrap())
        .collect();
    let r = explore(&load(BASELINE), BASELINE, &w, &threads, &Config::default()).unwrap();
    assert!(matches!(r.outcome, IOutcome::Holds), "{:?}", r.outcome);
}

#[test]
fn fixed_clear_ptes_twice_is_caught_and_needs_the_replacing_map() {
    let p = load(MUTANT);
    let calls = [
        "sys_mmap(mm#0, file#0, 0, 2, 0, false)",
        "sys_mmap_fixed(mm#0, NULL, 0, 1, 0, false)",
    ];
    run_fails(&p, EMPTY, &calls, 1, Invariant::TreePrecondition);
    // munmap of the same range clears the page tables once
    run_clean(&p, EMPTY, &[calls[0], "sys_munmap(mm#0, 0, 1)"]);
}
