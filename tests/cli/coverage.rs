//! Coverage of a patch's changed lines on the C search (`check --kernel --patch`): every
//! verdict says how many changed lines ran; a change that never ran, or a removed call that
//! made no difference to the search, is `incomplete` (exit 3), never a plain `holds`;
//! `--accept-unreached` accepts named lines and the verdict says so; and the search goes past
//! its bound until the change has run (a C mutant's counterexample found one depth deeper).
//!
//! The tree comes from tests/cli/kernel_tree.rs; without one each test prints SKIPPED (or
//! fails when `CI` is set).

use std::path::{Path, PathBuf};

use super::bin::rmapcheck;
use super::kernel_tree::tree;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// The diff of cpatches/NAME.toml against `t`, written under `dir`.
fn diff(t: &Path, name: &str, dir: &Path) -> PathBuf {
    let s = root().join(format!("cpatches/{name}.toml"));
    let (rc, out, err) = rmapcheck(&[
        "cpatch".as_ref(),
        "--kernel".as_ref(),
        t.as_os_str(),
        s.as_os_str(),
    ]);
    assert_eq!(rc, 0, "{err}");
    let p = dir.join(format!("{name}.diff"));
    std::fs::write(&p, out).unwrap();
    p
}

/// `check --kernel t ARGS --format json --quiet`: exit status, document, standard error.
fn check_json(t: &Path, args: &[&str]) -> (i32, serde_json::Value, String) {
    let mut a: Vec<&std::ffi::OsStr> = vec![
        "check".as_ref(),
        "--kernel".as_ref(),
        t.as_os_str(),
        "--format".as_ref(),
        "json".as_ref(),
        "--quiet".as_ref(),
    ];
    a.extend(args.iter().map(std::ffi::OsStr::new));
    let (rc, out, err) = rmapcheck(&a);
    let doc = serde_json::from_str(&out).unwrap_or_else(|e| panic!("{e}: {out}{err}"));
    (rc, doc, err)
}

/// The line number, in the patched file, of the diff's added line `added` (without its `+`)
/// that follows the added line starting with `after`.
pub(crate) fn new_line_of(diff: &str, after: &str, added: &str) -> u32 {
    let mut n = 0u32;
    let mut prev_after = false;
    for l in diff.lines() {
        if let Some(h) = l.strip_prefix("@@ -") {
            let plus = h.split(' ').nth(1).unwrap().trim_start_matches('+');
            n = plus.split(',').next().unwrap().parse::<u32>().unwrap() - 1;
            prev_after = false;
            continue;
        }
        if l.starts_with("---") || l.starts_with("+++") || l.starts_with('-') {
            continue;
        }
        n += 1;
        let body = &l[1.min(l.len())..];
        if prev_after && l.starts_with('+') && body == added {
            return n;
        }
        prev_after = l.starts_with('+') && body.starts_with(after);
    }
    panic!("{added:?} after {after:?} not in the diff")
}

/// The posted-patch idea of cpatches/expand-no-copied-anon-vma.toml removes a call that runs
/// within depth 2 but never has anything to copy there: the patched search is the unpatched
/// one, state for state. Not a plain `holds`: `incomplete`, naming the removed lines.
#[test]
fn a_removed_call_that_made_no_difference_is_incomplete() {
    let Some(t) = tree() else { return };
    let d = tempfile::tempdir().unwrap();
    let p = diff(&t, "expand-no-copied-anon-vma", d.path());
    let pf = p.to_str().unwrap();
    let (rc, doc, err) = check_json(
        &t,
        &["--patch", pf, "--max-depth", "2", "--deepen-budget", "0"],
    );
    assert_eq!(rc, 3, "{doc}{err}");
    let v = doc["verdict"].as_str().unwrap();
    assert!(
        v.starts_with("incomplete: the change at mm/vma.c:")
            && v.contains("(removed) made no difference within depth 2"),
        "{v}"
    );
    assert!(!v.contains("holds"), "{v}");
    assert!(
        v.contains("changed lines run: 2 of 2; made no difference: mm/vma.c:"),
        "{v}"
    );
    let c = &doc["coverage"]["changed_lines"];
    let lines = c["lines"].as_array().unwrap();
    assert_eq!(lines.len(), 2, "{c}");
    for l in lines {
        assert_eq!(l["file"], "mm/vma.c", "{c}");
        assert_eq!(l["before_patch"], true, "{c}");
        assert!(l["count"].as_u64().unwrap() > 0, "{c}");
    }
    assert_eq!(
        lines[1]["line"].as_u64().unwrap(),
        lines[0]["line"].as_u64().unwrap() + 1
    );
    assert_eq!(c["made_no_difference"].as_array().unwrap().len(), 2, "{c}");
    assert_eq!(c["no_difference_states"], doc["states"], "{doc}");
    assert_eq!(
        doc["coverage"]["stopped"],
        "no deepening (--deepen-budget 0)"
    );
}

