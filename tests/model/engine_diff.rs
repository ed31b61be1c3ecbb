//! The compiled engine against the reference interpreter: the same world and the same failure
//! (every violation, its message and its location) after every call, on
//! - the fuzz corpora (fuzz/corpus/*), each case run on the baseline, the patches and every
//!   mutant;
//! - every call the default scope offers from the states of the first levels of its search
//!   (each model and mutant);
//! - every mutant's failing proof obligation: searched with each engine where the search is
//!   small (at most `WHOLE_SEARCH_STATES` states; most of them): the same states, calls and
//!   path to the failure (the trace is built from the path by the reference interpreter either
//!   way); for every obligation, each call of the path gives the same world on both engines
//!   and the failing call fails alike on both.

use rmapcheck::checker::{bfs, Config, Verdict};
use rmapcheck::cmd::load_model;
use rmapcheck::exec::compiled::Code;
use rmapcheck::explore::alphabet;
use rmapcheck::explore::op::{apply, apply_compiled, CheckOpts, OpOutcome};
use rmapcheck::explore::proof::ProofFile;
use rmapcheck::explore::search::{fingerprint, CallFailure, CallSystem};
use rmapcheck::fuzzing::concretise::{concretise, Mode};
use rmapcheck::fuzzing::input::decode;
use rmapcheck::lang::Program;
use rmapcheck::scope::{Engine, Scope};
use rmapcheck::world::scenario::Call;
use rmapcheck::world::World;
use std::collections::HashSet;
use std::path::{Path, PathBuf};

/// Every model: the baseline, the patches and the mutants.
fn models() -> Vec<(PathBuf, Program, Code)> {
    let mut paths = vec![PathBuf::from("models/v7.3-rc4/baseline.rmap")];
    for dir in ["models/patches", "models/mutants"] {
        let mut v: Vec<PathBuf> = std::fs::read_dir(dir)
            .unwrap()
            .flatten()
            .map(|e| e.path())
            .filter(|p| p.extension().is_some_and(|e| e == "rmap"))
            .collect();
        v.sort();
        paths.extend(v);
    }
    paths
        .into_iter()
        .map(|p| {
            let prog = load_model(&p).unwrap_or_else(|d| panic!("{}: {d}", p.display()));
            let code = Code::new(&prog).unwrap_or_else(|e| panic!("{}: {e}", p.display()));
            (p, prog, code)
        })
        .collect()
}

/// The checks the explorer runs (no recording: the compiled engine never records).
fn opts() -> CheckOpts {
    CheckOpts {
        record: false,
        ..CheckOpts::default()
    }
}

/// `call` on `w` with both engines: the same world and failure, or a panic naming them.
fn both(name: &Path, prog: &Program, code: &Code, w: &World, call: &Call) -> (World, OpOutcome) {
    let (mut a, mut b) = (w.clone(), w.clone());
    let ra = apply(prog, &mut a, call, opts());
    let rb = apply_compiled(code, prog, &mut b, call, opts());
    let at = || format!("{}: {call} from\n{w:?}", name.display());
    assert_eq!(ra.failure, rb.failure, "failures differ: {}", at());
    assert_eq!(a, b, "worlds differ: {}", at());
    assert_eq!(
        a.scratch.work,
        b.scratch.work,
        "tree work differs: {}",
        at()
    );
    (a, ra)
}

fn corpus_files() -> Vec<PathBuf> {
    let mut v = Vec::new();
    for dir in ["fuzz/corpus/ops", "fuzz/corpus/equivalence"] {
        v.extend(std::fs::read_dir(dir).unwrap().flatten().map(|e| e.path()));
    }
    v.sort();
    assert!(!v.is_empty(), "no fuzz corpus");
    v
}

#[test]
fn same_worlds_and_failures_on_the_fuzz_corpora() {
    let models = models();
    let (mut calls, mut failures) = (0, 0);
    for f in corpus_files() {
        let d = decode(&std::fs::read(&f).unwrap()).unwrap();
        let mode = if d.contract {
            Mode::Contract
        } else {
            Mode::Callers
        };
        for (name, prog, code) in &models {
            let mut w = d.scenario.build().unwrap().canonical();
            for op in &d.ops {
                let Some(call) = concretise(op, &w, mode) else {
                    continue;
                };
                let (next, r) = both(name, prog, code, &w, &call);
                calls += 1;
                if r.failure.is_some() {
                    failures += 1;
                    break;
                }
                w = next.canonical();
            }
        }
    }
    println!("{calls} calls, {failures} failing");
    assert!(
        calls > 100 && failures > 0,
        "{calls} calls, {failures} failing"
    );
}

#[test]
fn same_worlds_and_failures_on_explored_states() {
    let scope = Scope::builtin("default").unwrap();
    let mut total = 0;
    for (name, prog, code) in models() {
        // every state of the first two levels, and every call each offers
        let mut level = vec![scope.initial_scenario().build().unwrap().canonical()];
        let mut seen = HashSet::new();
        for _ in 0..2 {
            let mut next = Vec::new();
            for w in &level {
                for call in alphabet::calls(&scope, &prog, w) {
                    let (w2, r) = both(&name, &prog, &code, w, &call);
                    total += 1;
                    let w2 = w2.canonical();
                    if r.failure.is_none() && seen.insert(fingerprint(&w2)) {
                        next.push(w2);
                    }
                }
            }
            level = next;
        }
    }
    println!("{total} calls");
    assert!(total > 1000);
}

