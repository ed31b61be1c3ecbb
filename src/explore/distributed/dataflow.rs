//! The timely dataflow of one worker: a single operator in a feedback loop. Candidates (a
//! fingerprint and the path of successor indices that reached it) are exchanged to the worker
//! their fingerprint hashes to; reports are sent to every worker. At each timestamp the
//! operator waits until timely's progress tracking says nothing more can arrive for it, then
//! runs the phase (see [`super::ledger`]): de-duplicate the depth's candidates against the
//! worker's seen-set, keeping the lexicographically least path of each new state, or replay
//! each new state's path from the initial world and expand it, in path order, sending its
//! successors to their owners at the next depth.

use super::ledger::{owner, Body, Expanded, Ledger, Msg, Path};
use super::Factory;
use crate::checker::budget::Budget;
use crate::checker::TransitionSystem;
use std::cell::RefCell;
use std::collections::{BTreeMap, HashMap, HashSet};
use std::rc::Rc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use timely::dataflow::channels::pact::Exchange;
use timely::dataflow::operators::generic::operator::Operator;
use timely::dataflow::operators::{Capability, Concat, ConnectLoop, Feedback, ToStream};
use timely::worker::Worker;

/// What the workers of one process share: the system's factory, the process's budget, the
/// initial state and the live figures the progress line shows.
pub struct Shared<F: Factory> {
    pub factory: F,
    pub budget: Arc<Budget>,
    pub s0: F::State,
    pub live: Arc<Live>,
    /// Testing hook: exit the process abruptly on reaching this depth (a crashed peer).
    pub die_at: Option<u32>,
}

/// Figures of this process's workers, updated as they go.
#[derive(Default)]
pub(crate) struct Live {
    /// Distinct states owned, per local worker.
    pub states: Vec<AtomicU64>,
    /// States expanded, per local worker.
    pub expanded: Vec<AtomicU64>,
    /// Candidates sent, and of those to another worker.
    pub sent: AtomicU64,
    pub remote: AtomicU64,
    /// The depth being worked on.
    pub depth: AtomicU64,
    /// Bytes of the seen-sets, per local worker (at the end).
    pub seen_bytes: Vec<AtomicU64>,
}

impl Live {
    pub fn new(workers: usize) -> Live {
        Live {
            states: (0..workers).map(|_| AtomicU64::new(0)).collect(),
            expanded: (0..workers).map(|_| AtomicU64::new(0)).collect(),
            seen_bytes: (0..workers).map(|_| AtomicU64::new(0)).collect(),
            ..Live::default()
        }
    }
}

/// The replayed state at the end of `path`, or `None` when a state on the path has fewer
/// successors than its index.
pub fn replay<F: Factory>(
    sys: &F::Sys<'_>,
    s0: &F::State,
    path: &[u16],
    budget: &Budget,
) -> Option<F::State> {
    let mut w = s0.clone();
    for (d, &j) in path.iter().enumerate() {
        w = F::nth(sys, &w, usize::from(j), d as u32, budget)?.1;
    }
    Some(w)
}

/// A successor index as a path element.
fn index16(j: usize) -> u16 {
    u16::try_from(j).expect("a state with more than 65535 successors")
}

/// One worker's state between activations.
struct Bfs<F: Factory> {
    sh: Arc<Shared<F>>,
    index: u32,
    peers: u32,
    /// This worker's slot in [`Live`].
    local: usize,
    seen: HashSet<u64>,
    caps: BTreeMap<u32, Capability<u32>>,
    cands: BTreeMap<u32, Vec<(u64, Path)>>,
    seen_reports: BTreeMap<u32, Vec<(u32, u64)>>,
    exp_reports: BTreeMap<u32, Vec<(u32, Expanded)>>,
    /// The new states of the depth being worked on, in path order.
    level: Vec<(u64, Path)>,
    /// Worlds of the successors this worker owns itself, kept from its expansion so that they
    /// need no replay (any world with the fingerprint is the state).
    own: HashMap<u64, F::State>,
    ledger: Rc<RefCell<Ledger>>,
}