/// split-skip-reinsert's WARN_ON_ONCE branch never runs (the kernel's callers never make the
/// case it warns about): the verdict names the line; accepted, the verdict holds and says
/// which line it accepted.
#[test]
fn a_line_that_never_ran_is_named_and_can_be_accepted() {
    let Some(t) = tree() else { return };
    let d = tempfile::tempdir().unwrap();
    let p = diff(&t, "split-skip-reinsert", d.path());
    let warn = new_line_of(
        &std::fs::read_to_string(&p).unwrap(),
        "\tif (WARN_ON_ONCE(",
        "\t\treturn false;",
    );
    let pf = p.to_str().unwrap();
    let base = ["--patch", pf, "--max-depth", "2", "--deepen-budget", "0"];
    let (rc, doc, err) = check_json(&t, &base);
    assert_eq!(rc, 3, "{doc}{err}");
    let v = doc["verdict"].as_str().unwrap();
    assert!(
        v.starts_with(&format!(
            "incomplete: the change at mm/vma.c:{warn} never ran within depth 2"
        )),
        "{v}"
    );
    assert!(v.contains(&format!("; never ran: mm/vma.c:{warn};")), "{v}");
    // the helper in mm/interval_tree.c is compiled as a generated copy: named, not counted
    assert!(v.contains("not measured: mm/interval_tree.c"), "{v}");
    let c = &doc["coverage"]["changed_lines"];
    assert_eq!(c["never_ran"].as_array().unwrap().len(), 1, "{c}");
    assert!(c["ran"].as_u64().unwrap() >= 5, "{c}");

    let acc = format!("mm/vma.c:{warn}");
    let mut args = base.to_vec();
    args.extend(["--accept-unreached", &acc]);
    let (rc, doc, err) = check_json(&t, &args);
    assert_eq!(rc, 0, "{doc}{err}");
    let v = doc["verdict"].as_str().unwrap();
    assert!(v.starts_with("holds up to depth 2"), "{v}");
    assert!(
        v.contains(&format!("accepted unreached: mm/vma.c:{warn}")),
        "{v}"
    );

    let (rc, _, err) = check_json_err(&t, &["--patch", pf, "--accept-unreached", "vma.c"]);
    assert_eq!(rc, 2, "{err}");
    assert!(
        err.contains("--accept-unreached \"vma.c\": expected FILE:LINE"),
        "{err}"
    );
}

fn check_json_err(t: &Path, args: &[&str]) -> (i32, String, String) {
    let mut a: Vec<&std::ffi::OsStr> = vec!["check".as_ref(), "--kernel".as_ref(), t.as_os_str()];
    a.extend(args.iter().map(std::ffi::OsStr::new));
    rmapcheck(&a)
}

/// A C mutant whose edit first runs at depth 2, searched with the bound 1: the search goes on
/// to depth 2 and finds the counterexample there, and the verdict says how deep it went.
#[test]
fn the_search_goes_past_its_bound_until_the_change_runs() {
    let Some(t) = tree() else { return };
    let m = root().join("cmutants/remove-vma-twice.toml");
    let (rc, doc, err) = check_json(
        &t,
        &[
            "--c-mutant",
            m.to_str().unwrap(),
            "--max-depth",
            "1",
            "--deepen-budget",
            "120",
        ],
    );
    assert_eq!(rc, 1, "{doc}{err}");
    let v = doc["verdict"].as_str().unwrap();
    assert!(v.starts_with("COUNTEREXAMPLE: tree-precondition"), "{v}");
    assert!(
        v.contains("changed lines run: 1 of 1 (searched past the bound 1 to depth 2"),
        "{v}"
    );
    let runs = doc["coverage"]["runs"].as_array().unwrap();
    assert_eq!(runs.len(), 2, "{doc}");
    assert!(
        runs[0]["changed_lines"]
            .as_str()
            .unwrap()
            .contains("changed lines run: 0 of 1; never ran: mm/vma.c:"),
        "{doc}"
    );
    assert_eq!(doc["depth"], 2);
    assert_eq!(doc["counterexample"]["calls"].as_array().unwrap().len(), 2);
}

/// `cdiff --patch` builds its harness from a patched copy of the tree, as `check --kernel
/// --patch` does: another harness than the unpatched tree's, and the report names the patch.
#[test]
fn cdiff_takes_a_patch() {
    let Some(t) = tree() else { return };
    let d = tempfile::tempdir().unwrap();
    let p = diff(&t, "expand-no-copied-anon-vma", d.path());
    let run = |more: &[&std::ffi::OsStr]| {
        let mut a: Vec<&std::ffi::OsStr> = vec![
            "cdiff".as_ref(),
            "--kernel".as_ref(),
            t.as_os_str(),
            "--build-only".as_ref(),
            "--quiet".as_ref(),
        ];
        a.extend_from_slice(more);
        rmapcheck(&a)
    };
    let (rc, plain, err) = run(&[]);
    assert_eq!(rc, 0, "{plain}{err}");
    let (rc, patched, err) = run(&["--patch".as_ref(), p.as_os_str()]);
    assert_eq!(rc, 0, "{patched}{err}");
    assert!(patched.contains("with patch "), "{patched}");
    let harness = |s: &str| {
        s.lines()
            .find_map(|l| l.strip_prefix("harness "))
            .and_then(|r| r.split(' ').next())
            .map(str::to_string)
            .unwrap_or_default()
    };
    assert_ne!(harness(&plain), harness(&patched), "{plain}\n{patched}");
    let (rc, _, err) = run(&["--patch".as_ref(), "/nonexistent.diff".as_ref()]);
    assert_eq!(rc, 2, "{err}");
}
