//! `check --kernel` with no narrowing flag runs every C pass (callers, extended, contract),
//! with a plan line naming what they leave out together; the contract pass calls the static
//! functions of mm/vma.c (__split_vma(), vma_shrink(), commit_merge()) with the model's
//! contract arguments, and cdiff compares them; the C edit spec with the idea of "mm/vma:
//! don't remove VMA from rmap if pgoff unchanged" v2 fails `augment` in the contract pass in
//! the four calls the model's search finds, and holds in callers mode.
//!
//! The tree comes from tests/cli/kernel_tree.rs; without one each test prints SKIPPED (or
//! fails when `CI` is set).

use super::ccheck::check;
use super::cpatch::{diff, rmapcheck};
use super::kernel_tree::tree;

#[test]
fn no_flag_runs_every_c_pass_with_a_plan_line() {
    let Some((rc, out, err)) = check(&["--max-depth", "2"]) else {
        return;
    };
    assert_eq!(rc, 0, "{out}{err}");
    assert!(
        out.contains(
            "every path on the C, 3 passes (callers, extended, contract); left out by all of them"
        ),
        "{out}"
    );
    // CONFIG_STACK_GROWSUP's entry points are named with their reason; the undo paths (by
    // an injected failure) and mremap's other moves are made on the C, so the upward stack is
    // the one reason a call is not reachable, in the extended pass
    assert!(
        out.contains("entry points the harness cannot make: setup_stack_growsup, do_stack_fault_up (CONFIG_STACK_GROWSUP"),
        "{out}"
    );
    assert_eq!(
        out.matches("calls offered but not reachable by the harness")
            .count(),
        1,
        "{out}"
    );
    assert!(
        out.contains("not reachable by the harness: 104 x CONFIG_STACK_GROWSUP"),
        "{out}"
    );
    for pass in ["callers", "extended", "contract"] {
        assert!(
            out.contains(&format!("  pass {pass}: scope {pass}")),
            "{pass}: {out}"
        );
        assert!(
            out.contains(&format!(" [{pass}]: holds up to depth 2")),
            "{pass}: {out}"
        );
    }
    // the contract calls are made on the C, not skipped
    assert!(!out.contains("contract-mode call"), "{out}");
}

#[test]
fn the_plan_as_json_has_every_pass_and_the_deciding_one_on_top() {
    let Some((rc, out, err)) = check(&["--max-depth", "2", "--format", "json"]) else {
        return;
    };
    assert_eq!(rc, 0, "{out}{err}");
    let doc: serde_json::Value = serde_json::from_str(&out).unwrap();
    let passes = doc["passes"].as_array().unwrap();
    let names: Vec<&str> = passes.iter().map(|p| p["pass"].as_str().unwrap()).collect();
    assert_eq!(names, ["callers", "extended", "contract"]);
    assert!(passes
        .iter()
        .all(|p| p["transitions"].as_u64().unwrap() > 0));
    // nothing failed: the last pass is on top
    assert_eq!(doc["pass"], "contract");
    assert!(doc["plan"].as_str().unwrap().contains("3 passes"), "{doc}");
}

#[test]
fn mode_contract_narrows_to_the_contract_pass_and_the_unpatched_c_holds() {
    let Some((rc, out, err)) = check(&["--mode", "contract", "--max-depth", "3"]) else {
        return;
    };
    assert_eq!(rc, 0, "{out}{err}");
    assert!(
        out.contains("scope contract: mode contract, depth 3"),
        "{out}"
    );
    assert!(out.contains("offsets on"), "{out}");
    assert!(!out.contains("every path on the C"), "{out}");
    assert!(out.contains(": holds up to depth 3; "), "{out}");
}

#[test]
fn cdiff_compares_the_contract_calls() {
    let Some(t) = tree() else { return };
    let (rc, out, err) = rmapcheck(&[
        "cdiff".as_ref(),
        "--kernel".as_ref(),
        t.as_os_str(),
        "--scope".as_ref(),
        "contract".as_ref(),
        "--max-depth".as_ref(),
        "2".as_ref(),
        "--quiet".as_ref(),
    ]);
    assert_eq!(rc, 0, "{out}{err}");
    assert!(out.contains("skipped calls: none"), "{out}");
    assert!(out.contains("AGREES"), "{out}");
}

#[test]
fn inplace_pgoff_unchanged_v2_as_c_fails_augment_in_the_contract_pass() {
    let Some(t) = tree() else { return };
    let d = tempfile::tempdir().unwrap();
    let p = diff(&t, "inplace-pgoff-unchanged-v2", d.path());
    let Some((rc, out, err)) = check(&["--patch", p.to_str().unwrap(), "--mode", "contract"])
    else {
        return;
    };
    assert_eq!(rc, 1, "{out}{err}");
    assert!(
        out.contains("COUNTEREXAMPLE in the C: augment after call 4 of 4"),
        "{out}"
    );
    // the model's shortest case: three mappings of one file, prev's pgoffs not adjacent to
    // middle's, then commit_merge() growing prev in place while middle's start moves up
    assert!(
        out.contains("4. contract_adjust_middle(mm#0, vma#2, 3, 5)"),
        "{out}"
    );
    assert!(
        out.contains("commit_merge() (static), __adjust_middle_start"),
        "{out}"
    );
    // callers mode: today's callers never give it those arguments
    let Some((rc, out, err)) = check(&[
        "--patch",
        p.to_str().unwrap(),
        "--mode",
        "callers",
        "--max-depth",
        "3",
        "--deepen-budget",
        "0",
    ]) else {
        return;
    };
    // holds, or incomplete where the adj_next-with-anon_vma lines need a fourth call
    assert!(rc == 0 || rc == 3, "{out}{err}");
    assert!(!out.contains("COUNTEREXAMPLE"), "{out}");
    assert!(out.contains("changed lines run: "), "{out}");
}
