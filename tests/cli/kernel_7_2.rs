//! `rmapcheck check --kernel` on a v7.2 tree (Debian's linux-source-7.2, which
//! `scripts/fetch-kernel.sh --package linux-source-7.2` unpacks), named by
//! `RMAPCHECK_KERNEL_SRC_7_2`: the C harness builds from it through the generation table
//! (src/charness/generation.rs), the tree's own model (models/v7.2/v7.2.rmap, one page offset)
//! is compared with its C by default and holds in every pass, the v7.3 model, named, stops at
//! the one-page-offset version difference and says so, and C mutants are caught through the
//! routed tree operations (7.2's names, taking the tree's root); `cdiff` on it agrees with the
//! v7.2 model and names the difference against the v7.3 one. Without the variable each test
//! prints a SKIPPED line: CI does not fetch a 7.2 tree.

use std::ffi::OsStr;
use std::path::{Path, PathBuf};

/// The 7.2 tree, or `None` (and a SKIPPED line) without `RMAPCHECK_KERNEL_SRC_7_2`.
fn tree_7_2() -> Option<PathBuf> {
    match std::env::var_os("RMAPCHECK_KERNEL_SRC_7_2").map(PathBuf::from) {
        Some(t) if t.join("mm/vma.c").is_file() => Some(t),
        Some(t) => panic!(
            "RMAPCHECK_KERNEL_SRC_7_2={} is not a kernel tree (no mm/vma.c)",
            t.display()
        ),
        None => {
            eprintln!(
                "SKIPPED: no 7.2 kernel tree (set RMAPCHECK_KERNEL_SRC_7_2 to the path \
                 scripts/fetch-kernel.sh --package linux-source-7.2 prints)"
            );
            None
        }
    }
}

/// `check --kernel TREE ARGS` in the crate's directory.
fn check(tree: &Path, args: &[&str]) -> (i32, String, String) {
    let mut all: Vec<&OsStr> = vec!["check".as_ref(), "--kernel".as_ref(), tree.as_os_str()];
    all.push("--quiet".as_ref());
    all.extend(args.iter().map(OsStr::new));
    super::cpatch::rmapcheck(&all)
}

const V7_2_MODEL: &str = "models/v7.2/v7.2.rmap";
const V7_3_MODEL: &str = "models/v7.3-rc4/baseline.rmap";

#[test]
fn a_7_2_tree_builds_and_holds_at_depth_one() {
    let Some(t) = tree_7_2() else { return };
    let (rc, out, err) = check(&t, &["--scope", "default", "--max-depth", "1"]);
    assert_eq!(rc, 0, "{out}{err}");
    assert!(out.contains("(7.2."), "{out}");
    assert!(
        out.contains(&format!(
            "; model {V7_2_MODEL} (the default for a v7.2 tree, read in 7.2.13)"
        )),
        "{out}"
    );
    assert!(out.contains("holds up to depth 1"), "{out}");
}

/// Every pass of plain `check --kernel` holds on the unpatched 7.2 tree with its own model.
/// At the passes' own depths the run takes 3 min 27 s on the loaded 2-core machine (callers
/// 216,557 states, extended 20,312, contract 626,142; docs/CHECK-C.md), so the test runs every
/// pass at depth 3 (about 40 s).
#[test]
fn every_pass_on_a_7_2_tree_holds_with_the_7_2_model() {
    let Some(t) = tree_7_2() else { return };
    let (rc, out, err) = check(&t, &["--max-depth", "3"]);
    assert_eq!(rc, 0, "{out}{err}");
    for pass in ["callers", "extended", "contract"] {
        assert!(
            out.contains(&format!("[{pass}]: holds up to depth 3;")),
            "{pass}: {out}"
        );
    }
    assert!(!out.contains("DIVERGENCE"), "{out}");
    assert!(!out.contains("VERSION DIFFERENCE"), "{out}");
}

