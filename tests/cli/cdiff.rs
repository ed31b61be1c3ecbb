//! `rmapcheck cdiff` against a kernel tree's own C: the unmutated model agrees with the C on
//! every sequence of depth <= 2 of the default scope, on a seeded sample of depth 5 and on
//! random walks of length 8, with no known finding to tolerate; a
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
    let Some((rc, out, err)) = cdiff(&["--max-depth", "2", "--quiet"]) else {
        return;
    };
    assert_eq!(rc, 0, "{out}{err}");
    assert!(out.contains("AGREES"), "{out}");
    assert!(number(&out, "sequences ") > 100, "{out}");
    assert!(number(&out, "calls compared ") > 200, "{out}");
    assert!(out.contains("(7.3"), "the tree's release is named: {out}");
}

/// A seeded sample of sequences of depth 5 (past the C search's default depth), nothing
/// tolerated: any mismatch fails.
#[test]
fn a_sample_of_depth_five_agrees_with_the_c() {
    let Some((rc, out, err)) = cdiff(&[
        "--max-depth",
        "5",
        "--sample",
        "6000",
        "--seed",
        "7",
        "--quiet",
    ]) else {
        return;
    };
    assert_eq!(rc, 0, "{out}{err}");
    assert!(out.contains("AGREES"), "{out}");
    assert_eq!(number(&out, "\n  sequences "), 6000, "{out}");
}

#[test]
fn random_walks_of_length_eight_agree_with_the_c() {
    let Some((rc, out, err)) = cdiff(&["--walks", "40", "--length", "8", "--seed", "3", "--quiet"])
    else {
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

/// The four calls after which the model once merged two read-only VMAs the kernel keeps apart
/// (they differ in VM_ACCOUNT): the model and the C agree on every world along them.
#[test]
fn vm_account_keeps_two_read_only_vmas_apart_on_both_sides() {
    let seq = "sys_mmap(mm#0, NULL, 0, 2, 0, false); sys_mprotect(mm#0, 0, 1, false); \
               do_anonymous_fault(mm#0, 1); sys_mprotect(mm#0, 1, 2, false)";
    let Some((rc, out, err)) = cdiff(&["--sequence", seq]) else {
        return;
    };
    assert_eq!(rc, 0, "{out}{err}");
    assert!(out.contains("AGREES"), "{out}");
}

/// The harness refuses, as mremap(2) does, to grow a VMA in place over a mapped range
/// (vma_expandable() fails, -ENOMEM), so vma_merge_extend() never runs over another VMA.
#[test]
fn the_harness_refuses_an_in_place_mremap_over_a_mapped_range() {
    use std::io::Write;
    let Some((rc, out, err)) = cdiff(&["--build-only"]) else {
        return;
    };
    assert_eq!(rc, 0, "{out}{err}");
    let harness = out
        .split_whitespace()
        .nth(1)
        .unwrap_or_else(|| panic!("no harness path in {out}"));
    let mut child = Command::new(harness)
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    // [0,1) and [2,3), then [0,1) grown in place to [0,3): [2,3) is in the way
    let script = "reset\nmmap 0 0 1 - 0 0 0\nmmap 0 2 3 - 2 0 0\nmremap_expand 0 0 3\n\
                  mremap_expand 0 0 2\n";
    child
        .stdin
        .take()
        .unwrap()
        .write_all(script.as_bytes())
        .unwrap();
    let o = child.wait_with_output().unwrap();
    let replies: Vec<String> = String::from_utf8_lossy(&o.stdout)
        .lines()
        .map(str::to_string)
        .collect();
    assert!(replies[0].starts_with("ready"), "{replies:?}");
    assert_eq!(
        &replies[1..6],
        ["ok 0", "ok 0", "ok 0", "ok -12", "ok 0"],
        "the refusal, then a growth into the free page: {replies:?}"
    );
}

/// The glue never drops a note silently: past GLUE_MAX_NOTES warnings the dump ends with an
/// `overflow` line naming the limit (which rmapcheck refuses as a harness error, see
/// `charness::cdump`), and a reset clears it. The `notes N` test hook records N warnings.
#[test]
fn notes_past_the_glue_limit_end_the_dump_with_an_overflow_naming_it() {
    use std::io::Write;
    let Some((rc, out, err)) = cdiff(&["--build-only"]) else {
        return;
    };
    assert_eq!(rc, 0, "{out}{err}");
    let harness = out
        .split_whitespace()
        .nth(1)
        .unwrap_or_else(|| panic!("no harness path in {out}"));
    let mut child = Command::new(harness)
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let script = "reset\nnotes 64\ndump\nreset\nnotes 66\ndump\nreset\ndump\n";
    child
        .stdin
        .take()
        .unwrap()
        .write_all(script.as_bytes())
        .unwrap();
    let o = child.wait_with_output().unwrap();
    let text = String::from_utf8_lossy(&o.stdout).into_owned();
    let dumps: Vec<&str> = text.split("\nend\n").collect();
    assert_eq!(dumps.len(), 4, "three dumps: {text}");
    let warns = |d: &str| d.lines().filter(|l| l.starts_with("warn ")).count();
    let overflow = |d: &str| {
        d.lines()
            .find(|l| l.starts_with("overflow"))
            .map(str::to_string)
    };
    assert_eq!((warns(dumps[0]), overflow(dumps[0])), (64, None), "{text}");
    assert_eq!(warns(dumps[1]), 64, "{text}");
    assert_eq!(
        overflow(dumps[1]).as_deref(),
        Some("overflow GLUE_MAX_NOTES 64 violations 0 warnings 2"),
        "{text}"
    );
    assert_eq!((warns(dumps[2]), overflow(dumps[2])), (0, None), "{text}");
}
