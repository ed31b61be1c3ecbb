//! `check --commute` and `check --file-symmetry`: the scope line says so, a counterexample
//! found with either reduction is written as a trace that `replay` (which never reduces)
//! reproduces, and the combinations they cannot serve exit 2 with a message.

use super::bin::rmapcheck_joined as rmapcheck;

/// Check `model` with `flags`, expecting `invariant`, and replay the trace without them.
fn replays_unreduced(model: &str, flags: &[&str], named: &str, invariant: &str) {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path().to_str().unwrap();
    let mut args = vec!["check", model, "--quiet", "--trace-dir", d];
    args.extend(flags);
    let (rc, out) = rmapcheck(&args);
    assert_eq!(rc, 1, "{out}");
    assert!(out.contains(named), "{out}");
    assert!(
        out.contains(&format!("COUNTEREXAMPLE {invariant}")),
        "{out}"
    );
    let stem = std::path::Path::new(model)
        .file_stem()
        .unwrap()
        .to_str()
        .unwrap();
    let trace = dir.path().join(format!("{stem}.trace.json"));
    let (rc, out) = rmapcheck(&["replay", trace.to_str().unwrap()]);
    assert_eq!(rc, 1, "{out}");
    assert!(out.contains(&format!("reproduced: {invariant}")), "{out}");
}

#[test]
fn a_counterexample_found_with_commute_replays_without_it() {
    // the mutant fails after a fork, where two mms make calls that may commute
    let model = "models/mutants/fork-no-anon-vma-clone.rmap";
    replays_unreduced(model, &["--commute"], ", commute on", "rmap-complete");
}

#[test]
fn a_counterexample_found_with_the_file_symmetry_replays_without_it() {
    let dir = tempfile::tempdir().unwrap();
    let scope = dir.path().join("two-files.toml");
    std::fs::write(&scope, "files = 2\n").unwrap();
    let s = scope.to_str().unwrap();
    let model = "models/mutants/remap-no-link-file.rmap";
    let flags = ["--scope", s, "--file-symmetry"];
    replays_unreduced(model, &flags, ", file symmetry on", "membership");
}

#[test]
fn the_reductions_refuse_what_they_cannot_serve() {
    let base = "models/v7.3-rc4/baseline.rmap";
    let refused = [
        (&["--commute", "--simulate", "3"][..], "no --commute"),
        (
            &["--file-symmetry", "--simulate", "3"][..],
            "no --file-symmetry",
        ),
        (
            &["--commute", "--scope", "walkers"][..],
            "commute: not with walkers",
        ),
        (
            &["--file-symmetry", "--scope", "walkers"][..],
            "file_symmetry: not with walkers",
        ),
        (
            &["--commute", "--symmetry"][..],
            "commute: not with symmetry",
        ),
        (&["--commute", "--workers", "2"][..], "no --commute"),
    ];
    for (flags, why) in refused {
        let mut args = vec!["check", base, "--quiet"];
        args.extend(flags);
        let (rc, out) = rmapcheck(&args);
        assert_eq!(rc, 2, "{flags:?}: {out}");
        assert!(out.contains(why), "{flags:?}: {out}");
    }
}

#[test]
fn the_default_scope_line_names_neither() {
    let base = "models/v7.3-rc4/baseline.rmap";
    let (rc, out) = rmapcheck(&["check", base, "--max-depth", "1", "--quiet"]);
    assert_eq!(rc, 0, "{out}");
    assert!(
        !out.contains("commute") && !out.contains("file symmetry"),
        "{out}"
    );
}
