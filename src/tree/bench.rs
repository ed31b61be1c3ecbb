//! The interval-tree benchmark (`cargo bench --bench tree`): erase-and-reinsert throughput of
//! the interval tree against a `BTreeMap<(u64, u32), ()>` doing the same workload, with a small
//! deterministic PRNG.

use std::collections::BTreeMap;
use std::time::Instant;

use super::interval;
use super::types::{NodeId, RbRoot, TreeObs};

/// SplitMix64: tiny, deterministic, good enough for workloads.
#[derive(Clone, Debug)]
pub struct SplitMix64(pub u64);

impl SplitMix64 {
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// Uniform-ish value in `0..n` (`n > 0`).
    pub fn below(&mut self, n: u64) -> u64 {
        self.next_u64() % n.max(1)
    }
}

/// Result of one benchmark run. Rates are operations (inserts + erases) per second.
#[derive(Clone, Debug)]
pub struct BenchResult {
    pub nodes: usize,
    pub rounds: u64,
    pub tree_ops_per_s: f64,
    pub btree_ops_per_s: f64,
    /// tree rate / BTreeMap rate.
    pub ratio: f64,
    /// Sum of the work counters over the tree run.
    pub rotations: u64,
}

/// Build a `nodes`-node tree of random intervals, then `rounds` times erase a random node and
/// insert it again; the same on a BTreeMap keyed by (start, id).
pub fn bench_tree(nodes: usize, rounds: u64) -> BenchResult {
    let nodes = nodes.max(1);
    let mut rng = SplitMix64(0x5eed);
    let keys: Vec<(u64, u64)> = (0..nodes)
        .map(|_| {
            let s = rng.below(1 << 20);
            (s, s + rng.below(64))
        })
        .collect();
    let picks: Vec<NodeId> = (0..rounds)
        .map(|_| rng.below(nodes as u64) as NodeId)
        .collect();

    let mut t = RbRoot::new();
    let mut obs = TreeObs::default();
    for id in 0..nodes as NodeId {
        let _ = interval::insert(&mut t, &keys, id, &mut obs);
    }
    let begin = Instant::now();
    for &id in &picks {
        let _ = interval::remove(&mut t, &keys, id, &mut obs);
        let _ = interval::insert(&mut t, &keys, id, &mut obs);
    }
    let tree_s = begin.elapsed().as_secs_f64().max(1e-9);

    let mut m: BTreeMap<(u64, u32), ()> = BTreeMap::new();
    for (id, k) in keys.iter().enumerate() {
        m.insert((k.0, id as u32), ());
    }
    let begin = Instant::now();
    for &id in &picks {
        let key = (keys[id as usize].0, id);
        m.remove(&key);
        m.insert(key, ());
    }
    let btree_s = begin.elapsed().as_secs_f64().max(1e-9);
    std::hint::black_box(&m);
    std::hint::black_box(&t);

    let ops = 2.0 * rounds as f64;
    let tree_ops_per_s = ops / tree_s;
    let btree_ops_per_s = ops / btree_s;
    BenchResult {
        nodes,
        rounds,
        tree_ops_per_s,
        btree_ops_per_s,
        ratio: tree_ops_per_s / btree_ops_per_s,
        rotations: obs.stats.rotations,
    }
}
