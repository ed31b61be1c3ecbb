//! The interval-tree benchmark (`cargo bench --bench tree`): erase-and-reinsert throughput of
//! the interval tree against a `BTreeMap<(u64, u32), ()>` doing the same workload, with a small
//! deterministic PRNG.

use std::collections::BTreeMap;
use std::time::Instant;

use super::interval;
use super::types::{NodeId, RbRoot, TreeObs};

/// SplitMix64: tiny, deterministic, good enough for workloads.
#[derive(Clone, Debug)]
pub(crate) struct SplitMix64(pub u64);

impl SplitMix64 {
    pub(crate) fn next_u64(&mut self) -> u64 {
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

/// One operation of an op-list workload, in `rmapcheck tree` terms: `Insert` creates the next
/// object id (0, 1, 2, ... in insert order), `Erase` removes an object that is in the tree.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ListOp {
    Insert { start: u64, last: u64 },
    Erase(NodeId),
    Query { first: u64, last: u64 },
}

/// A generated op list: the same operations `rmapcheck tree` reads ([`Workload::text`]).
#[derive(Clone, Debug)]
pub struct Workload {
    pub name: &'static str,
    /// How many of the leading ops build the initial tree (not timed).
    pub setup: usize,
    pub ops: Vec<ListOp>,
}

impl Workload {
    /// The op list as `rmapcheck tree` text.
    pub fn text(&self) -> String {
        use std::fmt::Write as _;
        let mut s = String::new();
        for op in &self.ops {
            let _ = match op {
                ListOp::Insert { start, last } => writeln!(s, "insert {start} {last}"),
                ListOp::Erase(n) => writeln!(s, "erase n{n}"),
                ListOp::Query { first, last } => writeln!(s, "query {first} {last}"),
            };
        }
        s
    }

    /// Queries among the timed ops.
    pub fn queries(&self) -> usize {
        self.ops[self.setup..]
            .iter()
            .filter(|o| matches!(o, ListOp::Query { .. }))
            .count()
    }
}

/// The shape of a generated op list.
struct Shape {
    /// Starts are drawn in `0..space`.
    space: u64,
    /// Intervals span up to `width + 1` pages, queries up to `qwidth + 1` (0: point queries).
    width: u64,
    qwidth: u64,
    /// Percent of the timed ops that are queries; the rest erase a random member and insert a
    /// fresh interval (so the tree keeps its size).
    query_pct: u64,
}

/// `nodes` random intervals, then `ops` operations of the given shape.
fn gen_workload(name: &'static str, seed: u64, nodes: usize, ops: usize, sh: Shape) -> Workload {
    let Shape {
        space,
        width,
        qwidth,
        query_pct,
    } = sh;
    let mut rng = SplitMix64(seed);
    let mut list = Vec::with_capacity(nodes + ops);
    let mut members: Vec<NodeId> = Vec::with_capacity(nodes);
    let mut next_id: NodeId = 0;
    let interval = |rng: &mut SplitMix64, w: u64| {
        let s = rng.below(space);
        (s, s + rng.below(w + 1))
    };
    for _ in 0..nodes.max(1) {
        let (start, last) = interval(&mut rng, width);
        list.push(ListOp::Insert { start, last });
        members.push(next_id);
        next_id += 1;
    }
    let setup = list.len();
    let mut done = 0;
    while done < ops {
        if rng.below(100) < query_pct {
            let (first, last) = interval(&mut rng, qwidth);
            list.push(ListOp::Query { first, last });
            done += 1;
        } else {
            let i = rng.below(members.len() as u64) as usize;
            list.push(ListOp::Erase(members[i]));
            let (start, last) = interval(&mut rng, width);
            list.push(ListOp::Insert { start, last });
            members[i] = next_id;
            next_id += 1;
            done += 2;
        }
    }
    Workload {
        name,
        setup,
        ops: list,
    }
}

/// Query-heavy: wide intervals that overlap a lot (about 40 per page), 90% range queries of up
/// to 64 pages that each return dozens of nodes.
pub fn query_heavy(nodes: usize, ops: usize) -> Workload {
    let space = (nodes as u64 * 8).max(64);
    let sh = Shape {
        space,
        width: 640,
        qwidth: 64,
        query_pct: 90,
    };
    gen_workload("query-heavy", 0x9e11, nodes, ops, sh)
}

/// Narrow queries: short, sparse intervals and 90% point queries (an rmap walk's shape: most
/// find zero or one node after a full-height descent).
pub fn narrow_query(nodes: usize, ops: usize) -> Workload {
    let space = (nodes as u64 * 64).max(64);
    let sh = Shape {
        space,
        width: 16,
        qwidth: 0,
        query_pct: 90,
    };
    gen_workload("narrow-query", 0x7a44, nodes, ops, sh)
}

/// The timing of one workload run.
#[derive(Clone, Debug)]
pub struct WorkloadResult {
    /// Timed operations (inserts, erases and queries) per second.
    pub ops_per_s: f64,
    /// Nodes the queries returned, and nodes visited (both summed; the same with and without
    /// the stale-descent check).
    pub hits: u64,
    pub visits: u64,
}

/// Run `w` on the interval tree as `rmapcheck tree` runs it (a fresh observer per op), with
/// the stale-descent check on or off; only the ops after the setup are timed.
pub fn run_workload(w: &Workload, check_stale: bool) -> WorkloadResult {
    let mut keys: Vec<(u64, u64)> = Vec::with_capacity(w.ops.len());
    let mut t = RbRoot::new();
    let mut hits = 0u64;
    let mut visits = 0u64;
    let mut run = |op: &ListOp, keys: &mut Vec<(u64, u64)>, t: &mut RbRoot| {
        let mut obs = TreeObs {
            check_stale,
            ..Default::default()
        };
        match *op {
            ListOp::Insert { start, last } => {
                let n = keys.len() as NodeId;
                keys.push((start, last));
                let _ = interval::insert(t, &*keys, n, &mut obs);
            }
            ListOp::Erase(n) => {
                let _ = interval::remove(t, &*keys, n, &mut obs);
            }
            ListOp::Query { first, last } => {
                hits += interval::query_iter(t, &*keys, first, last, &mut obs).count() as u64;
            }
        }
        visits += obs.stats.visits;
        std::hint::black_box(&obs.stale);
    };
    for op in &w.ops[..w.setup] {
        run(op, &mut keys, &mut t);
    }
    let begin = Instant::now();
    for op in &w.ops[w.setup..] {
        run(op, &mut keys, &mut t);
    }
    let secs = begin.elapsed().as_secs_f64().max(1e-9);
    std::hint::black_box(&t);
    WorkloadResult {
        ops_per_s: (w.ops.len() - w.setup) as f64 / secs,
        hits,
        visits,
    }
}
