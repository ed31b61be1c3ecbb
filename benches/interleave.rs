//! Benchmark (run with `cargo bench --bench interleave`): states and transitions per second of
//! the interleaving explorer on one writer and two walkers, with and without the partial-order
//! reduction, and the reduction's ratio of states, from one run.

use rmapcheck::explore::interleave::{explore, Config};
use rmapcheck::world::scenario::{Call, Scenario};
use std::path::Path;

/// The benchmark scenario: one file VMA [0, 8) shared by two mms (so the trees have two
/// nodes), a munmap of [3, 5) in the first, a file walk and a per-VMA-lock MADV_DONTNEED.
const BENCH_WORLD: &str = r#"
[[file]]
name = "f"
[[mm]]
[[mm.vma]]
start = 0
end = 8
pgoff = 100
file = "f"
[[mm]]
[[mm.vma]]
start = 0
end = 8
pgoff = 100
file = "f"
"#;

/// The benchmark's threads.
const BENCH_CALLS: [&str; 3] = [
    "sys_munmap(mm#0, 3, 5)",
    "rmap_walk_file(mapping#0, 105)",
    "madvise_dontneed(mm#0, 0, 2)",
];

/// States and interleavings per second, with and without the
/// reduction, on the baseline model.
fn bench(model: &Path, rounds: u32, out: &mut dyn std::io::Write) -> i32 {
    let prog = match rmapcheck::models::load_model(model) {
        Ok(p) => p,
        Err(d) => {
            let _ = write!(out, "{d}");
            return 2;
        }
    };
    let world = match Scenario::parse(BENCH_WORLD).and_then(|s| s.build()) {
        Ok(w) => w,
        Err(e) => {
            let _ = writeln!(out, "{e}");
            return 2;
        }
    };
    let calls: Vec<Call> = BENCH_CALLS
        .iter()
        .map(|c| Call::parse(c).unwrap())
        .collect();
    let _ = writeln!(out, "bench interleave: {}", BENCH_CALLS.join(" | "));
    let mut figures = Vec::new();
    for reduction in [false, true] {
        let cfg = Config {
            reduction,
            ..Config::default()
        };
        let t0 = std::time::Instant::now();
        let mut last = None;
        for _ in 0..rounds.max(1) {
            match explore(&prog, "bench", &world, &calls, &cfg) {
                Ok(r) => last = Some(r),
                Err(e) => {
                    let _ = writeln!(out, "{e}");
                    return 2;
                }
            }
        }
        let secs = t0.elapsed().as_secs_f64() / rounds.max(1) as f64;
        let r = last.expect("one round");
        figures.push((r.stats.states as f64, secs));
        let _ = writeln!(
            out,
            "  reduction {:<3}: {:>7} states, {:>7} transitions, {:>4} final states, \
             {:>3} outcomes, {:.3}s, {:>9.0} states/s, {:>9.0} transitions/s",
            if reduction { "on" } else { "off" },
            r.stats.states,
            r.stats.transitions,
            r.stats.terminals,
            r.outcomes.len(),
            secs,
            r.stats.states as f64 / secs,
            r.stats.transitions as f64 / secs
        );
    }
    if let [(s0, t0), (s1, t1)] = figures[..] {
        let _ = writeln!(
            out,
            "  ratio (on / off): states {:.2}, time {:.2}",
            s1 / s0,
            t1 / t0
        );
    }
    0
}

fn main() {
    let rounds = std::env::var("RMAPCHECK_BENCH_ROUNDS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(5);
    let code = bench(
        Path::new("models/v7.3-rc4/baseline.rmap"),
        rounds,
        &mut std::io::stdout(),
    );
    std::process::exit(code);
}
