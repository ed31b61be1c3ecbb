//! Bad input gets a clear error with file:line:col and exit status 2, never a panic: a scope
//! file, an unknown scope or invariant, a proof file, a scenario, a model with an error.

use rmapcheck::cmd::check::args::ScopeOpts;
use rmapcheck::cmd::check::prove::ProveArgs;
use rmapcheck::cmd::check::{check, CheckArgs};
use rmapcheck::cmd::run::run;
use std::path::PathBuf;

fn tmp(name: &str, text: &str) -> crate::scratch::ScratchFile {
    crate::scratch::scratch_file("bad", name, text)
}

fn check_err(a: CheckArgs) -> String {
    let (mut out, mut err) = (Vec::new(), Vec::new());
    let r = check(&a, &mut out, &mut err);
    assert_eq!(rmapcheck::cmd::exit_status(r, &mut err), 2);
    String::from_utf8(err).unwrap()
}

#[test]
fn bad_scope_file_names_line_and_column() {
    let p = tmp("scope.toml", "max_depth = 3\npages = \"four\"\n");
    let e = check_err(CheckArgs {
        models: vec!["models/v7.3-rc4/baseline.rmap".into()],
        scope: ScopeOpts {
            name: Some(p.display().to_string()),
            ..Default::default()
        },
        ..Default::default()
    });
    assert!(e.contains("scope.toml:2:9:"), "{e}");
    let p = tmp("scope2.toml", "max_depth = 3\nbogus = 1\n");
    let e = check_err(CheckArgs {
        scope: ScopeOpts {
            name: Some(p.display().to_string()),
            ..Default::default()
        },
        ..Default::default()
    });
    assert!(e.contains("scope2.toml:2:1:") && e.contains("bogus"), "{e}");
}

#[test]
fn unknown_scope_and_invariant_are_named() {
    let e = check_err(CheckArgs {
        scope: ScopeOpts {
            name: Some("no-such-scope".into()),
            ..Default::default()
        },
        ..Default::default()
    });
    assert!(
        e.contains("no-such-scope") && e.contains("tiny, default"),
        "{e}"
    );
    let p = tmp("scope3.toml", "invariants = [\"tree-ordr\"]\n");
    let e = check_err(CheckArgs {
        scope: ScopeOpts {
            name: Some(p.display().to_string()),
            ..Default::default()
        },
        ..Default::default()
    });
    assert!(e.contains("unknown invariant \"tree-ordr\""), "{e}");
    let e = check_err(CheckArgs {
        scope: ScopeOpts {
            name: Some("tiny".into()),
            max_depth: Some(1000),
            ..Default::default()
        },
        ..Default::default()
    });
    assert!(e.contains("max_depth"), "{e}");
}

#[test]
fn model_errors_are_file_line_col_with_a_caret() {
    let p = tmp(
        "broken.rmap",
        "#include \"/work/none.rmap\"\nint f(void) { return g(1); }\n",
    );
    let e = check_err(CheckArgs {
        models: vec![p.clone()],
        scope: ScopeOpts {
            name: Some("tiny".into()),
            ..Default::default()
        },
        ..Default::default()
    });
    assert!(e.contains("broken.rmap:1:"), "{e}");
    let p = tmp("broken2.rmap", "int f(void) {\n  return g(1);\n}\n");
    let e = check_err(CheckArgs {
        models: vec![p.to_path_buf()],
        scope: ScopeOpts {
            name: Some("tiny".into()),
            ..Default::default()
        },
        ..Default::default()
    });
    assert!(e.contains("broken2.rmap:2:10:") && e.contains('^'), "{e}");
}

