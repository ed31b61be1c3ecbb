//! `rmapcheck drift`: the model's kernel references against a (small, made-up) kernel tree:
//! a function in place, one that moved to another file, one gone, the release from the
//! Makefile, and the exit codes.

use crate::scratch::scratch;
use std::process::Command;

fn write(dir: &std::path::Path, rel: &str, text: &str) {
    let p = dir.join(rel);
    std::fs::create_dir_all(p.parent().unwrap()).unwrap();
    std::fs::write(p, text).unwrap();
}

#[test]
fn drift_reports_in_place_moved_and_gone() {
    let k = scratch("drift");
    write(
        &k,
        "Makefile",
        "VERSION = 7\nPATCHLEVEL = 3\nSUBLEVEL = 0\nEXTRAVERSION = -rc4\n",
    );
    // vma_complete where the model says; find_vma_prev moved from mm/mmap.c to mm/vma.c
    write(
        &k,
        "mm/vma.c",
        "/* vma_complete() is called ... */\n\
         static void vma_complete(struct vma_prepare *vp);\n\
         static void vma_complete(struct vma_prepare *vp, struct vma_iterator *vmi,\n\
         \t\t\t struct mm_struct *mm)\n{\n\tvma_complete_helper(vp);\n}\n\
         struct vm_area_struct *find_vma_prev(struct mm_struct *mm, unsigned long addr,\n\
         \t\t\tstruct vm_area_struct **pprev)\n{\n}\n",
    );
    write(&k, "mm/mmap.c", "/* nothing here any more */\n");
    let o = Command::new(env!("CARGO_BIN_EXE_rmapcheck"))
        .args(["drift", "models/v7.3-rc4/baseline.rmap", "--kernel"])
        .arg(&*k)
        .output()
        .unwrap();
    let out = String::from_utf8_lossy(&o.stdout);
    assert_eq!(o.status.code(), Some(1), "{out}");
    assert!(out.contains("(release 7.3.0-rc4)"), "{out}");
    assert!(
        out.lines()
            .any(|l| l.starts_with("ok     vma_complete ") && l.contains("mm/vma.c:3 vma_complete")),
        "{out}"
    );
    assert!(
        out.lines().any(|l| l.starts_with("MOVED  find_vma_prev ")
            && l.contains("mm/mmap.c -> mm/vma.c:8 find_vma_prev")),
        "{out}"
    );
    assert!(
        out.lines()
            .any(|l| l.starts_with("GONE   vma_prepare ") && l.contains("no definition found")),
        "{out}"
    );
    assert!(out.contains("1 in place, 1 moved,"), "{out}");
    // bad input
    let o = Command::new(env!("CARGO_BIN_EXE_rmapcheck"))
        .args(["drift", "--kernel", "/no/such/tree"])
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("not a directory"));
}

