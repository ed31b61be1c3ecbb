//! Ghost page tables and folios: which calls create, copy, move and drop ptes on the baseline,
//! and the page-level invariants (`rmap-complete`, `rmap-exact`, `mapping-preserved`) firing
//! on worlds corrupted by hand, each where no other invariant does.

use crate::model_fixtures::{load, run_clean, BASELINE, EMPTY, ONE_FILE_VMA};
use rmapcheck::check::pages::{check_mapping_preserved, check_rmap, page_tables, PteChange};
use rmapcheck::check::{at_boundary, Invariant, InvariantSet};
use rmapcheck::world::{Folio, World};

fn ptes(w: &World, mm: usize) -> Vec<(u64, Folio)> {
    w.mms[mm].ptes.iter().map(|(&a, &f)| (a, f)).collect()
}

/// Every invariant that is not page-level.
fn structural() -> InvariantSet {
    InvariantSet::all()
        .without(Invariant::RmapComplete)
        .without(Invariant::RmapExact)
        .without(Invariant::MappingPreserved)
}

#[test]
fn faults_fork_munmap_and_stack_move_follow_the_kernel() {
    let prog = load(BASELINE);
    let w = run_clean(
        &prog,
        EMPTY,
        &[
            "sys_mmap(mm#0, NULL, 0, 3, 0, false)",
            "do_anonymous_fault(mm#0, 1)",
            "sys_mmap(mm#0, file#0, 4, 6, 10, false)",
            "do_file_fault(mm#0, 5)",
        ],
    );
    // anon folio: linear page index (anonymous pgoff = start page) in the VMA's anon_vma
    let p = ptes(&w, 0);
    assert_eq!(p.len(), 2);
    let Folio::Anon(a) = p[0].1 else {
        panic!("{p:?}")
    };
    assert_eq!((p[0].0, w.anon_folios[a as usize].index), (1, 1));
    assert_eq!(
        p[1],
        (
            5,
            Folio::File {
                mapping: 0,
                index: 11
            }
        )
    );

    // a write fault on the private file page copies it to an anon folio; v7.3-rc4 indexes it by
    // the anonymous page offset (the start page 4 at mmap, so 5 at address 5), not the file's 11
    let w2 = run_clean(
        &prog,
        EMPTY,
        &[
            "sys_mmap(mm#0, file#0, 4, 6, 10, false)",
            "do_file_fault(mm#0, 5)",
            "do_anonymous_fault(mm#0, 5)",
        ],
    );
    let Folio::Anon(c) = w2.mms[0].ptes[&5] else {
        panic!("COW did not give an anon folio")
    };
    assert_eq!(w2.anon_folios[c as usize].index, 5);

    // fork copies the ptes of a VMA with an anon_vma; the shared folio is one object
    let w3 = run_clean(
        &prog,
        EMPTY,
        &[
            "sys_mmap(mm#0, NULL, 0, 3, 0, false)",
            "do_anonymous_fault(mm#0, 1)",
            "sys_mmap(mm#0, file#0, 4, 6, 10, true)",
            "do_file_fault(mm#0, 5)",
            "sys_fork(mm#0)",
        ],
    );
    assert_eq!(ptes(&w3, 1), vec![(1, w3.mms[0].ptes[&1])]);
    assert_eq!(w3.folio_mapcount(w3.mms[0].ptes[&1]), 2);

    // munmap drops the ptes of the range only
    let w4 = run_clean(
        &prog,
        EMPTY,
        &[
            "sys_mmap(mm#0, NULL, 0, 4, 0, false)",
            "do_anonymous_fault(mm#0, 1)",
            "do_anonymous_fault(mm#0, 2)",
            "sys_munmap(mm#0, 2, 3)",
        ],
    );
    assert_eq!(w4.mms[0].ptes.keys().copied().collect::<Vec<_>>(), vec![1]);

    // exec's stack move takes the ptes along, with their index
    let w5 = run_clean(
        &prog,
        EMPTY,
        &[
            "sys_mmap(mm#0, NULL, 2, 4, 0, false)",
            "do_anonymous_fault(mm#0, 3)",
            "sys_shift_down(mm#0, 2, 1)",
        ],
    );
    let p = ptes(&w5, 0);
    let Folio::Anon(s) = p[0].1 else {
        panic!("{p:?}")
    };
    assert_eq!((p[0].0, w5.anon_folios[s as usize].index), (2, 3));
}