#[test]
fn bad_proof_file_and_scenario() {
    let p = tmp(
        "proof.toml",
        "model = \"x.rmap\"\n[[obligation]]\nmode = \"sideways\"\n",
    );
    let (mut out, mut err) = (Vec::new(), Vec::new());
    let a = ProveArgs {
        files: vec![p.to_path_buf()],
        ..Default::default()
    };
    let r = rmapcheck::cmd::check::prove::prove(&a, &mut out, &mut err);
    assert_eq!(rmapcheck::cmd::exit_status(r, &mut err), 2);
    let e = String::from_utf8(err).unwrap();
    assert!(e.contains("proof.toml:3:8:"), "{e}");
    let p = tmp(
        "proof2.toml",
        "model = \"x.rmap\"\n[[obligation]]\nmode = \"callers\"\n",
    );
    let (mut out, mut err) = (Vec::new(), Vec::new());
    let a = ProveArgs {
        files: vec![p.to_path_buf()],
        ..Default::default()
    };
    let r = rmapcheck::cmd::check::prove::prove(&a, &mut out, &mut err);
    assert_eq!(rmapcheck::cmd::exit_status(r, &mut err), 2);
    assert!(String::from_utf8(err)
        .unwrap()
        .contains("expect = \"holds\""));
    // an unknown invariant is named, with the known ones, at its place in the file
    for (name, text, at) in [
        (
            "proof3.toml",
            "model = \"x.rmap\"\n[[obligation]]\nmode = \"callers\"\nviolates = \"tree-ordr\"\n",
            "proof3.toml:4:12:",
        ),
        (
            "proof4.toml",
            "model = \"x.rmap\"\n[[obligation]]\nmode = \"callers\"\nexpect = \"holds\"\n\
             invariants = [\"augment\", \"augmnt\"]\n",
            "proof4.toml:5:26:",
        ),
    ] {
        let p = tmp(name, text);
        let (mut out, mut err) = (Vec::new(), Vec::new());
        let a = ProveArgs {
            files: vec![p.to_path_buf()],
            ..Default::default()
        };
        let r = rmapcheck::cmd::check::prove::prove(&a, &mut out, &mut err);
        assert_eq!(rmapcheck::cmd::exit_status(r, &mut err), 2);
        let e = String::from_utf8(err).unwrap();
        assert!(e.contains(at) && e.contains("unknown invariant"), "{e}");
        assert!(e.contains("rb-shape, tree-order, augment"), "{e}");
    }

    let s = tmp("scn.toml", "calls = [\"sys_munmap(mm#0, 1\"]\n[[mm]]\n");
    let (mut out, mut err) = (Vec::new(), Vec::new());
    let model = PathBuf::from("models/v7.3-rc4/baseline.rmap");
    let r = run(&model, &s, &mut out);
    assert_eq!(rmapcheck::cmd::exit_status(r, &mut err), 2);
    assert!(String::from_utf8(err).unwrap().contains("missing ')'"));
    let s = tmp("scn2.toml", "[[mm]]\n[[mm.vma]]\nstart = 4\nend = 2\n");
    let (mut out, mut err) = (Vec::new(), Vec::new());
    let r = run(&model, &s, &mut out);
    assert_eq!(rmapcheck::cmd::exit_status(r, &mut err), 2);
    assert!(String::from_utf8(err).unwrap().contains("empty range"));
}

/// A search that makes no call checks nothing: an error (exit 2), never `holds`.
#[test]
fn a_search_that_makes_no_call_is_an_error_not_holds() {
    let empty = tmp("empty.rmap", "/* no functions at all */\n");
    let no_entries = tmp(
        "noentry.rmap",
        "static int helper(int x)\n{\n\treturn x;\n}\n",
    );
    for m in [&empty, &no_entries] {
        let (mut out, mut err) = (Vec::new(), Vec::new());
        let a = CheckArgs {
            models: vec![m.to_path_buf().clone()],
            ..Default::default()
        };
        let rc = check(&a, &mut out, &mut err);
        let rc = rmapcheck::cmd::exit_status(rc, &mut err);
        let (out, err) = (
            String::from_utf8(out).unwrap(),
            String::from_utf8(err).unwrap(),
        );
        assert_eq!(rc, 2, "{out}{err}");
        assert!(err.contains("the search made no call"), "{err}");
        assert!(!out.contains("holds"), "{out}");
    }
    // entry points the model defines but that offer nothing from the initial world
    let p = tmp("entries.toml", "entries = [\"sys_exit\"]\n");
    let e = check_err(CheckArgs {
        models: vec!["models/v7.3-rc4/baseline.rmap".into()],
        scope: ScopeOpts {
            name: Some(p.display().to_string()),
            ..Default::default()
        },
        ..Default::default()
    });
    assert!(e.contains("made no call") && e.contains("sys_exit"), "{e}");
}