/// The v7.3 model, named, on a 7.2 tree: an unfaulted private file mapping moved by mremap
/// gets its new address as its anonymous page offset in v7.3's copy_vma(), while 7.2's keeps
/// vm_pgoff, which is its anon key. The search stops there (exit 4), names the version
/// difference and the tree's own model, and runs no later pass.
#[test]
fn the_v7_3_model_on_a_7_2_tree_stops_at_the_one_page_offset_difference() {
    let Some(t) = tree_7_2() else { return };
    let (rc, out, err) = check(&t, &[V7_3_MODEL, "--max-depth", "2"]);
    assert_eq!(rc, 4, "{out}{err}");
    assert!(
        out.contains(&format!(
            "; model {V7_3_MODEL} (named; the v7.2 tree's model is {V7_2_MODEL})"
        )),
        "{out}"
    );
    assert!(
        out.contains("[callers]: DIVERGES: the model diverges from the kernel's C after call 2"),
        "{out}"
    );
    assert!(out.contains("sys_mremap_move(mm#0,"), "{out}");
    assert!(
        out.contains("VERSION DIFFERENCE `one-page-offset`: this is a v7.2 tree"),
        "{out}"
    );
    assert!(out.contains("differs only in `anon_pgoff`"), "{out}");
    assert!(
        out.contains(&format!(
            "the model of this tree's generation is {V7_2_MODEL}"
        )),
        "{out}"
    );
    assert!(out.contains("[extended]: not run"), "{out}");
    assert!(!out.contains("COUNTEREXAMPLE"), "{out}");
}

/// A C mutant of cmutants/ written again in 7.2's names of the tree operations (generated
/// here, no kernel text committed): `(v7.3 spelling, 7.2 spelling)` swapped in its anchors.
fn in_7_2_names(spec: &str, dir: &Path) -> PathBuf {
    const NAMES: &[(&str, &str)] = &[
        (
            "mapping_rmap_tree_remove(vp->vma, vp->mapping)",
            "vma_interval_tree_remove(vp->vma, &vp->mapping->i_mmap)",
        ),
        ("mapping_rmap_tree_insert(", "vma_interval_tree_insert("),
    ];
    let src = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("cmutants")
        .join(spec);
    let mut text = std::fs::read_to_string(&src).unwrap();
    for (new, old) in NAMES {
        text = text.replace(new, old);
    }
    let out = dir.join(spec);
    std::fs::write(&out, text).unwrap();
    out
}

/// The glue's wrappers check 7.2's tree operations as they check v7.3's: a lock released
/// before the re-inserts is `lock-discipline`, a second remove of one VMA `tree-precondition`
/// (the owner the routes recover from the tree's root is the right one).
#[test]
fn c_mutants_in_7_2_names_are_caught_through_the_routed_tree_operations() {
    let Some(t) = tree_7_2() else { return };
    let d = tempfile::tempdir().unwrap();
    for (spec, caught_by) in [
        ("i-mmap-unlock-early.toml", "lock-discipline"),
        ("remove-vma-twice.toml", "tree-precondition"),
    ] {
        let s = in_7_2_names(spec, d.path());
        let (rc, out, err) = check(
            &t,
            &[
                "--c-mutant",
                s.to_str().unwrap(),
                "--scope",
                "default",
                "--max-depth",
                "2",
            ],
        );
        assert_eq!(rc, 1, "{spec}: {out}{err}");
        assert!(
            out.contains(&format!("COUNTEREXAMPLE in the C: {caught_by} after call")),
            "{spec}: {out}"
        );
    }
}

/// `cdiff --kernel TREE ARGS` in the crate's directory.
fn cdiff(tree: &Path, args: &[&str]) -> (i32, String, String) {
    let mut all: Vec<&OsStr> = vec!["cdiff".as_ref(), "--kernel".as_ref(), tree.as_os_str()];
    all.push("--quiet".as_ref());
    all.extend(args.iter().map(OsStr::new));
    super::cpatch::rmapcheck(&all)
}

