//! The v7.2 model (models/v7.2/v7.2.rmap): the v7.3 model with 7.2's one page offset. Where
//! v7.3 gives a VMA an anonymous page offset of its own, the 7.2 model keeps it equal to
//! vm_pgoff (7.2's only offset, which keys the anon trees too), and merges test vm_pgoff alone.

use crate::model_fixtures::*;
use rmapcheck::world::World;

const V7_2: &str = "models/v7.2/v7.2.rmap";

/// (start, pgoff, anonymous pgoff) of each VMA of mm 0.
fn offsets(w: &World) -> Vec<(u64, u64, u64)> {
    w.mm_vmas(0)
        .into_iter()
        .map(|v| {
            let x = &w.vmas[v as usize];
            (x.vm_start, x.vm_pgoff, x.vm_anon_pgoff)
        })
        .collect()
}

/// A private file mapping: v7.3's __mmap_region() gives it its address as its anonymous page
/// offset, 7.2's has only the file offset.
#[test]
fn a_new_private_file_mapping_has_one_page_offset() {
    let calls = ["sys_mmap(mm#0, file#0, 0, 2, 5, false)"];
    assert_eq!(
        offsets(&run_clean(&load(BASELINE), EMPTY, &calls)),
        vec![(0, 5, 0)]
    );
    assert_eq!(
        offsets(&run_clean(&load(V7_2), EMPTY, &calls)),
        vec![(0, 5, 5)]
    );
}

/// An unfaulted private file VMA moved by mremap: v7.3's copy_vma() gives it the new address as
/// its anonymous offset, 7.2's keeps vm_pgoff (only an unfaulted anonymous VMA takes its new
/// address, as its one pgoff, in both).
#[test]
fn a_moved_unfaulted_file_vma_keeps_its_pgoff_in_7_2() {
    let file = [
        "sys_mmap(mm#0, file#0, 0, 1, 0, false)",
        "sys_mremap_move(mm#0, 0, 1, 1, 2)",
    ];
    assert_eq!(
        offsets(&run_clean(&load(BASELINE), EMPTY, &file)),
        vec![(2, 0, 2)]
    );
    assert_eq!(
        offsets(&run_clean(&load(V7_2), EMPTY, &file)),
        vec![(2, 0, 0)]
    );
    let anon = [
        "sys_mmap(mm#0, NULL, 0, 1, 0, false)",
        "sys_mremap_move(mm#0, 0, 1, 1, 2)",
    ];
    for m in [BASELINE, V7_2] {
        assert_eq!(
            offsets(&run_clean(&load(m), EMPTY, &anon)),
            vec![(2, 2, 2)],
            "{m}"
        );
    }
}

/// A faulted private file VMA moved away keeps both offsets; a mapping of the next file page
/// right after it merges in 7.2 (the file offsets follow on) and not in v7.3
/// (needs_adjacent_anon_pgoff(): the new mapping's anonymous offset is its address).
#[test]
fn a_moved_faulted_file_vma_merges_by_its_file_offset_alone_in_7_2() {
    let calls = [
        "sys_mmap(mm#0, file#0, 0, 1, 0, false)",
        "do_anonymous_fault(mm#0, 0)",
        "sys_mremap_move(mm#0, 0, 1, 1, 2)",
        "sys_mmap(mm#0, file#0, 3, 4, 1, false)",
    ];
    let w = run_clean(&load(BASELINE), EMPTY, &calls);
    assert_eq!(offsets(&w), vec![(2, 0, 0), (3, 1, 3)]);
    let w = run_clean(&load(V7_2), EMPTY, &calls);
    assert_eq!(offsets(&w), vec![(2, 0, 0)]);
    assert_eq!(layout(&w, 0), vec![(2, 4, 0)]);
}

/// MREMAP_DONTUNMAP of a whole faulted private file VMA: v7.3 resets the source's anonymous
/// offset to its start, 7.2 leaves a file VMA's pgoff (its only offset) as it was.
#[test]
fn a_dontunmap_source_file_vma_keeps_its_pgoff_in_7_2() {
    let calls = [
        "sys_mmap(mm#0, file#0, 0, 1, 4, false)",
        "do_anonymous_fault(mm#0, 0)",
        "sys_mremap_dontunmap(mm#0, 0, 1, 2)",
    ];
    assert_eq!(
        offsets(&run_clean(&load(BASELINE), EMPTY, &calls)),
        vec![(0, 4, 0), (2, 4, 0)]
    );
    assert_eq!(
        offsets(&run_clean(&load(V7_2), EMPTY, &calls)),
        vec![(0, 4, 4), (2, 4, 4)]
    );
}
