//! Benchmark (not a test): states/s, calls/s and bytes per visited state of the baseline at
//! the default and contract scopes; and the reductions that keep every verdict, to show the
//! state and call counts with and without each: the symmetry over mms (`--symmetry`) and the
//! commuting calls (`--commute`) at the default scope, the symmetry over files
//! (`--file-symmetry`) at the default scope with two regular files.
//! First, the engines: calls/s of the reference interpreter and of the compiled engine, on
//! the calls of the default scope's first levels and over the whole default search, and the
//! ratios.
//! `cargo bench --bench check`

use rmapcheck::checker::budget::Budget;
use rmapcheck::cmd::load_model;
use rmapcheck::explore::alphabet;
use rmapcheck::explore::search::{fingerprint, search, CallSystem};
use rmapcheck::lang::Program;
use rmapcheck::scope::{Engine, Scope};
use rmapcheck::world::scenario::Call;
use rmapcheck::world::World;
use std::collections::HashSet;
use std::path::Path;
use std::time::Instant;

/// Every state of the default scope up to `depth` calls and every call it offers.
fn sample(prog: &Program, scope: &Scope, depth: u32) -> Vec<(World, Call)> {
    let sys = CallSystem::new(prog, scope, Budget::unlimited());
    let mut level = vec![scope.initial_scenario().build().expect("world").canonical()];
    let mut seen = HashSet::new();
    let mut out = Vec::new();
    for _ in 0..depth {
        let mut next = Vec::new();
        for w in &level {
            for call in alphabet::calls(scope, prog, w) {
                let mut w2 = w.clone();
                let failed = sys.apply(&mut w2, &call).failure.is_some();
                out.push((w.clone(), call));
                let w2 = sys.canonical(&w2);
                if !failed && seen.insert(fingerprint(&w2)) {
                    next.push(w2);
                }
            }
        }
        level = next;
    }
    out
}

/// Seconds `engine` takes to apply every call of `pairs` (on copies made before the clock
/// starts), on this thread, with every check or with none.
fn time_calls(
    prog: &Program,
    scope: &Scope,
    engine: Engine,
    checks: bool,
    pairs: &[(World, Call)],
) -> f64 {
    let mut scope = scope.clone();
    scope.engine = engine;
    let sys = CallSystem::new(prog, &scope, Budget::unlimited());
    let sys = if checks { sys } else { sys.without_checks() };
    let mut worlds: Vec<World> = pairs.iter().map(|(w, _)| w.clone()).collect();
    let t = Instant::now();
    for (w, (_, call)) in worlds.iter_mut().zip(pairs) {
        std::hint::black_box(sys.apply(w, call));
    }
    t.elapsed().as_secs_f64()
}

/// The engines side by side: on the calls alone (best of three alternating runs each), and
/// over the whole default search.
fn engines(prog: &Program) {
    let scope = Scope::builtin("default").expect("scope");
    let pairs = sample(prog, &scope, 3);
    let n = pairs.len() as f64;
    for checks in [true, false] {
        let (mut r, mut c) = (f64::MAX, f64::MAX);
        for _ in 0..3 {
            r = r.min(time_calls(prog, &scope, Engine::Reference, checks, &pairs));
            c = c.min(time_calls(prog, &scope, Engine::Compiled, checks, &pairs));
        }
        let what = if checks {
            "apply with every check"
        } else {
            "apply with no check: the engines and the builtins alone"
        };
        println!(
            "engine, {} calls of the default scope's first 3 levels ({what}, one thread): \
             reference {:.0} calls/s, compiled {:.0} calls/s, ratio {:.2}",
            pairs.len(),
            n / r,
            n / c,
            r / c
        );
    }
    let mut per = Vec::new();
    for engine in [Engine::Reference, Engine::Compiled] {
        let mut s = scope.clone();
        s.engine = engine;
        let (_, st) = search(prog, "baseline", &s, &mut |_| {});
        let cps = st.transitions as f64 / st.seconds;
        println!(
            "engine, whole default search: {engine:?}: {} states, {} calls, {:.2}s, {cps:.0} calls/s",
            st.states, st.transitions, st.seconds
        );
        per.push(cps);
    }
    println!("engine, whole default search: ratio {:.2}", per[1] / per[0]);
}

fn main() {
    let prog = load_model(Path::new("models/v7.3-rc4/baseline.rmap")).expect("baseline");
    engines(&prog);
    let runs = [
        "default",
        "contract",
        "default --symmetry",
        "default --commute",
        "contract --commute",
        "default files=2",
        "default files=2 --file-symmetry",
    ];
    for name in runs {
        let mut words = name.split(' ');
        let mut scope = Scope::builtin(words.next().unwrap_or(name)).expect("scope");
        for w in words {
            match w {
                "--symmetry" => scope.symmetry = true,
                "--commute" => scope.commute = true,
                "--file-symmetry" => scope.file_symmetry = true,
                "files=2" => scope.files = 2,
                _ => unreachable!("a run names only these"),
            }
        }
        let (_, st) = search(&prog, "baseline", &scope, &mut |_| {});
        println!(
            "{name:>32}: {} states, {} calls, {:.2}s, {:.0} states/s, {:.0} calls/s, {} B/state",
            st.states,
            st.transitions,
            st.seconds,
            st.states_per_second(),
            st.transitions as f64 / st.seconds,
            st.bytes_per_state
        );
    }
}
