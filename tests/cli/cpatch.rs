//! C patches we wrote as edit specs (cpatches/): `rmapcheck cpatch` turns one into a unified
//! diff against the kernel tree at test time, and `check --kernel TREE --patch DIFF` checks the
//! patched C in every pass. The new_below = 0 split that skips the file-tree re-insert
//! (split-skip-reinsert) holds in each; its variant without the propagate is caught by `augment`,
//! which also shows that the split path reaches the new branch (the variants differ only in
//! that branch's body).
//!
//! The tree comes from tests/cli/kernel_tree.rs; without one each test prints SKIPPED (or
//! fails when `CI` is set).

use std::path::{Path, PathBuf};

pub(super) use super::bin::rmapcheck;
use super::kernel_tree::tree;

fn spec(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join(format!("cpatches/{name}.toml"))
}

/// The spec's diff against `t`, written under `dir`.
pub(super) fn diff(t: &Path, name: &str, dir: &Path) -> PathBuf {
    diff_of(t, &spec(name), name, dir)
}

/// The diff of the spec file `s` against `t`, written as `dir/NAME.diff`.
fn diff_of(t: &Path, s: &Path, name: &str, dir: &Path) -> PathBuf {
    let (rc, out, err) = rmapcheck(&[
        "cpatch".as_ref(),
        "--kernel".as_ref(),
        t.as_os_str(),
        s.as_os_str(),
    ]);
    assert_eq!(rc, 0, "{err}");
    assert!(out.starts_with("--- a/"), "{out}");
    let p = dir.join(format!("{name}.diff"));
    std::fs::write(&p, out).unwrap();
    p
}

/// `check --kernel t --patch p --format json` at the default scope: exit status and document.
fn check_json(t: &Path, p: &Path) -> (i32, serde_json::Value, String) {
    check_json_with(t, p, &[])
}

/// [`check_json`] with more flags.
fn check_json_with(t: &Path, p: &Path, more: &[&str]) -> (i32, serde_json::Value, String) {
    let mut args: Vec<&std::ffi::OsStr> = vec![
        "check".as_ref(),
        "--kernel".as_ref(),
        t.as_os_str(),
        "--patch".as_ref(),
        p.as_os_str(),
        "--format".as_ref(),
        "json".as_ref(),
        "--quiet".as_ref(),
    ];
    args.extend(more.iter().map(std::ffi::OsStr::new));
    let (rc, out, err) = rmapcheck(&args);
    let doc = serde_json::from_str(&out).unwrap_or_else(|e| panic!("{e}: {out}{err}"));
    (rc, doc, err)
}

#[test]
fn split_skip_reinsert_as_c_holds_in_every_pass() {
    let Some(t) = tree() else { return };
    let d = tempfile::tempdir().unwrap();
    let p = diff(&t, "split-skip-reinsert", d.path());
    let text = std::fs::read_to_string(&p).unwrap();
    // the helper is added to mm/interval_tree.c, declared in mm.h and called from vma.c
    for f in ["mm/interval_tree.c", "include/linux/mm.h", "mm/vma.c"] {
        assert!(text.contains(&format!("+++ b/{f}\n")), "{f}: {text}");
    }
    assert_eq!(
        text.matches("+\t\t\tmapping_rmap_tree_update_last(")
            .count(),
        1,
        "{text}"
    );
    // its WARN_ON_ONCE branch is never run by the kernel's callers: accepted as unreached
    let warn = super::coverage::new_line_of(&text, "\tif (WARN_ON_ONCE(", "\t\treturn false;");
    let acc = format!("mm/vma.c:{warn}");
    // every C pass, at depth 3 to keep the suite short (docs/BENCHMARKS.md has the run at
    // each pass's own depth, which holds too)
    let (rc, doc, err) = check_json_with(&t, &p, &["--accept-unreached", &acc, "--max-depth", "3"]);
    assert_eq!(rc, 0, "{doc}{err}");
    let passes = doc["passes"].as_array().unwrap();
    assert_eq!(passes.len(), 3, "{doc}");
    for pass in passes {
        let v = pass["verdict"].as_str().unwrap();
        assert!(v.starts_with("holds"), "{pass}");
        assert!(v.contains(&format!("accepted unreached: {acc}")), "{v}");
        assert!(
            pass["scope"].as_str().unwrap().contains("depth 3"),
            "{pass}"
        );
        assert!(pass["states"].as_u64().unwrap() > 0, "{pass}");
    }
    assert!(doc["counterexample"].is_null(), "{doc}");
    assert!(
        doc["applied"][0]
            .as_str()
            .unwrap()
            .contains("split-skip-reinsert.diff"),
        "{doc}"
    );
}

