//! The command line as a reviewer meets it (reviewer-grade output, no vacuous verdicts):
//! machine formats own standard output, bad traces and bad replays are errors (exit 2), the
//! scope line names what was explored, model directories work everywhere, calls read like the
//! kernel's. Each test runs the real binary and checks the exit status and the key part of the
//! message. Bounds and signals are in `cli_bounds`.

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

pub(super) const BIN: &str = env!("CARGO_BIN_EXE_rmapcheck");
pub(super) const BASE: &str = "models/v7.3-rc4/baseline.rmap";
const MUTANT: &str = "models/mutants/remove-vma-twice.rmap";

pub(super) fn rc(args: &[&str]) -> (i32, String, String) {
    let o: Output = Command::new(BIN)
        .args(args)
        .stdin(Stdio::null())
        .output()
        .expect("run rmapcheck");
    (
        o.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&o.stdout).into_owned(),
        String::from_utf8_lossy(&o.stderr).into_owned(),
    )
}

/// A fresh directory for one test, removed by [`Tmp::drop`].
pub(super) struct Tmp(PathBuf);

impl Tmp {
    pub(super) fn new(name: &str) -> Tmp {
        let d = std::env::temp_dir().join(format!("rmapcheck-cli-{}-{name}", std::process::id()));
        let _ = std::fs::remove_dir_all(&d);
        std::fs::create_dir_all(&d).unwrap();
        Tmp(d)
    }
    pub(super) fn file(&self, name: &str, text: &str) -> String {
        let p = self.0.join(name);
        std::fs::write(&p, text).unwrap();
        p.display().to_string()
    }
    pub(super) fn path(&self, name: &str) -> String {
        self.0.join(name).display().to_string()
    }
}

impl Drop for Tmp {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// A trace of MUTANT written by `check --trace-dir`, as JSON.
fn mutant_trace(t: &Tmp) -> serde_json::Value {
    let dir = t.path("traces");
    let (code, _, err) = rc(&[
        "check",
        "--scope",
        "default",
        MUTANT,
        "--quiet",
        "--trace-dir",
        &dir,
    ]);
    assert_eq!(code, 1, "{err}");
    let text = std::fs::read_to_string(Path::new(&dir).join("remove-vma-twice.trace.json"))
        .expect("trace written");
    serde_json::from_str(&text).unwrap()
}

#[test]
fn json_output_is_one_document_on_stdout() {
    let (code, out, err) = rc(&[
        "check", "--scope", "default", MUTANT, BASE, "--quiet", "--format", "json",
    ]);
    assert_eq!(code, 1, "{err}");
    let doc: serde_json::Value = serde_json::from_str(&out).expect("stdout is JSON");
    assert_eq!(doc["rmapcheck"], "check");
    let results = doc["results"].as_array().unwrap();
    assert_eq!(results.len(), 2);
    assert_eq!(results[0]["verdict"], "counterexample");
    assert_eq!(results[1]["verdict"], "holds");
    // the trace keeps the machine form of its calls and adds the kernel's form
    let t = &results[0]["trace"];
    assert_eq!(t["calls"][0]["func"], "sys_mmap");
    assert_eq!(
        t["calls_kernel"][0],
        "mmap(mm#0, [0,1), f0 (file#0), pgoff 0, MAP_PRIVATE)"
    );
    // the verdict lines went to stderr
    assert!(err.contains("COUNTEREXAMPLE tree-precondition"), "{err}");
    assert!(err.starts_with("scope default"), "{err}");
    // and `replay` reads such a report when it holds one counterexample
    let t = Tmp::new("json");
    let f = t.file("report.json", &out);
    let (code, out, err) = rc(&["replay", &f]);
    assert_eq!(code, 1, "two results, one counterexample: {out}{err}");
    assert!(
        out.contains("reproduced: tree-precondition at call 2"),
        "{out}"
    );
    // a report with two counterexamples names the way out
    let (_, two, _) = rc(&[
        "check",
        "--scope",
        "default",
        MUTANT,
        "models/mutants/inplace-no-propagate.rmap",
        "--quiet",
        "--format",
        "json",
    ]);
    let f = t.file("two.json", &two);
    let (code, _, err) = rc(&["replay", &f]);
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("2 counterexamples") && err.contains("--trace-dir"),
        "{err}"
    );
}

