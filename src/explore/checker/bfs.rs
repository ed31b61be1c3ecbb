//! The breadth-first search of [`super::TransitionSystem`]s: level by level, each level's
//! frontier expanded in batches (on worker threads when asked) whose results are merged in
//! frontier order, so the seen-set, the node numbering and the first failure are the same as a
//! one-thread search's.

use super::{Config, Expansion, Progress, Start, Stats, TransitionSystem, Verdict};
use crate::explore::budget::Budget;
use std::collections::{HashMap, HashSet, VecDeque};
use std::time::Instant;

/// Parent link of a state, to rebuild the actions that reached it.
struct Node<A> {
    parent: u32,
    action: Option<A>,
}

/// The actions from the initial state to node `idx`.
fn path<A: Clone>(nodes: &[Node<A>], mut idx: u32) -> Vec<A> {
    let mut out = Vec::new();
    while idx != u32::MAX {
        let n = &nodes[idx as usize];
        if let Some(a) = &n.action {
            out.push(a.clone());
        }
        idx = n.parent;
    }
    out.reverse();
    out
}

type Exp<T> = Expansion<
    <T as TransitionSystem>::Action,
    <T as TransitionSystem>::State,
    <T as TransitionSystem>::Failure,
>;

/// Expand one state and fingerprint its successors (in the worker, not the merging thread).
fn expand_one<T: TransitionSystem>(
    sys: &T,
    i: u32,
    s: &T::State,
    depth: u32,
    budget: &Budget,
) -> (u32, Exp<T>, Vec<u64>) {
    let ex = sys.expand(s, depth, budget);
    let fps = ex.succs.iter().map(|(_, s)| sys.fingerprint(s)).collect();
    (i, ex, fps)
}

/// Expand a batch of states (on `threads` threads); results in batch order.
fn expand_batch<T: TransitionSystem>(
    sys: &T,
    batch: &[(u32, T::State)],
    depth: u32,
    budget: &Budget,
    threads: usize,
) -> Vec<(u32, Exp<T>, Vec<u64>)> {
    if threads <= 1 || batch.len() < 2 {
        return batch
            .iter()
            .map(|(i, s)| expand_one(sys, *i, s, depth, budget))
            .collect();
    }
    let chunk = batch.len().div_ceil(threads);
    std::thread::scope(|sc| {
        let handles: Vec<_> = batch
            .chunks(chunk)
            .map(|c| {
                sc.spawn(move || {
                    c.iter()
                        .map(|(i, s)| expand_one(sys, *i, s, depth, budget))
                        .collect::<Vec<_>>()
                })
            })
            .collect();
        handles
            .into_iter()
            .flat_map(|h| h.join().expect("explorer worker panicked"))
            .collect()
    })
}

/// Explore `sys` breadth-first within `cfg` and `budget`.
pub fn bfs<T: TransitionSystem>(
    sys: &T,
    cfg: &Config,
    budget: &Budget,
    progress: Progress<'_>,
) -> (Verdict<T::Action, T::Failure>, Stats) {
    let t0 = Instant::now();
    let mut stats = Stats::default();
    let s0 = match sys.initial() {
        Ok(s) => s,
        Err(Start::Error(e)) => return (Verdict::Error(e), stats),
        Err(Start::Failure(f)) => {
            stats.states = 1;
            return (Verdict::FailedInitial(f), stats);
        }
    };
    let mut nodes: Vec<Node<T::Action>> = vec![Node {
        parent: u32::MAX,
        action: None,
    }];
    let mut seen: HashSet<u64> = HashSet::new();
    seen.insert(sys.fingerprint(&s0));
    let mut frontier: VecDeque<(u32, T::State)> = VecDeque::new();
    frontier.push_back((0, s0));
    let mut depth = 0;
    let mut cut = false;
    let mut last_report = Instant::now();
    let batch_size = cfg.batch.max(1);
    while !frontier.is_empty() {
        if depth >= cfg.max_depth {
            cut = true;
            break;
        }
        let mut next: VecDeque<(u32, T::State)> = VecDeque::new();
        // with T::MERGES: where each state first reached at this level sits in `next`
        let mut at_next: HashMap<u64, usize> = HashMap::new();
        while !frontier.is_empty() {
            let take = frontier.len().min(batch_size);
            let batch: Vec<(u32, T::State)> = frontier.drain(..take).collect();
            let mut stopped = None;
            for (idx, ex, fps) in expand_batch(sys, &batch, depth, budget, cfg.threads) {
                cut |= ex.cut;
                if ex.stopped.is_some() {
                    stopped = ex.stopped;
                    break;
                }
                stats.transitions += ex.succs.len();
                for ((action, succ), fp) in ex.succs.into_iter().zip(fps) {
                    if seen.insert(fp) {
                        nodes.push(Node {
                            parent: idx,
                            action: Some(action),
                        });
                        if T::MERGES {
                            at_next.insert(fp, next.len());
                        }
                        next.push_back(((nodes.len() - 1) as u32, succ));
                    } else if T::MERGES {
                        if let Some(&k) = at_next.get(&fp) {
                            sys.merge(&mut next[k].1, succ);
                        }
                    }
                }
                if let Some((action, failure)) = ex.failure {
                    let mut p = path(&nodes, idx);
                    if let Some(a) = action {
                        stats.transitions += 1;
                        p.push(a);
                    }
                    stats.states = seen.len();
                    stats.depth = depth + 1;
                    stats.seconds = t0.elapsed().as_secs_f64();
                    return (Verdict::Failed { path: p, failure }, stats);
                }
            }
            let secs = t0.elapsed().as_secs_f64();
            if last_report.elapsed().as_secs_f64() >= 1.0 {
                progress(seen.len(), depth + 1, frontier.len() + next.len(), secs);
                last_report = Instant::now();
            }
            let bound = if stopped.is_some() {
                stopped
            } else if seen.len() > cfg.max_states {
                Some(format!("state bound {} reached", cfg.max_states))
            } else {
                budget.poll()
            };
            if let Some(reason) = bound {
                stats.states = seen.len();
                stats.depth = depth + 1;
                stats.seconds = secs;
                return (
                    Verdict::Incomplete {
                        reason,
                        complete_depth: depth,
                    },
                    stats,
                );
            }
        }
        depth += 1;
        frontier = next;
    }
    stats.states = seen.len();
    stats.depth = depth;
    stats.seconds = t0.elapsed().as_secs_f64();
    let links: usize = nodes
        .iter()
        .map(|n| {
            std::mem::size_of::<Node<T::Action>>()
                + n.action.as_ref().map_or(0, |a| sys.action_bytes(a))
        })
        .sum();
    stats.bytes_per_state = (seen.capacity() * 9 + links) / seen.len().max(1);
    (Verdict::Holds { exhausted: !cut }, stats)
}
