//! A posted series reviewed as C: the patches are made at test time (tests/cli/series.rs) from
//! edits we wrote, against the kernel tree of tests/cli/kernel_tree.rs (without one each test
//! prints SKIPPED, or fails when `CI` is set).
//!
//! The series: a helper added to mm/interval_tree.c with its stub in the userland tests'
//! include/stubs.h (the stub gives way to the real function in the harness), a call of it after
//! i_mmap_rwsem is released (breaks `lock-discipline`), and the call moved under the lock
//! (holds). The searches run at depth 2 (859 states on the unpatched tree).

use super::bin::rmapcheck;
use super::kernel_tree::tree;
use super::series::{self, Edit, Files, Patch};
use std::path::Path;
use std::process::Command;

/// The helper, its declaration, its stub in the userland tests, a comment in kernel/fork.c (a
/// file the harness does not build) and a line of documentation (a file the unpacked tree does
/// not have: listed, never fatal).
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
        // a file the tree has but the harness does not build, in a directory the patched
        // copy links whole: applied to the copy, never to the tree
        Edit {
            file: "kernel/fork.c",
            find: "#include <linux/rmap.h>\n",
            replace: "#include <linux/rmap.h>\n/* dup_mmap() copies the rmap trees: see mm/vma.c */\n",
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
    let fork_before = std::fs::read(t.join("kernel/fork.c")).unwrap();
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
    assert!(
        out.contains("kernel/fork.c: applied (the harness does not build it)"),
        "{out}"
    );
    assert_eq!(
        std::fs::read(t.join("kernel/fork.c")).unwrap(),
        fork_before,
        "the patch reached the tree's kernel/fork.c"
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

/// The three-patch series (a helper with its stub, a call of it without the lock, the call
/// under the lock); the README check reviews it too.
pub fn the_series() -> Vec<Patch> {
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

fn write_series(t: &Path, dir: &Path, patches: &[Patch]) -> std::path::PathBuf {
    let m = dir.join("series.mbox");
    std::fs::write(
        &m,
        series::mbox(t, "Three patches made at test time.", patches),
    )
    .unwrap();
    m
}

/// `review SERIES --kernel t --max-depth 2 -o replies.mbox`: exit status, the replies (one
/// string per mail, headers and body), standard error.
fn review(t: &Path, m: &Path, dir: &Path) -> (i32, Vec<String>, String) {
    let o = dir.join("replies.mbox");
    let (rc, out, err) = rmapcheck(&[
        "review".as_ref(),
        m.as_os_str(),
        "--kernel".as_ref(),
        t.as_os_str(),
        "--max-depth".as_ref(),
        "2".as_ref(),
        "-o".as_ref(),
        o.as_os_str(),
        "--quiet".as_ref(),
    ]);
    assert!(out.contains("replies written to"), "{out}{err}");
    let text = std::fs::read_to_string(&o).unwrap();
    let mails: Vec<String> = text
        .split("From rmapcheck Thu Jan  1 00:00:00 1970\n")
        .filter(|m| !m.is_empty())
        .map(str::to_string)
        .collect();
    (rc, mails, err)
}

/// A header's value, unfolded.
fn header(mail: &str, name: &str) -> Option<String> {
    let head = mail.split("\n\n").next().unwrap().replace("\n ", " ");
    head.lines()
        .find_map(|l| l.strip_prefix(&format!("{name}: ")).map(str::to_string))
}

/// The C of the reply's reproducer block.
fn repro_of(mail: &str) -> Option<String> {
    let (_, rest) = mail.split_once("8<--- repro.c ---\n")?;
    let (code, _) = rest.split_once("8<--- end of repro.c ---\n")?;
    Some(code.to_string())
}

#[test]
fn a_series_is_reviewed_patch_by_patch_with_threaded_replies() {
    let Some(t) = tree() else { return };
    let d = tempfile::tempdir().unwrap();
    let m = write_series(&t, d.path(), &the_series());
    let (rc, mails, err) = review(&t, &m, d.path());
    assert_eq!(rc, 1, "{err}");
    assert!(err.contains("patch v2 1/3: holds"), "{err}");
    assert!(
        err.contains("patch v2 2/3: COUNTEREXAMPLE (lock-discipline)"),
        "{err}"
    );
    assert!(err.contains("patch v2 3/3: holds"), "{err}");
    assert_eq!(mails.len(), 4, "{mails:?}");
    for (k, mail) in mails.iter().enumerate() {
        for l in mail.lines() {
            assert!(l.chars().count() <= 80, "reply {k}: {l:?}");
        }
        let id = series::message_id(k);
        assert_eq!(header(mail, "In-Reply-To"), Some(id.clone()), "{mail}");
        let refs = header(mail, "References").unwrap();
        assert!(
            refs.contains(&series::message_id(0)) && refs.ends_with(&id),
            "{mail}"
        );
        assert!(
            header(mail, "Subject")
                .unwrap()
                .starts_with(&format!("Re: [PATCH v2 {k}/3]")),
            "{mail}"
        );
        assert!(mail.contains("\n-- \nrmapcheck "), "{mail}");
        assert!(mail.contains("not by a person"), "{mail}");
    }
    // the cover letter's summary: one line per patch
    assert!(
        mails[0].contains("v2 1/3   holds: [PATCH v2 1/3]"),
        "{}",
        mails[0]
    );
    assert!(
        mails[0].contains("v2 2/3   COUNTEREXAMPLE (lock-discipline)"),
        "{}",
        mails[0]
    );
    assert!(mails[0].contains("v2 3/3   holds"), "{}", mails[0]);
    // patch 1: the stub gave way, the documentation was left out, and it holds
    let one = &mails[1];
    assert!(one.contains("stubs.h: mapping_rmap_tree_fix_last"), "{one}");
    assert!(
        one.contains("Documentation/mm/rmap-notes.rst: not in this tree"),
        "{one}"
    );
    assert!(one.contains("\nVerdict: holds\n"), "{one}");
    assert!(one.contains("Nothing found."), "{one}");
    assert!(repro_of(one).is_none(), "{one}");
    // patch 2: the counterexample, its invariant, the calls, the commands and a reproducer
    let two = &mails[2];
    assert!(
        two.contains("\nVerdict: COUNTEREXAMPLE (lock-discipline)\n"),
        "{two}"
    );
    assert!(two.contains("Broken:  lock-discipline"), "{two}");
    assert!(two.contains("without i_mmap_rwsem held for write"), "{two}");
    assert!(two.contains("  1. "), "{two}");
    assert!(two.contains("$ rmapcheck review "), "{two}");
    assert!(two.contains("--patch 1.patch --patch 2.patch"), "{two}");
    assert!(
        two.contains("$ rmapcheck repro cex.json -o repro.c"),
        "{two}"
    );
    let c = repro_of(two).unwrap_or_else(|| panic!("no reproducer: {two}"));
    let src = d.path().join("repro.c");
    std::fs::write(&src, &c).unwrap();
    let cc = Command::new("cc")
        .arg("-o")
        .arg(d.path().join("repro"))
        .arg(&src)
        .output()
        .unwrap();
    assert!(
        cc.status.success(),
        "{}\n{c}",
        String::from_utf8_lossy(&cc.stderr)
    );
    // patch 3: the fix holds, and its result says that the changed lines ran (the C check
    // is `check --kernel`'s, with coverage of the change)
    assert!(mails[3].contains("\nVerdict: holds\n"), "{}", mails[3]);
    let flat = |m: &str| m.split_whitespace().collect::<Vec<_>>().join(" ");
    assert!(
        flat(&mails[3]).contains("changed lines run: "),
        "{}",
        mails[3]
    );
    assert!(flat(one).contains("changed lines run: "), "{one}");
}

#[test]
fn a_patch_that_does_not_apply_stops_the_series() {
    let Some(t) = tree() else { return };
    let d = tempfile::tempdir().unwrap();
    let mut s = the_series();
    // the third patch, made against the tree as the first leaves it
    s[2].edits = unlocked_call();
    s[1].raw = Some(
        "diff --git a/mm/vma.c b/mm/vma.c\n--- a/mm/vma.c\n+++ b/mm/vma.c\n\
@@ -414,3 +414,3 @@\n \tif (vp->file) {\n-\t\ta line this tree does not have();\n\
+\t\ta line of ours();\n \n"
            .into(),
    );
    let m = write_series(&t, d.path(), &s);
    let (rc, mails, err) = review(&t, &m, d.path());
    assert_eq!(rc, 2, "{err}");
    assert!(err.contains("patch v2 1/3: holds"), "{err}");
    assert!(err.contains("patch v2 2/3: does not apply"), "{err}");
    assert!(
        err.contains("patch v2 3/3: not checked (patch 2 stopped the series)"),
        "{err}"
    );
    assert_eq!(mails.len(), 4);
    let two = &mails[2];
    assert!(two.contains("hunk #1 of mm/vma.c does not apply"), "{two}");
    assert!(two.contains("2.patch:4:1:"), "{two}");
    assert!(two.contains("\nVerdict: does not apply\n"), "{two}");
    assert!(
        mails[3].contains("\nVerdict: not checked (patch 2 stopped the series)\n"),
        "{}",
        mails[3]
    );
    for mail in &mails {
        for l in mail.lines() {
            assert!(l.chars().count() <= 80, "{l:?}");
        }
    }
}

/// A patch whose harness builds but whose search can make no call (a scope of an entry point
/// the harness cannot make): no verdict, said as such (not as a failed build), exit 2.
#[test]
fn a_check_that_cannot_run_is_no_verdict() {
    let Some(t) = tree() else { return };
    let d = tempfile::tempdir().unwrap();
    let diff = Files::new(&t).diff(&[Edit {
        file: "mm/vma.c",
        find: "#include \"vma_internal.h\"\n",
        replace: "#include \"vma_internal.h\"\n/* a comment of ours */\n",
    }]);
    let p = d.path().join("one.diff");
    std::fs::write(&p, diff).unwrap();
    let scope = d.path().join("upward.toml");
    std::fs::write(
        &scope,
        "name = \"upward\"\nentries = [\"setup_stack_growsup\"]\nmax_depth = 2\n",
    )
    .unwrap();
    let (rc, out, err) = rmapcheck(&[
        "review".as_ref(),
        p.as_os_str(),
        "--kernel".as_ref(),
        t.as_os_str(),
        "--scope".as_ref(),
        scope.as_os_str(),
        "--quiet".as_ref(),
    ]);
    assert_eq!(rc, 2, "{out}{err}");
    assert!(
        err.contains("patch 1/1: no verdict (the C check could not run)"),
        "{err}"
    );
    assert!(out.contains("the search made no call on the C"), "{out}");
    assert!(!out.contains("could not be built"), "{out}");
}
