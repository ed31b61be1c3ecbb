//! Benchmark (run with `cargo bench --bench tree`): erase + insert throughput of the interval
//! rbtree against a `BTreeMap` on the same workload, printed with the ratio from one run.
//! `RMAPCHECK_BENCH_NODES` and `RMAPCHECK_BENCH_ROUNDS` change the size (default 10,000 nodes,
//! 200,000 rounds).

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
}
