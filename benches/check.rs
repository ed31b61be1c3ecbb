//! Benchmark (not a test): states/s, calls/s and bytes per visited state of the baseline at
//! the default and contract scopes; and the reductions that keep every verdict, to show the
//! state and call counts with and without each: the symmetry over mms (`--symmetry`) and the
//! commuting calls (`--commute`) at the default scope, the symmetry over files
//! (`--file-symmetry`) at the default scope with two regular files.
//! `cargo bench --bench check`

use rmapcheck::cmd::load_model;
use rmapcheck::explore::scope::Scope;
use rmapcheck::explore::search::search;
use std::path::Path;

fn main() {
    let prog = load_model(Path::new("models/v7.3-rc4/baseline.rmap")).expect("baseline");
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
        let (_, st) = search(&prog, "baseline", &scope, &mut |_, _, _, _| {});
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