#[test]
fn dot_ktap_junit_markdown_own_stdout() {
    let (code, out, _) = rc(&[
        "check", "--scope", "default", MUTANT, "--quiet", "--format", "dot",
    ]);
    assert_eq!(code, 1);
    assert!(
        out.starts_with("digraph rmap {") && out.trim_end().ends_with('}'),
        "{out}"
    );
    let (code, out, _) = rc(&[
        "check", "--scope", "default", MUTANT, BASE, "--quiet", "--format", "ktap",
    ]);
    assert_eq!(code, 1);
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines[0], "KTAP version 1");
    assert!(lines.contains(&"1..2"), "{out}");
    assert!(lines.contains(&"not ok 1 models/mutants/remove-vma-twice.rmap"));
    assert!(lines.contains(&"ok 2 models/v7.3-rc4/baseline.rmap"));
    assert!(lines.iter().all(|l| l.starts_with('#')
        || l.starts_with("KTAP")
        || l.starts_with("1..")
        || l.starts_with("ok ")
        || l.starts_with("not ok ")));
    let (code, out, _) = rc(&[
        "check", "--scope", "default", MUTANT, BASE, "--quiet", "--format", "junit",
    ]);
    assert_eq!(code, 1);
    assert!(out.starts_with("<?xml"), "{out}");
    assert!(
        out.contains("tests=\"2\" failures=\"1\" errors=\"0\""),
        "{out}"
    );
    let (code, out, _) = rc(&[
        "check", "--scope", "default", MUTANT, "--quiet", "--format", "markdown",
    ]);
    assert_eq!(code, 1);
    assert!(
        out.contains("| **FAIL** | `models/mutants/remove-vma-twice.rmap` |"),
        "{out}"
    );
    assert!(out.contains("<details>"), "{out}");
    // prove speaks KTAP and JUnit too
    let (code, out, _) = rc(&[
        "prove",
        "proofs/mutant-remove-vma-twice.toml",
        "--format",
        "ktap",
    ]);
    assert_eq!(code, 0, "{out}");
    assert!(
        out.contains("\n1..2\n")
            && out.contains("ok 2 proofs/mutant-remove-vma-twice.toml obligation 2"),
        "{out}"
    );
    let (code, _, err) = rc(&["prove", "proofs/baseline.toml", "--format", "json"]);
    assert_eq!(code, 2);
    assert!(err.contains("not a certificate format"), "{err}");
}

