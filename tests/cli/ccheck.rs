//! `rmapcheck check --kernel`: the unpatched tree's C holds at depth 3 of the default scope;
//! every C mutant of cmutants/ gives a counterexample at the default scope with the
//! invariant its spec names; the glue's tree checks name what they saw (`tree-precondition`,
//! `stale-descent`); a diff that does not apply is exit 2 naming the hunk, and the
//! tree is not written; a counterexample as an HTML page, and `repro` on its JSON (a C program
//! making the same calls, compiled with cc and run when there is one; a call with no system
//! call is bad input).
//!
//! The tree comes from `RMAPCHECK_KERNEL_SRC`, else from the cache of scripts/fetch-kernel.sh
//! (`$RMAPCHECK_KERNEL_CACHE` or `$HOME/.cache/rmapcheck/kernel`, file `current`). Without
//! one, each test fails when `CI` is set and otherwise prints a SKIPPED line.

use std::path::PathBuf;
use std::process::Command;

use super::kernel_tree::tree;

/// `check --kernel TREE --quiet ARGS` in the crate's directory; `None` without a tree.
pub(super) fn check(args: &[&str]) -> Option<(i32, String, String)> {
    let t = tree()?;
    let o = Command::new(env!("CARGO_BIN_EXE_rmapcheck"))
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .arg("check")
        .arg("--kernel")
        .arg(&t)
        .arg("--quiet")
        .args(args)
        .output()
        .unwrap();
    Some((
        o.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&o.stdout).into_owned(),
        String::from_utf8_lossy(&o.stderr).into_owned(),
    ))
}

#[test]
fn the_unpatched_tree_holds_at_depth_three() {
    let Some((rc, out, err)) = check(&["--max-depth", "3"]) else {
        return;
    };
    assert_eq!(rc, 0, "{out}{err}");
    assert!(out.contains("holds up to depth 3"), "{out}");
    assert!(out.contains("checked on the C: rb-shape"), "{out}");
    assert!(
        out.contains(
            "rmap-exact, walker-complete, vma-lock-stable, equivalent; walker checkpoints: every walker kind"
        ),
        "{out}"
    );
    assert!(out.contains("not checked: deadlock, lock-order"), "{out}");
}

#[test]
fn every_c_mutant_is_caught_at_the_default_scope() {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("cmutants");
    let mut specs: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "toml"))
        .collect();
    specs.sort();
    assert!(specs.len() >= 4, "{specs:?}");
    // the default scope alone (a scope names one pass; the whole plan's stop at a
    // counterexample is cplan.rs's), with the consequence search bounded to 15 s a class
    // instead of 30: a mutant's `caught_by` is the first or the worst class it is found by
    // (split-pgoff-off-by-one's first is `equivalent`, its worst `mapping-preserved`)
    let d = tempfile::tempdir().unwrap();
    let scope = d.path().join("default-mutants.toml");
    std::fs::write(
        &scope,
        "name = \"default-mutants\"\nmax_depth = 4\nconsequence_seconds = 15\n",
    )
    .unwrap();
    for s in specs {
        let text = std::fs::read_to_string(&s).unwrap();
        let caught_by = text
            .lines()
            .find_map(|l| l.strip_prefix("caught_by = "))
            .unwrap()
            .trim_matches('"')
            .to_string();
        let Some((rc, out, err)) = check(&[
            "--c-mutant",
            s.to_str().unwrap(),
            "--scope",
            scope.to_str().unwrap(),
        ]) else {
            return;
        };
        assert_eq!(rc, 1, "{}: {out}{err}", s.display());
        assert!(
            out.contains(&format!("COUNTEREXAMPLE in the C: {caught_by} after call")),
            "{}: {out}",
            s.display()
        );
        assert!(out.contains("the C world after the failing call"), "{out}");
        assert!(out.contains("  model: "), "{out}");
    }
}