#[test]
fn split_skip_reinsert_without_the_propagate_breaks_augment() {
    let Some(t) = tree() else { return };
    let d = tempfile::tempdir().unwrap();
    let p = diff(&t, "split-skip-reinsert-no-propagate", d.path());
    let (rc, doc, err) = check_json(&t, &p);
    assert_eq!(rc, 1, "{doc}{err}");
    let cx = &doc["counterexample"];
    assert_eq!(cx["invariant"], "augment", "{doc}");
    assert_eq!(cx["crashed"], false, "{doc}");
    assert!(
        cx["what"].as_str().unwrap().contains("rb_subtree_last"),
        "{doc}"
    );
    // the model of the correct patch propagates: the two worlds differ after these calls
    assert_eq!(cx["model_agrees"], false, "{doc}");
    let calls = cx["calls"].as_array().unwrap();
    assert!(!calls.is_empty(), "{doc}");
}

#[test]
fn a_cpatch_whose_anchor_is_gone_is_bad_input() {
    let Some(t) = tree() else { return };
    let d = tempfile::tempdir().unwrap();
    let s = d.path().join("gone.toml");
    std::fs::write(
        &s,
        "summary = \"s\"\n\n[[edit]]\nfile = \"mm/vma.c\"\nfind = \"no such text in vma.c\"\nreplace = \"\"\n",
    )
    .unwrap();
    let (rc, out, err) = rmapcheck(&[
        "cpatch".as_ref(),
        "--kernel".as_ref(),
        t.as_os_str(),
        s.as_os_str(),
    ]);
    assert_eq!(rc, 2, "{out}{err}");
    assert!(out.is_empty(), "{out}");
    assert!(
        err.contains("gone.toml:3:1: the anchor of edit 1 is not in the tree's mm/vma.c"),
        "{err}"
    );
}

/// The split-skip-reinsert helper, called where its tree is not locked: a spec written here
/// from the posted one's first two edits (the helper in mm/interval_tree.c and its prototype)
/// and an edit of our own that calls it in vma_complete() just after i_mmap_rwsem is released.
/// The trees are right when it runs (its propagate changes nothing), so only the lock check of
/// the wrapper the harness generates for a patch's helper catches it.
#[test]
fn a_patch_helper_called_without_its_lock_breaks_lock_discipline() {
    let Some(t) = tree() else { return };
    let d = tempfile::tempdir().unwrap();
    let posted: toml::Table =
        toml::from_str(&std::fs::read_to_string(spec("split-skip-reinsert")).unwrap()).unwrap();
    let mut edits: Vec<toml::Value> = posted["edit"].as_array().unwrap()[..2].to_vec();
    assert!(edits[0]["replace"]
        .as_str()
        .unwrap()
        .contains("void mapping_rmap_tree_update_last("));
    let mut late = toml::Table::new();
    late.insert("file".into(), "mm/vma.c".into());
    late.insert(
        "find".into(),
        "\tif (vp->file) {\n\t\ti_mmap_unlock_write(vp->mapping);\n".into(),
    );
    late.insert(
        "replace".into(),
        "\tif (vp->file) {\n\t\ti_mmap_unlock_write(vp->mapping);\n\t\tmapping_rmap_tree_update_last(vp->vma, vp->mapping);\n".into(),
    );
    edits.push(late.into());
    let mut s = toml::Table::new();
    s.insert("summary".into(), "the helper, called unlocked".into());
    s.insert("edit".into(), edits.into());
    let path = d.path().join("helper-unlocked.toml");
    std::fs::write(&path, toml::to_string(&s).unwrap()).unwrap();
    let p = diff_of(&t, &path, "helper-unlocked", d.path());
    let (rc, doc, err) = check_json_with(&t, &p, &["--max-depth", "2"]);
    assert_eq!(rc, 1, "{doc}{err}");
    let cx = &doc["counterexample"];
    assert_eq!(cx["invariant"], "lock-discipline", "{doc}");
    assert!(
        cx["what"]
            .as_str()
            .unwrap()
            .contains("mapping_rmap_tree_update_last without i_mmap_rwsem held for write"),
        "{doc}"
    );
}