#[test]
fn replay_refuses_what_it_cannot_apply() {
    let t = Tmp::new("replay");
    let trace = mutant_trace(&t);
    let edit = |name: &str, f: &dyn Fn(&mut serde_json::Value)| {
        let mut v = trace.clone();
        f(&mut v);
        t.file(name, &serde_json::to_string(&v).unwrap())
    };
    let cases: Vec<(String, &str)> = vec![
        (
            edit("unknown.json", &|v| {
                v["calls"][0]["func"] = "sys_nope".into()
            }),
            "the model has no entry point `sys_nope`",
        ),
        (
            edit("arity.json", &|v| {
                v["calls"][0]["args"].as_array_mut().unwrap().pop();
            }),
            "takes 6 arguments but 5 were given",
        ),
        (
            edit("object.json", &|v| {
                v["calls"][1]["args"][0] = serde_json::json!({"Obj": ["Mm", 7]})
            }),
            "call 2",
        ),
        (
            edit("version.json", &|v| {
                v.as_object_mut().unwrap().remove("format_version");
            }),
            "no format_version",
        ),
        (
            edit("pages.json", &|v| v["scope"]["pages"] = 100000.into()),
            "pages = 100000",
        ),
        (t.file("text.txt", "hello\n"), "not JSON"),
        (
            t.file("other.json", "{\"a\": 1}\n"),
            "not an rmapcheck trace",
        ),
    ];
    for (f, want) in &cases {
        let (code, out, err) = rc(&["replay", f]);
        assert_eq!(code, 2, "{f}: {out}{err}");
        assert!(err.contains(want), "{f}: want {want:?} in {err}");
        assert!(!out.contains("does not reproduce"), "{out}");
    }
    // a crash file is decoded only when asked (or named as libFuzzer names them)
    let bin = t.file("input.bin", "\u{1}\u{2}\u{3}");
    let (code, _, err) = rc(&["replay", &bin]);
    assert_eq!(code, 2, "{err}");
    // a trace that runs on the fixed model: exit 0, "does not reproduce" with all calls run
    let f = t.file("ok.json", &serde_json::to_string(&trace).unwrap());
    let (code, out, _) = rc(&["replay", &f, "--model", BASE]);
    assert_eq!(code, 0, "{out}");
    assert!(out.contains("does not reproduce: all 2 calls ran"), "{out}");
    // --emit-scenario gives a scenario `run` accepts and that fails the same way
    let (code, sc, _) = rc(&["replay", &f, "--emit-scenario"]);
    assert_eq!(code, 0);
    assert!(
        sc.contains("# 1. mmap(mm#0, [0,1), f0 (file#0), pgoff 0, MAP_PRIVATE)"),
        "{sc}"
    );
    let s = t.file("sc.toml", &sc);
    let (code, out, _) = rc(&["run", MUTANT, "--ops", &s]);
    assert_eq!(code, 1, "{out}");
    assert!(out.contains("tree-precondition"), "{out}");
    // --minimise says what it dropped (padding changes the failing call's steps, so the
    // padded trace is minimised through the library, as `replay --minimise` does)
    let prog = rmapcheck::cmd::load_model(Path::new(MUTANT)).unwrap();
    let tr = rmapcheck::trace::Trace::from_json(&serde_json::to_string(&trace).unwrap()).unwrap();
    let mut padded = tr.calls.clone();
    padded.insert(
        0,
        rmapcheck::world::scenario::Call::parse("sys_mmap(mm#0, NULL, 2, 3, 0, false)").unwrap(),
    );
    let m = rmapcheck::explore::minimise::minimise_explained(
        &prog,
        &tr.initial,
        &padded,
        rmapcheck::check::Invariant::TreePrecondition,
    );
    assert_eq!(m.dropped_calls, vec![0]);
    assert_eq!(m.calls, tr.calls);
    let (code, out, _) = rc(&["replay", &f, "--minimise"]);
    assert_eq!(code, 1, "{out}");
    assert!(
        out.contains("minimised: 2 calls -> 2, 2 files -> 1"),
        "{out}"
    );
    assert!(out.contains("dropped file zero"), "{out}");
}

#[test]
fn the_scope_line_names_what_changes_the_state_space() {
    let (_, a, _) = rc(&[
        "check",
        BASE,
        "--quiet",
        "--mode",
        "contract",
        "--max-depth",
        "1",
    ]);
    let (_, b, _) = rc(&[
        "check",
        BASE,
        "--quiet",
        "--scope",
        "contract",
        "--max-depth",
        "1",
    ]);
    let line = |s: &str| s.lines().next().unwrap().to_string();
    assert!(line(&a).contains("offsets off"), "{a}");
    assert!(line(&b).contains("offsets on"), "{b}");
    assert_ne!(line(&a), line(&b));
    let t = Tmp::new("scope");
    let s = t.file("s.toml", "name = \"mine\"\nmax_depth = 1\nshared = false\n");
    let (code, out, _) = rc(&["check", BASE, "--quiet", "--scope", &s]);
    assert_eq!(code, 0, "{out}");
    assert!(line(&out).contains(&format!("scope mine ({s})")), "{out}");
    assert!(line(&out).contains("shared off") && line(&out).contains("entries core"));
    // what the scope leaves out is listed, so a `holds` says what it did not cover
    assert!(
        line(&out)
            .contains("left out: contract entry points (mode callers); extended entry points"),
        "{out}"
    );
    let (_, help, _) = rc(&["check", "--help"]);
    assert!(help.contains("walkers"), "{help}");
    // a validation error points at the key
    let s = t.file("bad.toml", "name = \"x\"\n\nmax_vmas = 0\n");
    let (code, _, err) = rc(&["check", BASE, "--scope", &s]);
    assert_eq!(code, 2);
    assert!(err.contains("bad.toml:3:1: max_vmas = 0"), "{err}");
}

