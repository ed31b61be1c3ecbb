//! A posted series reviewed as C: the patches are made at test time (tests/cli/series.rs) from
//! edits we wrote, against the kernel tree of tests/cli/kernel_tree.rs (without one each test
//! prints SKIPPED, or fails when `CI` is set).
//!
//! The series: a helper added to mm/interval_tree.c with its stub in the userland tests'
//! include/stubs.h (the stub gives way to the real function in the harness), a call of it after
//! i_mmap_rwsem is released (breaks `lock-discipline`), and the call moved under the lock
//! (holds). The searches run at depth 2 (859 states on the unpatched tree).

use super::kernel_tree::tree;
use super::series::{self, Edit, Files, Patch};
use std::path::Path;
use std::process::Command;

fn rmapcheck(args: &[&std::ffi::OsStr]) -> (i32, String, String) {
    let o = Command::new(env!("CARGO_BIN_EXE_rmapcheck"))
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .args(args)
        .output()
        .unwrap();
    (
        o.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&o.stdout).into_owned(),
        String::from_utf8_lossy(&o.stderr).into_owned(),
    )
}

/// The helper, its declaration, its stub in the userland tests, and a line of documentation
/// (a file the unpacked tree does not have: listed, never fatal).
fn helper_edits() -> Vec<Edit> {
    vec![
        Edit {
            file: "mm/interval_tree.c",
            find: "\t__mapping_rmap_tree_remove(vma, &mapping->i_mmap);\n}\n",
            replace: "\t__mapping_rmap_tree_remove(vma, &mapping->i_mmap);\n}\n\n\
/*\n * Bring rb_subtree_last up to date from @vma's node to the root, for a\n \
* caller that shrank @vma's last pgoff and left its start pgoff alone.\n */\n\
void mapping_rmap_tree_fix_last(struct vm_area_struct *vma,\n\
\t\t\t\tstruct address_space *mapping)\n{\n\
\t__mapping_rmap_tree_augment.propagate(&vma->shared.rb, NULL);\n}\n",
        },
        Edit {
            file: "include/linux/mm.h",
            find: "void mapping_rmap_tree_remove(struct vm_area_struct *vma,\n\t\t\t      struct address_space *mapping);\n",
            replace: "void mapping_rmap_tree_remove(struct vm_area_struct *vma,\n\t\t\t      struct address_space *mapping);\n\
void mapping_rmap_tree_fix_last(struct vm_area_struct *vma,\n\t\t\t\tstruct address_space *mapping);\n",
        },
        Edit {
            file: "tools/testing/vma/include/stubs.h",
            find: "static inline void uprobe_mmap(struct vm_area_struct *vma)\n{\n}\n",
            replace: "static inline void mapping_rmap_tree_fix_last(struct vm_area_struct *vma,\n\
\t\t\t\t\t      struct address_space *mapping)\n{\n}\n\n\
static inline void uprobe_mmap(struct vm_area_struct *vma)\n{\n}\n",
        },
        Edit {
            file: "Documentation/mm/rmap-notes.rst",
            find: "",
            replace: "mapping_rmap_tree_fix_last() refreshes rb_subtree_last in place.\n",
        },
    ]
}

const UNLOCKED: &str = "\tif (vp->file) {\n\t\ti_mmap_unlock_write(vp->mapping);\n\
\t\tmapping_rmap_tree_fix_last(vp->vma, vp->mapping);\n";

/// The helper called in vma_complete() just after i_mmap_rwsem is released.
fn unlocked_call() -> Vec<Edit> {
    vec![Edit {
        file: "mm/vma.c",
        find: "\tif (vp->file) {\n\t\ti_mmap_unlock_write(vp->mapping);\n",
        replace: UNLOCKED,
    }]
}

/// The call moved before the release.
#[allow(dead_code)]
fn locked_call() -> Vec<Edit> {
    vec![Edit {
        file: "mm/vma.c",
        find: UNLOCKED,
        replace: "\tif (vp->file) {\n\t\tmapping_rmap_tree_fix_last(vp->vma, vp->mapping);\n\
\t\ti_mmap_unlock_write(vp->mapping);\n",
    }]
}

#[test]
fn a_patch_with_a_stub_for_its_helper_is_checked_with_the_real_helper() {
    let Some(t) = tree() else { return };
    let d = tempfile::tempdir().unwrap();
    let p = d.path().join("helper.diff");
    std::fs::write(&p, Files::new(&t).diff(&helper_edits())).unwrap();
    let (rc, out, err) = rmapcheck(&[
        "check".as_ref(),
        "--kernel".as_ref(),
        t.as_os_str(),
        "--patch".as_ref(),
        p.as_os_str(),
        "--max-depth".as_ref(),
        "2".as_ref(),
        "--quiet".as_ref(),
    ]);
    assert_eq!(rc, 0, "{out}{err}");
    assert!(
        out.contains(
            "stub superseded by the tree's real function: \
             tools/testing/vma/include/stubs.h: mapping_rmap_tree_fix_last"
        ),
        "{out}"
    );
    assert!(
        out.contains("Documentation/mm/rmap-notes.rst: not in this tree, left out"),
        "{out}"
    );
    assert!(out.contains("holds up to depth 2"), "{out}");
}

/// The patch that calls the helper unlocked, alone on the tree: its helper wrapper is the
/// real one (the stub would take no lock check), so `lock-discipline` fires.
#[test]
fn the_real_helper_not_the_stub_runs_in_the_harness() {
    let Some(t) = tree() else { return };
    let d = tempfile::tempdir().unwrap();
    let mut f = Files::new(&t);
    let mut text = f.diff(&helper_edits());
    text.push_str(&f.diff(&unlocked_call()));
    let p = d.path().join("unlocked.diff");
    std::fs::write(&p, text).unwrap();
    let (rc, out, err) = rmapcheck(&[
        "check".as_ref(),
        "--kernel".as_ref(),
        t.as_os_str(),
        "--patch".as_ref(),
        p.as_os_str(),
        "--max-depth".as_ref(),
        "2".as_ref(),
        "--quiet".as_ref(),
    ]);
    assert_eq!(rc, 1, "{out}{err}");
    assert!(out.contains("lock-discipline"), "{out}");
    assert!(
        out.contains("mapping_rmap_tree_fix_last without i_mmap_rwsem held for write"),
        "{out}"
    );
}

#[allow(dead_code)]
fn the_series() -> Vec<Patch> {
    vec![
        Patch {
            subject: "mm/interval_tree: add mapping_rmap_tree_fix_last()",
            body: "A helper that refreshes rb_subtree_last in place.",
            edits: helper_edits(),
            raw: None,
        },
        Patch {
            subject: "mm/vma: refresh the file tree's last pgoff in vma_complete()",
            body: "Call the helper once the VMA is back in the tree.",
            edits: unlocked_call(),
            raw: None,
        },
        Patch {
            subject: "mm/vma: refresh the file tree under i_mmap_rwsem",
            body: "The helper changes the tree: call it before the unlock.",
            edits: locked_call(),
            raw: None,
        },
    ]
}

#[allow(dead_code)]
fn write_series(t: &Path, dir: &Path, patches: &[Patch]) -> std::path::PathBuf {
    let m = dir.join("series.mbox");
    std::fs::write(
        &m,
        series::mbox(t, "Three patches made at test time.", patches),
    )
    .unwrap();
    m
}