#[test]
fn drift_compares_the_text_token_by_token() {
    let k = scratch("drift-text");
    // a kernel-style file of our own: one function as the model has it (other layout and
    // comments), one changed, one the model marks transcribed and that changed too
    write(
        &k,
        "mm/demo.c",
        "/* demo */\nint same_fn(int a)\n{\n\t/* a comment */\n\treturn a +\n\t\t1;\n}\n\n\
         int changed_fn(int a)\n{\n\treturn a - 1;\n}\n\n\
         static int copied_fn(int a)\n{\n\tif (a)\n\t\treturn 2;\n\treturn 0;\n}\n",
    );
    let m = k.join("demo.rmap");
    let model = "// kernel: mm/demo.c same_fn\nint same_fn(int a) { return a + 1; }\n\
                 // kernel: mm/demo.c changed_fn\nint changed_fn(int a) { return a + 1; }\n";
    std::fs::write(&m, model).unwrap();
    let run = |model: &std::path::Path, extra: &[&str]| {
        let o = Command::new(env!("CARGO_BIN_EXE_rmapcheck"))
            .arg("drift")
            .arg(model)
            .arg("--kernel")
            .arg(&*k)
            .args(extra)
            .output()
            .unwrap();
        (
            o.status.code(),
            String::from_utf8_lossy(&o.stdout).to_string(),
        )
    };
    let (code, out) = run(&m, &[]);
    // a difference in a function written in our own words is reported, not an error
    assert_eq!(code, Some(0), "{out}");
    assert!(
        out.lines()
            .any(|l| l.starts_with("ok     same_fn ") && l.ends_with(": in sync")),
        "{out}"
    );
    assert!(
        out.lines()
            .any(|l| l.starts_with("ok     changed_fn ") && l.contains(": differs, 2 of ")),
        "{out}"
    );
    assert!(!out.contains("+-"), "no diff without --diff: {out}");
    let (_, out) = run(&m, &["--diff"]);
    assert!(out.contains("-+\n") && out.contains("+-\n"), "{out}");
    // a transcribed function that no longer matches is drift: exit 1, diff printed
    let m2 = k.join("demo2.rmap");
    std::fs::write(
        &m2,
        "// kernel: mm/demo.c copied_fn transcribed\n\
         static int copied_fn(int a)\n{\n\tif (a)\n\t\treturn 1;\n\treturn 0;\n}\n",
    )
    .unwrap();
    let (code, out) = run(&m2, &[]);
    assert_eq!(code, Some(1), "{out}");
    assert!(out.contains("(marked transcribed)"), "{out}");
    assert!(out.contains("-1\n+2\n"), "{out}");
    assert!(out.contains("1 of them marked transcribed"), "{out}");
}

/// Opt-in: `RMAPCHECK_KERNEL_SRC=/path/to/linux cargo test --release --test cli drift_on_a_real`
/// runs drift against a real kernel tree. Without the variable the test says so and passes
/// (no kernel tree is on the CI machine); with it, every model function must be found or be
/// one the report explains (macro-generated), and the report must be well formed.
#[test]
fn drift_on_a_real_kernel_tree_when_given() {
    let Some(src) = std::env::var_os("RMAPCHECK_KERNEL_SRC") else {
        eprintln!("RMAPCHECK_KERNEL_SRC not set: drift against a real kernel tree not run");
        return;
    };
    let o = Command::new(env!("CARGO_BIN_EXE_rmapcheck"))
        .args(["drift", "models/v7.3-rc4/baseline.rmap", "--kernel"])
        .arg(&src)
        .output()
        .unwrap();
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(matches!(o.status.code(), Some(0 | 1)), "{out}");
    assert!(
        out.starts_with("drift of ") && out.contains("(release "),
        "{out}"
    );
    let found = out
        .lines()
        .filter(|l| l.starts_with("ok ") || l.starts_with("MOVED "))
        .count();
    assert!(
        found > 20,
        "only {found} model functions found in the tree:\n{out}"
    );
    assert!(out.contains("text: "), "{out}");
}

