//! The `rmapcheck tree` op-list runner: output of good lists, `FILE:LINE:COL` diagnostics with
//! the offending line and a caret, exit statuses, and the binary end to end.

use std::io::Write;
use std::process::{Command, Stdio};

use rmapcheck::tree::ops::{parse_ops, run_ops};

#[test]
fn clean_run_prints_answers_and_final_tree() {
    let src = "# three nodes\ninsert 10 19\ninsert 0 4\n\ninsert 20 29  # trailing comment\n\
               query 3 12\nquery 30 40\nvalidate\n";
    let r = run_ops("t.txt", src);
    assert_eq!(r.status, 0, "{}", r.stderr);
    assert_eq!(r.stderr, "");
    assert_eq!(
        r.stdout,
        "n0 = insert [10..19]\n\
         n1 = insert [0..4]\n\
         n2 = insert [20..29]\n\
         query [3..12]: n1 n0\n\
         query [30..40]: none\n\
         validate: ok\n\
         final tree:\n\
         * n0 [10..19] B max=29\n\
         \x20 L n1 [0..4] R max=4\n\
         \x20 R n2 [20..29] R max=29\n"
    );
}

#[test]
fn rekey_makes_stale_key_reported_by_validate_and_descents() {
    let src = "insert 0 9\ninsert 10 19\ninsert 20 29\nrekey n0 50 59\nvalidate\n\
               insert 30 31\nquery 0 100\n";
    let r = run_ops("s.txt", src);
    assert_eq!(r.status, 1);
    let out = &r.stdout;
    assert!(out.contains("rekey n0 [50..59] (in the tree: key changed in place)"));
    assert!(out.contains("validate: 2 violation(s)"), "{out}");
    assert!(out.contains("  augment: n0 has subtree_last 9, expected 59"));
    assert!(out.contains("  tree-order: n1 (start 10) follows n0 (start 50)"));
    // The root n1 is visited by both descents; it is out of place relative to stale n0.
    assert!(out.contains("stale-descent: insert passed n1"), "{out}");
    assert!(
        out.contains("stale-descent: query passed n0 (start 50)"),
        "{out}"
    );
}

#[test]
fn insert_after_copies_prev_for_the_next_id_and_propagate_works() {
    let src = "insert 5 9\ninsert 1 2\ninsert_after n2 n0\nerase 1\ninsert_after n1 n2\n\
               rekey n1 5 40\npropagate n1\nvalidate\nprint\n";
    let r = run_ops("f.txt", src);
    assert_eq!(r.status, 0, "{}{}", r.stdout, r.stderr);
    assert!(r
        .stdout
        .contains("n2 = copy of n0 [5..9]\ninsert_after n2 n0\n"));
    assert!(r.stdout.contains("erase n1\ninsert_after n1 n2\n"));
    assert!(r.stdout.contains("propagate n1\nvalidate: ok\n"));
    assert!(r.stdout.contains("max=40"));
}

#[test]
fn syntax_errors_are_all_reported_with_file_line_col_and_caret() {
    let src = "insert 1 2\ninsrt 1 2\n  insert 7 x\nquery 9 3\nerase\nprint now\n";
    let r = run_ops("bad.txt", src);
    assert_eq!(r.status, 2);
    assert_eq!(r.stdout, "");
    let want = "bad.txt:2:1: unknown command `insrt` (expected one of: insert, insert_after, \
                erase, rekey, propagate, query, print, validate)\n\
                insrt 1 2\n\
                ^^^^^\n\
                bad.txt:3:12: expected a number for LAST, found `x`\n\
                \x20 insert 7 x\n\
                \x20          ^\n\
                bad.txt:4:9: LAST (3) is below FIRST (9)\n\
                query 9 3\n\
                \x20       ^\n\
                bad.txt:5:6: `erase` expects ID here\n\
                erase\n\
                \x20    ^\n\
                bad.txt:6:7: unexpected extra argument `now` to `print`\n\
                print now\n\
                \x20     ^^^\n";
    assert_eq!(r.stderr, want);
    assert_eq!(parse_ops(src).unwrap_err().len(), 5);
}

