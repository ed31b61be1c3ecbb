//! Benchmark (not a test): rmapcheck's explorer against stateright's breadth-first checker on
//! the same transition function (the baseline model at the default scope), on 1 and 2 threads.
//! Prints, from one run each:
//! - per depth (3, 4, 5) and thread count, both state counts on the same (unreduced) states
//!   (checked equal, see `tests/peer/model.rs` for how each counts), both rates in states/s
//!   and their ratio, and each checker's scaling from 1 to 2 threads;
//! - time to verdict: rmapcheck with `check`'s default reductions against stateright, for the
//!   baseline (holds) and a mutant (a counterexample), on 1 and 2 threads, with the same
//!   verdict (and, for the mutant, the same counterexample length) checked.
//!
//! `cargo bench --bench stateright` (about 5 minutes on 2 cores).

#[path = "../tests/peer/model.rs"]
mod model;

use model::PeerModel;
use rmapcheck::checker::budget::Budget;
use rmapcheck::checker::{self, Config, Verdict};
use rmapcheck::cmd::load_model;
use rmapcheck::explore::search::CallSystem;
use rmapcheck::scope::Scope;
use stateright::{Checker, Model};
use std::path::Path;
use std::time::Instant;

/// One checker's figures.
struct Run {
    states: usize,
    seconds: f64,
    holds: bool,
    /// The length of the counterexample found (0 when none).
    length: usize,
}

impl Run {
    fn rate(&self) -> f64 {
        self.states as f64 / self.seconds.max(1e-9)
    }
}

fn rmapcheck_run(prog: &rmapcheck::lang::Program, scope: &Scope, threads: usize) -> Run {
    let budget = Budget::unlimited();
    let sys = CallSystem::new(prog, scope, budget.clone());
    let cfg = Config {
        max_depth: scope.max_depth,
        max_states: scope.max_states,
        threads,
        // the batch `check` uses
        batch: 256,
    };
    let t0 = Instant::now();
    let (verdict, stats) = checker::bfs(&sys, &cfg, &budget, &mut |_| {});
    Run {
        states: stats.states,
        seconds: t0.elapsed().as_secs_f64(),
        holds: matches!(verdict, Verdict::Holds { .. }),
        length: match &verdict {
            Verdict::Failed { path, .. } => path.len(),
            _ => 0,
        },
    }
}

fn stateright_run(peer: PeerModel, threads: usize) -> Run {
    let t0 = Instant::now();
    let checker = peer.checker().threads(threads).spawn_bfs().join();
    let found = checker.discovery("no call failed");
    Run {
        states: checker.unique_state_count(),
        seconds: t0.elapsed().as_secs_f64(),
        holds: found.is_none(),
        length: found.map_or(0, |p| p.into_actions().len()),
    }
}

fn main() {
    let path = Path::new("models/v7.3-rc4/baseline.rmap");
    let prog = load_model(path).expect("baseline");
    same_states(&prog);
    time_to_verdict(&prog);
}

/// Both checkers on the same (unreduced) states: states/s and scaling.
fn same_states(prog: &rmapcheck::lang::Program) {
    println!(
        "{:>5} {:>7} | {:>9} {:>10} | {:>9} {:>10} | {:>5} | counts",
        "depth", "threads", "rmapcheck", "states/s", "stateright", "states/s", "ratio"
    );
    // each checker's rate on 2 threads over its rate on 1, per depth
    let mut scaling = Vec::new();
    for depth in [3, 4, 5] {
        let mut rates = Vec::new();
        let scope = Scope {
            max_depth: depth,
            // depth 5 has more states than the default scope's bound allows
            max_states: usize::MAX,
            max_seconds: 3600.0,
            ..Scope::builtin("default").expect("default scope")
        };
        for threads in [1, 2] {
            let ours = rmapcheck_run(prog, &scope, threads);
            let peer = PeerModel::new(prog.clone(), scope.clone()).expect("no walkers");
            let theirs = stateright_run(peer, threads);
            assert!(
                ours.holds && theirs.holds,
                "the baseline fails at the default scope"
            );
            let counts = if ours.states == theirs.states {
                "equal".to_string()
            } else {
                // stateright's workers share out their queues: past one thread a level is not
                // finished before the next, so a state may be reached first at a depth where it
                // is not expanded (see tests/peer/model.rs); it can only count fewer
                assert!(
                    threads > 1 && theirs.states < ours.states,
                    "the counts must agree on one thread and never exceed rmapcheck's"
                );
                format!(
                    "stateright {} fewer: its {threads} workers do not finish a level before \
                     the next, so some states are first reached at the depth bound",
                    ours.states - theirs.states
                )
            };
            rates.push((ours.rate(), theirs.rate()));
            println!(
                "{depth:>5} {threads:>7} | {:>9} {:>10.0} | {:>10} {:>10.0} | {:>5.2} | {counts}",
                ours.states,
                ours.rate(),
                theirs.states,
                theirs.rate(),
                ours.rate() / theirs.rate().max(1e-9),
            );
        }
        if let [(o1, t1), (o2, t2)] = rates[..] {
            scaling.push((depth, o2 / o1.max(1e-9), t2 / t1.max(1e-9)));
        }
    }
    println!("ratio: rmapcheck states/s over stateright states/s (the same states, one run)");
    for (depth, ours, theirs) in scaling {
        println!(
            "depth {depth}: 2 threads over 1 thread: rmapcheck {ours:.2}x, stateright {theirs:.2}x"
        );
    }
}

/// Time to the same verdict: rmapcheck with `check`'s default reductions (`Scope::
/// reduce_by_default`), stateright on every state, for the baseline and a mutant at depth 4.
fn time_to_verdict(baseline: &rmapcheck::lang::Program) {
    let mutant_path = Path::new("models/mutants/no-reinsert-adj-next.rmap");
    let mutant = load_model(mutant_path).expect("mutant");
    println!();
    println!(
        "time to verdict at depth 4 (rmapcheck with check's default reductions; stateright on \
         every state)"
    );
    println!(
        "{:<22} {:>7} | {:>9} {:>8} | {:>10} {:>8} | {:>5} | verdict",
        "model", "threads", "rmapcheck", "s", "stateright", "s", "ratio"
    );
    for (name, prog) in [("baseline", baseline), ("no-reinsert-adj-next", &mutant)] {
        let plain = Scope::builtin("default").expect("default scope");
        let mut reduced = plain.clone();
        reduced.reduce_by_default();
        for threads in [1, 2] {
            let ours = rmapcheck_run(prog, &reduced, threads);
            let peer = PeerModel::new(prog.clone(), plain.clone()).expect("no walkers");
            let theirs = stateright_run(peer, threads);
            assert_eq!(ours.holds, theirs.holds, "{name}: the verdicts differ");
            // stateright's workers may report a failure found deeper than the shallowest on
            // two threads; on one its search is breadth-first like ours
            if threads == 1 {
                assert_eq!(ours.length, theirs.length, "{name}: counterexample lengths");
            }
            let verdict = if ours.holds {
                "holds (both)".to_string()
            } else {
                format!(
                    "counterexample after {} calls (stateright: {})",
                    ours.length, theirs.length
                )
            };
            println!(
                "{name:<22} {threads:>7} | {:>9} {:>8.2} | {:>10} {:>8.2} | {:>5.2} | {verdict}",
                ours.states,
                ours.seconds,
                theirs.states,
                theirs.seconds,
                theirs.seconds / ours.seconds.max(1e-9),
            );
        }
    }
    println!("ratio: stateright's seconds over rmapcheck's (time to the same verdict, one run)");
}