#[test]
fn rmap_complete_fires_on_a_folio_at_the_wrong_index_and_nothing_else_does() {
    let prog = load(BASELINE);
    let mut w = run_clean(&prog, ONE_FILE_VMA, &["do_file_fault(mm#0, 3)"]);
    assert!(check_rmap(&w, true, true).is_empty());
    // the pte now claims page 107 of the file at address 3, where the VMA maps page 103
    w.mms[0].ptes.insert(
        3,
        Folio::File {
            mapping: 0,
            index: 107,
        },
    );
    let v = check_rmap(&w, true, false);
    assert_eq!(v.len(), 1, "{v:?}");
    assert_eq!(v[0].invariant, Invariant::RmapComplete);
    assert!(
        v[0].message.contains("pte (mm#0, address 3)"),
        "{}",
        v[0].message
    );
    assert!(v[0].message.contains("index 107"), "{}", v[0].message);
    assert!(at_boundary(&w, structural()).is_empty());
    // and the arithmetic side of mapping-preserved sees it too
    let m = check_mapping_preserved(&page_tables(&w), PteChange::None, &w);
    assert!(
        m.iter()
            .any(|x| x.message.contains("linear page index 103")),
        "{m:?}"
    );
}

#[test]
fn rmap_complete_fires_when_the_folios_anon_vma_is_freed() {
    let prog = load(BASELINE);
    let mut w = run_clean(
        &prog,
        EMPTY,
        &[
            "sys_mmap(mm#0, NULL, 0, 2, 0, false)",
            "do_anonymous_fault(mm#0, 0)",
        ],
    );
    let Folio::Anon(f) = w.mms[0].ptes[&0] else {
        panic!()
    };
    // point the folio at a fresh anon_vma that is then freed
    let dead = w.alloc_anon_vma();
    w.anon_vmas[dead as usize].freed = true;
    w.anon_folios[f as usize].anon_vma = dead;
    let v = check_rmap(&w, true, false);
    assert_eq!(v[0].invariant, Invariant::RmapComplete);
    assert!(v[0].message.contains("is freed"), "{}", v[0].message);
}

#[test]
fn rmap_exact_fires_on_a_vma_linked_twice() {
    let prog = load(BASELINE);
    let mut w = run_clean(
        &prog,
        EMPTY,
        &[
            "sys_mmap(mm#0, NULL, 0, 2, 0, false)",
            "do_anonymous_fault(mm#0, 0)",
        ],
    );
    // a second AVC of vma#0 in the same anon_vma, inserted as the kernel would
    let av = w.vmas[0].anon_vma.unwrap();
    let c = w.alloc_avc();
    w.avcs[c as usize].vma = Some(0);
    w.avcs[c as usize].anon_vma = Some(av);
    w.avcs[c as usize].cached_vma_start = 0;
    w.avcs[c as usize].cached_vma_last = 1;
    w.vmas[0].anon_vma_chain.insert(0, c);
    let keys = rmapcheck::world::AnonKeys {
        vmas: &w.vmas,
        avcs: &w.avcs,
    };
    let mut tree = w.anon_vmas[av as usize].rb_root.clone();
    rmapcheck::tree::interval::insert(&mut tree, &keys, c, &mut Default::default()).unwrap();
    w.anon_vmas[av as usize].rb_root = tree;
    assert!(at_boundary(&w, structural()).is_empty());
    let v = check_rmap(&w, false, true);
    assert_eq!(v.len(), 1, "{v:?}");
    assert_eq!(v[0].invariant, Invariant::RmapExact);
    assert!(v[0].message.contains("a second time"), "{}", v[0].message);
}

#[test]
fn mapping_preserved_fires_on_a_pte_lost_or_kept_against_the_call() {
    let prog = load(BASELINE);
    let w = run_clean(
        &prog,
        ONE_FILE_VMA,
        &["do_file_fault(mm#0, 3)", "do_file_fault(mm#0, 5)"],
    );
    let before = page_tables(&w);
    let mut lost = w.clone();
    lost.mms[0].ptes.remove(&5);
    // an mprotect may not drop a pte
    let v = check_mapping_preserved(&before, PteChange::None, &lost);
    assert_eq!(v.len(), 1, "{v:?}");
    assert_eq!(v[0].invariant, Invariant::MappingPreserved);
    assert!(v[0].message.contains("address 5"), "{}", v[0].message);
    // a munmap of [4, 6) may
    let drop = PteChange::Drop {
        mm: 0,
        start: 4,
        end: 6,
    };
    assert!(check_mapping_preserved(&before, drop, &lost).is_empty());
    // but not one of [6, 8)
    let drop = PteChange::Drop {
        mm: 0,
        start: 6,
        end: 8,
    };
    assert_eq!(check_mapping_preserved(&before, drop, &lost).len(), 1);
}

#[test]
fn canonical_form_renumbers_folios_and_drops_unmapped_ones() {
    let prog = load(BASELINE);
    let w = run_clean(
        &prog,
        EMPTY,
        &[
            "sys_mmap(mm#0, NULL, 0, 4, 0, false)",
            "do_anonymous_fault(mm#0, 3)",
            "do_anonymous_fault(mm#0, 1)",
            "sys_munmap(mm#0, 3, 4)",
        ],
    );
    assert_eq!(w.anon_folios.len(), 2);
    let c = w.canonical();
    assert_eq!(c.anon_folios.len(), 1);
    assert_eq!(c.mms[0].ptes[&1], Folio::Anon(0));
    assert_eq!(c.anon_folios[0].index, 1);
}
