//! `rmapcheck cdiff` against a kernel tree's own C: the unmutated model agrees with the C on
//! every sequence of depth <= 2 of the default scope and on random walks of length 8; a
//! corrupted `rb_subtree_last` in the C world is reported node by node; a model mutant
//! (stack-grow-keeps-pgoff) disagrees with the C on a named sequence while the baseline agrees
//! on it; bad input exits 2.
//!
//! The tree comes from `RMAPCHECK_KERNEL_SRC`, else from the cache of scripts/fetch-kernel.sh
//! (`$RMAPCHECK_KERNEL_CACHE` or `$HOME/.cache/rmapcheck/kernel`, file `current`). Without
//! one, each test fails when `CI` is set and otherwise prints a SKIPPED line.

use std::process::Command;

use super::kernel_tree::tree;

fn cdiff(args: &[&str]) -> Option<(i32, String, String)> {
    let t = tree()?;
    let o = Command::new(env!("CARGO_BIN_EXE_rmapcheck"))
        .arg("cdiff")
        .arg("--kernel")
        .arg(&t)
        .args(args)
        .output()
        .unwrap();
    Some((
        o.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&o.stdout).into_owned(),
        String::from_utf8_lossy(&o.stderr).into_owned(),
    ))
}

/// A number printed after `key` in `s`.
fn number(s: &str, key: &str) -> usize {
    let at = s.find(key).unwrap_or_else(|| panic!("no {key:?} in {s}")) + key.len();
    s[at..]
        .trim_start()
        .split(|c: char| !c.is_ascii_digit())
        .next()
        .unwrap()
        .parse()
        .unwrap()
}

#[test]
fn every_sequence_of_depth_two_agrees_with_the_c() {
    let Some((rc, out, err)) = cdiff(&["--max-depth", "2", "--tolerate-known", "--quiet"]) else {
        return;
    };
    assert_eq!(rc, 0, "{out}{err}");
    assert!(out.contains("AGREES"), "{out}");
    assert!(number(&out, "sequences ") > 100, "{out}");
    assert!(number(&out, "calls compared ") > 200, "{out}");
    assert!(out.contains("(7.3"), "the tree's release is named: {out}");
}

#[test]
fn random_walks_of_length_eight_agree_with_the_c() {
    let Some((rc, out, err)) = cdiff(&[
        "--walks",
        "40",
        "--length",
        "8",
        "--seed",
        "3",
        "--tolerate-known",
        "--quiet",
    ]) else {
        return;
    };
    assert_eq!(rc, 0, "{out}{err}");
    assert!(out.contains("40 random walks of length 8"), "{out}");
}

#[test]
fn a_corrupted_subtree_last_in_the_c_world_is_reported() {
    let Some((rc, out, err)) = cdiff(&["--max-depth", "1", "--corrupt-c", "file 0", "--quiet"])
    else {
        return;
    };
    assert_eq!(rc, 1, "{out}{err}");
    assert!(out.contains("MISMATCH 1"), "{out}");
    // the root node of file#0's tree, on both sides, with its rb_subtree_last
    let marked: Vec<&str> = out.lines().filter(|l| l.ends_with("<- differs")).collect();
    assert!(
        marked
            .iter()
            .any(|l| l.contains(" last ") && l.contains("parent -")),
        "the root node is marked: {out}"
    );
    assert!(marked.len() >= 2, "marked on both sides: {out}");
}

const SEQUENCE: &str =
    "sys_mmap_growsdown(mm#0, 2, 3); do_anonymous_fault(mm#0, 2); do_stack_fault(mm#0, 1)";

#[test]
fn a_model_mutant_disagrees_with_the_c_on_a_named_sequence() {
    let Some((rc, out, err)) = cdiff(&["--sequence", SEQUENCE]) else {
        return;
    };
    assert_eq!(rc, 0, "the baseline agrees: {out}{err}");
    let Some((rc, out, err)) = cdiff(&[
        "models/mutants/stack-grow-keeps-pgoff.rmap",
        "--sequence",
        SEQUENCE,
    ]) else {
        return;
    };
    assert_eq!(rc, 1, "the mutant disagrees: {out}{err}");
    // the grown stack's offsets: kept by the mutant, moved down by the kernel's expand_downwards()
    let marked: Vec<&str> = out.lines().filter(|l| l.ends_with("<- differs")).collect();
    assert!(
        marked
            .iter()
            .any(|l| l.contains("[1, 3) pgoff 2 anon_pgoff 2")),
        "{out}"
    );
    assert!(
        marked
            .iter()
            .any(|l| l.contains("[1, 3) pgoff 1 anon_pgoff 1")),
        "{out}"
    );
}

#[test]
fn bad_input_exits_two() {
    if tree().is_none() {
        return;
    }
    let o = Command::new(env!("CARGO_BIN_EXE_rmapcheck"))
        .args(["cdiff", "--kernel", "/nonexistent-kernel-tree"])
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("rmapcheck cdiff:"));
    let o = Command::new(env!("CARGO_BIN_EXE_rmapcheck"))
        .args(["cdiff", "--kernel"])
        .arg(tree().unwrap())
        .args(["--sequence", "sys_nothing(mm#0)"])
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2), "{o:?}");
}
