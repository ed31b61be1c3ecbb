//! The C fuzz target's counterexamples run again: `rmapcheck creplay` on the calls file the
//! target wrote when it found the deep C mutant `cmutants/deep/crowded-mm-no-reinsert` (a
//! failure no search of depth 6 can reach) fails the same check at the same call on the mutant
//! and passes every check on the unpatched tree; a calls file that does not parse is bad input;
//! the target's first finding in CI, a bug of the glue's, passes.
//! The fuzz target itself, run from an empty corpus until it finds that mutant, is the ignored
//! test at the end (it builds the target with cargo-fuzz: minutes).
//!
//! The tree comes from `RMAPCHECK_KERNEL_SRC` or the fetch script's cache (`kernel_tree`).

use super::kernel_tree::tree;
use std::path::{Path, PathBuf};
use std::process::Command;

fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

const CALLS: &str = "tests/fixtures/cops/crowded-mm.calls";
const MUTANT: &str = "cmutants/deep/crowded-mm-no-reinsert.toml";

fn creplay(calls: &Path, kernel: &Path, extra: &[&str]) -> (i32, String, String) {
    let o = Command::new(env!("CARGO_BIN_EXE_rmapcheck"))
        .current_dir(repo())
        .arg("creplay")
        .arg(calls)
        .arg("--kernel")
        .arg(kernel)
        .args(extra)
        .output()
        .unwrap();
    (
        o.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&o.stdout).into_owned(),
        String::from_utf8_lossy(&o.stderr).into_owned(),
    )
}

#[test]
fn the_fuzzers_calls_file_fails_on_the_deep_mutant_and_passes_on_the_tree() {
    let Some(t) = tree() else { return };
    let (rc, out, err) = creplay(Path::new(CALLS), &t, &["--c-mutant", MUTANT]);
    assert_eq!(rc, 1, "{out}{err}");
    assert!(
        out.contains("applied: c-mutant crowded-mm-no-reinsert"),
        "{out}"
    );
    assert!(
        out.contains("COUNTEREXAMPLE in the C: tree-precondition after call 15 of 15"),
        "{out}"
    );
    assert!(
        out.contains("mapping_rmap_tree_remove: the node (start 47) is not in the tree"),
        "{out}"
    );
    assert!(out.contains("mm#0 map_count 13"), "{out}");
    let (rc, out, err) = creplay(Path::new(CALLS), &t, &[]);
    assert_eq!(rc, 0, "{out}{err}");
    assert!(
        out.contains("passed: every check after each of the 15 calls (checked on the C: rb-shape"),
        "{out}"
    );
}

/// The target's first finding in CI was the harness's own: exit freed every VMA while the
/// glue's table of write-locked VMAs still held them, and the mmap_lock release read each one
/// (AddressSanitizer: heap-use-after-free in glue_vma_mm). A freed VMA now leaves the glue's
/// tables first, so the same calls pass every check on the unpatched tree.
#[test]
fn a_vma_freed_while_write_locked_leaves_the_glues_tables() {
    let Some(t) = tree() else { return };
    let calls = Path::new("tests/fixtures/cops/exit-frees-write-locked.calls");
    let (rc, out, err) = creplay(calls, &t, &[]);
    assert_eq!(rc, 0, "{out}{err}");
    assert!(
        out.contains("passed: every check after each of the 20 calls"),
        "{out}"
    );
}

#[test]
fn a_calls_file_that_does_not_parse_is_bad_input_naming_its_line() {
    let d = tempfile::tempdir().unwrap();
    let f = d.path().join("bad.calls");
    std::fs::write(
        &f,
        "# a comment\nsys_mmap(mm#0, file#0, 0, 2, 0, false)\nsys_munmap(mm#0,\n",
    )
    .unwrap();
    let (rc, out, err) = creplay(&f, d.path(), &[]);
    assert_eq!(rc, 2, "{out}{err}");
    assert!(err.contains("rmapcheck creplay: "), "{err}");
    assert!(err.contains("bad.calls: line 3: "), "{err}");
    assert!(!err.contains("panicked"), "{err}");
    std::fs::write(&f, "sys_mmap(mm#0, file#0, 3, 1, 0, false)\n").unwrap();
    let Some(t) = tree() else { return };
    let (rc, _, err) = creplay(&f, &t, &[]);
    assert_eq!(rc, 2, "a call the model refuses: {err}");
    assert!(
        err.contains("bad.calls: sys_mmap(mm#0, file#0, 3, 1, 0, false): empty range"),
        "{err}"
    );
}

/// The C fuzz target from an empty corpus finds the deep mutant, and its calls file replays.
/// Run: `cargo test --release --test cli -- --ignored the_c_fuzz_target_finds` (needs
/// cargo-fuzz and a tree; it builds the target, then fuzzes for at most 60 s, the C target's
/// budget in CI, with CI's options).
#[test]
#[ignore]
fn the_c_fuzz_target_finds_the_deep_mutant_from_an_empty_corpus() {
    let t = tree().expect("a kernel tree");
    let work = tempfile::tempdir().unwrap();
    let corpus = work.path().join("corpus");
    let calls = work.path().join("calls");
    std::fs::create_dir_all(&corpus).unwrap();
    let fuzz = |args: &[&str]| {
        Command::new("cargo")
            .current_dir(repo().join("fuzz"))
            .env("RMAPCHECK_KERNEL_SRC", &t)
            .env("RMAPCHECK_C_MUTANT", repo().join(MUTANT))
            .env("RMAPCHECK_CALLS_DIR", &calls)
            .args(["fuzz", "run", "-s", "none", "cops"])
            .arg(&corpus)
            .arg("--")
            .args(args)
            .output()
            .unwrap()
    };
    // build the target and the mutant's harness first, so that the time below is fuzzing
    let o = fuzz(&["-runs=0"]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let t0 = std::time::Instant::now();
    // CI's budget for the target (.ci/run's COPS_SECONDS) and its options
    let o = fuzz(&[
        "-max_total_time=60",
        "-seed=1",
        "-len_control=0",
        "-max_len=256",
        &format!("-artifact_prefix={}/", work.path().display()),
    ]);
    let secs = t0.elapsed().as_secs_f64();
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(!o.status.success(), "no finding in {secs:.0} s");
    let found: Vec<PathBuf> = std::fs::read_dir(&calls)
        .unwrap_or_else(|e| panic!("no calls file ({e}):\n{err}"))
        .map(|e| e.unwrap().path())
        .collect();
    assert_eq!(found.len(), 1, "{found:?}");
    let text = std::fs::read_to_string(&found[0]).unwrap();
    let n = text.lines().filter(|l| !l.starts_with('#')).count();
    eprintln!("the C fuzz target found the mutant in {secs:.0} s, at call {n}:\n{text}");
    assert!(n > 6, "{text}");
    let (rc, out, e) = creplay(&found[0], &t, &["--c-mutant", MUTANT]);
    assert_eq!(rc, 1, "{out}{e}");
    assert!(out.contains(&format!("after call {n} of {n}")), "{out}");
}
