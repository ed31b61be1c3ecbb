//! The compact frontier (a node and a fingerprint per state, the world rebuilt by replaying its
//! calls when it is expanded) explores exactly what a frontier of whole worlds explores: the
//! same states and calls, the same verdict, the same first counterexample, on one thread or
//! several. The whole-world frontier is the call system itself with its rebuilding turned off.

use rmapcheck::checker::budget::Budget;
use rmapcheck::checker::{
    self, Config, Expansion, FrontierTuning, Start, TransitionSystem, Verdict,
};
use rmapcheck::cmd::load_model;
use rmapcheck::explore::search::{CallFailure, CallSystem};
use rmapcheck::lang::Program;
use rmapcheck::scope::Scope;
use rmapcheck::world::scenario::Call;
use rmapcheck::world::World;
use std::path::Path;

/// The call system with whole worlds in its frontier, as the search kept them before.
struct Whole<'a>(CallSystem<'a>);

impl TransitionSystem for Whole<'_> {
    type State = World;
    type Action = Call;
    type Failure = CallFailure;

    fn initial(&self) -> Result<World, Start<CallFailure>> {
        self.0.initial()
    }

    fn fingerprint(&self, w: &World) -> u64 {
        self.0.fingerprint(w)
    }

    fn expand(&self, w: &World, depth: u32, b: &Budget) -> Expansion<Call, World, CallFailure> {
        self.0.expand(w, depth, b)
    }
}

/// Whole worlds in the frontier, nothing recycled.
impl FrontierTuning for Whole<'_> {}

/// The verdict (with the failing path), the states and the calls of a search of `sys`.
fn run<T>(sys: &T, scope: &Scope, threads: usize) -> (String, usize, usize)
where
    T: FrontierTuning<Action = Call, Failure = CallFailure>,
{
    let cfg = Config {
        max_depth: scope.max_depth,
        max_states: scope.max_states,
        threads,
        batch: 256,
    };
    let (v, st) = checker::bfs(sys, &cfg, &Budget::unlimited(), &mut |_| {});
    let v = match v {
        Verdict::Holds { exhausted } => format!("holds (exhausted: {exhausted})"),
        Verdict::Failed { path, failure } => {
            let how = match failure {
                CallFailure::Initial(_) => "initial",
                CallFailure::Call => "call",
                CallFailure::Interleaving(_) => "interleaving",
            };
            format!("failed ({how}) after {path:?}")
        }
        Verdict::FailedInitial(_) => "failed initially".into(),
        Verdict::Incomplete { reason, .. } => format!("incomplete: {reason}"),
        Verdict::Error(e) => format!("error: {e}"),
    };
    (v, st.states, st.transitions)
}

/// Both frontiers, on one and two threads, agree on `prog` in `scope`; the common result.
fn same_either_way(prog: &Program, scope: &Scope) -> (String, usize, usize) {
    let budget = Budget::unlimited();
    let compact = CallSystem::new(prog, scope, budget.clone());
    assert!(
        compact.rebuilds(),
        "the call system keeps a compact frontier"
    );
    let whole = Whole(CallSystem::new(prog, scope, budget));
    let want = run(&whole, scope, 1);
    for threads in [1, 2] {
        assert_eq!(
            run(&compact, scope, threads),
            want,
            "compact, {threads} threads"
        );
    }
    assert_eq!(run(&whole, scope, 2), want, "whole worlds, 2 threads");
    want
}

fn load(path: &str) -> Program {
    load_model(Path::new(path)).expect("the model loads")
}

fn scope(name: &str, depth: u32) -> Scope {
    Scope {
        max_depth: depth,
        ..Scope::builtin(name).expect("a built-in scope")
    }
}

#[test]
fn the_baseline_explores_the_same_states_either_way() {
    let prog = load("models/v7.3-rc4/baseline.rmap");
    for depth in 1..=3 {
        let (v, states, _) = same_either_way(&prog, &scope("tiny", depth));
        assert!(v.starts_with("holds"), "{v}");
        assert!(states > 1, "depth {depth}: {states} states");
    }
    let (v, states, _) = same_either_way(&prog, &scope("default", 3));
    // 13,478 before the model fixes cdiff found (mprotect keeps VM_GROWSDOWN, copy_vma's
    // anonymous offset of an unfaulted file VMA, anon_vma_compatible's flags rule); 13,680
    // before VM_ACCOUNT and exec's stack move only of a faulted stack
    assert_eq!((v.as_str(), states), ("holds (exhausted: false)", 13_319));
}

#[test]
fn mutants_fail_at_the_same_first_counterexample_either_way() {
    for m in [
        "models/mutants/remove-vma-twice.rmap",
        "models/mutants/inplace-no-propagate.rmap",
        "models/mutants/skip-anon-unlink-only.rmap",
    ] {
        let (v, states, calls) = same_either_way(&load(m), &scope("default", 3));
        assert!(v.starts_with("failed (call) after ["), "{m}: {v}");
        assert!(
            states > 1 && calls > 0,
            "{m}: {states} states, {calls} calls"
        );
    }
}

#[test]
fn a_state_bound_stops_both_frontiers_at_the_same_count() {
    let prog = load("models/v7.3-rc4/baseline.rmap");
    let s = Scope {
        max_states: 300,
        ..scope("default", 3)
    };
    let (v, states, _) = same_either_way(&prog, &s);
    assert_eq!(v, "incomplete: state bound 300 reached");
    assert!(states > 300, "{states}");
}