#[test]
fn model_directories_mean_the_same_everywhere() {
    let (code, out, err) = rc(&["locks", "models/v7.3-rc4", "--scope", "tiny"]);
    assert_eq!(code, 0, "{err}");
    assert!(out.starts_with("digraph"), "{out}");
    let (code, _, err) = rc(&["locks", "models"]);
    assert_eq!(code, 2);
    assert!(err.contains("a directory with 7 models; name one"), "{err}");
    assert!(
        !err.contains('^'),
        "no caret line without a source line: {err}"
    );
    let (code, _, err) = rc(&["run", "models/nope", "--ops", "x.toml"]);
    assert_eq!(code, 2);
    assert!(
        err.contains("models/nope: no such model file or directory"),
        "{err}"
    );
    let (code, out, _) = rc(&["check", "models/v7.3-rc4", "--scope", "tiny", "--quiet"]);
    assert_eq!(code, 0);
    assert!(
        out.contains("models/v7.3-rc4/baseline.rmap: holds"),
        "{out}"
    );
}

#[test]
fn traces_read_like_the_kernel() {
    let (code, out, _) = rc(&["check", "--scope", "default", MUTANT, "--quiet"]);
    assert_eq!(code, 1);
    assert!(
        out.contains("1. mmap(mm#0, [0,1), f0 (file#0), pgoff 0, MAP_PRIVATE)"),
        "{out}"
    );
    assert!(
        out.contains("= sys_mmap(mm#0, file#0, 0, 1, 0, false)"),
        "{out}"
    );
    assert!(out.contains("plain field reads not shown"), "{out}");
    let trace = &out[out.find("rmapcheck counterexample").unwrap()..];
    assert!(
        trace.lines().all(|l| l.len() <= 80 && l.is_ascii()),
        "{trace}"
    );
}

#[test]
fn small_ones() {
    let (code, _, err) = rc(&["prove", "nope.toml"]);
    assert_eq!(code, 2);
    assert!(
        err.contains("nope.toml: cannot read the proof file"),
        "{err}"
    );
    let t = Tmp::new("small");
    let f = t.file("afile", "x");
    let (code, _, err) = rc(&["check", "--scope", "default", MUTANT, "--trace-dir", &f]);
    assert_eq!(code, 2);
    assert!(err.contains("exists and is not a directory"), "{err}");
    // two models with the same file name keep both traces
    let other = t.path("m/remove-vma-twice.rmap");
    std::fs::create_dir_all(t.path("m")).unwrap();
    let text = std::fs::read_to_string(MUTANT).unwrap().replace(
        "#include \"../",
        &format!("#include \"{}/models/", env!("CARGO_MANIFEST_DIR")),
    );
    std::fs::write(&other, text).unwrap();
    let dir = t.path("traces");
    let (code, out, err) = rc(&[
        "check",
        "--scope",
        "default",
        MUTANT,
        &other,
        "--quiet",
        "--trace-dir",
        &dir,
    ]);
    assert_eq!(code, 1, "{out}{err}");
    let n = std::fs::read_dir(&dir).unwrap().count();
    assert_eq!(n, 2, "{out}");
    // a walker on an object that does not exist is a usage error
    let (code, _, err) = rc(&[
        "interleave",
        BASE,
        "--ops",
        "examples/interleave/munmap-middle.toml",
        "--walker",
        "rmap_walk_file(mapping#9, 1)",
    ]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("mapping#9 does not exist"), "{err}");
    // a comparison that can make no call is an error, not "equivalent"
    let s = t.file("none.toml", "entries = [\"sys_exit\"]\n");
    let (code, _, err) = rc(&["compare", BASE, BASE, "--scope", &s]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("made no call"), "{err}");
    // progress is off when stderr is not a terminal
    let (code, _, err) = rc(&["compare", BASE, BASE, "--scope", "tiny"]);
    assert_eq!(code, 0);
    assert!(err.is_empty(), "{err}");
}