#[test]
fn a_diff_that_does_not_apply_names_the_hunk_and_leaves_the_tree_alone() {
    let Some(t) = tree() else { return };
    let before = std::fs::read(t.join("mm/vma.c")).unwrap();
    let d = tempfile::tempdir().unwrap();
    let p = d.path().join("bad.diff");
    std::fs::write(
        &p,
        "--- a/mm/vma.c\n+++ b/mm/vma.c\n@@ -1,3 +1,3 @@\n no such line one\n-no such line two\n+replacement\n no such line three\n",
    )
    .unwrap();
    let (rc, out, err) = check(&["--patch", p.to_str().unwrap()]).unwrap();
    assert_eq!(rc, 2, "{out}{err}");
    assert!(
        err.contains("bad.diff:3:1: hunk #1 of mm/vma.c does not apply"),
        "{err}"
    );
    assert_eq!(std::fs::read(t.join("mm/vma.c")).unwrap(), before);
}

#[test]
fn a_mutant_whose_anchor_is_gone_is_bad_input() {
    let d = tempfile::tempdir().unwrap();
    let p = d.path().join("gone.toml");
    std::fs::write(
        &p,
        "summary = \"s\"\nmodel_mutant = \"m\"\ncaught_by = \"augment\"\n\n[[edit]]\nfile = \"mm/vma.c\"\nfind = \"no such text in vma.c\"\nreplace = \"\"\n",
    )
    .unwrap();
    let Some((rc, out, err)) = check(&["--c-mutant", p.to_str().unwrap()]) else {
        return;
    };
    assert_eq!(rc, 2, "{out}{err}");
    assert!(
        err.contains("gone.toml:5:1: the anchor of edit 1 is not in the tree's mm/vma.c"),
        "{err}"
    );
}

/// The counterexample of a C mutant, as `--format json` gives it.
fn mutant_json(name: &str) -> Option<(i32, serde_json::Value)> {
    let spec = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join(format!("cmutants/{name}.toml"));
    let (rc, out, err) = check(&["--c-mutant", spec.to_str().unwrap(), "--format", "json"])?;
    let doc: serde_json::Value =
        serde_json::from_str(&out).unwrap_or_else(|e| panic!("{e}: {out}{err}"));
    Some((rc, doc["counterexample"].clone()))
}

#[test]
fn the_glue_checks_preconditions_and_replays_descents() {
    let Some((rc, cx)) = mutant_json("remove-vma-twice") else {
        return;
    };
    assert_eq!(rc, 1, "{cx}");
    assert_eq!(cx["invariant"], "tree-precondition", "{cx}");
    let what = cx["what"].as_str().unwrap();
    assert!(
        what.contains("mapping_rmap_tree_remove: the node (start 0) is not in the tree"),
        "{what}"
    );
    // the split re-keyed before vma_prepare(): a walker checkpoint sees it before any insert
    // descends past it (stale-descent saw it at the same depth before the checkpoints)
    let (rc, cx) = mutant_json("split-rekey-before-prepare").unwrap();
    assert_eq!(rc, 1, "{cx}");
    assert_eq!(cx["invariant"], "walker-complete", "{cx}");
    let what = cx["what"].as_str().unwrap();
    assert!(
        what.contains("walker-complete at vma_prepare (mm/vma.c:"),
        "{what}"
    );
}

const UNLOCK_EARLY: &str = "cmutants/i-mmap-unlock-early.toml";

#[test]
fn a_c_counterexample_as_html_has_the_calls_the_violation_and_both_worlds() {
    let Some((rc, out, err)) = check(&["--c-mutant", UNLOCK_EARLY, "--format", "html"]) else {
        return;
    };
    assert_eq!(rc, 1, "{err}");
    assert!(out.starts_with("<!DOCTYPE html>"), "{out}");
    assert!(out.trim_end().ends_with("</html>"), "{out}");
    assert!(
        out.contains("COUNTEREXAMPLE in the C: lock-discipline"),
        "{out}"
    );
    assert!(out.contains("<code>sys_mmap(mm#0, file#0, "), "{out}");
    assert!(out.contains("mmap_region()"), "{out}");
    assert!(out.contains("i_mmap_rwsem"), "{out}");
    assert!(out.contains("the model&#39;s own checks"), "{out}");
    assert!(out.contains("checked on the C: rb-shape"), "{out}");
    // the worlds' arrows and any text from the run are escaped: no stray markup
    let body = &out[out.find("<body>").unwrap()..];
    for tag in body.split('<').skip(1) {
        let name: String = tag
            .trim_start_matches('/')
            .chars()
            .take_while(|c| c.is_ascii_alphanumeric())
            .collect();
        assert!(
            [
                "body",
                "html",
                "h1",
                "h2",
                "h3",
                "pre",
                "ul",
                "li",
                "p",
                "ol",
                "code",
                "br",
                "div",
                "figure",
                "figcaption"
            ]
            .contains(&name.as_str()),
            "unexpected tag <{tag:.40}"
        );
    }
    // the head lines went to standard error as with json
    assert!(err.contains("COUNTEREXAMPLE: lock-discipline"), "{err}");
}

