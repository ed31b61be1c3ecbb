//! The interleaving explorer: one writer call against concurrent walkers. The baseline holds on
//! each scenario; each concurrency mutant is caught with the property its header names, and the
//! trace shows both threads' steps; the reduction reports the same walker outcomes as the full
//! exploration while visiting fewer states.

mod model_fixtures;
use model_fixtures::*;
use rmapcheck::explore::interleave::{explore, Config, IOutcome, IResult};
use rmapcheck::world::scenario::{Call, Scenario};

fn go(model: &str, world: &str, calls: &[&str], reduction: bool) -> IResult {
    let p = load(model);
    let w = Scenario::parse(world).unwrap().build().unwrap();
    let calls: Vec<Call> = calls.iter().map(|c| Call::parse(c).unwrap()).collect();
    let cfg = Config {
        reduction,
        ..Config::default()
    };
    explore(&p, model, &w, &calls, &cfg).unwrap()
}

fn holds(model: &str, world: &str, calls: &[&str]) -> IResult {
    let r = go(model, world, calls, true);
    match &r.outcome {
        IOutcome::Holds => {}
        IOutcome::Violation(t) => panic!("{model}: {:?}\n{:?}", t.violations, t.steps),
        IOutcome::Incomplete(m) => panic!("{model}: incomplete: {m}"),
    }
    r
}

fn caught(model: &str, world: &str, calls: &[&str], invariant: &str) -> IResult {
    let r = go(model, world, calls, true);
    match &r.outcome {
        IOutcome::Violation(t) => {
            assert_eq!(t.invariant(), invariant, "{:?}", t.violations);
            let tids: std::collections::BTreeSet<u8> = t.steps.iter().map(|s| s.tid).collect();
            assert!(
                tids.len() >= 2,
                "the trace shows both threads: {:?}",
                t.steps
            );
        }
        o => panic!("{model}: expected {invariant}, got {o:?}"),
    }
    r
}

const MUNMAP_MIDDLE: &str = "sys_munmap(mm#0, 3, 5)";

#[test]
fn lock_dropped_between_caught_by_file_walker() {
    let calls = [MUNMAP_MIDDLE, "rmap_walk_file(mapping#0, 101)"];
    holds(BASELINE, ONE_FILE_VMA, &calls);
    caught(
        "models/mutants/lock-dropped-between.rmap",
        ONE_FILE_VMA,
        &calls,
        "walker-complete",
    );
}
