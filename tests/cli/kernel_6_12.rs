//! A tree of the 6.12 LTS line (Debian's linux-source-6.12, which
//! `scripts/fetch-kernel.sh --package linux-source-6.12` unpacks), named by
//! `RMAPCHECK_KERNEL_SRC_6_12`, is refused (exit 2) by `check --kernel`, `cdiff`, `creplay`
//! and `review`, naming the tree as given (not a patched copy), the first anchor of the v7.x
//! layout it differs at with what the harness would need, every other one with where 6.12
//! keeps it, and that no model follows it (src/charness/layout.rs; docs/FIDELITY.md, "Trees
//! the harness refuses"). The supported trees (v7.3, from tests/cli/kernel_tree.rs, and
//! `RMAPCHECK_KERNEL_SRC_7_2`) differ at no anchor. Without a tree's variable its tests print
//! a SKIPPED line: CI fetches no 6.12 or 7.2 tree; there a tree of our own tiny files, laid out
//! as 6.12 is, shows the refusal.

use rmapcheck::charness::layout;
use std::ffi::OsStr;
use std::path::{Path, PathBuf};

/// The tree named by `var`, or `None` (and a SKIPPED line) without it.
fn named_tree(var: &str, what: &str) -> Option<PathBuf> {
    match std::env::var_os(var).map(PathBuf::from) {
        Some(t) if t.join("mm/vma.c").is_file() => Some(t),
        Some(t) => panic!("{var}={} is not a kernel tree (no mm/vma.c)", t.display()),
        None => {
            eprintln!("SKIPPED: no {what} kernel tree (set {var})");
            None
        }
    }
}

fn tree_6_12() -> Option<PathBuf> {
    named_tree("RMAPCHECK_KERNEL_SRC_6_12", "6.12")
}

fn run(args: &[&OsStr]) -> (i32, String, String) {
    super::cpatch::rmapcheck(args)
}

/// What the refusal of a 6.12.y tree says, each read in 6.12.118: the first anchor with its
/// role, then the nine others, each with where 6.12 keeps it when it does.
const EXPECTED: &[&str] = &[
    "tree lacks mm/vma_init.c, mm/vma_exec.c, tools/testing/vma/include that the C harness \
     builds from",
    "It differs from that layout at 10 of 10 anchors (docs/FIDELITY.md, \"Trees the harness \
     refuses\"). First: the VMA allocator in mm/vma_init.c: no mm/vma_init.c; defined in \
     kernel/fork.c instead (the harness compiles mm/vma_init.c whole",
    "\n  2. exec's stack move in mm/vma_exec.c: no mm/vma_exec.c; defined in mm/mmap.c instead\n",
    "\n  3. the userland VMA tests' include/ headers: no tools/testing/vma/include/stubs.h, \
     tools/testing/vma/include/custom.h, tools/testing/vma/include/dup.h; the tests' structs \
     and stubs (struct vm_area_struct among them) are in one header, \
     tools/testing/vma/vma_internal.h (927 lines)\n",
    "\n  4. mmap, munmap and stack growth in mm/vma.c: mm/vma.c does not define mmap_region(), \
     __vm_munmap(), expand_downwards(); defined in mm/mmap.c instead\n",
    "\n  5. the anon_vma functions of mm/rmap.c: mm/rmap.c does not define \
     check_anon_vma_clone(), maybe_reuse_anon_vma(), cleanup_partial_anon_vmas()\n",
    "\n  6. VMA flags as vma_flags_t: include/linux/mm_types.h has no `vma_flags_t`\n",
    "\n  7. the VMA's attach count vm_refcnt: include/linux/mm_types.h has no `vm_refcnt`; \
     include/linux/mm_types.h has `bool detached;` instead\n",
    "\n  8. struct pagetable_move_control in mm/internal.h: mm/internal.h has no `struct \
     pagetable_move_control {`\n",
    "\n  9. commit_merge() of a vma_merge_struct: mm/vma.c's commit_merge() takes (struct \
     vma_merge_struct *vmg, struct vm_area_struct *adjust, struct vm_area_struct *remove, \
     struct vm_area_struct *remove2, long adj_start, bool expanded)\n",
    "\n  10. remove_vma() of one VMA: mm/vma.c's remove_vma() takes (struct vm_area_struct \
     *vma, bool unreachable)\n",
    "No model follows a 6.12.",
    "A harness bridged in part would compare one of them with C it does not follow and give \
     false verdicts, so the tree is refused.",
];

/// `err` is the refusal of the tree `t` (named as given) with every expected line, and no
/// panic.
fn assert_refused(t: &Path, rc: i32, out: &str, err: &str) {
    assert_eq!(rc, 2, "{out}{err}");
    assert!(!err.contains("panicked"), "{err}");
    assert!(
        err.contains(&format!("{}: a 6.12.", t.display())),
        "the refusal names the tree as given: {err}"
    );
    for e in EXPECTED {
        assert!(err.contains(e), "missing {e:?} in:\n{err}");
    }
    assert!(!out.contains("holds"), "{out}");
}

#[test]
fn check_refuses_a_6_12_tree_naming_every_anchor_it_differs_at() {
    let Some(t) = tree_6_12() else { return };
    let (rc, out, err) = run(&["check".as_ref(), "--kernel".as_ref(), t.as_os_str()]);
    assert_refused(&t, rc, &out, &err);
    // the first anchor differing comes first, and the list is the library's, in its order
    let diffs = layout::differences(&t);
    assert_eq!(diffs.len(), layout::ANCHORS.len());
    let at: Vec<usize> = diffs
        .iter()
        .map(|d| err.find(&d.found).unwrap_or_else(|| panic!("{d:?}")))
        .collect();
    assert!(at.windows(2).all(|w| w[0] < w[1]), "{at:?}");
}

