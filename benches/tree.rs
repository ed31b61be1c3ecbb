//! Benchmark (run with `cargo bench --bench tree`), figures and ratios from one run:
//! - erase + insert throughput of the interval rbtree against a `BTreeMap` on the same
//!   workload (`RMAPCHECK_BENCH_NODES`, `RMAPCHECK_BENCH_ROUNDS`: default 10,000 nodes,
//!   200,000 rounds);
//! - two op lists as `rmapcheck tree` runs them, query-heavy (wide overlapping intervals,
//!   range queries) and narrow-query (sparse intervals, point queries), each with the
//!   stale-descent check on and off (`RMAPCHECK_BENCH_LIST_NODES`, `RMAPCHECK_BENCH_LIST_OPS`:
//!   default 10,000 nodes, 200,000 ops). `RMAPCHECK_BENCH_DUMP=DIR` also writes the two lists
//!   as `DIR/query-heavy.txt` and `DIR/narrow-query.txt` for `rmapcheck tree`;
//! - when `cc` exists, the same two lists on `benches/itree.c` (a plain C interval tree with no
//!   stale-descent check, built with `cc -O2`), its rate, and rmapcheck's rates over it; the
//!   nodes its queries find must be the same.
//!
//! Each list runs `RMAPCHECK_BENCH_TRIES` times (default 3) with the check on, with it off and
//! on the C tree, taking turns, and each rate printed is the best of its tries: on a shared
//! machine the best of a few runs is the least disturbed one, for all three alike.

use rmapcheck::tree::bench::{narrow_query, query_heavy, run_workload, Workload};
use std::path::{Path, PathBuf};
use std::process::Command;

/// Build benches/itree.c in `dir`; `None` without a working `cc`.
fn build_c(dir: &Path) -> Option<PathBuf> {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("benches/itree.c");
    let exe = dir.join("itree");
    let status = Command::new("cc")
        .arg("-O2")
        .arg("-o")
        .arg(&exe)
        .arg(&src)
        .status()
        .ok()?;
    status.success().then_some(exe)
}

/// Run `w`, written to `list`, on the C tree: (ops/s, nodes found).
fn run_c(exe: &Path, list: &Path, w: &Workload) -> Option<(f64, u64)> {
    let out = Command::new(exe)
        .arg(list)
        .arg(w.setup.to_string())
        .output()
        .ok()?;
    let text = String::from_utf8_lossy(&out.stdout);
    let mut it = text.split_whitespace();
    let rate = it.next()?.parse().ok()?;
    let hits = it.next()?.parse().ok()?;
    Some((rate, hits))
}

fn env(name: &str, default: u64) -> u64 {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

fn main() {
    let nodes = env("RMAPCHECK_BENCH_NODES", 10_000).clamp(1, u32::MAX as u64) as usize;
    let rounds = env("RMAPCHECK_BENCH_ROUNDS", 200_000);
    let r = rmapcheck::tree::bench::bench_tree(nodes, rounds);
    println!(
        "bench tree: {} nodes, {} rounds of erase + insert ({} ops)",
        r.nodes,
        r.rounds,
        2 * r.rounds
    );
    println!("  interval rbtree: {:>12.0} ops/s", r.tree_ops_per_s);
    println!("  BTreeMap:        {:>12.0} ops/s", r.btree_ops_per_s);
    println!("  ratio (rbtree / BTreeMap): {:.2}", r.ratio);

    let list_nodes = env("RMAPCHECK_BENCH_LIST_NODES", 10_000).clamp(1, 1 << 24) as usize;
    let list_ops = env("RMAPCHECK_BENCH_LIST_OPS", 200_000).min(1 << 26) as usize;
    let tries = env("RMAPCHECK_BENCH_TRIES", 3).clamp(1, 100);
    let dump = std::env::var_os("RMAPCHECK_BENCH_DUMP").map(std::path::PathBuf::from);
    let scratch =
        std::env::temp_dir().join(format!("rmapcheck-bench-itree-{}", std::process::id()));
    let c = std::fs::create_dir_all(&scratch)
        .ok()
        .and_then(|_| build_c(&scratch));
    if c.is_none() {
        println!("bench tree: no C comparison (no `cc`, or benches/itree.c did not build)");
    }
    for w in [
        query_heavy(list_nodes, list_ops),
        narrow_query(list_nodes, list_ops),
    ] {
        if let Some(dir) = &dump {
            let path = dir.join(format!("{}.txt", w.name));
            if let Err(e) =
                std::fs::create_dir_all(dir).and_then(|_| std::fs::write(&path, w.text()))
            {
                eprintln!("cannot write {}: {e}", path.display());
            }
        }
        let list = scratch.join(format!("{}.txt", w.name));
        let c_list = c
            .as_ref()
            .filter(|_| std::fs::write(&list, w.text()).is_ok());
        let (mut on, mut off) = (run_workload(&w, true), run_workload(&w, false));
        let mut c_run = c_list.and_then(|exe| run_c(exe, &list, &w));
        for _ in 1..tries {
            let x = run_workload(&w, true);
            if x.ops_per_s > on.ops_per_s {
                on = x;
            }
            let x = run_workload(&w, false);
            if x.ops_per_s > off.ops_per_s {
                off = x;
            }
            let x = c_list.and_then(|exe| run_c(exe, &list, &w));
            if x.is_some_and(|(r, _)| c_run.is_none_or(|(best, _)| r > best)) {
                c_run = x;
            }
        }
        println!(
            "bench tree list {}: {} nodes, {} ops ({} queries, {} nodes found, {} visits), \
             best of {tries}",
            w.name,
            list_nodes,
            w.ops.len() - w.setup,
            w.queries(),
            on.hits,
            on.visits
        );
        println!("  stale-descent check on:  {:>12.0} ops/s", on.ops_per_s);
        println!("  stale-descent check off: {:>12.0} ops/s", off.ops_per_s);
        println!("  ratio (off / on): {:.2}", off.ops_per_s / on.ops_per_s);
        if c.is_none() {
            continue;
        }
        match c_run {
            Some((rate, hits)) => {
                println!("  C (benches/itree.c, no check): {rate:>12.0} ops/s");
                println!(
                    "  ratio (C / rmapcheck): check on {:.2}, check off {:.2}",
                    rate / on.ops_per_s,
                    rate / off.ops_per_s
                );
                if hits != on.hits {
                    println!("  MISMATCH: the C tree's queries found {hits} nodes");
                }
            }
            None => println!("  C (benches/itree.c): did not run"),
        }
    }
    let _ = std::fs::remove_dir_all(&scratch);
}
