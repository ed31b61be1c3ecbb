//! loom cross-check of the interleaving explorer. One writer call and one walker run on loom
//! threads over the same interpreter and world code: the world and the threads' stacks sit
//! behind one loom Mutex, each thread takes one atomic step (`interleave::step_thread`) per
//! acquisition, and a step that would block is retried after `loom::thread::yield_now()`.
//! Every execution must be violation-free (the same checks as the explorer), and the set of
//! outcomes (return values and what each walk found) over all loom executions must equal the
//! set the step explorer reports with its partial-order reduction: the reduction loses no
//! outcome loom can reach, and loom reaches every outcome the explorer reports.
//!
//! Run with: RUSTFLAGS="--cfg loom" LOOM_MAX_PREEMPTIONS=2 CARGO_TARGET_DIR=target/loom \
//!     cargo test --release --test loom_interleave
#![cfg(loom)]

mod model_fixtures;
use model_fixtures::*;
use rmapcheck::explore::interleave::{
    explore, initial_state, outcomes_of, step_thread, Config, IOutcome, Next,
};
use rmapcheck::world::scenario::{Call, Scenario};
use std::collections::BTreeSet;

type Outcomes = BTreeSet<Vec<String>>;

fn loom_outcomes(model: &str, world: &str, calls: &[&str]) -> Outcomes {
    let prog = std::sync::Arc::new(load(model));
    let w = Scenario::parse(world).unwrap().build().unwrap();
    let calls: Vec<Call> = calls.iter().map(|c| Call::parse(c).unwrap()).collect();
    let s0 = initial_state(&prog, &w, &calls).unwrap();
    let seen = std::sync::Arc::new(std::sync::Mutex::new(Outcomes::new()));
    let seen2 = seen.clone();
    let n = calls.len();
    let mut b = loom::model::Builder::new();
    b.max_branches = 100_000;
    b.check(move || {
        let state = loom::sync::Arc::new(loom::sync::Mutex::new(s0.clone()));
        let run = |prog: std::sync::Arc<rmapcheck::lang::Program>,
                   state: loom::sync::Arc<loom::sync::Mutex<_>>,
                   tid: usize| {
            let cfg = Config::default();
            let mut edges = BTreeSet::new();
            loop {
                let mut g = state.lock().unwrap();
                let s: &mut rmapcheck::explore::interleave::IState = &mut g;
                if s.threads[tid].is_finished() {
                    return;
                }
                match step_thread(&prog, s, tid, &cfg, &mut edges) {
                    Next::Blocked => {
                        drop(g);
                        loom::thread::yield_now();
                    }
                    Next::Step(next, rec, v, _) => {
                        assert!(v.is_empty(), "{rec:?}: {v:?}");
                        *s = *next;
                    }
                }
            }
        };
        let handles: Vec<_> = (1..n)
            .map(|t| {
                let (p, s) = (prog.clone(), state.clone());
                loom::thread::spawn(move || run(p, s, t))
            })
            .collect();
        run(prog.clone(), state.clone(), 0);
        for h in handles {
            h.join().unwrap();
        }
        let s = state.lock().unwrap();
        seen2.lock().unwrap().insert(outcomes_of(&prog, &s));
    });
    let out = seen.lock().unwrap().clone();
    out
}

fn explorer_outcomes(model: &str, world: &str, calls: &[&str]) -> Outcomes {
    let p = load(model);
    let w = Scenario::parse(world).unwrap().build().unwrap();
    let calls: Vec<Call> = calls.iter().map(|c| Call::parse(c).unwrap()).collect();
    // with the footprint table, as a search's walker phase explores: the reduction against
    // what each thread may still do from where it stands; and without it (whole functions)
    let r = explore(&p, model, &w, &calls, &with_table(&p)).unwrap();
    assert!(matches!(r.outcome, IOutcome::Holds), "{:?}", r.outcome);
    let whole = explore(&p, model, &w, &calls, &Config::default()).unwrap();
    assert_eq!(whole.outcomes, r.outcomes);
    r.outcomes
}

fn same(world: &str, calls: &[&str]) {
    let l = loom_outcomes(BASELINE, world, calls);
    let e = explorer_outcomes(BASELINE, world, calls);
    println!("{calls:?}: loom {l:?}\nexplorer {e:?}");
    assert_eq!(l, e);
}

/// A file walk against a munmap that splits the VMA twice.
#[test]
fn loom_file_walk_against_munmap() {
    same(
        ONE_FILE_VMA,
        &["sys_munmap(mm#0, 3, 5)", "rmap_walk_file(mapping#0, 105)"],
    );
}

/// MADV_DONTNEED under the per-VMA lock against the same munmap: both the per-VMA path and
/// the mmap-lock fallback are reached by both.
#[test]
fn loom_madvise_against_munmap() {
    same(
        ONE_FILE_VMA,
        &["sys_munmap(mm#0, 3, 5)", "madvise_dontneed(mm#0, 0, 2)"],
    );
}