fn have_cc() -> bool {
    Command::new("cc")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success())
}

fn repro(file: &std::path::Path) -> (i32, String, String) {
    super::cpatch::rmapcheck(&["repro".as_ref(), file.as_os_str()])
}

#[test]
fn repro_of_a_c_counterexample_makes_its_calls_and_refuses_a_call_with_no_syscall() {
    let Some((rc, json, err)) = check(&["--c-mutant", UNLOCK_EARLY, "--format", "json"]) else {
        return;
    };
    assert_eq!(rc, 1, "{err}");
    let v: serde_json::Value = serde_json::from_str(&json).unwrap();
    let calls: Vec<String> = v["counterexample"]["calls"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["call"].as_str().unwrap().to_string())
        .collect();
    assert!(!calls.is_empty(), "{json}");
    let d = tempfile::tempdir().unwrap();
    let cex = d.path().join("cex.json");
    std::fs::write(&cex, &json).unwrap();
    let (rc, c, err) = repro(&cex);
    assert_eq!(rc, 0, "{err}");
    assert!(c.contains("counterexample of the C"), "{c}");
    assert!(c.contains("c-mutant i-mmap-unlock-early applied"), "{c}");
    assert!(c.contains("`lock-discipline`"), "{c}");
    for (i, call) in calls.iter().enumerate() {
        assert!(
            c.contains(&format!("/* trace step {}: model call {call} */", i + 1)),
            "{call}: {c}"
        );
    }
    assert_eq!(c.matches("do_mmap(").count() - 1, calls.len(), "{c}");
    if have_cc() {
        let src = d.path().join("repro.c");
        std::fs::write(&src, &c).unwrap();
        let o = Command::new("cc")
            .args(["-O2", "-Wall", "-Werror", "-o"])
            .arg(d.path().join("repro"))
            .arg(&src)
            .output()
            .unwrap();
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        // on this (unmutated) kernel every call succeeds and the layout is the model's
        let o = Command::new(d.path().join("repro")).output().unwrap();
        let (out, err) = (
            String::from_utf8_lossy(&o.stdout),
            String::from_utf8_lossy(&o.stderr),
        );
        if err.contains("MAP_FIXED_NOREPLACE") || err.contains("mmap: File exists") {
            eprintln!("SKIPPED running it: the kernel refuses the base address: {err}");
        } else {
            assert_eq!(o.status.code(), Some(0), "{out}{err}");
            assert!(
                out.contains("OK: every call succeeded and the layout and data are the model's"),
                "{out}"
            );
        }
    } else {
        eprintln!("SKIPPED: no C compiler (cc) to build the reproducer");
    }
    // exec's stack move is in the C search's alphabet but has no system call
    let first = &calls[0];
    let shifted = format!("sys_shift_down{}", &first[first.find('(').unwrap()..]);
    let bad = d.path().join("shift.json");
    std::fs::write(&bad, json.replacen(first.as_str(), &shifted, 1)).unwrap();
    let (rc, out, err) = repro(&bad);
    assert_eq!(rc, 2, "{out}{err}");
    assert!(
        err.contains(&format!(
            "call 1 ({shifted}) cannot be made as a system call"
        )),
        "{err}"
    );
}