impl<F: Factory> Bfs<F> {
    fn receive(&mut self, t: u32, m: Msg) {
        match m {
            Msg::Cand { fp, path } => self.cands.entry(t).or_default().push((fp, path)),
            Msg::Report { from, body, .. } => match body {
                Body::Seen { new } => self.seen_reports.entry(t).or_default().push((from, new)),
                Body::Expanded(e) => self.exp_reports.entry(t).or_default().push((from, e)),
            },
        }
    }

    fn done(&self) -> bool {
        self.ledger.borrow().end.is_some()
    }

    /// Run the phase at `t`; the messages to send at `t`.
    fn phase(&mut self, t: u32) -> Vec<Msg> {
        let d = t / 2;
        if t.is_multiple_of(2) {
            if d > 0 {
                let reps = self.exp_reports.remove(&t).unwrap_or_default();
                assert_eq!(
                    reps.len(),
                    self.peers as usize,
                    "expansion reports of depth {}",
                    d - 1
                );
                if !self.ledger.borrow_mut().expanded(d - 1, &reps) {
                    return Vec::new();
                }
            }
            let new = self.dedupe(t);
            self.report(Body::Seen { new })
        } else {
            let reps = self.seen_reports.remove(&t).unwrap_or_default();
            assert_eq!(
                reps.len(),
                self.peers as usize,
                "de-duplication reports of depth {d}"
            );
            let (max_depth, max_states) = self.sh.factory.bounds();
            if !self
                .ledger
                .borrow_mut()
                .seen(d, &reps, max_depth, max_states)
            {
                return Vec::new();
            }
            if self.sh.die_at == Some(d) {
                eprintln!("rmapcheck: test hook: process exits at depth {d}");
                std::process::exit(9);
            }
            self.sh.live.depth.store(u64::from(d), Ordering::Relaxed);
            let (mut out, e) = self.expand(d);
            out.extend(self.report(Body::Expanded(e)));
            out
        }
    }

    fn report(&self, body: Body) -> Vec<Msg> {
        (0..self.peers)
            .map(|to| Msg::Report {
                to,
                from: self.index,
                body: body.clone(),
            })
            .collect()
    }

    /// The depth's new states: each candidate not seen before, with its least path.
    fn dedupe(&mut self, t: u32) -> u64 {
        let mut best: HashMap<u64, Path> = HashMap::new();
        for (fp, path) in self.cands.remove(&t).unwrap_or_default() {
            if self.seen.contains(&fp) {
                continue;
            }
            match best.get_mut(&fp) {
                Some(p) if path < *p => *p = path,
                Some(_) => {}
                None => {
                    best.insert(fp, path);
                }
            }
        }
        self.level = best.into_iter().collect();
        self.level.sort_by(|a, b| a.1.cmp(&b.1));
        self.seen.extend(self.level.iter().map(|(fp, _)| *fp));
        let n = self.level.len() as u64;
        self.sh.live.states[self.local].fetch_add(n, Ordering::Relaxed);
        self.sh.live.seen_bytes[self.local]
            .store((self.seen.capacity() * 9) as u64, Ordering::Relaxed);
        n
    }

