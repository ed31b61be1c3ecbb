//! `rmapcheck diff` and `rmapcheck new` end to end, through the binary: each reviewed patch
//! model's diff against the baseline names exactly the functions the patch overrides or adds;
//! the baseline against itself has no differences; bad input exits 2 naming the file; `new`
//! writes a model and a proof file, refuses to overwrite them or to take a bad name, and what
//! it writes loads, checks and diffs clean (the copied vma_complete() is the baseline's, so the
//! diff is `no differences`), with a posting header that `cmd::posting` accepts once filled in
//! (Author and Message-ID may be `unknown`), and next steps at `--scope contract`. Every patch
//! model's header passes that check. An interleaving proof obligation (the template has one)
//! says what it covered. Also Program::func_source on a hand-written model.

use rmapcheck::cmd::posting;
use std::path::{Path, PathBuf};
use std::process::Command;

const BASE: &str = "models/v7.3-rc4/baseline.rmap";

/// Runs the binary; exit status, stdout, stderr.
fn run(args: &[&str]) -> (i32, String, String) {
    let o = Command::new(env!("CARGO_BIN_EXE_rmapcheck"))
        .args(args)
        .output()
        .unwrap();
    (
        o.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&o.stdout).into_owned(),
        String::from_utf8_lossy(&o.stderr).into_owned(),
    )
}

/// A fresh directory under the system temp dir, removed when dropped.
struct TempDir(PathBuf);

impl TempDir {
    fn new(name: &str) -> TempDir {
        let d =
            std::env::temp_dir().join(format!("rmapcheck-diffnew-{}-{name}", std::process::id()));
        let _ = std::fs::remove_dir_all(&d);
        std::fs::create_dir_all(&d).unwrap();
        TempDir(d)
    }

