//! Trace handling end to end: `check --trace-dir` writes JSON that `replay` reproduces (exit 1),
//! the same trace does not reproduce on the baseline (exit 0), `--minimise` drops calls a
//! hand-padded trace does not need, and `--format dot` draws the trees.

use rmapcheck::check::Invariant;
use rmapcheck::cmd::check::args::ScopeOpts;
use rmapcheck::cmd::check::{check, CheckArgs, TraceFormat};
use rmapcheck::cmd::replay::ReplayArgs;
use rmapcheck::trace::Trace;
use rmapcheck::world::scenario::Call;
use std::path::{Path, PathBuf};

const MUTANT: &str = "models/mutants/remove-vma-twice.rmap";

fn tmp(name: &str) -> crate::scratch::Scratch {
    crate::scratch::scratch(&format!("trace-{name}"))
}

fn replay(
    file: &Path,
    model: Option<PathBuf>,
    minimise: bool,
    out: &mut Vec<u8>,
    err: &mut Vec<u8>,
) -> i32 {
    let a = ReplayArgs {
        file: file.to_path_buf(),
        model,
        minimise,
        ..Default::default()
    };
    rmapcheck::cmd::exit_status(rmapcheck::cmd::replay::replay(&a, out), err)
}

fn args(format: TraceFormat, dir: Option<PathBuf>) -> CheckArgs {
    CheckArgs {
        models: vec![PathBuf::from(MUTANT)],
        scope: ScopeOpts {
            name: Some("tiny".into()),
            ..Default::default()
        },
        format,
        trace_dir: dir,
        ..Default::default()
    }
}

#[test]
fn trace_dir_replay_and_minimise() {
    let dir = tmp("replay");
    let (mut out, mut err) = (Vec::new(), Vec::new());
    let rc = check(
        &args(TraceFormat::Text, Some(dir.to_path_buf())),
        &mut out,
        &mut err,
    );
    let rc = rmapcheck::cmd::exit_status(rc, &mut err);
    assert_eq!(
        rc,
        1,
        "{}{}",
        String::from_utf8_lossy(&out),
        String::from_utf8_lossy(&err)
    );
    let json = dir.join("remove-vma-twice.trace.json");
    let mut o = Vec::new();
    let rc = replay(&json, None, false, &mut o, &mut Vec::new());
    assert_eq!(rc, 1, "{}", String::from_utf8_lossy(&o));
    assert!(String::from_utf8_lossy(&o).contains("reproduced: tree-precondition"));
    // the baseline does not have the bug
    let mut o = Vec::new();
    let base = Some(PathBuf::from("models/v7.3-rc4/baseline.rmap"));
    assert_eq!(replay(&json, base, false, &mut o, &mut Vec::new()), 0);
    assert!(String::from_utf8_lossy(&o).contains("does not reproduce"));
    // pad the calls with ones the failure does not need; minimising drops them again
    let t = Trace::from_json(&std::fs::read_to_string(&json).unwrap()).unwrap();
    let mut padded = t.calls.clone();
    padded.insert(
        0,
        Call::parse("sys_mmap(mm#0, NULL, 2, 3, 0, false)").unwrap(),
    );
    padded.insert(1, Call::parse("do_anonymous_fault(mm#0, 2)").unwrap());
    let prog = rmapcheck::cmd::load_model(Path::new(MUTANT)).unwrap();
    let (init, calls) = rmapcheck::explore::minimise::minimise(
        &prog,
        &t.initial,
        &padded,
        Invariant::TreePrecondition,
    );
    assert_eq!(calls.len(), t.calls.len(), "{calls:?}");
    assert_eq!(init, t.initial);
    // and `replay --minimise` on the real trace keeps it as it is (already shortest)
    let mut o = Vec::new();
    assert_eq!(replay(&json, None, true, &mut o, &mut Vec::new()), 1);
    let o = String::from_utf8_lossy(&o);
    assert!(o.contains("minimised: 2 calls -> 2"), "{o}");
    assert!(o.contains("nothing could be dropped"), "{o}");
}

#[test]
fn dot_format_draws_the_trees() {
    let (mut out, mut err) = (Vec::new(), Vec::new());
    let mut a = args(TraceFormat::Dot, None);
    // at this mutant's failure the file tree still holds the VMA whose subtree_last is stale
    a.models = vec![PathBuf::from("models/mutants/inplace-no-propagate.rmap")];
    let r = check(&a, &mut out, &mut err);
    assert_eq!(rmapcheck::cmd::exit_status(r, &mut err), 1);
    let s = String::from_utf8_lossy(&out);
    // standard output holds only the DOT document; the verdict went to standard error
    assert!(s.starts_with("digraph rmap {"), "{s}");
    assert!(String::from_utf8_lossy(&err).contains("COUNTEREXAMPLE"));
    assert!(s.contains("mapping#0: vma#0"), "{s}");
    assert!(s.contains("max=0"), "the stale subtree_last is drawn: {s}");
}

#[test]
fn bad_trace_file_is_a_clear_error() {
    let dir = tmp("bad");
    let f = dir.join("bad.json");
    std::fs::write(&f, "{ not json").unwrap();
    let mut e = Vec::new();
    assert_eq!(replay(&f, None, false, &mut Vec::new(), &mut e), 2);
    let msg = String::from_utf8_lossy(&e);
    assert!(msg.contains("bad.json:1:"), "{msg}");
}

/// A walker counterexample (an interleaving, which is not a call trace) is saved under
/// --trace-dir too, and the line saying where names what it is.
#[test]
fn trace_dir_saves_a_walker_counterexample() {
    let dir = tmp("walkers");
    let a = CheckArgs {
        models: vec![PathBuf::from("models/mutants/lock-dropped-between.rmap")],
        scope: ScopeOpts {
            name: Some("walkers".into()),
            ..Default::default()
        },
        trace_dir: Some(dir.to_path_buf()),
        ..Default::default()
    };
    let (mut out, mut err) = (Vec::new(), Vec::new());
    let rc = rmapcheck::cmd::exit_status(check(&a, &mut out, &mut err), &mut err);
    let (out, err) = (String::from_utf8_lossy(&out), String::from_utf8_lossy(&err));
    assert_eq!(rc, 1, "{out}{err}");
    let path = dir.join("lock-dropped-between.interleaving.json");
    let doc: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    assert_eq!(doc["pass"], "walkers", "{doc}");
    assert!(
        doc["interleaving"].as_str().unwrap().contains("rmap_walk"),
        "{doc}"
    );
    assert!(
        format!("{out}{err}").contains("not a call trace: replay and repro do not read it"),
        "{out}{err}"
    );
}
