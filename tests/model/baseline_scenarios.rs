//! The baseline model run on scenarios whose resulting VMA layout is known by hand. Every call
//! runs with every check on (tree validators after each step, membership, layout, walkers and
//! cached keys at the end), so a clean run also shows each VMA and AVC in exactly its trees.

use crate::model_fixtures::{layout, load, run_clean as run, BASELINE, EMPTY, ONE_FILE_VMA, THREE};
use rmapcheck::lang::Program;

fn baseline() -> Program {
    load(BASELINE)
}

#[test]
fn split_below_and_above() {
    let p = baseline();
    // new_below = 1: the new VMA takes [0, 3), the old one moves up and its pgoff with it
    let w = run(&p, ONE_FILE_VMA, &["contract_split(mm#0, vma#0, 3, 1)"]);
    assert_eq!(layout(&w, 0), vec![(0, 3, 100), (3, 8, 103)]);
    assert_eq!(w.mm_vmas(0), vec![1, 0]);
    // new_below = 0: the old VMA keeps [0, 5)
    let w = run(&p, ONE_FILE_VMA, &["contract_split(mm#0, vma#0, 5, 0)"]);
    assert_eq!(layout(&w, 0), vec![(0, 5, 100), (5, 8, 105)]);
    assert_eq!(w.mm_vmas(0), vec![0, 1]);
    assert_eq!(w.mappings[0].i_mmap.len(), 2);
}

#[test]
fn munmap_in_the_middle() {
    let p = baseline();
    let w = run(&p, ONE_FILE_VMA, &["sys_munmap(mm#0, 3, 5)"]);
    assert_eq!(layout(&w, 0), vec![(0, 3, 100), (5, 8, 105)]);
    assert_eq!(w.mms[0].map_count, 2);
    assert_eq!(w.mappings[0].i_mmap.len(), 2);
    assert!(
        w.vmas[0].freed,
        "the middle part keeps the original VMA and is freed"
    );
}

#[test]
fn mmap_merges_with_prev_next_and_both() {
    let p = baseline();
    // left: [0,2) then [2,4) at the following pgoff
    let w = run(
        &p,
        EMPTY,
        &[
            "sys_mmap(mm#0, file#0, 0, 2, 10, false)",
            "sys_mmap(mm#0, file#0, 2, 4, 12, false)",
        ],
    );
    assert_eq!(layout(&w, 0), vec![(0, 4, 10)]);
    // right: [2,4) then [0,2) in front of it
    let w = run(
        &p,
        EMPTY,
        &[
            "sys_mmap(mm#0, file#0, 2, 4, 12, false)",
            "sys_mmap(mm#0, file#0, 0, 2, 10, false)",
        ],
    );
    assert_eq!(layout(&w, 0), vec![(0, 4, 10)]);
    assert_eq!(w.mappings[0].i_mmap.len(), 1);
    // both: a hole filled
    let w = run(
        &p,
        EMPTY,
        &[
            "sys_mmap(mm#0, file#0, 0, 2, 10, false)",
            "sys_mmap(mm#0, file#0, 4, 6, 14, false)",
            "sys_mmap(mm#0, file#0, 2, 4, 12, false)",
        ],
    );
    assert_eq!(layout(&w, 0), vec![(0, 6, 10)]);
    assert_eq!(w.mms[0].map_count, 1);
    // a non-linear pgoff does not merge
    let w = run(
        &p,
        EMPTY,
        &[
            "sys_mmap(mm#0, file#0, 0, 2, 10, false)",
            "sys_mmap(mm#0, file#0, 2, 4, 20, false)",
        ],
    );
    assert_eq!(layout(&w, 0), vec![(0, 2, 10), (2, 4, 20)]);
}

#[test]
fn mprotect_merge_cases_of_an_existing_range() {
    let p = baseline();
    // merge both: middle and next removed, prev covers everything
    let w = run(&p, THREE, &["sys_mprotect(mm#0, 2, 6, false)"]);
    assert_eq!(layout(&w, 0), vec![(0, 8, 0)]);
    assert!(w.vmas[1].freed && w.vmas[2].freed);
    // merge left, partial: prev grows to 4, middle starts at 4 (adjust_middle_start)
    let w = run(&p, THREE, &["sys_mprotect(mm#0, 2, 4, false)"]);
    assert_eq!(layout(&w, 0), vec![(0, 4, 0), (4, 6, 4), (6, 8, 6)]);
    assert_eq!(w.mm_vmas(0), vec![0, 1, 2]);
    // merge right, partial: next grows down to 4, middle ends at 4 (adjust_next_start)
    let w = run(&p, THREE, &["sys_mprotect(mm#0, 4, 6, false)"]);
    assert_eq!(layout(&w, 0), vec![(0, 2, 0), (2, 4, 2), (4, 8, 4)]);
    assert_eq!(w.mm_vmas(0), vec![0, 1, 2]);
    // no merge in the middle: two splits
    let w = run(&p, THREE, &["sys_mprotect(mm#0, 3, 5, false)"]);
    assert_eq!(
        layout(&w, 0),
        vec![(0, 2, 0), (2, 3, 2), (3, 5, 3), (5, 6, 5), (6, 8, 6)]
    );
}

