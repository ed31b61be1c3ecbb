//! Benchmark (not a test): the C search (`check --kernel`, the tree's own mm/vma.c in the
//! harness) against the model's search on the same scope, in one run: states, calls, seconds
//! and calls/s of each and the C/model time ratio, at depth 3 of the default scope, then at
//! depth 4 when depth 3's figures say it takes under about two minutes.
//! The tree comes from `RMAPCHECK_KERNEL_SRC`, else from the cache of scripts/fetch-kernel.sh
//! (`$RMAPCHECK_KERNEL_CACHE` or `$HOME/.cache/rmapcheck/kernel`, file `current`); without one
//! it says so and exits 0.
//! `cargo bench --bench ccheck`

#[path = "../tests/cli/kernel_tree.rs"]
mod kernel_tree;

use kernel_tree::tree;
use rmapcheck::ccheck::{self, Source};
use rmapcheck::cmd::load_model;
use rmapcheck::explore::search::search;
use rmapcheck::lang::Program;
use rmapcheck::scope::Scope;
use std::path::Path;

/// The C search's and the model's figures at `depth`: (C seconds, C transitions).
fn compare(prog: &Program, binary: &Path, depth: u32) -> (f64, usize) {
    let mut scope = Scope::load("default").expect("default scope");
    scope.max_depth = depth;
    let threads = ccheck::default_threads();
    let c = ccheck::search(prog, &scope, binary, None, threads, &mut |_| {}).expect("the C search");
    let cs = &c.stats;
    let (line, _, _) = ccheck::report::verdict_line(&c, depth);
    println!(
        "depth {depth}, C:     {} states, {} calls ({} C calls replayed), {:.1}s, {:.0} calls/s ({:.0} C calls/s), {threads} harness processes; {}",
        cs.states,
        cs.transitions,
        c.c_calls,
        cs.seconds,
        cs.transitions as f64 / cs.seconds,
        c.c_calls as f64 / cs.seconds,
        line.split(';').next().unwrap_or("")
    );
    let (_, m) = search(prog, "baseline", &scope, &mut |_| {});
    println!(
        "depth {depth}, model: {} states, {} calls, {:.1}s, {:.0} calls/s",
        m.states,
        m.transitions,
        m.seconds,
        m.transitions as f64 / m.seconds
    );
    println!(
        "depth {depth}, C/model time ratio {:.1}x",
        cs.seconds / m.seconds
    );
    (cs.seconds, cs.transitions)
}

fn main() {
    let Some(kernel) = tree() else {
        println!(
            "ccheck bench: no kernel tree (set RMAPCHECK_KERNEL_SRC or run scripts/fetch-kernel.sh); nothing measured"
        );
        return;
    };
    let prog = load_model(Path::new("models/v7.3-rc4/baseline.rmap")).expect("baseline");
    let src = Source {
        kernel: kernel.clone(),
        ..Source::default()
    };
    let prep = ccheck::prepare(&src).expect("the harness");
    println!(
        "ccheck bench: {} ({}), harness {} in {:.1}s",
        kernel.display(),
        prep.built.release,
        if prep.built.compiled {
            "built"
        } else {
            "cached"
        },
        prep.built.seconds
    );
    let (_, t2) = compare(&prog, &prep.built.binary, 2);
    let (s3, t3) = compare(&prog, &prep.built.binary, 3);
    // a level's calls grow by about the last level's factor, and each replay is one call longer
    let estimate = s3 * (t3 as f64 / t2.max(1) as f64) * 4.0 / 3.0;
    if estimate < 120.0 {
        println!("depth 4: estimated {estimate:.0}s for the C search; running it");
        compare(&prog, &prep.built.binary, 4);
    } else {
        println!("depth 4: estimated {estimate:.0}s for the C search (over 2 minutes); not run");
    }
}
