//! Regression scenarios from fuzz findings (`rmapcheck fuzz-decode` / `replay-crash` output
//! kept under tests/scenarios/), run with `rmapcheck run` semantics on each model.

use rmapcheck::cmd::run::run;
use std::path::Path;

fn rc(model: &str, scenario: &str) -> (i32, String) {
    let (mut out, mut err) = (Vec::new(), Vec::new());
    let rc = run(Path::new(model), Path::new(scenario), &mut out);
    let rc = rmapcheck::cmd::exit_status(rc, &mut err);
    (rc, String::from_utf8_lossy(&out).to_string())
}

#[test]
fn inplace_patch_adjust_middle_leaves_a_stale_subtree_last() {
    let s = "tests/scenarios/fuzz-inplace-adjust-middle-augment.toml";
    for v in ["v1", "v2"] {
        let (code, out) = rc(
            &format!("models/patches/inplace-pgoff-unchanged-{v}.rmap"),
            s,
        );
        assert_eq!(code, 1, "{v}: {out}");
        assert!(
            out.contains("augment: file tree of mapping#0"),
            "{v}: {out}"
        );
    }
    assert_eq!(rc("models/v7.3-rc4/baseline.rmap", s).0, 0);
    assert_eq!(rc("models/patches/split-skip-reinsert.rmap", s).0, 0);
}