#[test]
fn mprotect_merge_left_and_right_whole() {
    let p = baseline();
    // prev [0,2) ro, middle [2,4) rw, next [4,6) rw: making middle ro merges it into prev
    let s = THREE.replace("end = 6\npgoff = 2", "end = 4\npgoff = 2");
    let s = s.replace(
        "start = 6\nend = 8\npgoff = 6",
        "start = 4\nend = 6\npgoff = 4",
    );
    let s = s.replace(
        "pgoff = 4\nfile = \"f\"\nwritable = false",
        "pgoff = 4\nfile = \"f\"",
    );
    let w = run(&p, &s, &["sys_mprotect(mm#0, 2, 4, false)"]);
    assert_eq!(layout(&w, 0), vec![(0, 4, 0), (4, 6, 4)]);
    // [0,2) ro made rw merges into the rw VMA after it, which grows down (merge right,
    // whole); the initial world's separate [2,4) and [4,6) stay separate
    let w = run(&p, &s, &["sys_mprotect(mm#0, 0, 2, true)"]);
    assert_eq!(layout(&w, 0), vec![(0, 4, 0), (4, 6, 4)]);
    assert_eq!(w.mm_vmas(0), vec![1, 2]);
    // merge right whole: next [4,6) grows down over middle [2,4) (pgoff goes down)
    let t = s.replace(
        "start = 0\nend = 2\npgoff = 0\nfile = \"f\"\nwritable = false",
        "start = 0\nend = 2\npgoff = 50\nfile = \"f\"",
    );
    let t = t.replace(
        "start = 2\nend = 4\npgoff = 2\nfile = \"f\"",
        "start = 2\nend = 4\npgoff = 2\nfile = \"f\"\nwritable = false",
    );
    let w = run(&p, &t, &["sys_mprotect(mm#0, 2, 4, true)"]);
    assert_eq!(layout(&w, 0), vec![(0, 2, 50), (2, 6, 2)]);
    assert_eq!(w.mm_vmas(0), vec![0, 2], "next is the target and survives");
}

#[test]
fn fork_then_split_in_the_child() {
    let p = baseline();
    let w = run(
        &p,
        ONE_FILE_VMA,
        &[
            "do_anonymous_fault(mm#0, 0)",
            "sys_fork(mm#0)",
            "sys_mprotect(mm#1, 2, 4, false)",
        ],
    );
    assert_eq!(layout(&w, 0), vec![(0, 8, 100)]);
    assert_eq!(layout(&w, 1), vec![(0, 2, 100), (2, 4, 102), (4, 8, 104)]);
    // parent VMA + three child VMAs in the file tree
    assert_eq!(w.mappings[0].i_mmap.len(), 4);
    // the child's VMAs each link the parent's anon_vma and the child's own
    for v in w.mm_vmas(1) {
        assert_eq!(w.vmas[v as usize].anon_vma_chain.len(), 2);
    }
    assert_eq!(w.anon_vmas[0].rb_root.len(), 4);
}

#[test]
fn dev_zero_private_mapping_is_anonymous_with_a_file() {
    let p = baseline();
    let w = run(
        &p,
        EMPTY,
        &[
            "sys_mmap(mm#0, file#1, 0, 4, 0, false)",
            "sys_munmap(mm#0, 1, 2)",
        ],
    );
    assert_eq!(layout(&w, 0), vec![(0, 1, 0), (2, 4, 2)]);
    let v = w.mm_vmas(0)[0];
    assert!(w.vmas[v as usize].is_anonymous() && w.vmas[v as usize].vm_file.is_some());
    // the baseline links such VMAs into /dev/zero's file tree
    assert_eq!(w.mappings[1].i_mmap.len(), 2);
}

#[test]
fn exit_unlinks_everything() {
    let p = baseline();
    let w = run(
        &p,
        ONE_FILE_VMA,
        &[
            "do_anonymous_fault(mm#0, 0)",
            "sys_fork(mm#0)",
            "sys_exit(mm#1)",
            "sys_exit(mm#0)",
        ],
    );
    assert!(w.mappings[0].i_mmap.is_empty());
    assert!(w.anon_vmas.iter().all(|a| a.rb_root.is_empty()));
    assert_eq!(w.mms[0].map_count, 0);
}

/// v7.3's anon_vma_clone() puts each new AVC at the head of dst's chain while walking src's
/// chain from its head, so the clone's chain is src's in reverse; a split shows it.
#[test]
fn split_clones_the_anon_vma_chain_in_reverse() {
    const FORKED: &str = r#"
[[anon_vma]]
name = "A"
[[anon_vma]]
name = "B"
parent = "A"
[[mm]]
[[mm.vma]]
start = 0
end = 4
anon_vmas = ["A", "B"]
"#;
    let p = baseline();
    let w = run(&p, FORKED, &["sys_mprotect(mm#0, 0, 2, false)"]);
    let chain = |v: usize| -> Vec<u32> {
        w.vmas[v]
            .anon_vma_chain
            .iter()
            .map(|&c| w.avcs[c as usize].anon_vma.unwrap())
            .collect()
    };
    let (old, new) = (0, w.vmas.len() - 1);
    assert_eq!(chain(old).len(), 2);
    let mut reversed = chain(old);
    reversed.reverse();
    assert_eq!(chain(new), reversed, "{}", w.render());
    // both halves are in both trees, and the new VMA uses the same anon_vma
    assert_eq!(w.vmas[new].anon_vma, w.vmas[old].anon_vma);
    assert!(w.anon_vmas.iter().all(|a| a.rb_root.len() == 2));
}
