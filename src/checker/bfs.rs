//! The breadth-first search of [`super::TransitionSystem`]s, depth by depth. A depth's frontier
//! is expanded by worker threads that claim a few states at a time (so that no thread waits
//! for another's half of a batch), while the calling thread merges their results in frontier
//! order: the seen-set, the node numbering, the next frontier and the first failure are the
//! same as a one-thread search's. Bounds are checked after every `batch` states merged, as a
//! one-thread search checks them. The states at the depth bound are counted, never kept.

use super::frontier::{Frontier, Links, NewLinks, Replayer, Seen, ROOT};
use super::{
    Config, FrontierTuning, OnProgress, Progress, Start, Stats, TransitionSystem, Verdict,
};
use crate::checker::budget::{self, Budget};
use std::collections::BTreeMap;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::mpsc;
use std::time::Instant;

/// Frontier states a worker claims at a time.
const CHUNK: usize = 8;

/// What expanding one frontier state found (successors fingerprinted in the worker).
struct Done<A, S, F> {
    /// Action, fingerprint and (for a whole frontier below the depth bound) the state.
    succs: Vec<(A, u64, Option<S>)>,
    failure: Option<(Option<A>, F)>,
    cut: bool,
    stopped: Option<String>,
}

type DoneOf<T> = Done<
    <T as TransitionSystem>::Action,
    <T as TransitionSystem>::State,
    <T as TransitionSystem>::Failure,
>;
type VerdictOf<T> = Verdict<<T as TransitionSystem>::Action, <T as TransitionSystem>::Failure>;

/// One depth to expand: what the workers share.
struct Level<'a, T: FrontierTuning> {
    sys: &'a T,
    links: &'a Links<T::Action>,
    /// The initial state, for a compact frontier's replays.
    root: Option<&'a T::State>,
    frontier: &'a Frontier<T::State>,
    depth: u32,
    budget: &'a Budget,
    /// Keep the successor states (a whole frontier, below the depth bound).
    keep: bool,
}

impl<'a, T: FrontierTuning> Level<'a, T> {
    fn replayer(&self) -> Option<Replayer<'a, T>> {
        self.root.map(|r| Replayer::new(self.sys, self.links, r))
    }

    /// Expand the `k`-th frontier state.
    fn expand(&self, k: usize, rep: Option<&mut Replayer<'a, T>>) -> DoneOf<T> {
        let s = match (self.frontier, rep) {
            (Frontier::Whole(v), _) => &v[k].1,
            (Frontier::Compact(v), Some(rep)) => match rep.state(v[k].0, v[k].1) {
                Ok(s) => s,
                Err(e) => return stopped(e),
            },
            (Frontier::Compact(_), None) => {
                return stopped("internal error: a compact frontier without its root".into())
            }
        };
        let ex = self.sys.expand(s, self.depth, self.budget);
        let succs = ex
            .succs
            .into_iter()
            .map(|(a, s)| {
                let fp = self.sys.fingerprint(&s);
                if self.keep {
                    (a, fp, Some(s))
                } else {
                    self.sys.recycle(s);
                    (a, fp, None)
                }
            })
            .collect();
        Done {
            succs,
            failure: ex.failure,
            cut: ex.cut,
            stopped: ex.stopped,
        }
    }
}

fn stopped<A, S, F>(reason: String) -> Done<A, S, F> {
    Done {
        succs: Vec::new(),
        failure: None,
        cut: false,
        stopped: Some(reason),
    }
}

/// The merging side of a search: the seen-set, what the current depth adds, the figures.
struct Search<'a, T: FrontierTuning> {
    cfg: &'a Config,
    budget: &'a Budget,
    progress: OnProgress<'a>,
    seen: Seen,
    new: NewLinks<T::Action>,
    next: Frontier<T::State>,
    /// With [`FrontierTuning::MERGES`]: where each state first reached at the next level
    /// sits in `next`, so that a later arrival is merged into it.
    at_next: nohash_hasher::IntMap<u64, usize>,
    stats: Stats,
    /// A state was left unexpanded (the depth bound, or the system's cut).
    cut: bool,
    t0: Instant,
    last_report: Instant,
}

