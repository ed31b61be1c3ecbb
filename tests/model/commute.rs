//! The reductions that keep every verdict, on every model, patch and mutant, at small scopes:
//!
//! - commuting calls (`check --commute`, sleep sets): the same verdict, the same counterexample
//!   call for call (the search visits the same states in the same order), the same number of
//!   states, never more calls run, and fewer somewhere;
//! - the symmetry over files (`check --file-symmetry`), at a scope with two regular files: the
//!   same verdict, the same first failing invariant and equally short counterexamples (traces
//!   are re-run on unreduced worlds), never more states, and fewer somewhere.

use rmapcheck::cmd::{discover_models, load_model};
use rmapcheck::explore::replay::replay;
use rmapcheck::explore::search::{search, Outcome, Stats};
use rmapcheck::fuzzing::validate_call;
use rmapcheck::scope::Scope;
use rmapcheck::world::scenario::Call;
use rmapcheck::world::World;
use std::path::{Path, PathBuf};

/// The verdict as a comparable line (with the counterexample's calls when `calls`), and the
/// search's figures.
fn verdict(path: &Path, scope: &Scope, calls: bool) -> (String, Stats) {
    let prog = load_model(path).expect("model loads");
    let (outcome, stats) = search(&prog, "m", scope, &mut |_| {});
    let line = match outcome {
        Outcome::Holds { exhausted } => format!("holds (exhausted {exhausted})"),
        Outcome::Counterexample(t) => {
            let inv = t.invariant().expect("a counterexample names its invariant");
            // replay never reduces: the trace must fail there as recorded
            let check = |w: &World, c: &Call| validate_call(&prog, w, c);
            let r = replay(&prog, &t, &check).expect("the trace replays");
            assert!(r.reproduced, "{}: {r:?}", path.display());
            let mut line = format!("counterexample {inv} after {} calls", t.calls.len());
            if calls {
                for c in &t.calls {
                    line.push_str(&format!("; {c}"));
                }
            }
            line
        }
        Outcome::Interleaving(t) => format!("interleaving {:?}", t.invariant()),
        Outcome::Incomplete { reason, .. } => format!("incomplete: {reason}"),
    };
    (line, stats)
}

fn models() -> Vec<PathBuf> {
    let mut models = discover_models(Path::new("models"), true);
    models.sort();
    assert!(models.len() > 20, "every model, patch and mutant");
    models
}

#[test]
fn commuting_calls_keep_states_verdicts_and_counterexamples() {
    let plain = Scope {
        max_depth: 3,
        ..Scope::builtin("default").unwrap()
    };
    let reduced = Scope {
        commute: true,
        ..plain.clone()
    };
    let mut fewer_somewhere = false;
    for m in &models() {
        let (a, sa) = verdict(m, &plain, true);
        let (b, sb) = verdict(m, &reduced, true);
        println!(
            "{}: {a}; states {} -> {}, calls {} -> {}",
            m.display(),
            sa.states,
            sb.states,
            sa.transitions,
            sb.transitions
        );
        assert_eq!(a, b, "{}", m.display());
        assert!(!a.starts_with("incomplete"), "{}: {a}", m.display());
        assert_eq!(sa.states, sb.states, "{}: the same states", m.display());
        assert!(sb.transitions <= sa.transitions, "{}", m.display());
        fewer_somewhere |= sb.transitions < sa.transitions;
    }
    assert!(fewer_somewhere, "the reduction leaves some call out");
}

#[test]
fn the_file_symmetry_keeps_verdicts() {
    let plain = Scope {
        max_depth: 3,
        files: 2,
        ..Scope::builtin("default").unwrap()
    };
    let reduced = Scope {
        file_symmetry: true,
        ..plain.clone()
    };
    let mut merged_somewhere = false;
    for m in &models() {
        let (a, sa) = verdict(m, &plain, false);
        let (b, sb) = verdict(m, &reduced, false);
        println!(
            "{}: {a}; states {} -> {}",
            m.display(),
            sa.states,
            sb.states
        );
        assert_eq!(a, b, "{}", m.display());
        assert!(!a.starts_with("incomplete"), "{}: {a}", m.display());
        if a.starts_with("holds") {
            assert!(
                sb.states <= sa.states,
                "{}: the reduction adds states",
                m.display()
            );
            merged_somewhere |= sb.states < sa.states;
        }
    }
    assert!(merged_somewhere, "the reduction merges some states");
}

#[test]
fn the_baseline_at_depth_3_runs_fewer_calls_and_fewer_states() {
    let prog = load_model(Path::new("models/v7.3-rc4/baseline.rmap")).expect("baseline");
    let run = |s: &Scope| search(&prog, "baseline", s, &mut |_| {}).1;
    let base = Scope {
        max_depth: 3,
        files: 2,
        ..Scope::builtin("default").unwrap()
    };
    let plain = run(&base);
    let commute = run(&Scope {
        commute: true,
        ..base.clone()
    });
    let files = run(&Scope {
        file_symmetry: true,
        ..base.clone()
    });
    assert_eq!(commute.states, plain.states);
    assert!(commute.transitions < plain.transitions);
    assert!(files.states < plain.states);
}