#[test]
fn a_long_source_line_is_cut_in_diagnostics() {
    let t = Tmp::new("long");
    let m = t.file(
        "long.rmap",
        &format!("int f(void) {{ return {}; }}\n", "(".repeat(200_000)),
    );
    let (code, _, err) = rc(&["check", &m, "--scope", "tiny"]);
    assert_eq!(code, 2);
    assert!(err.len() < 2000, "{} bytes of diagnostics", err.len());
    assert!(err.contains("long.rmap:1:"), "{err}");
}

/// Every function of every model names the kernel function it stands for (`// kernel:` above
/// it), and the text trace prints it beside the model file:line.
#[test]
fn every_model_function_names_its_kernel_function() {
    let mut models = rmapcheck::cmd::discover_models(Path::new("models"), true);
    models.retain(|m| !m.components().any(|c| c.as_os_str() == "lib"));
    assert!(models.len() > 20);
    for m in &models {
        let prog = rmapcheck::cmd::load_model(m).unwrap();
        for f in prog.function_names() {
            let k = prog.kernel_ref(f);
            let k = k.unwrap_or_else(|| panic!("{}: {f} has no // kernel: line", m.display()));
            let ok = k.starts_with("none (model helper)")
                || (k.split_whitespace().count() == 2
                    && [".c ", ".h "].iter().any(|e| k.contains(e)));
            assert!(ok, "{}: {f}: malformed kernel line {k:?}", m.display());
        }
    }
    let (code, out, _) = rc(&[
        "check",
        "--scope",
        "default",
        "models/mutants/inplace-no-propagate.rmap",
        "--quiet",
    ]);
    assert_eq!(code, 1);
    assert!(
        out.contains("in vma_complete (kernel: mm/vma.c vma_complete):"),
        "{out}"
    );
    assert!(
        out.contains("in mmap_region (kernel: mm/vma.c __mmap_region):"),
        "{out}"
    );
}

/// The interleaved trace wraps at token boundaries within 80 columns and says why step numbers
/// skip.
#[test]
fn interleaved_trace_wraps_at_tokens_and_explains_hidden_steps() {
    let (code, out, err) = rc(&[
        "interleave",
        "models/mutants/walker-no-lock.rmap",
        "--ops",
        "examples/interleave/munmap-middle.toml",
        "--quiet",
    ]);
    assert_eq!(code, 1, "{err}");
    assert!(out.lines().all(|l| l.len() <= 80), "{out}");
    assert!(out.contains("plain field reads are not"), "{out}");
    assert!(out.contains("so some numbers are skipped"), "{out}");
    // long identifiers are never cut
    assert!(out.contains("mapping_rmap_tree_iter_first("), "{out}");
    assert!(
        out.contains("rmap_walk_file_begin(mapping#0, 100)"),
        "{out}"
    );
    assert!(out.contains("T0 (writer): munmap(mm#0, [3,5))"), "{out}");
}