impl<T: FrontierTuning> Search<'_, T> {
    /// Merge the expansion of the `k`-th state of `level`'s frontier; the verdict if the
    /// search ends there.
    fn merge(&mut self, level: &Level<'_, T>, k: usize, done: DoneOf<T>) -> Option<VerdictOf<T>> {
        self.cut |= done.cut;
        if let Some(reason) = done.stopped {
            return Some(self.incomplete(reason, level.depth));
        }
        if let Some(reason) = self.before_growth(done.succs.len()) {
            return Some(self.incomplete(reason, level.depth));
        }
        let parent = level.frontier.node(k);
        let last = level.depth + 1 >= self.cfg.max_depth;
        self.stats.transitions += done.succs.len();
        for (action, fp, state) in done.succs {
            if self.seen.insert(fp) {
                self.stats.digest = self.stats.digest.wrapping_add(fp);
                if last {
                    // at the depth bound: counted, not expanded
                    self.cut = true;
                } else {
                    let idx = self.new.push(level.links, parent, action);
                    if T::MERGES {
                        self.at_next.insert(fp, self.next.len());
                    }
                    self.next.push(idx, fp, state);
                }
            } else if T::MERGES {
                if let (Some(&k), Some(again)) = (self.at_next.get(&fp), state) {
                    if let Some(kept) = self.next.state_mut(k) {
                        level.sys.merge(kept, again);
                    }
                }
            } else if let Some(again) = state {
                level.sys.recycle(again);
            }
        }
        let (action, failure) = done.failure?;
        let mut path = level.links.path(parent);
        if let Some(a) = action {
            self.stats.transitions += 1;
            path.push(a);
        }
        self.figures(level.depth + 1);
        Some(Verdict::Failed { path, failure })
    }

    /// The memory bound, if merging `incoming` states may make the seen-set (or, with
    /// [`FrontierTuning::MERGES`], the next level's index) double: a table's growth
    /// allocates the new table while the old one is still there, a jump of twice its size that
    /// a poll after it would see too late. `None` while the tables have room.
    fn before_growth(&self, incoming: usize) -> Option<String> {
        // the bytes of the table that replaces a full one: twice the buckets (a capacity is
        // 7/8 of them), each an entry and a control byte
        let grows = |len: usize, cap: usize, entry: usize| {
            if len + incoming > cap {
                (2 * cap.max(3) * 8 / 7 + 1) * (entry + 1)
            } else {
                0
            }
        };
        let mut extra = grows(
            self.seen.len(),
            self.seen.capacity(),
            std::mem::size_of::<u64>(),
        );
        if T::MERGES {
            extra += grows(
                self.at_next.len(),
                self.at_next.capacity(),
                std::mem::size_of::<(u64, usize)>(),
            );
        }
        if extra == 0 {
            return None;
        }
        self.budget.before_growth(extra as u64)
    }

    /// After `merged` of the `len` frontier states were merged: every batch, progress and the
    /// bounds.
    fn after(&mut self, merged: usize, len: usize, depth: u32) -> Option<VerdictOf<T>> {
        if !merged.is_multiple_of(self.cfg.batch.max(1)) && merged != len {
            return None;
        }
        if self.last_report.elapsed().as_secs_f64() >= 1.0 {
            (self.progress)(&Progress {
                states: self.seen.len(),
                depth: depth + 1,
                frontier: len - merged + self.next.len(),
                seconds: self.t0.elapsed().as_secs_f64(),
            });
            self.last_report = Instant::now();
        }
        let reason = if self.seen.len() > self.cfg.max_states {
            Some(format!("state bound {} reached", self.cfg.max_states))
        } else {
            self.budget.poll()
        };
        reason.map(|r| self.incomplete(r, depth))
    }

    fn incomplete(&mut self, reason: String, depth: u32) -> VerdictOf<T> {
        self.figures(depth + 1);
        Verdict::Incomplete {
            reason,
            complete_depth: depth,
        }
    }

    /// Fill in the figures of a search ending at `depth`.
    fn figures(&mut self, depth: u32) {
        self.stats.states = self.seen.len();
        self.stats.depth = depth;
        self.stats.seconds = self.t0.elapsed().as_secs_f64();
        if T::MEMORY_FIGURE {
            self.stats.peak_rss_bytes = budget::peak_resident_bytes();
        }
    }

    /// Expand and merge one depth; the verdict if the search ends in it.
    fn level(&mut self, level: &Level<'_, T>) -> Option<VerdictOf<T>> {
        let chunks = level.frontier.len().div_ceil(CHUNK);
        let threads = self.cfg.threads.min(chunks);
        if threads <= 1 {
            self.level_here(level)
        } else {
            self.level_on_workers(level, threads)
        }
    }

    /// One depth in this thread: each batch expanded, then merged (so a system whose
    /// expansion counts something counts the same as before a failure).
    fn level_here(&mut self, level: &Level<'_, T>) -> Option<VerdictOf<T>> {
        let len = level.frontier.len();
        let mut rep = level.replayer();
        let mut k = 0;
        while k < len {
            let end = (k + self.cfg.batch.max(1)).min(len);
            let done: Vec<_> = (k..end).map(|i| level.expand(i, rep.as_mut())).collect();
            for (i, d) in (k..end).zip(done) {
                if let Some(v) = self.merge(level, i, d) {
                    return Some(v);
                }
                if let Some(v) = self.after(i + 1, len, level.depth) {
                    return Some(v);
                }
            }
            k = end;
        }
        None
    }

    /// One depth on `threads` workers claiming [`CHUNK`]s of the frontier in turn; their
    /// results are merged here in frontier order as they come.
    fn level_on_workers(&mut self, level: &Level<'_, T>, threads: usize) -> Option<VerdictOf<T>> {
        let len = level.frontier.len();
        let chunks = len.div_ceil(CHUNK);
        let claim = AtomicUsize::new(0);
        let abort = AtomicBool::new(false);
        std::thread::scope(|sc| {
            let (tx, rx) = mpsc::channel::<(usize, Vec<DoneOf<T>>)>();
            for _ in 0..threads {
                let tx = tx.clone();
                let (claim, abort) = (&claim, &abort);
                sc.spawn(move || {
                    let mut rep = level.replayer();
                    while !abort.load(Ordering::Relaxed) {
                        let c = claim.fetch_add(1, Ordering::Relaxed);
                        if c >= chunks {
                            break;
                        }
                        let done = (c * CHUNK..((c + 1) * CHUNK).min(len))
                            .map(|k| level.expand(k, rep.as_mut()))
                            .collect();
                        if tx.send((c, done)).is_err() {
                            break;
                        }
                    }
                });
            }
            drop(tx);
            let mut pending = BTreeMap::new();
            let mut want = 0;
            let verdict = 'merge: loop {
                if want == chunks {
                    break None;
                }
                // a closed channel before the last chunk: a worker panicked (the scope
                // re-raises it)
                let Ok((c, done)) = rx.recv() else {
                    break None;
                };
                pending.insert(c, done);
                while let Some(done) = pending.remove(&want) {
                    for (j, d) in done.into_iter().enumerate() {
                        let k = want * CHUNK + j;
                        if let Some(v) = self.merge(level, k, d) {
                            break 'merge Some(v);
                        }
                        if let Some(v) = self.after(k + 1, len, level.depth) {
                            break 'merge Some(v);
                        }
                    }
                    want += 1;
                }
            };
            abort.store(true, Ordering::Relaxed);
            verdict
        })
    }
}

