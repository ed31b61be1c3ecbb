//! Bounded breadth-first search over call sequences. States are canonical worlds identified by
//! 64-bit fingerprints; the first counterexample found is a shortest one. A search stopped by a
//! time, memory or state bound is reported as incomplete up to the last depth it finished.

use super::alphabet;
use super::budget::Budget;
use super::interleave::{self, Config as InterleaveConfig, IOutcome, ITrace};
use super::op::{apply, CheckOpts};
use super::scope::Scope;
use super::walkers;
use crate::check;
use crate::exec::host::Value;
use crate::lang::Program;
use crate::trace::Trace;
use crate::world::scenario::Call;
use crate::world::World;
use std::collections::{HashSet, VecDeque};
use std::hash::{Hash, Hasher};
use std::sync::Arc;
use std::time::Instant;

/// Stable 64-bit fingerprint of a (canonical) world.
pub fn fingerprint(w: &World) -> u64 {
    // SipHash with fixed zero keys: the same on every run and machine.
    #[allow(deprecated)]
    let mut h = std::hash::SipHasher::new();
    w.hash(&mut h);
    h.finish()
}

/// How a search ended.
#[derive(Debug)]
pub enum Outcome {
    /// No violation in any state reachable within the scope. `exhausted` is true when no state
    /// was cut off by the depth or VMA bounds (the whole reachable space was seen).
    Holds { exhausted: bool },
    /// A violation, with a shortest trace.
    Counterexample(Box<Trace>),
    /// A violation found by the interleaving explorer (writer against walkers).
    Interleaving(Box<crate::explore::interleave::ITrace>),
    /// A time, memory or state bound stopped the search; no violation up to `complete_depth`.
    Incomplete { reason: String, complete_depth: u32 },
}

/// Numbers a search reports.
#[derive(Clone, Debug, Default)]
pub struct Stats {
    /// Distinct states seen.
    pub states: usize,
    /// Calls applied (transitions, including those into known states).
    pub transitions: usize,
    /// Deepest level reached.
    pub depth: u32,
    pub seconds: f64,
    /// Approximate bytes held per distinct state (fingerprint set + parent links).
    pub bytes_per_state: usize,
}

impl Stats {
    pub fn states_per_second(&self) -> f64 {
        if self.seconds > 0.0 {
            self.states as f64 / self.seconds
        } else {
            0.0
        }
    }

    /// Probability that two distinct states shared a fingerprint (birthday bound over the
    /// states seen, as TLC's optimistic estimate).
    pub fn collision_probability(&self) -> f64 {
        let n = self.states as f64;
        n * n / 2f64.powi(65)
    }
}

/// Parent link of a state, to rebuild the call sequence that reached it.
struct Node {
    parent: u32,
    call: Option<Call>,
}

/// Progress callback: (states, depth, frontier, seconds).
pub type Progress<'a> = &'a mut dyn FnMut(usize, u32, usize, f64);

/// Run the search for `prog` in `scope`.
pub fn search(
    prog: &Program,
    model_name: &str,
    scope: &Scope,
    progress: Progress<'_>,
) -> (Outcome, Stats) {
    search_within(prog, model_name, scope, &Budget::of_scope(scope), progress)
}