/// The model's stand-ins for kernel helpers: a transcribed function that calls the model's
/// builtins (`page_table_lock(mm)`, `anon_rmap_tree_insert(avc, anon_vma)`) is in sync with
/// kernel-style C that spells them `spin_lock(&mm->page_table_lock)` and
/// `anon_vma_interval_tree_insert(avc, &anon_vma->rb_root)`, once the table is applied; a real
/// change is still reported; a bad table is bad input.
#[test]
fn drift_applies_the_stand_ins_before_the_token_diff() {
    let k = scratch("drift-stand-ins");
    write(
        &k,
        "mm/rmap.c",
        "/* our own fixture */\nint link_it(struct vm_area_struct *vma, struct anon_vma_chain *avc,\n\
         \t    struct anon_vma *anon_vma)\n{\n\tstruct mm_struct *mm = vma->vm_mm;\n\n\
         \tspin_lock(&mm->page_table_lock);\n\tif (!vma->anon_vma) {\n\
         \t\tvma->anon_vma = anon_vma;\n\
         \t\tanon_vma_interval_tree_insert(avc, &anon_vma->rb_root);\n\t}\n\
         \tspin_unlock(&mm->page_table_lock);\n\treturn 0;\n}\n\n\
         int unlink_it(struct anon_vma_chain *avc, struct anon_vma *anon_vma)\n{\n\
         \tanon_vma_interval_tree_remove(avc, &anon_vma->rb_root);\n\treturn 1;\n}\n",
    );
    let dir = k.join("model");
    std::fs::create_dir_all(&dir).unwrap();
    let m = dir.join("m.rmap");
    std::fs::write(
        &m,
        "// kernel: mm/rmap.c link_it transcribed\n\
         int link_it(struct vm_area_struct *vma, struct anon_vma_chain *avc,\n\
         \t    struct anon_vma *anon_vma)\n{\n\tstruct mm_struct *mm = vma->vm_mm;\n\n\
         \tpage_table_lock(mm);\n\tif (!vma->anon_vma) {\n\t\tvma->anon_vma = anon_vma;\n\
         \t\tanon_rmap_tree_insert(avc, anon_vma);\n\t}\n\tpage_table_unlock(mm);\n\
         \treturn 0;\n}\n\
         // kernel: mm/rmap.c unlink_it transcribed\n\
         int unlink_it(struct anon_vma_chain *avc, struct anon_vma *anon_vma)\n{\n\
         \tanon_rmap_tree_remove(avc, anon_vma);\n\treturn 0;\n}\n",
    )
    .unwrap();
    let run = |extra: &[&std::ffi::OsStr]| {
        let o = Command::new(env!("CARGO_BIN_EXE_rmapcheck"))
            .arg("drift")
            .arg(&m)
            .arg("--kernel")
            .arg(&*k)
            .args(extra)
            .output()
            .unwrap();
        (
            o.status.code(),
            String::from_utf8_lossy(&o.stdout).to_string(),
            String::from_utf8_lossy(&o.stderr).to_string(),
        )
    };
    // no table beside the model: both transcribed functions differ
    let (code, out, _) = run(&[]);
    assert_eq!(code, Some(1), "{out}");
    assert!(out.contains("stand-ins: none"), "{out}");
    assert!(out.contains("2 of them marked transcribed"), "{out}");
    // the repository's table, beside the model: link_it is in sync, unlink_it's real change
    // (return 1 against return 0) is all that is left of it
    std::fs::copy("models/v7.3-rc4/stand-ins.toml", dir.join("stand-ins.toml")).unwrap();
    let (code, out, _) = run(&[]);
    assert_eq!(code, Some(1), "{out}");
    assert!(out.contains("stand-ins: 15 from "), "{out}");
    assert!(
        out.lines()
            .any(|l| l.starts_with("ok     link_it ") && l.ends_with(": in sync")),
        "{out}"
    );
    assert!(
        out.lines().any(|l| l.starts_with("ok     unlink_it ")
            && l.contains(": differs, 2 of ")
            && l.contains("(marked transcribed)")),
        "{out}"
    );
    assert!(out.contains("-0\n+1\n"), "{out}");
    assert!(out.contains("4 stand-in calls rewritten"), "{out}");
    // a table given on the command line wins; a bad one is bad input with its position
    let bad = k.join("bad.toml");
    std::fs::write(
        &bad,
        "[[stand_in]]\nmodel = \"f($a)\"\nkernel = \"g($b)\"\n",
    )
    .unwrap();
    let (code, _, err) = run(&["--stand-ins".as_ref(), bad.as_os_str()]);
    assert_eq!(code, Some(2), "{err}");
    assert!(
        err.contains("bad.toml:2:") && err.contains("$b does not appear"),
        "{err}"
    );
    std::fs::write(&bad, "[[stand_in]]\nmodel = 1\n").unwrap();
    let (code, _, err) = run(&["--stand-ins".as_ref(), bad.as_os_str()]);
    assert_eq!(code, Some(2), "{err}");
    assert!(err.contains("bad.toml:2:"), "{err}");
}