/// An entry point no record of the table names is an error at its place in the scope file.
#[test]
fn an_unknown_entry_point_in_a_scope_is_an_error_at_its_line() {
    let p = tmp(
        "unknown-entry.toml",
        "max_depth = 2\nentries = [\"sys_mmap\", \"sys_nothing\"]\n",
    );
    let e = check_err(CheckArgs {
        models: vec!["models/v7.3-rc4/baseline.rmap".into()],
        scope: ScopeOpts {
            name: Some(p.display().to_string()),
            ..Default::default()
        },
        ..Default::default()
    });
    let at = format!(
        "{}:2:1: entries: unknown entry point \"sys_nothing\"",
        p.display()
    );
    assert!(e.contains(&at), "{e}");
    assert!(
        e.contains("sys_mremap_expand"),
        "the known ones are listed: {e}"
    );
}

#[test]
fn scope_bounds_that_cannot_make_a_search_are_rejected() {
    for (text, key) in [
        ("max_vmas = 0\n", "max_vmas = 0"),
        ("max_states = 0\n", "max_states must be at least 1"),
        ("max_memory_mb = 0\n", "max_memory_mb = 0"),
        ("max_seconds = -1.0\n", "max_seconds = -1"),
        ("max_seconds = nan\n", "max_seconds = NaN"),
        ("max_seconds = 0.0\n", "max_seconds = 0"),
    ] {
        let p = tmp("bounds.toml", text);
        let e = check_err(CheckArgs {
            models: vec!["models/v7.3-rc4/baseline.rmap".into()],
            scope: ScopeOpts {
                name: Some(p.display().to_string()),
                ..Default::default()
            },
            ..Default::default()
        });
        assert!(
            e.contains("bounds.toml:1:1:") && e.contains(key),
            "{text}: {e}"
        );
    }
}

#[test]
fn html_is_the_c_searchs_format_not_the_models() {
    let e = check_err(CheckArgs {
        models: vec!["models/v7.3-rc4/baseline.rmap".into()],
        scope: ScopeOpts {
            max_depth: Some(1),
            ..Default::default()
        },
        format: rmapcheck::cmd::check::TraceFormat::Html,
        ..Default::default()
    });
    assert!(e.contains("--format html is for `check --kernel`"), "{e}");
    assert!(e.contains("rmapcheck report TRACE.json"), "{e}");
}

/// Every `check` flag that `--kernel` does not honour is refused beside it (exit 2, naming the
/// flag), never silently dropped; so is a second model. The refusal comes before any tree is
/// read, so no kernel tree is needed.
#[test]
fn check_kernel_refuses_every_flag_it_does_not_honour() {
    // (--mode narrows the C run to that mode's pass: tests/cli/cplan.rs)
    let cases: &[&[&str]] = &[
        &["--trace-dir", "/tmp/x"],
        &["--repro-dir", "/tmp/x"],
        &["--symmetry"],
        &["--file-symmetry"],
        &["--commute"],
        &["--engine", "reference"],
        &["--audit"],
        &["--reads"],
    ];
    for args in cases {
        let o = std::process::Command::new(env!("CARGO_BIN_EXE_rmapcheck"))
            .args(["check", "--kernel", "/no/such/tree"])
            .args(*args)
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {err}");
        assert!(err.contains(args[0]), "{args:?} named: {err}");
        assert!(err.contains("--kernel"), "{args:?}: {err}");
    }
    let o = std::process::Command::new(env!("CARGO_BIN_EXE_rmapcheck"))
        .args([
            "check",
            "--kernel",
            "/no/such/tree",
            "models/v7.3-rc4/baseline.rmap",
            "models/patches/split-skip-reinsert.rmap",
        ])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(err.contains("one model chooses"), "{err}");
}
