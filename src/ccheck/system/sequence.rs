//! One call sequence run on the C and on the model call by call, every check of the search
//! made after every call: for the C fuzz target (`fuzz/fuzz_targets/cops.rs`) and `rmapcheck
//! creplay`, which replays what it found. Unlike the search, which rebuilds a state's C world
//! from `reset` for each successor, the sequence runs in one harness process from one `reset`:
//! each call is turned into its harness request in the model's world before it ([`super::drive`]),
//! the model's world after it is made, and the requests go to the harness as one pipelined
//! batch (`reset`, then each call and a `dump`), whose dumps are judged in order as a search
//! step judges a successor ([`CSystem::judge_next`]): the C's checks (tree invariants, pages,
//! walker checkpoints, the glue's lock and precondition notes), then the model's world against
//! the C's. The first call that fails, diverges or cannot be judged ends the sequence.

use super::step::Made;
use super::{CFailure, CState, CSystem, Next};
use crate::ccheck::diverge::Divergence;
use crate::charness::calls::reset;
use crate::charness::Harness;
use crate::world::scenario::Call;
use crate::world::World;
use std::sync::atomic::Ordering;

/// How a sequence ended.
#[derive(Debug)]
pub enum Ended {
    /// Every call ran on both and every check passed.
    Passed,
    /// The C failed a check, or crashed, at the last call of `calls`.
    Failed(CFailure),
    /// The model's world left the C's after the last call of `calls` (a fidelity failure of
    /// the model, or on a patched tree a layout neither the patched nor the unpatched C has).
    Diverged(Divergence),
    /// The sequence could not be judged (a harness that refused a request, a dump that does not
    /// parse): a fault of the tool, not a verdict on the C.
    Stopped(String),
}

/// What a sequence ran and how it ended.
#[derive(Debug)]
pub struct Ran {
    /// The calls made on both, the last one the failing one when it failed.
    pub calls: Vec<Call>,
    /// Calls offered that the harness cannot reach (a contract call, a call the harness has no
    /// path for), left out of the sequence, with the reason.
    pub skipped: Vec<(Call, String)>,
    pub ended: Ended,
}

impl Ran {
    /// Whether it ended with a verdict on the C: a failure or a divergence.
    pub fn found(&self) -> bool {
        matches!(self.ended, Ended::Failed(_) | Ended::Diverged(_))
    }
}

impl CSystem<'_> {
    /// The model's initial world, which every sequence starts from (the C's is its `reset`).
    pub fn initial_world(&self) -> &World {
        &self.w0
    }

    /// Run the calls `next` chooses, one at a time in the model's world as it stands before each
    /// (`None`: no more calls), on the model and on the C, from the initial world, with every
    /// check after every call. At most `max` calls are made.
    pub fn run_sequence(&self, max: usize, next: &mut dyn FnMut(&World) -> Option<Call>) -> Ran {
        let mut ran = Ran {
            calls: Vec::new(),
            skipped: Vec::new(),
            ended: Ended::Passed,
        };
        let mut w = self.w0.clone();
        let mut nexts: Vec<Next> = Vec::new();
        while nexts.len() < max {
            let Some(call) = next(&w) else { break };
            match self.next(&w, call.clone()) {
                Ok(Some(n)) => {
                    w = n.model.clone();
                    nexts.push(n);
                }
                Ok(None) => {
                    let why = super::drive(&w, &call)
                        .ok()
                        .and_then(|d| match d {
                            crate::oracle::sequences::Drive::Skip(why) => Some(why),
                            crate::oracle::sequences::Drive::Op(_) => None,
                        })
                        .unwrap_or_default();
                    ran.skipped.push((call, why));
                }
                Err(why) => {
                    ran.ended = Ended::Stopped(why);
                    return ran;
                }
            }
        }
        ran.ended = self.run_nexts(nexts, &mut ran.calls);
        ran
    }

    /// Make `nexts` on one harness process as one batch and judge each dump in order.
    fn run_nexts(&self, nexts: Vec<Next>, calls: &mut Vec<Call>) -> Ended {
        let mut h = match self.harness() {
            Ok(h) => h,
            Err(d) => return Ended::Stopped(format!("the harness does not start: {d}")),
        };
        let mut text = reset(&self.w0);
        text.push_str("\ndump\n");
        for n in &nexts {
            if let Some(r) = &n.req {
                text.push_str(r);
                text.push('\n');
            }
            text.push_str("dump\n");
        }
        if let Err(d) = h.send(&text) {
            return Ended::Stopped(format!("the harness does not take the sequence: {d}"));
        }
        let first = h.reset_reply().and_then(|_| h.dump_reply());
        let mut s = match first.map_err(|d| d.what).and_then(|d| self.judge(&d)) {
            Ok(j) if j.v.is_none() => CState {
                calls: Vec::new(),
                reqs: Vec::new(),
                fp: 0,
            },
            Ok(j) => {
                let v = j.v.map_or_else(String::new, |v| v.what);
                return Ended::Stopped(format!("the initial C world fails a check: {v}"));
            }
            Err(why) => return Ended::Stopped(format!("the initial C world: {why}")),
        };
        // a harness whose batch is left part read is dropped: a fresh one serves the next
        for n in nexts {
            calls.push(n.call.clone());
            let r = Self::read_next(&mut h, &n);
            self.counts.c_calls.fetch_add(1, Ordering::Relaxed);
            match self.judge_next(&s, n, r) {
                Made::Next(next) => s = next,
                Made::Failed(f) => return end(h, Ended::Failed(f)),
                Made::Left => {
                    let mut d = std::mem::take(&mut *self.counts.divergences.lock().expect("d"));
                    return match d.kept.pop() {
                        Some(d) => end(h, Ended::Diverged(d)),
                        // the patch changed the layout in a search that does not check
                        // equivalence: nothing to go on from, nothing found
                        None => end(h, Ended::Passed),
                    };
                }
                Made::Stopped(why) => return end(h, Ended::Stopped(why)),
            }
        }
        self.give_back(h);
        Ended::Passed
    }

    /// The reply to `n`'s request and the dump after it.
    fn read_next(h: &mut Harness, n: &Next) -> Result<Vec<String>, crate::charness::Died> {
        if let Some(r) = &n.req {
            h.call_reply(r)?;
        }
        h.dump_reply()
    }
}

fn end(h: Harness, e: Ended) -> Ended {
    drop(h);
    e
}