    fn path(&self, rel: &str) -> String {
        self.0.join(rel).display().to_string()
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// The function names of the `+++ patch:` headers, and the summary line.
fn changed_functions(out: &str) -> (Vec<String>, String) {
    let names = out
        .lines()
        .filter_map(|l| l.strip_prefix("+++ patch: "))
        .map(|rest| {
            let head = rest.split("  (").next().unwrap();
            head.rsplit(' ').next().unwrap().to_string()
        })
        .collect();
    let summary = out.lines().last().unwrap_or("").to_string();
    (names, summary)
}

#[test]
fn diff_of_each_patch_names_what_it_changes() {
    // (patch, functions it replaces with a different text, functions it adds)
    let expect: &[(&str, &[&str], &[&str])] = &[
        (
            "inplace-pgoff-unchanged-v1",
            &[
                "__split_vma",
                "init_multi_vma_prep",
                "vma_complete",
                "vma_prepare",
                "vma_shrink",
            ],
            &[
                "anon_rmap_tree_update_inplace",
                "anon_rmap_tree_update_vma_inplace",
                "mapping_rmap_tree_update_inplace",
            ],
        ),
        (
            "inplace-pgoff-unchanged-v2",
            &[
                "__split_vma",
                "expand_downwards",
                "expand_upwards",
                "init_multi_vma_prep",
                "vma_complete",
                "vma_prepare",
                "vma_shrink",
            ],
            &[
                "anon_rmap_tree_post_update_vma",
                "anon_rmap_tree_pre_update_vma",
                "anon_rmap_tree_update_inplace",
                "mapping_rmap_tree_post_update",
                "mapping_rmap_tree_pre_update",
                "mapping_rmap_tree_update_inplace",
            ],
        ),
        (
            "skip-anon-file-rmap",
            &[
                "unlink_file_vma",
                "unlink_file_vma_batch_add",
                "vma_link_file",
            ],
            &[],
        ),
        (
            "split-skip-reinsert",
            &["vma_complete", "vma_prepare"],
            &["vma_split_keeps_rmap_key"],
        ),
    ];
    for (patch, replaced, added) in expect {
        let file = format!("models/patches/{patch}.rmap");
        let (code, out, err) = run(&["diff", &file]);
        assert_eq!(code, 0, "{file}: {err}");
        let (names, summary) = changed_functions(&out);
        let mut want: Vec<String> = replaced
            .iter()
            .chain(*added)
            .map(|s| s.to_string())
            .collect();
        want.sort();
        assert_eq!(names, want, "{file}:\n{out}");
        for f in *replaced {
            // mm/vma.c's functions live in lib/vma.rmap, the stack's in lib/stack.rmap
            let h = format!("--- base: mm/vma.c {f}  (models/v7.3-rc4/lib/");
            assert!(out.contains(&h), "{file}: no {h:?}\n{out}");
            let h = format!("+++ patch: mm/vma.c {f}  ({file}:");
            assert!(out.contains(&h), "{file}: no {h:?}\n{out}");
        }
        for f in *added {
            // the header names the kernel function from the patch's `// kernel:` line
            let h = format!(" {f}  (not defined)\n+++ patch: ");
            assert!(out.contains(&h), "{file}: no {h:?}\n{out}");
            assert!(
                out.contains(&format!(" {f}  ({file}:")),
                "{file}: {f}\n{out}"
            );
        }
        assert!(
            summary.starts_with(&format!(
                "{} functions differ, {} added, 0 removed, ",
                replaced.len(),
                added.len()
            )) && summary.ends_with(" unchanged"),
            "{file}: {summary}"
        );
        assert!(!out.contains("no differences"), "{file}");
    }
    // every patch model under models/patches diffs (also ones added later)
    for e in std::fs::read_dir("models/patches").unwrap().flatten() {
        let p = e.path().display().to_string();
        if p.ends_with(".rmap") {
            let (code, out, err) = run(&["diff", &p]);
            assert_eq!(code, 0, "{p}: {err}");
            assert!(out.trim_end().ends_with("unchanged"), "{p}: {out}");
        }
    }
}

#[test]
fn diff_hunks_are_unified_with_file_line_numbers() {
    let (code, out, _) = run(&["diff", "models/patches/split-skip-reinsert.rmap"]);
    assert_eq!(code, 0);
    // vma_prepare() lost the remove of vp->vma: one line out, a comment in, 3 lines around
    let hunk = "\t\tflush_dcache_mmap_lock(vp->mapping);\n\
                -\t\tmapping_rmap_tree_remove(vp->vma, vp->mapping);\n\
                +\t\t/* vp->vma is left in place; vma_complete() re-keys it when it has to. */\n\
                \x20\t\tif (vp->adj_next)\n";
    assert!(out.contains(hunk), "{out}");
    // every hunk header is @@ -A[,B] +C[,D] @@ and the added helper starts at its file line
    for l in out.lines().filter(|l| l.starts_with("@@")) {
        let parts: Vec<&str> = l.split(' ').collect();
        assert_eq!(parts.len(), 4, "{l}");
        assert!(parts[1].starts_with('-') && parts[2].starts_with('+') && parts[3] == "@@");
    }
    let text = std::fs::read_to_string("models/patches/split-skip-reinsert.rmap").unwrap();
    let line = text
        .lines()
        .position(|l| l.starts_with("static bool vma_split_keeps_rmap_key("))
        .unwrap()
        + 1;
    assert!(
        out.contains(&format!("@@ -0,0 +{line},11 @@\n+static bool")),
        "{out}"
    );
}

#[test]
fn baseline_against_itself_has_no_differences() {
    for args in [vec!["diff", BASE], vec!["diff", "models/v7.3-rc4", BASE]] {
        let (code, out, err) = run(&args);
        assert_eq!(code, 0, "{err}");
        let lines: Vec<&str> = out.lines().collect();
        assert_eq!(lines.len(), 2, "{out}");
        assert_eq!(lines[0], "no differences");
        assert!(
            lines[1].starts_with("0 functions differ, 0 added, 0 removed, ")
                && lines[1].ends_with(" unchanged"),
            "{out}"
        );
    }
}

#[test]
fn diff_rejects_bad_input_naming_it() {
    let (code, out, err) = run(&["diff", "models/patches/no-such-patch.rmap"]);
    assert_eq!(code, 2);
    assert!(out.is_empty());
    assert!(err.contains("models/patches/no-such-patch.rmap"), "{err}");
    let (code, _, err) = run(&[
        "diff",
        "models/patches/split-skip-reinsert.rmap",
        "nope.rmap",
    ]);
    assert_eq!(code, 2);
    assert!(err.contains("nope.rmap"), "{err}");
    // a directory with several models is ambiguous
    let (code, _, err) = run(&["diff", "models/patches"]);
    assert_eq!(code, 2);
    assert!(err.contains("name one"), "{err}");
    // a model that does not load: its diagnostics
    let t = TempDir::new("bad");
    let bad = t.path("bad.rmap");
    std::fs::write(
        &bad,
        "int f(struct vm_area_struct *v)\n{\n\treturn v->no_such_field;\n}\n",
    )
    .unwrap();
    let (code, _, err) = run(&["diff", &bad]);
    assert_eq!(code, 2);
    assert!(err.contains(&format!("{bad}:3:")), "{err}");
}

#[test]
fn new_writes_a_model_that_loads_checks_and_diffs_clean() {
    let t = TempDir::new("new");
    let (dir, proofs) = (t.path("patches"), t.path("proofs"));
    let new = |name: &str| run(&["new", name, "--dir", &dir, "--proofs", &proofs]);
    let (code, out, err) = new("demo-patch_1");
    assert_eq!(code, 0, "{err}");
    let model = format!("{dir}/demo-patch_1.rmap");
    let proof = format!("{proofs}/patch-demo-patch_1.toml");
    assert!(out.contains(&format!("wrote {model}\n")), "{out}");
    assert!(out.contains(&format!("wrote {proof}\n")), "{out}");
    // the next steps name the contract scope (offsets on), as the proof file does
    assert!(
        out.contains(&format!("rmapcheck check {model} --scope contract\n")),
        "{out}"
    );
    assert!(
        out.contains(&format!("rmapcheck check {model} --scope walkers\n")),
        "{out}"
    );
    assert!(!out.contains("--mode contract"), "{out}");

    // the model: header template, include of the baseline, the vma_complete() copy
    let text = std::fs::read_to_string(&model).unwrap();
    for want in [
        "Subject:    SUBJECT",
        "Author:     ",
        "Date:       ",
        "Message-ID: <",
        "or unknown (why)",
        "Replaces: vma_complete()",
        "#include \"",
        "baseline.rmap\"\n",
        "static void vma_complete(struct vma_prepare *vp, struct mm_struct *mm)\n{\n",
    ] {
        assert!(text.contains(want), "no {want:?} in\n{text}");
    }
    // the header is the template's until filled in; Author and Message-ID may stay unknown
    let unfilled = posting::check(&text);
    assert_eq!(unfilled.len(), 4, "{unfilled:?}");
    assert!(
        unfilled.iter().all(|b| b.contains("placeholder")),
        "{unfilled:?}"
    );
    let filled = text
        .replace(
            "SUBJECT of the posting, as its Subject: header gives it",
            "[PATCH] mm/vma: a change",
        )
        .replace("AUTHOR NAME <address>, or unknown (why)", "unknown")
        .replace(
            "DATE of the posting, as its Date: header gives it",
            "Mon, 30 Nov 2026 10:00:00 +0000",
        )
        .replace(
            "<MESSAGE-ID of the posting>, or unknown (why)",
            "unknown (only quoted in a reply)",
        );
    assert_eq!(posting::check(&filled), Vec::<String>::new());
    assert!(text.contains("--scope contract"), "{text}");
    // the proof file: the model, callers and contract obligations expected to hold
    let pf = rmapcheck::explore::proof::ProofFile::parse(&std::fs::read_to_string(&proof).unwrap())
        .unwrap();
    assert_eq!(pf.model, Path::new(&model));
    let modes: Vec<String> = pf.obligation.iter().map(|o| o.mode.to_string()).collect();
    assert!(modes.contains(&"callers".into()) && modes.contains(&"contract".into()));
    assert!(pf
        .obligation
        .iter()
        .all(|o| o.expect.as_deref() == Some("holds")));
    assert_eq!(
        (pf.obligation[0].scope.as_str(), modes[0].as_str()),
        ("default", "callers")
    );

    // it loads and holds
    let (code, out, err) = run(&["check", &model, "--scope", "tiny", "--quiet"]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(out.contains("holds"), "{out}");
    // and is the baseline until edited: no header, no hunk
    let (code, out, _) = run(&["diff", &model]);
    assert_eq!(code, 0);
    assert!(
        out.starts_with("no differences\n0 functions differ"),
        "{out}"
    );
    assert!(!out.contains("---") && !out.contains("@@"), "{out}");

    // an edit of the copy shows as vma_complete() and nothing else
    let edited = text.replacen(
        "\t\tmapping_rmap_tree_insert(vp->vma, vp->mapping);\n",
        "\t\tmapping_rmap_tree_insert(vp->vma, vp->mapping); /* edited */\n",
        1,
    );
    assert_ne!(edited, text);
    std::fs::write(&model, edited).unwrap();
    let (code, out, _) = run(&["diff", &model]);
    assert_eq!(code, 0);
    assert_eq!(changed_functions(&out).0, ["vma_complete"], "{out}");
    assert!(out.contains("/* edited */"), "{out}");
    assert!(out.trim_end().ends_with(" unchanged") && out.contains("1 functions differ, 0 added"));

    // nothing is overwritten: neither file, even when only one exists
    let (code, _, err) = new("demo-patch_1");
    assert_eq!(code, 2);
    assert!(err.contains("exists"), "{err}");
    std::fs::remove_file(&model).unwrap();
    let (code, _, err) = new("demo-patch_1");
    assert_eq!(code, 2, "{err}");
    assert!(err.contains(&proof), "{err}");
    assert!(
        !Path::new(&model).exists(),
        "model written although the proof exists"
    );
}

#[test]
fn new_rejects_bad_names_and_bad_bases() {
    let t = TempDir::new("names");
    let (dir, proofs) = (t.path("patches"), t.path("proofs"));
    for bad in [
        "Upper",
        "-dash",
        "_under",
        "has space",
        "dot.ted",
        "sl/ash",
        "",
    ] {
        let (code, _, err) = run(&["new", "--dir", &dir, "--proofs", &proofs, "--", bad]);
        assert_eq!(code, 2, "{bad:?}");
        assert!(err.contains("[a-z0-9][a-z0-9_-]*"), "{bad:?}: {err}");
    }
    let missing = t.path("missing.rmap");
    let (code, _, err) = run(&[
        "new", "x", "--base", &missing, "--dir", &dir, "--proofs", &proofs,
    ]);
    assert_eq!(code, 2);
    assert!(err.contains(&missing), "{err}");
    assert!(!Path::new(&dir).join("x.rmap").exists());
}

#[test]
fn func_source_gives_whole_definition_lines() {
    let src = "#define N 3\n\n/* comment above */\nstatic struct vm_area_struct *\nf(struct vm_area_struct *v)\n{\n\tif (v) {\n\t\treturn v; /* { */\n\t}\n\treturn NULL;\n} /* after */\nint g(int a) { return a + N; }\n";
    let prog =
        rmapcheck::lang::load_str("m.rmap", src, Path::new("."), &rmapcheck::world::schema())
            .unwrap();
    let f = prog.func_source(prog.function("f").unwrap()).unwrap();
    assert_eq!(f.line, 4);
    assert!(
        f.text.starts_with("static struct vm_area_struct *\nf("),
        "{}",
        f.text
    );
    assert!(
        f.text.ends_with("\treturn NULL;\n} /* after */\n"),
        "{}",
        f.text
    );
    let g = prog.func_source(prog.function("g").unwrap()).unwrap();
    assert_eq!((g.line, g.text), (12, "int g(int a) { return a + N; }\n"));
}

/// Every patch model names its posting: Subject and Date, and an Author and a Message-ID or
/// `unknown (why)` where the copy we have does not give them.
#[test]
fn every_patch_model_names_its_posting() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("models/patches");
    let mut seen = 0;
    for e in std::fs::read_dir(&dir).unwrap().flatten() {
        let p = e.path();
        if p.extension().is_some_and(|x| x == "rmap") {
            seen += 1;
            let bad = posting::check(&std::fs::read_to_string(&p).unwrap());
            assert!(bad.is_empty(), "{}: {bad:?}", p.display());
        }
    }
    assert!(seen >= 3, "only {seen} patch models");
}

/// An interleaving obligation's certificate says what it explored (the writer, the scenario,
/// the walker sets, the invariants) and counts interleaving states, instead of a scope line and
/// a depth that describe no part of it.
#[test]
fn an_interleaving_obligation_says_what_it_covered() {
    let t = TempDir::new("ileave");
    let f = t.path("ob.toml");
    std::fs::write(
        &f,
        "model = \"models/v7.3-rc4/baseline.rmap\"\n\
         [[obligation]]\nmode = \"callers\"\nexpect = \"holds\"\n\
         [obligation.interleave]\nops = \"examples/interleave/munmap-middle.toml\"\n\
         walkers = [\"rmap_walk_file(mapping#0, 105)\"]\n",
    )
    .unwrap();
    let (code, out, err) = run(&["prove", &f]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(
        out.contains(
            "covered    every interleaving of sys_munmap(mm#0, 3, 5) (the last call of \
             examples/interleave/munmap-middle.toml) against 1 walker set(s): \
             rmap_walk_file(mapping#0, 105); invariants all\n"
        ),
        "{out}"
    );
    assert!(out.contains(" interleaving states ("), "{out}");
    assert!(
        !out.contains("scope default") && !out.contains("depth 0"),
        "{out}"
    );
}