/// Explore `sys` breadth-first within `cfg` and `budget`.
pub fn bfs<T: FrontierTuning>(
    sys: &T,
    cfg: &Config,
    budget: &Budget,
    progress: OnProgress<'_>,
) -> (Verdict<T::Action, T::Failure>, Stats) {
    let t0 = Instant::now();
    let mut stats = Stats::default();
    let s0 = match sys.initial() {
        Ok(s) => s,
        Err(Start::Error(e)) => return (Verdict::Error(e), stats),
        Err(Start::Failure(f)) => {
            stats.states = 1;
            stats.peak_rss_bytes = budget::peak_resident_bytes();
            return (Verdict::FailedInitial(f), stats);
        }
    };
    let compact = sys.rebuilds();
    let fp0 = sys.fingerprint(&s0);
    let mut frontier = Frontier::new(compact);
    let root = if compact {
        frontier.push(ROOT, fp0, None);
        Some(s0)
    } else {
        frontier.push(ROOT, fp0, Some(s0));
        None
    };
    let mut links = Links::new();
    let mut search: Search<'_, T> = Search {
        cfg,
        budget,
        progress,
        seen: Seen::default(),
        new: NewLinks::new(),
        next: Frontier::new(compact),
        at_next: Default::default(),
        stats,
        cut: false,
        t0,
        last_report: Instant::now(),
    };
    search.seen.insert(fp0);
    search.stats.digest = fp0;
    let mut depth = 0;
    while frontier.len() > 0 {
        if depth >= cfg.max_depth {
            search.cut = true;
            break;
        }
        let level = Level {
            sys,
            links: &links,
            root: root.as_ref(),
            frontier: &frontier,
            depth,
            budget,
            keep: !compact && depth + 1 < cfg.max_depth,
        };
        if let Some(v) = search.level(&level) {
            return (v, search.stats);
        }
        search.new.commit(&mut links);
        let next = std::mem::replace(&mut search.next, Frontier::new(compact));
        // the states just expanded go back to the system
        std::mem::replace(&mut frontier, next).release(|s| sys.recycle(s));
        search.at_next.clear();
        depth += 1;
    }
    search.figures(depth);
    let tables = search.seen.capacity() * (std::mem::size_of::<u64>() + 1)
        + links.bytes(|a| sys.action_bytes(a))
        + search.new.bytes();
    search.stats.bytes_per_state = tables / search.seen.len().max(1);
    (
        Verdict::Holds {
            exhausted: !search.cut,
        },
        search.stats,
    )
}
