//! The reductions `check` turns on by default (`Scope::reduce_by_default`: symmetry over mms and
//! over files) keep every verdict: on every model, patch and mutant, the search with them and
//! without them gives the same verdict, the same first failing invariant and equally short
//! counterexamples, and the counterexample found with them replays without them (its trace is
//! built by re-running its calls on unreduced worlds). Three scopes: the default at depth 3
//! (two mms: fork is in the alphabet), the contract scope at depth 2, and the default with two
//! regular files at depth 2 (the file symmetry then has files to exchange).

use rmapcheck::cmd::{discover_models, load_model};
use rmapcheck::explore::search::{search, Outcome};
use rmapcheck::scope::Scope;
use std::path::Path;

/// The verdict as a comparable line, and the state count.
fn verdict(path: &Path, base: &Scope, reduced: bool) -> (String, usize) {
    let prog = load_model(path).expect("model loads");
    let mut scope = base.clone();
    if reduced {
        scope.reduce_by_default();
        assert!(scope.symmetry && scope.file_symmetry, "reductions on");
    }
    let (outcome, stats) = search(&prog, "m", &scope, &mut |_| {});
    let line = match outcome {
        Outcome::Holds { exhausted } => format!("holds (exhausted {exhausted})"),
        Outcome::Counterexample(t) => {
            // the trace re-ran its calls without the reduction: it must fail there too
            let inv = t.invariant().expect("a counterexample names its invariant");
            format!("counterexample {inv} after {} calls", t.calls.len())
        }
        Outcome::Interleaving(t) => format!("interleaving {:?}", t.invariant()),
        Outcome::Incomplete { reason, .. } => format!("incomplete: {reason}"),
    };
    (line, stats.states)
}

/// Every model both ways at `base`; whether the reductions merged any state.
fn both_ways(base: &Scope) -> bool {
    let mut models = discover_models(Path::new("models"), true);
    models.sort();
    assert!(models.len() > 20, "every model, patch and mutant");
    let mut reduced_somewhere = false;
    for m in &models {
        let (plain, n_plain) = verdict(m, base, false);
        let (sym, n_sym) = verdict(m, base, true);
        println!(
            "{} [{}]: {plain}; states {n_plain} -> {n_sym}",
            m.display(),
            base.name
        );
        assert_eq!(plain, sym, "{} [{}]", m.display(), base.name);
        assert!(!plain.starts_with("incomplete"), "{}: {plain}", m.display());
        if plain.starts_with("holds") {
            assert!(
                n_sym <= n_plain,
                "{}: the reduction adds states",
                m.display()
            );
            reduced_somewhere |= n_sym < n_plain;
        }
    }
    reduced_somewhere
}

#[test]
fn same_verdicts_with_and_without_the_default_reductions() {
    let default = Scope {
        max_depth: 3,
        ..Scope::builtin("default").unwrap()
    };
    assert!(both_ways(&default), "the reductions merge some states");
}

#[test]
fn same_verdicts_with_and_without_the_default_reductions_in_contract_mode() {
    let contract = Scope {
        max_depth: 2,
        ..Scope::builtin("contract").unwrap()
    };
    both_ways(&contract);
}

#[test]
fn same_verdicts_with_and_without_the_default_reductions_over_two_files() {
    let two_files = Scope {
        name: "two-files".into(),
        max_depth: 2,
        files: 2,
        ..Scope::builtin("default").unwrap()
    };
    assert!(
        both_ways(&two_files),
        "exchanging the files merges some states"
    );
}
