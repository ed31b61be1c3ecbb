//! Benchmark (not a test): the distributed search (timely workers in this process) on the
//! baseline at the default scope, 1 and 2 workers, beside the single-process search, from one
//! run each, with the speed-up of 2 workers over 1 and the CPU time each used (so a machine
//! shared with other work shows as such). `cargo bench --bench distributed`

use rmapcheck::cmd::load_model;
use rmapcheck::explore::distributed::{self, Cluster};
use rmapcheck::explore::search::search;
use rmapcheck::scope::Scope;
use std::path::Path;
use std::time::Duration;

/// CPU seconds this process has used (user + system).
fn cpu_seconds() -> f64 {
    // SAFETY: getrusage writes the struct it is given.
    let mut u: libc::rusage = unsafe { std::mem::zeroed() };
    unsafe { libc::getrusage(libc::RUSAGE_SELF, &mut u) };
    let tv = |t: libc::timeval| t.tv_sec as f64 + t.tv_usec as f64 / 1e6;
    tv(u.ru_utime) + tv(u.ru_stime)
}

fn main() {
    let prog = load_model(Path::new("models/v7.3-rc4/baseline.rmap")).expect("baseline");
    let scope = Scope::builtin("default").expect("scope");
    let c0 = cpu_seconds();
    let (_, st) = search(&prog, "baseline", &scope, &mut |_| {});
    println!(
        "single-process: {} states, {:.2}s, {:.0} states/s, {:.2} CPU s",
        st.states,
        st.seconds,
        st.states_per_second(),
        cpu_seconds() - c0
    );
    let mut secs = Vec::new();
    for workers in [1, 2] {
        let cluster = Cluster {
            workers,
            process: 0,
            addresses: Vec::new(),
            connect_timeout: Duration::from_secs(1),
        };
        let budget = scope.budget();
        let c0 = cpu_seconds();
        let (_, st) = distributed::search(&prog, "baseline", &scope, &budget, &cluster, &|_| {})
            .expect("distributed search");
        println!(
            "{workers} worker(s):   {} states, {:.2}s, {:.0} states/s, {:.2} CPU s",
            st.states,
            st.seconds,
            st.states_per_second(),
            cpu_seconds() - c0
        );
        secs.push(st.seconds);
    }
    println!(
        "speed-up of 2 workers over 1: {:.2}x on {} core(s)",
        secs[0] / secs[1],
        std::thread::available_parallelism().map_or(1, |n| n.get())
    );
}