#[test]
fn runtime_errors_stop_with_a_diagnostic() {
    let cases = [
        (
            "insert 1 2\nerase n0\nerase n0\n",
            "x:3:7: node n0 is not in the tree\n",
        ),
        (
            "insert 1 2\nerase n4\n",
            "x:2:7: unknown node n4 (only 1 object(s) created so far)\n",
        ),
        (
            "insert 1 2\nerase 0\ninsert_after n0 n0\n",
            "x:3:17: prev node n0 is not in the tree\n",
        ),
        (
            "insert 1 2\ninsert_after n0 n0\n",
            "x:2:14: node n0 is already in the tree\n",
        ),
        (
            "insert 1 2\ninsert_after n7 n0\n",
            "x:2:14: unknown node n7 (use n1 to insert a copy of n0)\n",
        ),
        (
            "insert 1 2\nerase 0\npropagate n0\n",
            "x:3:11: node n0 is not in the tree\n",
        ),
    ];
    for (src, head) in cases {
        let r = run_ops("x", src);
        assert_eq!(r.status, 2, "{src}");
        assert!(r.stderr.starts_with(head), "{src}: {}", r.stderr);
        assert!(r
            .stderr
            .lines()
            .nth(2)
            .unwrap()
            .trim_start()
            .starts_with('^'));
        assert!(!r.stdout.contains("final tree"));
    }
}

#[test]
fn hex_numbers_and_plain_ids() {
    let r = run_ops("h", "insert 0x10 0x1f\nquery 16 16\nerase 0\n");
    assert_eq!(r.status, 0);
    assert!(r
        .stdout
        .contains("n0 = insert [16..31]\nquery [16..16]: n0\nerase n0\n"));
    assert!(r.stdout.ends_with("final tree:\n(empty tree)\n"));
}

#[test]
fn example_file_runs() {
    let src = include_str!("../../examples/tree/stale.txt");
    let r = run_ops("examples/tree/stale.txt", src);
    assert_eq!(r.status, 1, "the example demonstrates a stale key");
    assert!(r.stdout.contains("query [15..25]: n1 n2"));
    assert!(r
        .stdout
        .contains("stale-descent: insert passed n1 (start 45)"));
}

fn bin() -> Command {
    Command::new(env!("CARGO_BIN_EXE_rmapcheck"))
}

#[test]
fn cli_reads_stdin_and_reports_bad_lines() {
    let mut child = bin()
        .arg("tree")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(b"insert 3 4\nerase zz\n")
        .unwrap();
    let out = child.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(err.starts_with("<stdin>:2:7: expected a node id (like n3) for ID, found `zz`\n"));
    assert!(!err.contains("panicked"));
}

#[test]
fn cli_file_and_missing_file() {
    let out = bin()
        .args(["tree", "examples/tree/stale.txt"])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8(out.stdout)
        .unwrap()
        .contains("final tree:"));

    let out = bin().args(["tree", "/no/such/file"]).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8(out.stderr)
        .unwrap()
        .contains("cannot read /no/such/file"));
}

#[test]
fn bench_tree_small() {
    // the benchmark itself runs with `cargo bench --bench tree`; here only that it measures
    let r = rmapcheck::tree::bench::bench_tree(500, 2000);
    assert_eq!((r.nodes, r.rounds), (500, 2000));
    assert!(r.tree_ops_per_s > 0.0 && r.btree_ops_per_s > 0.0 && r.ratio > 0.0);
}

/// The kernel's `_subtree_search` (since "lib/interval_tree: skip the check before go to the
/// right subtree") goes right without re-checking `subtree_last`: with a stale one it reaches a
/// missing right child, a NULL dereference in the kernel, which the op list reports (exit 1).
/// The same query on a sound tree answers as before.
#[test]
fn a_stale_subtree_last_leads_the_query_to_a_null_child() {
    let r = run_ops("t.txt", "insert 0 10\nrekey 0 0 2\nquery 5 5\n");
    assert_eq!(r.status, 1, "{}", r.stdout);
    assert!(
        r.stdout
            .contains("query went right from n0 to a missing child"),
        "{}",
        r.stdout
    );
    let r = run_ops(
        "t.txt",
        "insert 0 10\nrekey 0 0 2\npropagate 0\nquery 5 5\n",
    );
    assert_eq!(r.status, 0, "{}", r.stdout);
    assert!(r.stdout.contains("query [5..5]: none"), "{}", r.stdout);
}