/// `interleave --audit` cross-checks the run: on the baseline it reports how many cross-checks
/// ran and no difference, with the verdict and exit status of the run without it; a
/// counterexample still exits 1 (its steps are a real interleaving).
#[test]
fn interleave_audit_reports_its_cross_checks_and_keeps_the_verdict() {
    let args = [
        "interleave",
        BASE,
        "--ops",
        "examples/interleave/munmap-middle.toml",
        "--walker",
        "rmap_walk_file(mapping#0, 105)",
        "--quiet",
    ];
    let (code, plain, err) = rc(&args);
    assert_eq!(code, 0, "{err}");
    let (code, out, err) = rc(&[&args[..], &["--audit"]].concat());
    assert_eq!(code, 0, "{err}");
    assert!(out.starts_with(&plain), "{plain}\n---\n{out}");
    let line = out.lines().last().unwrap_or_default();
    let n: u64 = line
        .split("audit: ")
        .nth(1)
        .and_then(|r| r.split(' ').next())
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("{out}"));
    assert!(
        n > 100 && line.ends_with("cross-checks, no difference"),
        "{out}"
    );
    let (code, out, err) = rc(&[
        "interleave",
        "models/mutants/walker-no-lock.rmap",
        "--ops",
        "examples/interleave/munmap-middle.toml",
        "--quiet",
        "--audit",
    ]);
    assert_eq!(code, 1, "{err}");
    assert!(out.contains("COUNTEREXAMPLE"), "{out}");
    assert!(out.contains("audit: "), "{out}");
}

/// `check --audit` reports its cross-checks per model with the verdict of the run without it;
/// a counterexample still exits 1; it audits only the single-process exhaustive search.
#[test]
fn check_audit_reports_its_cross_checks_and_keeps_the_verdict() {
    let (code, out, err) = rc(&["check", "--scope", "tiny", "--quiet", "--audit", BASE]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains(" cross-checks, no difference"), "{out}");
    assert!(out.contains(": holds"), "{out}");
    let (code, out, err) = rc(&["check", "--scope", "tiny", "--quiet", "--audit", MUTANT]);
    assert_eq!(code, 1, "{err}");
    assert!(
        out.contains("audit: ") && out.contains("COUNTEREXAMPLE"),
        "{out}"
    );
    let (code, _, err) = rc(&["check", "--audit", "--simulate", "3", "--quiet", BASE]);
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("--audit audits the single-process exhaustive search"),
        "{err}"
    );
}

/// `check` with no scope and no flag: a mutant whose first violation is debug-only
/// (`cached-keys`) is reported with the missed rmap walk the same bug reaches, in the verdict's
/// consequence line and in the JSON result (its violations, the first finding and the worst).
#[test]
fn with_no_flags_a_debug_only_finding_reports_the_missed_walk_it_leads_to() {
    let m = "models/mutants/merge-next-skips-anon-rekey.rmap";
    let (code, out, err) = rc(&["check", m, "--quiet", "--format", "json"]);
    assert_eq!(code, 1, "{err}");
    assert!(err.starts_with("check: every path, 5 passes"), "{err}");
    assert!(
        err.contains("consequence: first cached-keys (debug-only); worst ")
            && err.contains("(missed rmap walk)"),
        "{err}"
    );
    let doc: serde_json::Value = serde_json::from_str(&out).expect("stdout is JSON");
    assert_eq!(doc["passes"].as_array().unwrap().len(), 5);
    let r = &doc["results"][0];
    assert_eq!(r["pass"], "callers");
    assert_eq!(r["violations"][0]["invariant"], "cached-keys");
    assert_eq!(r["violations"][0]["consequence"], "debug-only");
    assert_eq!(r["first"]["invariant"], "cached-keys");
    assert_eq!(r["worst"]["consequence"], "missed rmap walk");
    let worst = r["worst"]["invariant"].as_str().unwrap();
    assert!(
        ["walker-complete", "rmap-complete"].contains(&worst),
        "{worst}"
    );
    assert!(r["worst"]["trace"]["calls"].as_array().unwrap().len() <= 5);
    assert_eq!(r["consequence_search"]["depth"], 5);
}
