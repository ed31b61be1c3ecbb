//! The incremental structural checks (only the trees a step or a call marked, `check::dirty`)
//! against the whole ones (every tree): with `check::crosscheck` on, every per-step and
//! end-of-call check also runs its whole form, and the two must give the same violations on
//! - the fuzz corpora, each case run on every model with both engines;
//! - the searches of every proof obligation (every model and mutant, both modes), each
//!   stopped after `STATES` states, `WALKER_STATES` with walkers (most mutants fail well within them);
//! - every interleaving obligation (concurrent walkers: per-step checks between threads).

use crate::model_fixtures::crosschecked;
use rmapcheck::check::crosscheck;
use rmapcheck::checker::{bfs, Config, Verdict};
use rmapcheck::cmd::load_model;
use rmapcheck::exec::compiled::Code;
use rmapcheck::explore::op::{apply, apply_compiled, CheckOpts};
use rmapcheck::explore::proof::{prove, ProofFile};
use rmapcheck::explore::search::CallSystem;
use rmapcheck::fuzzing::concretise::{concretise, Mode};
use rmapcheck::fuzzing::input::decode;
use std::path::{Path, PathBuf};

/// Each obligation's search stops after this many states...
const STATES: usize = 1_000;
/// ...or this many in a scope with walkers (each call there is an interleaving exploration;
/// `interleavings` covers the walkers' per-step checks more cheaply).
const WALKER_STATES: usize = 40;

fn files(dir: &str, ext: Option<&str>) -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .filter(|p| ext.is_none_or(|x| p.extension().is_some_and(|e| e == x)))
        .collect();
    v.sort();
    v
}

/// Every proof file, parsed.
fn proof_files() -> Vec<(PathBuf, ProofFile)> {
    files("proofs", Some("toml"))
        .into_iter()
        .map(|p| {
            let pf = ProofFile::parse(&std::fs::read_to_string(&p).unwrap()).unwrap();
            (p, pf)
        })
        .collect()
}

/// The differences recorded so far, none expected.
fn assert_no_differences(what: &str) {
    let d = crosscheck::take_differences();
    let distinct: std::collections::BTreeSet<&String> = d.iter().collect();
    assert!(
        d.is_empty(),
        "{what}: {} differences, {} distinct:\n{}",
        d.len(),
        distinct.len(),
        distinct
            .iter()
            .take(20)
            .map(|s| s.as_str())
            .collect::<Vec<_>>()
            .join("\n")
    );
}

fn fuzz_corpora() -> usize {
    let mut models = vec![PathBuf::from("models/v7.3-rc4/baseline.rmap")];
    models.extend(files("models/patches", Some("rmap")));
    models.extend(files("models/mutants", Some("rmap")));
    let models: Vec<_> = models
        .iter()
        .map(|p| {
            let prog = load_model(p).unwrap();
            let code = Code::new(&prog).unwrap();
            (prog, code)
        })
        .collect();
    let mut calls = 0;
    let opts = CheckOpts {
        record: false,
        ..CheckOpts::default()
    };
    let mut corpus = files("fuzz/corpus/ops", None);
    corpus.extend(files("fuzz/corpus/equivalence", None));
    for f in corpus {
        let d = decode(&std::fs::read(&f).unwrap()).unwrap();
        let mode = if d.contract {
            Mode::Contract
        } else {
            Mode::Callers
        };
        for (prog, code) in &models {
            let mut w = d.scenario.build().unwrap().canonical();
            for op in &d.ops {
                let Some(call) = concretise(op, &w, mode) else {
                    continue;
                };
                let mut other = w.clone();
                let r = apply(prog, &mut w, &call, opts);
                apply_compiled(code, prog, &mut other, &call, opts);
                calls += 1;
                if r.failure.is_some() {
                    break;
                }
                w = w.canonical();
            }
        }
    }
    calls
}

/// Every call-sequence obligation's search, at most `STATES` states; how many failed.
fn obligation_searches() -> usize {
    let mut failed = 0;
    for (p, pf) in proof_files() {
        let prog = load_model(&pf.model).unwrap();
        for o in pf.obligation.iter().filter(|o| o.interleave.is_none()) {
            let mut scope = o.scope(Path::new(".")).unwrap();
            let cap = if scope.walkers > 0 {
                WALKER_STATES
            } else {
                STATES
            };
            scope.max_states = scope.max_states.min(cap);
            let budget = scope.budget();
            let sys = CallSystem::new(&prog, &scope, budget.clone());
            let cfg = Config {
                max_depth: scope.max_depth,
                max_states: scope.max_states,
                threads: 2,
                batch: 256,
            };
            let (verdict, _) = bfs(&sys, &cfg, &budget, &mut |_| {});
            failed += usize::from(matches!(verdict, Verdict::Failed { .. }));
            assert_no_differences(&format!("{} ({} scope {})", p.display(), o.mode, o.scope));
        }
    }
    failed
}

/// Every interleaving obligation, proved as `rmapcheck prove` does; how many ran.
fn interleavings() -> usize {
    let mut n = 0;
    for (p, mut pf) in proof_files() {
        pf.obligation.retain(|o| o.interleave.is_some());
        if pf.obligation.is_empty() {
            continue;
        }
        n += pf.obligation.len();
        prove(&pf, Path::new("."), &|m| load_model(m)).unwrap();
        assert_no_differences(&p.display().to_string());
    }
    n
}

#[test]
fn incremental_tree_checks_answer_as_the_whole_ones() {
    let ((calls, failed, interleaved), seen) = crosschecked(|| {
        let calls = fuzz_corpora();
        assert_no_differences("fuzz corpora");
        (calls, obligation_searches(), interleavings())
    });
    assert!(seen.differences.is_empty(), "{:?}", seen.differences);
    let compared = seen.compared;
    println!(
        "{calls} corpus calls, {failed} failing searches, {interleaved} interleaving \
         obligations, {compared} checks compared"
    );
    assert!(
        calls > 100 && failed >= 28 && interleaved > 0,
        "too little ran"
    );
    assert!(compared > 100_000, "{compared} checks compared");
}
