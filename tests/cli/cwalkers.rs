//! The walker kinds at the C search's checkpoints (cglue/checkpoint.c): each new kind has a C
//! mutant that only it catches. `flush-unlock-before-rekey` is caught by the flush_dcache walk,
//! at a moment i_mmap_rwsem is held (so no file or uprobe walk could run there), and holds at
//! depth 3 with `walker-complete` left out; `split-no-vma-start-write` is caught by the
//! per-VMA-lock readers' `vma-lock-stable` and holds at depth 3 without it. Each counterexample
//! names the checkpoint's kernel function and line.

use std::path::PathBuf;

use super::ccheck::check;

/// Every invariant the C search checks but `left_out`, as a scope's `invariants` list.
fn all_but(left_out: &str) -> String {
    let all = [
        "rb-shape",
        "tree-order",
        "augment",
        "membership",
        "stale-descent",
        "tree-precondition",
        "cached-keys",
        "lock-discipline",
        "vma-layout",
        "model-assert",
        "mapping-preserved",
        "rmap-complete",
        "rmap-exact",
        "walker-complete",
        "vma-lock-stable",
        "equivalent",
    ];
    let kept: Vec<String> = all
        .iter()
        .filter(|i| **i != left_out)
        .map(|i| format!("\"{i}\""))
        .collect();
    format!("[{}]", kept.join(", "))
}

/// The mutant is caught by `invariant` with a violation containing each of `says`, and holds at
/// depth 3 of the default scope without that invariant.
fn only_it_catches(mutant: &str, invariant: &str, says: &[&str]) {
    let spec = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join(format!("cmutants/{mutant}.toml"));
    let spec = spec.to_str().unwrap();
    let Some((rc, out, err)) = check(&["--c-mutant", spec, "--max-depth", "3"]) else {
        return;
    };
    assert_eq!(rc, 1, "{out}{err}");
    assert!(
        out.contains(&format!("COUNTEREXAMPLE in the C: {invariant} after call")),
        "{out}"
    );
    let violation = out
        .lines()
        .find_map(|l| l.strip_prefix("  violation: "))
        .unwrap_or_else(|| panic!("no violation line: {out}"));
    for s in says {
        assert!(violation.contains(s), "{violation}");
    }
    let dir = tempfile::tempdir().unwrap();
    let scope = dir.path().join("without.toml");
    std::fs::write(
        &scope,
        format!(
            "name = \"without-{invariant}\"\nmax_depth = 3\ninvariants = {}\n",
            all_but(invariant)
        ),
    )
    .unwrap();
    let (rc, out, err) = check(&["--c-mutant", spec, "--scope", scope.to_str().unwrap()]).unwrap();
    assert_eq!(rc, 0, "{out}{err}");
    assert!(out.contains("holds up to depth 3"), "{out}");
}

#[test]
fn the_flush_dcache_walk_alone_catches_a_flush_lock_dropped_before_the_rekey() {
    only_it_catches(
        "flush-unlock-before-rekey",
        "walker-complete",
        &[
            "walker-complete at vma_prepare (mm/vma.c:",
            "after it releases flush_dcache): the flush_dcache walk of folio file",
        ],
    );
}

#[test]
fn the_per_vma_lock_readers_alone_catch_a_split_without_vma_start_write() {
    only_it_catches(
        "split-no-vma-start-write",
        "vma-lock-stable",
        &[
            "vma-lock-stable at vms_gather_munmap_vmas (mm/vma.c:",
            "before vma_start_write()): mm0's VMA [0,2) pgoff 0 is now [0,1) pgoff 0, not write-locked",
        ],
    );
}
