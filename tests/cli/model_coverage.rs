//! Coverage of a patch model's changed lines (`check` of a model that includes the model it
//! changes): every verdict says how many changed lines ran; a change that never ran is
//! `incomplete` (exit 3), never a plain `holds`; `--accept-unreached` accepts named lines and
//! the verdict says so; the search goes past its bound until the change has run
//! (expand-no-copied-anon-vma's counterexample is one depth past the bound); `compare` says
//! how often the changed code ran.

use super::bin::rmapcheck;
use std::path::{Path, PathBuf};

/// A patch model written at test time: the baseline's dup_anon_vma() with a test of `src`
/// that never holds (it was dereferenced just before), so its line 12 never runs, while the
/// test itself (line 11) runs whenever dup_anon_vma() does not clone.
fn unreachable_change(dir: &Path) -> PathBuf {
    let base = Path::new(env!("CARGO_MANIFEST_DIR")).join("models/v7.3-rc4/baseline.rmap");
    let text = format!(
        "#include \"{}\"\n\
         \n\
         // kernel: mm/vma.c dup_anon_vma\n\
         static int dup_anon_vma(struct vm_area_struct *dst, struct vm_area_struct *src)\n\
         {{\n\
         \tif (src->anon_vma && !dst->anon_vma) {{\n\
         \t\tvma_assert_write_locked(dst);\n\
         \t\tdst->anon_vma = src->anon_vma;\n\
         \t\treturn anon_vma_clone(dst, src, VMA_OP_MERGE_UNFAULTED);\n\
         \t}}\n\
         \tif (src == NULL)\n\
         \t\treturn -1;\n\
         \treturn 0;\n\
         }}\n",
        base.display()
    );
    let p = dir.join("never.rmap");
    std::fs::write(&p, text).unwrap();
    p
}

#[test]
fn a_change_that_never_ran_is_incomplete_and_can_be_accepted() {
    let d = tempfile::tempdir().unwrap();
    let m = unreachable_change(d.path());
    let ms = m.to_str().unwrap();
    let args = [
        "check",
        "--scope",
        "default",
        "--max-depth",
        "3",
        "--deepen-budget",
        "0",
        "--quiet",
    ];
    let mut a = args.to_vec();
    a.push(ms);
    let (rc, out, err) = rmapcheck(&a);
    assert_eq!(rc, 3, "{out}{err}");
    assert!(
        out.contains(&format!(
            "{ms}: incomplete: the change at {ms}:12 never ran within depth 3 (no deepening \
             (--deepen-budget 0)); no failure up to depth 3"
        )),
        "{out}"
    );
    assert!(
        out.contains(&format!("changed lines run: 1 of 2; never ran: {ms}:12")),
        "{out}"
    );
    // the reviewer accepts the line: the verdict holds and names it
    let acc = format!("{ms}:12");
    let mut a = args.to_vec();
    a.extend(["--accept-unreached", acc.as_str(), ms]);
    let (rc, out, err) = rmapcheck(&a);
    assert_eq!(rc, 0, "{out}{err}");
    assert!(
        out.contains(&format!(
            "changed lines run: 1 of 2; accepted unreached: {ms}:12"
        )),
        "{out}"
    );
    // JSON carries the same
    let mut a = args.to_vec();
    a.extend(["--format", "json", ms]);
    let (rc, out, err) = rmapcheck(&a);
    assert_eq!(rc, 3, "{err}");
    let doc: serde_json::Value = serde_json::from_str(&out).unwrap();
    let r = &doc["results"][0];
    assert_eq!(r["verdict"], "incomplete", "{r}");
    let cov = &r["coverage"]["changed_lines"];
    assert_eq!(cov["changed"], 2, "{cov}");
    assert_eq!(cov["ran"], 1, "{cov}");
    assert_eq!(cov["never_ran"][0]["line"], 12, "{cov}");
    // a bad line is refused
    let mut a = args.to_vec();
    a.extend(["--accept-unreached", "12", ms]);
    let (rc, _, err) = rmapcheck(&a);
    assert_eq!(rc, 2, "{err}");
}

#[test]
fn the_search_goes_past_the_bound_while_the_change_has_not_run() {
    let d = tempfile::tempdir().unwrap();
    let m = unreachable_change(d.path());
    let ms = m.to_str().unwrap();
    let (rc, out, err) = rmapcheck(&[
        "check",
        "--scope",
        "default",
        "--max-depth",
        "2",
        "--deepen-budget",
        "2",
        "--quiet",
        ms,
    ]);
    assert_eq!(rc, 3, "{out}{err}");
    assert!(
        out.contains(&format!("{ms}: deepening: depth 3: ")),
        "{out}"
    );
    assert!(
        out.contains(&format!(
            "{ms}: incomplete: the change at {ms}:12 never ran within depth"
        )),
        "{out}"
    );
    assert!(out.contains("the deepening budget (2 s) ended"), "{out}");
}

/// The patch idea that drops vma_expand()'s dup from the VMA an mremap() copies from: its
/// removed call runs from depth 2 on but has nothing to copy until the fifth call, so at the
/// bound (4) the search of the baseline sees the very states of the patched one ("made no
/// difference"); the search goes one deeper and finds the missed rmap walk.
#[test]
fn expand_no_copied_anon_vma_is_a_counterexample_with_no_flags() {
    let m = "models/patches/expand-no-copied-anon-vma.rmap";
    let (rc, out, err) = rmapcheck(&["check", "--quiet", m]);
    assert_eq!(rc, 1, "{out}{err}");
    assert!(
        out.contains(&format!("{m} [callers]: deepening: depth 5: ")),
        "{out}"
    );
    let line = out
        .lines()
        .find(|l| l.starts_with(&format!("{m} [callers]: COUNTEREXAMPLE")))
        .unwrap_or_else(|| panic!("{out}"));
    assert!(line.contains("COUNTEREXAMPLE rmap-complete"), "{line}");
    assert!(
        line.contains("(searched past the bound 4 to depth 5; deepening budget 300 s)"),
        "{line}"
    );
    assert!(
        line.contains("changed lines run: 0 of 0; 2 removed line(s) not counted"),
        "{line}"
    );
    assert!(!out.contains(": holds"), "{out}");
}

#[test]
fn compare_says_how_often_the_changed_code_ran() {
    let d = tempfile::tempdir().unwrap();
    let m = unreachable_change(d.path());
    let ms = m.to_str().unwrap();
    let (rc, out, err) = rmapcheck(&[
        "compare",
        "models/v7.3-rc4/baseline.rmap",
        ms,
        "--scope",
        "default",
        "--max-depth",
        "3",
        "--quiet",
    ]);
    assert_eq!(rc, 0, "{out}{err}");
    let line = out
        .lines()
        .find(|l| l.starts_with("changed code: "))
        .unwrap_or_else(|| panic!("{out}"));
    assert!(
        line.starts_with(&format!(
            "changed code: changed lines run: 1 of 2; never ran: {ms}:12"
        )),
        "{line}"
    );
    let times: u64 = line
        .rsplit("ran ")
        .next()
        .and_then(|r| r.split(' ').next())
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("{line}"));
    assert!(times > 0, "{line}");
}
