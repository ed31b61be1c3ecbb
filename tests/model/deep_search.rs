//! The baseline never fails at depth: seeded random walks (`check --simulate`) of depth 20 to
//! 48 in every built-in scope and every scope file under `proofs/scopes/`, contract mode
//! included, on the baseline model. A counterexample here is a bug in the model (the v7.3
//! kernel it stands for does not break its rmap trees), never a finding: fix the model.
//!
//! The budget is a number of walks per scope (no time bound, so the result is the same on any
//! machine): a few tens of seconds in all on two cores. Each scope must really have walked
//! and made calls (a scope that offers nothing would pass vacuously); the figures are printed
//! (`cargo test --release --test model deep_search -- --nocapture`). CI runs the same search
//! with a larger budget through the command line (`.ci/baseline-deep-search`).

use crate::model_fixtures::{load, BASELINE};
use rmapcheck::explore::search::Outcome;
use rmapcheck::explore::simulate::{simulate_on, Simulation};
use rmapcheck::scope::Scope;
use rmapcheck::trace::text;

/// The built-in scopes (`Scope::builtin`), every one of them.
const BUILT_IN: [&str; 6] = [
    "tiny", "default", "contract", "walkers", "extended", "large",
];

/// Every scope to walk: the built-in ones, then the scope files, sorted.
fn scopes() -> Vec<String> {
    let mut files: Vec<String> = std::fs::read_dir("proofs/scopes")
        .expect("proofs/scopes")
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "toml"))
        .map(|p| p.display().to_string())
        .collect();
    files.sort();
    assert!(!files.is_empty(), "no scope files under proofs/scopes");
    BUILT_IN
        .iter()
        .map(|s| s.to_string())
        .chain(files)
        .collect()
}

/// The walks of scope number `i` (in [`scopes`]) on `prog`: the walk count, depth and seed
/// the test uses there.
fn walk(
    prog: &rmapcheck::lang::Program,
    model: &str,
    name: &str,
    i: usize,
) -> (rmapcheck::explore::simulate::SimReport, Simulation) {
    let mut scope = Scope::load(name).unwrap_or_else(|e| panic!("{name}: {e}"));
    // walkers make each shallow call many interleavings: fewer walks there
    let walks = if scope.walkers > 0 { 80 } else { 500 };
    // depths 20 to 48 across the scopes, seeds apart
    let sim = Simulation {
        walks,
        depth: [20, 24, 32, 48][i % 4],
        seed: 1 + i as u64,
    };
    sim.validate().unwrap();
    scope.max_depth = sim.depth;
    let budget = scope.budget();
    (
        simulate_on(prog, model, &scope, &sim, &budget, None, 2),
        sim,
    )
}

#[test]
fn the_baseline_never_fails_in_a_deep_random_search_of_any_scope() {
    let prog = load(BASELINE);
    let (mut all_walks, mut all_calls) = (0u64, 0usize);
    for (i, name) in scopes().iter().enumerate() {
        let (r, sim) = walk(&prog, BASELINE, name, i);
        let calls = r.stats.transitions;
        println!(
            "{name}: {} walks, {calls} calls, {} distinct states, longest walk {}, depth {}, \
             seed {}",
            r.walks, r.stats.states, r.stats.depth, sim.depth, sim.seed
        );
        match &r.outcome {
            Outcome::Incomplete { reason, .. } => {
                assert_eq!(reason, &sim.describe(), "{name}: stopped short")
            }
            Outcome::Counterexample(t) => panic!(
                "{name}: the baseline fails (a model bug), walk {:?}:\n{}",
                r.failing_walk,
                text::render(t, &prog)
            ),
            o => panic!("{name}: the baseline fails (a model bug): {o:?}"),
        }
        // no vacuous pass: every walk ran, and made calls, some of them deep
        assert_eq!(r.walks, sim.walks, "{name}");
        assert!(
            calls as u64 >= sim.walks,
            "{name}: {calls} calls for {} walks",
            sim.walks
        );
        assert!(r.stats.depth >= 8, "{name}: longest walk {}", r.stats.depth);
        all_walks += r.walks;
        all_calls += calls;
    }
    println!("in all: {all_walks} walks, {all_calls} calls");
}

/// The same walks fail on a mutant (a VMA left out of its file's tree after mprotect, growth
/// and mprotect again): the search is not blind to a broken model.
#[test]
fn the_same_search_fails_on_a_mutant() {
    let mutant = "models/mutants/no-reinsert-adj-next.rmap";
    let prog = load(mutant);
    let (r, _) = walk(&prog, mutant, "default", 1);
    match r.outcome {
        Outcome::Counterexample(t) => {
            assert_eq!(t.invariant(), Some(rmapcheck::check::Invariant::Membership))
        }
        o => panic!("the mutant is not caught: {o:?}"),
    }
}