/// [`search`] within an existing budget (time, memory, stop requests); the state bound is the
/// scope's.
pub fn search_within(
    prog: &Program,
    model_name: &str,
    scope: &Scope,
    budget: &Arc<Budget>,
    progress: Progress<'_>,
) -> (Outcome, Stats) {
    let t0 = Instant::now();
    let mut stats = Stats::default();
    let initial_scenario = scope.initial_scenario();
    let world0 = match initial_scenario.build() {
        Ok(w) => w.canonical(),
        Err(e) => {
            return (
                Outcome::Incomplete {
                    reason: format!("bad initial world: {e}"),
                    complete_depth: 0,
                },
                stats,
            )
        }
    };
    let mut nodes = vec![Node {
        parent: u32::MAX,
        call: None,
    }];
    let mut seen: HashSet<u64> = HashSet::new();
    seen.insert(fingerprint(&world0));
    let v0 = check::at_boundary(&world0, scope.invariant_set());
    if !v0.is_empty() {
        let trace = Trace::from_initial(prog, model_name, scope, &initial_scenario, v0);
        stats.states = 1;
        return (Outcome::Counterexample(Box::new(trace)), stats);
    }
    let mut frontier: VecDeque<(u32, World)> = VecDeque::new();
    frontier.push_back((0, world0));
    let mut depth = 0;
    let mut cut = false;
    let opts = CheckOpts {
        record: false,
        per_step: true,
        invariants: scope.invariant_set(),
    };
    let mut last_report = Instant::now();
    while !frontier.is_empty() {
        if depth >= scope.max_depth {
            cut = true;
            break;
        }
        let mut next: VecDeque<(u32, World)> = VecDeque::new();
        while !frontier.is_empty() {
            let take = frontier.len().min(BATCH);
            let batch: Vec<(u32, World)> = frontier.drain(..take).collect();
            let mut stopped = None;
            for (idx, ex) in expand_batch(scope, prog, opts, budget, &batch, depth) {
                cut |= ex.cut;
                if ex.stopped.is_some() {
                    stopped = ex.stopped;
                    break;
                }
                for (call, succ) in ex.succs {
                    stats.transitions += 1;
                    let (c, fp) = match succ {
                        Succ::Ok(c, fp) => (c, fp),
                        Succ::Failed => {
                            let mut calls = path(&nodes, idx);
                            calls.push(call);
                            stats.states = seen.len();
                            stats.depth = depth + 1;
                            stats.seconds = t0.elapsed().as_secs_f64();
                            let trace = Trace::replay_build(
                                prog,
                                model_name,
                                scope,
                                &initial_scenario,
                                &calls,
                            );
                            return (Outcome::Counterexample(Box::new(trace)), stats);
                        }
                        Succ::Interleaving(mut t) => {
                            t.model = model_name.to_string();
                            t.prefix = path(&nodes, idx);
                            stats.states = seen.len();
                            stats.depth = depth + 1;
                            stats.seconds = t0.elapsed().as_secs_f64();
                            return (Outcome::Interleaving(t), stats);
                        }
                    };
                    if seen.insert(fp) {
                        nodes.push(Node {
                            parent: idx,
                            call: Some(call),
                        });
                        next.push_back(((nodes.len() - 1) as u32, c));
                    }
                }
            }
            let secs = t0.elapsed().as_secs_f64();
            if last_report.elapsed().as_secs_f64() >= 1.0 {
                progress(seen.len(), depth + 1, frontier.len() + next.len(), secs);
                last_report = Instant::now();
            }
            let bound = if stopped.is_some() {
                stopped
            } else if seen.len() > scope.max_states {
                Some(format!("state bound {} reached", scope.max_states))
            } else {
                budget.poll()
            };
            if let Some(reason) = bound {
                stats.states = seen.len();
                stats.depth = depth + 1;
                stats.seconds = secs;
                return (
                    Outcome::Incomplete {
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
    stats.bytes_per_state = measured_bytes(&seen, &nodes) / seen.len().max(1);
    (Outcome::Holds { exhausted: !cut }, stats)
}

/// Frontier states expanded together (in parallel, merged in order so results are the same as
/// a sequential search).
const BATCH: usize = 256;

/// What one call from a state gave. (Short-lived, one per call: the size difference between
/// the variants does not matter, and boxing the world would cost an allocation per call.)
#[allow(clippy::large_enum_variant)]
enum Succ {
    /// The canonical successor and its fingerprint.
    Ok(World, u64),
    /// The call failed a check on its own.
    Failed,
    /// The call failed against concurrent walkers.
    Interleaving(Box<ITrace>),
}

/// What running one call against the walkers found.
enum WalkerRun {
    Holds,
    Violation(Box<ITrace>),
    /// An exploration stopped short (a bound, or a walker set that could not be set up).
    Incomplete(String),
}

/// The successors of one state, in call order; a failing call is the last one listed.
struct Expansion {
    succs: Vec<(Call, Succ)>,
    /// The state was not expanded because of the VMA bound.
    cut: bool,
    /// The budget ran out (or a walker exploration was incomplete) before every call was made:
    /// the search must stop, incomplete.
    stopped: Option<String>,
}

/// Run `call` from `w` against every set of `scope.walkers` walkers, in every interleaving;
/// the first violation found.
/// the first violation found. An exploration that stops short makes the whole run incomplete:
/// it is never read as "no violation".
fn against_walkers(
    scope: &Scope,
    prog: &Program,
    budget: &Arc<Budget>,
    w: &World,
    call: &Call,
) -> WalkerRun {
    let cands = walkers::walker_calls(prog, w, &scope.walker_kinds);
    let cfg = InterleaveConfig {
        invariants: scope.invariant_set(),
        budget: Some(Arc::clone(budget)),
        ..InterleaveConfig::default()
    };
    for set in walkers::combinations(&cands, scope.walkers as usize) {
        let mut calls = vec![call.clone()];
        calls.extend(set);
        match interleave::explore(prog, "", w, &calls, &cfg) {
            Ok(r) => match r.outcome {
                IOutcome::Violation(t) => return WalkerRun::Violation(t),
                IOutcome::Holds => {}
                IOutcome::Incomplete(r) => {
                    return WalkerRun::Incomplete(format!("walkers against {}: {r}", call.func))
                }
            },
            Err(e) => {
                return WalkerRun::Incomplete(format!(
                    "walkers against {} could not be set up: {e}",
                    call.func
                ))
            }
        }
    }
    WalkerRun::Holds
}

fn expand(
    scope: &Scope,
    prog: &Program,
    opts: CheckOpts,
    budget: &Arc<Budget>,
    w: &World,
    depth: u32,
) -> Expansion {
    let too_many = w
        .mms
        .iter()
        .any(|m| !m.freed && m.vmas.len() > scope.max_vmas);
    if too_many {
        return Expansion {
            succs: Vec::new(),
            cut: true,
            stopped: None,
        };
    }
    let mut succs = Vec::new();
    let concurrent = scope.walkers > 0 && depth < scope.walker_depth;
    for call in alphabet::calls(scope, prog, w) {
        if let Some(reason) = budget.poll() {
            return Expansion {
                succs,
                cut: false,
                stopped: Some(reason),
            };
        }
        let mut w2 = w.clone();
        let out = apply(prog, &mut w2, &call, opts);
        if out.failure.is_some() {
            succs.push((call, Succ::Failed));
            break;
        }
        if concurrent {
            match against_walkers(scope, prog, budget, w, &call) {
                WalkerRun::Holds => {}
                WalkerRun::Violation(t) => {
                    succs.push((call, Succ::Interleaving(t)));
                    break;
                }
                WalkerRun::Incomplete(reason) => {
                    return Expansion {
                        succs,
                        cut: false,
                        stopped: Some(reason),
                    }
                }
            }
        }
        let c = w2.canonical();
        let fp = fingerprint(&c);
        succs.push((call, Succ::Ok(c, fp)));
    }
    Expansion {
        succs,
        cut: false,
        stopped: None,
    }
}

/// Expand a batch of states on all cores; results in batch order.
fn expand_batch(
    scope: &Scope,
    prog: &Program,
    opts: CheckOpts,
    budget: &Arc<Budget>,
    batch: &[(u32, World)],
    depth: u32,
) -> Vec<(u32, Expansion)> {
    let threads = std::thread::available_parallelism()
        .map(|n| n.get())
        .unwrap_or(1)
        .min(8);
    if threads <= 1 || batch.len() < 2 {
        return batch
            .iter()
            .map(|(i, w)| (*i, expand(scope, prog, opts, budget, w, depth)))
            .collect();
    }
    let chunk = batch.len().div_ceil(threads);
    std::thread::scope(|s| {
        let handles: Vec<_> = batch
            .chunks(chunk)
            .map(|c| {
                s.spawn(move || {
                    c.iter()
                        .map(|(i, w)| (*i, expand(scope, prog, opts, budget, w, depth)))
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

/// Bytes held for the visited states: the fingerprint set's table (8-byte slots plus one
/// control byte each) and the parent links with their calls' heap.
fn measured_bytes(seen: &HashSet<u64>, nodes: &[Node]) -> usize {
    let set = seen.capacity() * 9;
    let links: usize = nodes
        .iter()
        .map(|n| {
            std::mem::size_of::<Node>()
                + n.call.as_ref().map_or(0, |c| {
                    c.func.capacity() + c.args.capacity() * std::mem::size_of::<Value>()
                })
        })
        .sum();
    set + links
}

/// The calls leading from the initial state to state `idx`.
fn path(nodes: &[Node], mut idx: u32) -> Vec<Call> {
    let mut calls = Vec::new();
    while idx != u32::MAX {
        let n = &nodes[idx as usize];
        if let Some(c) = &n.call {
            calls.push(c.clone());
        }
        idx = n.parent;
    }
    calls.reverse();
    calls
}
