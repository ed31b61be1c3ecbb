//! The symmetry reduction over mms (`check --symmetry`) keeps every verdict: on every model,
//! patch and mutant, the search with it and without it gives the same verdict, the same first
//! failing invariant and equally short counterexamples, and the counterexample found with it
//! replays without it (its trace is built by re-running its calls on unreduced worlds). The
//! default scope at depth 3 (two mms: fork is in the alphabet) keeps the test to seconds.

use rmapcheck::cmd::{discover_models, load_model};
use rmapcheck::explore::scope::Scope;
use rmapcheck::explore::search::{search, Outcome};
use std::path::Path;

/// The verdict as a comparable line, and the state count.
fn verdict(path: &Path, symmetry: bool) -> (String, usize) {
    let prog = load_model(path).expect("model loads");
    let scope = Scope {
        max_depth: 3,
        symmetry,
        ..Scope::builtin("default").unwrap()
    };
    let (outcome, stats) = search(&prog, "m", &scope, &mut |_, _, _, _| {});
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

#[test]
fn same_verdicts_with_and_without_symmetry() {
    let mut models = discover_models(Path::new("models"), true);
    models.sort();
    assert!(models.len() > 20, "every model, patch and mutant");
    let mut reduced_somewhere = false;
    for m in &models {
        let (plain, n_plain) = verdict(m, false);
        let (sym, n_sym) = verdict(m, true);
        println!("{}: {plain}; states {n_plain} -> {n_sym}", m.display());
        assert_eq!(plain, sym, "{}", m.display());
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
    assert!(reduced_somewhere, "the reduction merges some states");
}