/// A model that has left the kernel: a test-only copy of the baseline whose
/// is_mergeable_vma() ignores VM_ACCOUNT, so that after mprotect() it merges two VMAs the C
/// keeps apart. The C search takes its calls from that model, and says so as a divergence
/// (exit 4, the calls and both worlds), never as a counterexample; the real baseline holds on
/// the same scope.
#[test]
fn a_model_that_leaves_the_c_is_reported_as_a_divergence() {
    let dir = tempfile::tempdir().unwrap();
    let baseline = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("models/v7.3-rc4/baseline.rmap");
    let model = dir.path().join("ignores-vm-account.rmap");
    std::fs::write(
        &model,
        format!(
            "/* test only: the baseline, with merges blind to VM_ACCOUNT */\n\
             #include \"{}\"\n\n\
             static bool is_mergeable_vma(struct vma_merge_struct *vmg, struct vm_area_struct *vma)\n\
             {{\n\
             \treturn (vma->vm_flags & ~VM_ACCOUNT) == (vmg->flags & ~VM_ACCOUNT) &&\n\
             \t       vma->vm_file == vmg->file;\n\
             }}\n",
            baseline.display()
        ),
    )
    .unwrap();
    let scope = dir.path().join("account.toml");
    std::fs::write(
        &scope,
        "name = \"account\"\nmax_depth = 4\npages = 2\nfiles = 0\ndev_zero = false\n\
         shared = false\nmax_mms = 1\nentries = [\"sys_mmap\", \"sys_mprotect\", \
         \"do_anonymous_fault\"]\n",
    )
    .unwrap();
    let s = scope.to_str().unwrap();
    let Some((rc, out, err)) = check(&[model.to_str().unwrap(), "--scope", s]) else {
        return;
    };
    assert_eq!(rc, 4, "{out}{err}");
    assert!(
        out.contains(": DIVERGES: the model diverges from the kernel's C after call"),
        "{out}"
    );
    assert!(!out.contains("COUNTEREXAMPLE"), "{out}");
    assert!(out.contains("\nDIVERGENCE: the model diverges"), "{out}");
    assert!(out.contains("<- differs"), "{out}");
    let Some((rc, out, err)) = check(&["--scope", s]) else {
        return;
    };
    assert_eq!(rc, 0, "the baseline holds: {out}{err}");
}

/// The C's ghost pages: a walker checkpoint names the kernel function and line of the lock
/// operation, and a counterexample carries its consequence as the model's do.
#[test]
fn a_walker_checkpoint_names_its_lock_operation_and_the_consequence_is_printed() {
    let spec =
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("cmutants/i-mmap-dropped-between.toml");
    let Some((rc, out, err)) = check(&["--c-mutant", spec.to_str().unwrap(), "--max-depth", "3"])
    else {
        return;
    };
    assert_eq!(rc, 1, "{out}{err}");
    assert!(
        out.contains("COUNTEREXAMPLE in the C: walker-complete after call 3 of 3"),
        "{out}"
    );
    assert!(
        out.contains("walker-complete at vma_complete (mm/vma.c:")
            && out.contains("after it releases i_mmap_rwsem): the file walk"),
        "{out}"
    );
    // the pages are part of the C world shown
    assert!(out.contains("    pte mm0:0 file#0 index 0"), "{out}");
    assert!(
        out.contains("On a production kernel (walker-complete, missed rmap walk)"),
        "{out}"
    );
    assert!(out.contains("Which kernel shows it: "), "{out}");
    assert!(
        out.contains("consequence: first walker-complete (missed rmap walk); worst: the first (nothing ranks above it)"),
        "{out}"
    );
    assert!(out.contains("at most 64 a call"), "{out}");
}

#[test]
fn a_freed_anon_vma_under_a_mapped_folio_is_reported_with_first_and_worst() {
    let spec =
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("cmutants/expand-no-dup-anon-vma.toml");
    let Some((rc, out, err)) = check(&["--c-mutant", spec.to_str().unwrap(), "--format", "json"])
    else {
        return;
    };
    assert_eq!(rc, 1, "{err}");
    let doc: serde_json::Value = serde_json::from_str(&out).unwrap();
    let cx = &doc["counterexample"];
    assert_eq!(cx["invariant"], "rmap-complete", "{doc}");
    assert!(
        cx["what"]
            .as_str()
            .unwrap()
            .contains("whose anon_vma is freed"),
        "{doc}"
    );
    assert!(
        cx["c_world"].as_array().unwrap().iter().any(|l| l
            .as_str()
            .unwrap()
            .contains("pte mm0:2 folio0 FREED index 2")),
        "{doc}"
    );
    assert_eq!(doc["first"]["invariant"], "rmap-complete", "{doc}");
    assert_eq!(doc["first"]["consequence"], "missed rmap walk", "{doc}");
    assert_eq!(doc["worst"]["invariant"], "rmap-complete", "{doc}");
    assert!(
        doc["consequence_search"]
            .as_str()
            .unwrap()
            .starts_with("consequence: first rmap-complete"),
        "{doc}"
    );
}
