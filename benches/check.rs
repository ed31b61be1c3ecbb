//! Benchmark (not a test): states/s, calls/s and bytes per visited state of the baseline at
//! the default and contract scopes; and the default scope with the symmetry reduction over mms
//! (`--symmetry`), to show the state counts with and without it.
//! `cargo bench --bench check`

use rmapcheck::cmd::load_model;
use rmapcheck::explore::scope::Scope;
use rmapcheck::explore::search::search;
use std::path::Path;

fn main() {
    let prog = load_model(Path::new("models/v7.3-rc4/baseline.rmap")).expect("baseline");
    for name in ["default", "contract", "default --symmetry"] {
        let mut scope = Scope::builtin(name.split(' ').next().unwrap_or(name)).expect("scope");
        scope.symmetry = name.ends_with("--symmetry");
        let (_, st) = search(&prog, "baseline", &scope, &mut |_, _, _, _| {});
        println!(
            "{name:>18}: {} states, {} calls, {:.2}s, {:.0} states/s, {:.0} calls/s, {} B/state",
            st.states,
            st.transitions,
            st.seconds,
            st.states_per_second(),
            st.transitions as f64 / st.seconds,
            st.bytes_per_state
        );
    }
}