/// The search of `scope` with `engine`: its path to the failure (the calls; the trace is
/// built from them by the reference interpreter whichever engine searched), how the last call
/// failed, and the states and calls searched.
fn search_with(prog: &Program, scope: &Scope, engine: Engine) -> (Vec<Call>, String, usize, usize) {
    let mut scope = scope.clone();
    scope.engine = engine;
    let budget = scope.budget();
    let sys = CallSystem::new(prog, &scope, budget.clone());
    let cfg = Config {
        max_depth: scope.max_depth,
        max_states: scope.max_states,
        threads: 2,
        batch: 256,
    };
    let (verdict, stats) = bfs(&sys, &cfg, &budget, &mut |_| {});
    let (path, how) = match verdict {
        Verdict::Failed { path, failure } => {
            let how = match failure {
                CallFailure::Call => "call".to_string(),
                CallFailure::Interleaving(t) => format!("{t:?}"),
                CallFailure::Initial(v) => format!("initial {v:?}"),
            };
            (path, how)
        }
        _ => panic!("{}: no failure", scope.name),
    };
    (path, how, stats.states, stats.transitions)
}

/// Failing searches at most this large run on both engines in full.
const WHOLE_SEARCH_STATES: usize = 20_000;

#[test]
fn every_mutant_fails_identically_with_either_engine() {
    let (mut checked, mut whole) = (0, 0);
    for e in std::fs::read_dir("proofs").unwrap().flatten() {
        let p = e.path();
        if !p
            .file_name()
            .unwrap()
            .to_string_lossy()
            .starts_with("mutant-")
        {
            continue;
        }
        let pf = ProofFile::parse(&std::fs::read_to_string(&p).unwrap()).unwrap();
        let prog = load_model(&pf.model).unwrap();
        let code = Code::new(&prog).unwrap();
        for o in &pf.obligation {
            if o.violates.is_none() || o.interleave.is_some() {
                continue;
            }
            let scope = o.scope(Path::new(".")).unwrap();
            let c = search_with(&prog, &scope, Engine::Compiled);
            // a second whole search on the reference engine where it is cheap; for the large
            // ones (tests/proofs.rs runs them on the compiled engine already) the path is
            // replayed below on both engines call by call
            let r = if c.2 <= WHOLE_SEARCH_STATES {
                let r = search_with(&prog, &scope, Engine::Reference);
                assert_eq!(r, c, "{} ({:?} scope {})", p.display(), o.mode, o.scope);
                whole += 1;
                r
            } else {
                c
            };
            // the failing call itself, from the world the path leads to, fails alike
            let (last, prefix) = r.0.split_last().unwrap();
            let mut w = scope.initial_scenario().build().unwrap().canonical();
            for call in prefix {
                let (after, out) = both(&pf.model, &prog, &code, &w, call);
                assert!(out.failure.is_none(), "{}: {call} fails early", p.display());
                w = after.canonical();
            }
            let (_, out) = both(&pf.model, &prog, &code, &w, last);
            assert!(out.failure.is_some() || r.1 != "call", "{}", p.display());
            checked += 1;
        }
    }
    println!("{checked} obligations, {whole} searched whole on both engines");
    assert!(checked >= 28, "{checked} obligations");
    assert!(whole * 2 >= checked, "{whole} of {checked} searched whole");
}

/// Models whose calls end at the engine's own bounds and faults, where a fused pair of
/// instructions must stop exactly where the two instructions one by one would: loops that
/// never touch the world, of bodies of either parity (so the bound falls on the first and on
/// the second instruction of a pair), and faults in the second instruction of a pair.
const BOUNDS: &str = r#"
struct pair {
	int a;
	int b;
};

int spin_short(int n)
{
	int x = 0;
	int y = 1;
	while (y)
		x = y;
	return x;
}

int spin_long(int n)
{
	int x = 0;
	int y = 1;
	int z = 2;
	while (y) {
		x = y;
		z = x;
	}
	return z;
}

int spin_struct(int n)
{
	struct pair p = { .a = 1 };
	int x = 0;
	while (p.a)
		x = p.b;
	return x;
}

int read_null(int n)
{
	struct vm_area_struct *v = NULL;
	return v->vm_start;
}

int write_null(int n)
{
	struct vm_area_struct *v = NULL;
	v->vm_flags = n;
	return 0;
}
"#;

#[test]
fn fused_instructions_stop_where_single_ones_do() {
    let schema = rmapcheck::world::schema::schema();
    let prog = rmapcheck::lang::load_str("bounds.rmap", BOUNDS, Path::new("."), &schema)
        .unwrap_or_else(|d| panic!("{}", rmapcheck::lang::render_diagnostics(&d)));
    let code = Code::new(&prog).unwrap();
    let scope = Scope::builtin("default").unwrap();
    let w = scope.initial_scenario().build().unwrap();
    for func in [
        "spin_short",
        "spin_long",
        "spin_struct",
        "read_null",
        "write_null",
    ] {
        let call = Call {
            func: func.into(),
            args: vec![rmapcheck::exec::host::Value::Int(3)],
        };
        let (_, r) = both(Path::new("bounds.rmap"), &prog, &code, &w, &call);
        let failure = r.failure.unwrap_or_else(|| panic!("{func} returned"));
        assert!(failure.loc.is_some(), "{func}: {failure:?}");
    }
}
