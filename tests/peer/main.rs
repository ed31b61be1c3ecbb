//! The stateright adapter of `benches/stateright.rs` explores the same state space as
//! rmapcheck's explorer: on small scopes both checkers count the same states and agree that
//! the baseline holds, and both find a mutant's failure
//! after equally many calls.

mod model;

use model::PeerModel;
use rmapcheck::checker::budget::Budget;
use rmapcheck::checker::{self, Config, Verdict};
use rmapcheck::cmd::load_model;
use rmapcheck::explore::search::CallSystem;
use rmapcheck::lang::Program;
use rmapcheck::scope::Scope;
use stateright::{Checker, Model};
use std::path::Path;

/// rmapcheck's state count, and the length of the failing call sequence (`None`: holds).
fn explorer_count(prog: &Program, scope: &Scope) -> (usize, Option<usize>) {
    let budget = Budget::unlimited();
    let sys = CallSystem::new(prog, scope, budget.clone());
    let cfg = Config {
        max_depth: scope.max_depth,
        max_states: scope.max_states,
        threads: 1,
        batch: 256,
    };
    let (verdict, stats) = checker::bfs(&sys, &cfg, &budget, &mut |_| {});
    let failing = match verdict {
        Verdict::Holds { .. } => None,
        Verdict::Failed { path, .. } => Some(path.len()),
        _ => panic!("the search neither held nor failed"),
    };
    (stats.states, failing)
}

/// stateright's unique state count (one thread, so states are first reached at their least
/// depth), and the length of the discovered failing call sequence (`None`: holds).
fn stateright_count(prog: &Program, scope: &Scope) -> (usize, Option<usize>) {
    let peer = PeerModel::new(prog.clone(), scope.clone()).expect("no walkers");
    let c = peer.checker().threads(1).spawn_bfs().join();
    (
        c.unique_state_count(),
        c.discovery("no call failed")
            .map(|p| p.into_actions().len()),
    )
}

fn baseline() -> Program {
    load_model(Path::new("models/v7.3-rc4/baseline.rmap")).expect("baseline loads")
}

#[test]
fn same_states_at_the_tiny_scope() {
    let prog = baseline();
    for depth in 1..=3 {
        let scope = Scope {
            max_depth: depth,
            ..Scope::builtin("tiny").unwrap()
        };
        let ours = explorer_count(&prog, &scope);
        let theirs = stateright_count(&prog, &scope);
        assert_eq!(
            (ours.1, theirs.1),
            (None, None),
            "the baseline holds at tiny depth {depth}"
        );
        assert_eq!(ours.0, theirs.0, "state counts at tiny depth {depth}");
        assert!(ours.0 > 1, "the search left the initial state");
    }
}

#[test]
fn same_states_at_the_default_scope_depth_2() {
    let prog = baseline();
    let scope = Scope {
        max_depth: 2,
        ..Scope::builtin("default").unwrap()
    };
    let ours = explorer_count(&prog, &scope);
    let theirs = stateright_count(&prog, &scope);
    assert_eq!((ours.1, theirs.1), (None, None));
    assert_eq!(ours.0, theirs.0);
}

#[test]
fn both_find_a_mutant_failing() {
    let path = Path::new("models/mutants/remove-vma-twice.rmap");
    let prog = load_model(path).expect("mutant loads");
    let scope = Scope::builtin("tiny").unwrap();
    let ours = explorer_count(&prog, &scope).1;
    let theirs = stateright_count(&prog, &scope).1;
    assert!(ours.is_some(), "rmapcheck finds the mutant");
    // both searches are breadth-first: the failing sequences are equally short
    assert_eq!(ours, theirs, "length of the failing call sequence");
}

#[test]
fn a_scope_with_walkers_is_refused() {
    let err = PeerModel::new(baseline(), Scope::builtin("walkers").unwrap())
        .err()
        .expect("walkers refused");
    assert!(err.contains("walkers = 1"), "{err}");
}