/// A unified diff that adds a comment of ours after the first line of the tree's mm/vma.c,
/// made at test time from the tree (nothing of it committed).
fn comment_patch(t: &Path, dir: &Path) -> PathBuf {
    let vma = std::fs::read_to_string(t.join("mm/vma.c")).unwrap();
    let first = vma.lines().next().unwrap();
    let p = dir.join("comment.diff");
    std::fs::write(
        &p,
        format!("--- a/mm/vma.c\n+++ b/mm/vma.c\n@@ -1 +1,2 @@\n {first}\n+/* rmapcheck test */\n"),
    )
    .unwrap();
    p
}

/// With a patch the refusal comes before the copy is patched, naming the tree as given; cdiff,
/// creplay and review refuse it the same way.
#[test]
fn a_patched_6_12_tree_cdiff_creplay_and_review_are_refused_the_same_way() {
    let Some(t) = tree_6_12() else { return };
    let d = tempfile::tempdir().unwrap();
    let p = comment_patch(&t, d.path());
    let (rc, out, err) = run(&[
        "check".as_ref(),
        "--kernel".as_ref(),
        t.as_os_str(),
        "--patch".as_ref(),
        p.as_os_str(),
    ]);
    assert_refused(&t, rc, &out, &err);
    assert!(!err.contains(".patched."), "{err}");
    let (rc, out, err) = run(&["cdiff".as_ref(), "--kernel".as_ref(), t.as_os_str()]);
    assert_refused(&t, rc, &out, &err);
    let calls =
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/cops/crowded-mm.calls");
    let (rc, out, err) = run(&[
        "creplay".as_ref(),
        "--kernel".as_ref(),
        t.as_os_str(),
        calls.as_os_str(),
    ]);
    assert_refused(&t, rc, &out, &err);
    let replies = d.path().join("replies.mbox");
    let (rc, out, err) = run(&[
        "review".as_ref(),
        p.as_os_str(),
        "--kernel".as_ref(),
        t.as_os_str(),
        "-o".as_ref(),
        replies.as_os_str(),
    ]);
    assert_refused(&t, rc, &out, &err);
    assert!(!replies.exists(), "no replies for a refused tree");
}

/// The anchors are facts of the supported trees: v7.3 and v7.2 differ at none, so the refusal
/// of an older tree never names a difference these trees share.
#[test]
fn the_supported_trees_differ_at_no_anchor() {
    let trees = [
        ("v7.3", super::kernel_tree::tree()),
        ("7.2", named_tree("RMAPCHECK_KERNEL_SRC_7_2", "7.2")),
    ];
    for (what, t) in trees {
        let Some(t) = t else { continue };
        assert_eq!(layout::differences(&t), vec![], "{what}: {}", t.display());
    }
}

/// Without any kernel tree (as in CI): a tree of our own tiny files, laid out as 6.12 is (no
/// mm/vma_init.c, mm/vma_exec.c or tests' include/; the allocator in kernel/fork.c, the mmap
/// functions in mm/mmap.c, one vma_internal.h), is refused with exit 2 by `check --kernel`,
/// naming the first anchor with where it is instead and the rest numbered.
#[test]
fn a_tree_laid_out_as_6_12_is_refused_without_a_kernel_tree() {
    let d = tempfile::tempdir().unwrap();
    let fns = |names: &[&str]| -> String {
        names
            .iter()
            .map(|n| format!("int {n}(int a)\n{{\n\treturn a;\n}}\n\n"))
            .collect()
    };
    let files: [(&str, String); 5] = [
        (
            "Makefile",
            "VERSION = 6\nPATCHLEVEL = 12\nSUBLEVEL = 0\nEXTRAVERSION =\n".into(),
        ),
        ("mm/vma.c", fns(&["vma_expand"])),
        (
            "kernel/fork.c",
            fns(&["vm_area_alloc", "vm_area_dup", "vm_area_free"]),
        ),
        (
            "mm/mmap.c",
            fns(&[
                "mmap_region",
                "__vm_munmap",
                "expand_downwards",
                "relocate_vma_down",
            ]),
        ),
        (
            "tools/testing/vma/vma_internal.h",
            "struct vm_area_struct {\n\tint a;\n};\n".into(),
        ),
    ];
    for (p, t) in &files {
        let p = d.path().join(p);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, t).unwrap();
    }
    let (rc, out, err) = run(&["check".as_ref(), "--kernel".as_ref(), d.path().as_os_str()]);
    assert_eq!(rc, 2, "{out}{err}");
    assert!(!err.contains("panicked"), "{err}");
    for e in [
        "a 6.12.0 tree lacks tools/testing/shared",
        "First: the VMA allocator in mm/vma_init.c: no mm/vma_init.c; defined in kernel/fork.c \
         instead (the harness compiles mm/vma_init.c whole",
        "\n  2. exec's stack move in mm/vma_exec.c: no mm/vma_exec.c; defined in mm/mmap.c \
         instead\n",
        "\n  3. the userland VMA tests' include/ headers: no tools/testing/vma/include/stubs.h, \
         tools/testing/vma/include/custom.h, tools/testing/vma/include/dup.h; the tests' \
         structs and stubs (struct vm_area_struct among them) are in one header, \
         tools/testing/vma/vma_internal.h (3 lines)\n",
        "\n  4. mmap, munmap and stack growth in mm/vma.c: mm/vma.c does not define \
         mmap_region(), __vm_munmap(), expand_downwards(); defined in mm/mmap.c instead\n",
        "\n  5. the anon_vma functions of mm/rmap.c: no mm/rmap.c\n",
        "No model follows a 6.12.0 tree",
    ] {
        assert!(err.contains(e), "missing {e:?} in:\n{err}");
    }
}