    /// Expand the depth's new states in path order, up to the first failure.
    fn expand(&mut self, d: u32) -> (Vec<Msg>, Expanded) {
        let sh = Arc::clone(&self.sh);
        let mut e = Expanded::default();
        let sys = match sh.factory.system() {
            Ok(s) => s,
            Err(why) => {
                e.stopped = Some(why);
                return (Vec::new(), e);
            }
        };
        let max_depth = sh.factory.bounds().0;
        let mut out = Vec::new();
        let mut sent: HashSet<u64> = HashSet::new();
        let mut own = std::mem::take(&mut self.own);
        for (fp, path) in std::mem::take(&mut self.level) {
            let w = match own.remove(&fp) {
                Some(w) => w,
                None => match replay::<F>(&sys, &sh.s0, &path, &sh.budget) {
                    Some(w) if sys.fingerprint(&w) == fp => w,
                    _ => panic!("replaying the path {path:?} did not reach the state it names"),
                },
            };
            let ex = sys.expand(&w, d, &sh.budget);
            e.cut |= ex.cut;
            if let Some(r) = ex.stopped {
                e.stopped = Some(r);
                break;
            }
            e.transitions += ex.succs.len() as u64;
            let before = (e.sent, e.remote);
            let n = ex.succs.len();
            let failed = ex.failure.is_some();
            for (j, (_, succ)) in ex.succs.into_iter().enumerate() {
                let sfp = sys.fingerprint(&succ);
                let to = owner(sfp, self.peers);
                if (to == self.index && self.seen.contains(&sfp)) || !sent.insert(sfp) {
                    continue;
                }
                // states at the depth bound are counted, never expanded: no world to keep
                if to == self.index && d + 1 < max_depth {
                    self.own.insert(sfp, succ);
                }
                e.sent += 1;
                e.remote += u64::from(to != self.index);
                let mut p = path.clone();
                p.push(index16(j));
                out.push(Msg::Cand { fp: sfp, path: p });
            }
            let live = &sh.live;
            live.sent.fetch_add(e.sent - before.0, Ordering::Relaxed);
            live.remote
                .fetch_add(e.remote - before.1, Ordering::Relaxed);
            live.expanded[self.local].fetch_add(1, Ordering::Relaxed);
            if failed {
                e.transitions += 1;
                let mut p = path;
                p.push(index16(n));
                e.failure = Some(p);
                break;
            }
        }
        (out, e)
    }
}

/// Build the dataflow on `worker`, run it to the end; the ledger.
pub fn run<F: Factory>(worker: &mut Worker, sh: Arc<Shared<F>>, fp0: u64, local: usize) -> Ledger {
    let index = worker.index() as u32;
    let peers = worker.peers() as u32;
    let ledger = Rc::new(RefCell::new(Ledger::new(peers)));
    let l2 = Rc::clone(&ledger);
    worker.dataflow::<u32, _, _>(move |scope| {
        let (handle, cycle) = scope.feedback::<Vec<Msg>>(1);
        let init: Vec<Msg> = if index == 0 {
            vec![Msg::Cand {
                fp: fp0,
                path: Vec::new(),
            }]
        } else {
            Vec::new()
        };
        init.to_stream(scope)
            .concat(cycle)
            .unary_frontier(
                Exchange::new(|m: &Msg| m.route()),
                "rmapcheck-bfs",
                move |cap0, _info| {
                    let mut st = Bfs {
                        sh,
                        index,
                        peers,
                        local,
                        seen: HashSet::new(),
                        caps: BTreeMap::from([(0, cap0)]),
                        cands: BTreeMap::new(),
                        seen_reports: BTreeMap::new(),
                        exp_reports: BTreeMap::new(),
                        level: Vec::new(),
                        own: HashMap::new(),
                        ledger: l2,
                    };
                    move |(input, frontier), output| {
                        let port = output.output_index();
                        let mut got: Vec<(u32, Msg)> = Vec::new();
                        input.for_each_stamp(|cap, data| {
                            let Some(cap) = cap.retain_least(port) else {
                                return;
                            };
                            let t = *cap.time();
                            for c in data {
                                got.extend(c.drain(..).map(|m| (t, m)));
                            }
                            st.caps.entry(t).or_insert(cap);
                        });
                        if st.done() {
                            st.caps.clear();
                            return;
                        }
                        for (t, m) in got {
                            st.receive(t, m);
                        }
                        while let Some(&t) = st.caps.keys().next() {
                            if frontier.frontier().less_equal(&t) {
                                break;
                            }
                            let cap = st.caps.remove(&t).expect("a capability");
                            let msgs = st.phase(t);
                            if st.done() {
                                st.caps.clear();
                                break;
                            }
                            output.session(&cap).give_iterator(msgs.into_iter());
                        }
                    }
                },
            )
            .connect_loop(handle);
    });
    while worker.has_dataflows() {
        worker.step_or_park(None);
    }
    let l = ledger.borrow().clone();
    l
}