/// `cdiff --kernel` on a 7.2 tree compares its own model by default and agrees at depth 3 of
/// the default scope and of the contract scope.
#[test]
fn cdiff_on_a_7_2_tree_agrees_with_the_7_2_model() {
    let Some(t) = tree_7_2() else { return };
    for scope in ["default", "contract"] {
        let (rc, out, err) = cdiff(&t, &["--scope", scope, "--max-depth", "3"]);
        assert_eq!(rc, 0, "{scope}: {out}{err}");
        assert!(
            out.contains(&format!(
                "against model {V7_2_MODEL} (the default for a v7.2 tree, read in 7.2.13)"
            )),
            "{out}"
        );
        assert!(
            out.contains(
                "AGREES: the C's worlds are the model's after every call of every sequence"
            ),
            "{scope}: {out}"
        );
    }
}

/// The v7.2 model is not the v7.3 one: a faulted private file mapping moved away, then the
/// next file page mapped right after it. 7.2 merges the two (vm_pgoff follows on), v7.3 does
/// not (the new mapping's anonymous page offset is its address, not the moved VMA's plus one):
/// the 7.2 tree's C agrees with the v7.2 model and not with the v7.3 one.
#[test]
fn a_7_2_merge_by_the_file_offset_alone_agrees_only_with_the_7_2_model() {
    let Some(t) = tree_7_2() else { return };
    let seq = "sys_mmap(mm#0, file#0, 0, 1, 0, false); do_anonymous_fault(mm#0, 0); \
               sys_mremap_move(mm#0, 0, 1, 1, 2); sys_mmap(mm#0, file#0, 3, 4, 1, false)";
    let (rc, out, err) = cdiff(&t, &["--sequence", seq]);
    assert_eq!(rc, 0, "{out}{err}");
    assert!(out.contains("AGREES"), "{out}");
    let (rc, out, err) = cdiff(&t, &[V7_3_MODEL, "--sequence", seq]);
    assert_eq!(rc, 1, "{out}{err}");
    assert!(!out.contains("AGREES"), "{out}");
}

/// `cdiff --kernel` with the v7.3 model named: at depth 2 every sequence that differs differs
/// first in the anonymous page offset alone, and cdiff says so.
#[test]
fn cdiff_of_the_v7_3_model_on_a_7_2_tree_differs_only_by_the_one_page_offset_at_depth_two() {
    let Some(t) = tree_7_2() else { return };
    let (rc, out, _) = cdiff(&t, &[V7_3_MODEL, "--max-depth", "2", "--show", "0"]);
    assert_eq!(rc, 1, "{out}");
    let n = out
        .split("MISMATCHES: ")
        .nth(1)
        .and_then(|r| r.split_whitespace().next())
        .unwrap_or_else(|| panic!("{out}"));
    assert_ne!(n, "0", "{out}");
    assert!(
        out.contains(&format!(
            "  {n} of them first differ in `anon_pgoff` alone: the version difference \
             `one-page-offset` of this v7.2 tree"
        )),
        "{out}"
    );
}

/// `review` on a 7.2 tree compares its C with the 7.2 model unless told otherwise, as
/// `check --kernel` does (a one-line comment patch, made at test time).
#[test]
fn review_of_a_patch_to_a_7_2_tree_uses_the_7_2_model() {
    let Some(t) = tree_7_2() else { return };
    let d = tempfile::tempdir().unwrap();
    let diff = super::series::Files::new(&t).diff(&[super::series::Edit {
        file: "mm/vma.c",
        find: "#include \"vma_internal.h\"\n",
        replace: "#include \"vma_internal.h\"\n/* a comment of ours */\n",
    }]);
    let p = d.path().join("one.diff");
    std::fs::write(&p, diff).unwrap();
    let (rc, out, err) = super::bin::rmapcheck(&[
        "review".as_ref(),
        p.as_os_str(),
        "--kernel".as_ref(),
        t.as_os_str(),
        "--scope".as_ref(),
        "default".as_ref(),
        "--max-depth".as_ref(),
        "2".as_ref(),
        "--quiet".as_ref(),
    ]);
    assert_eq!(rc, 0, "{out}{err}");
    assert!(err.contains("patch 1/1: holds"), "{err}");
    let flat = out.split_whitespace().collect::<Vec<_>>().join(" ");
    assert!(
        flat.contains(&format!("model {V7_2_MODEL} chooses the calls")),
        "{out}"
    );
}
