//! The search of the C as a [`TransitionSystem`] on the project's checker core. The search is
//! stateless: a state is the call sequence that reached it (and a fingerprint), and the C world
//! is rebuilt for each successor by replaying that sequence from `reset` in a harness process,
//! then making the new call and dumping the world. The replays of one state's successors go to
//! the harness as one pipelined batch; each worker thread of the search has its own harness
//! process (a pool), so both cores run C.
//!
//! The calls offered in a state are the scope's alphabet (`explore::alphabet`) in the model's
//! world after the same sequence, each turned into its harness request as cdiff does
//! (`charness::calls`); calls the harness cannot reach are counted and named, never run. A state
//! is the pair (C world, model world): its fingerprint hashes the C's canonical dump and the
//! model's world, so that the calls offered are a function of the state. The model's world
//! also gives, at a failure, what the model says after the same calls (cdiff there).
//!
//! The calls are only ones the C world can take while the two worlds agree, so after every
//! call they are compared ([`super::diverge`]) and a state where they differ is never expanded:
//! it is a divergence of the model (a fidelity failure, never a counterexample) or, on a
//! patched tree whose unpatched C agrees with the model, the patch's own change of layout.

mod sequence;
mod step;

pub use sequence::{Ended, Ran};

use super::diverge::{Compared, Divergence, Divergences};
use super::invariants::{self, Violation};
use crate::charness::calls::{drive, reset};
use crate::charness::canon::Raw;
use crate::charness::{cdump, model_lines, Died, Harness};
use crate::checker::budget::Budget;
use crate::checker::{Expansion, FrontierTuning, Start, TransitionSystem};
use crate::explore::alphabet;
use crate::explore::search::CallSystem;
use crate::invariant::Invariant;
use crate::world::scenario::Call;
use crate::world::World;
use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;
use step::Made;

/// A state: the calls from the initial world and their harness requests.
#[derive(Clone, Debug)]
pub struct CState {
    pub calls: Vec<Call>,
    reqs: Vec<Option<String>>,
    fp: u64,
}

/// A failing C step.
#[derive(Clone, Debug)]
pub struct CFailure {
    /// The invariant violated; `None` when the C crashed (a kernel BUG, a sanitizer report, a
    /// hang).
    pub invariant: Option<Invariant>,
    pub what: String,
    /// The C world's canonical lines after the failing call (empty when it crashed).
    pub c: Vec<String>,
    /// The model's canonical lines after the same calls.
    pub model: Vec<String>,
    /// The model's own checks failing on the same call, if they do.
    pub model_failed: Option<String>,
}

/// Counts kept while the search runs.
#[derive(Default)]
pub struct Counts {
    /// Calls the alphabet offered that the harness cannot reach: reason -> count.
    pub skipped: Mutex<BTreeMap<String, usize>>,
    /// Calls made on the C (replays included).
    pub c_calls: AtomicU64,
    /// Successors made on the C (one replayed sequence each).
    pub replays: AtomicU64,
    /// Harness processes started.
    pub harnesses: AtomicU64,
    /// States where the model's world left the C's, not expanded.
    pub divergences: Mutex<Divergences>,
    /// A digest of the search: the wrapping sum of a hash of (state, successor) over every
    /// state expanded, the same for the same states whatever the order ([`Counts::note_edge`]).
    pub digest: AtomicU64,
    /// The most walker checkpoints one replayed sequence skipped over the per-call bound.
    pub checkpoints_over: AtomicU64,
}

impl Counts {
    /// Add the edge from the state `from` to the successor `to` to the digest.
    fn note_edge(&self, from: u64, to: u64) {
        let mut b = [0u8; 16];
        b[..8].copy_from_slice(&from.to_le_bytes());
        b[8..].copy_from_slice(&to.to_le_bytes());
        let h = xxhash_rust::xxh3::xxh3_64(&b);
        self.digest.fetch_add(h, Ordering::Relaxed);
    }
}

/// The C search.
pub struct CSystem<'a> {
    pub model: CallSystem<'a>,
    binary: PathBuf,
    timeout: Duration,
    pool: Mutex<Vec<Harness>>,
    /// Shared by every system of one search (a distributed search makes one per worker).
    pub counts: Arc<Counts>,
    w0: World,
    /// What is compared with the model after each call.
    compared: Compared,
    /// The unpatched tree's harness, on a patched tree: divergences are replayed on it.
    baseline: Option<PathBuf>,
    base_pool: Mutex<Vec<Harness>>,
    /// Added to each harness process's environment ([`CSystem::with_env`]).
    env: Vec<(String, String)>,
}

fn hash_lines(lines: &[String], model: u64) -> u64 {
    let mut h = xxhash_rust::xxh3::Xxh3::new();
    for l in lines {
        h.update(l.as_bytes());
        h.update(b"\n");
    }
    h.update(&model.to_le_bytes());
    h.digest()
}

/// A C world judged.
struct Judged {
    lines: Vec<String>,
    /// How many of `lines`, at the end, are the C's own notes.
    notes: usize,
    v: Option<Violation>,
}

/// A state whose worlds differ, classified.
enum Class {
    /// The model left the kernel's C.
    Diverged(Divergence),
    /// The patch changed the layout (the unpatched C agrees with the model).
    PatchChanged(CFailure),
}

/// One successor being made: the call, its request, the model's world after it.
struct Next {
    call: Call,
    req: Option<String>,
    model: World,
    model_failed: Option<String>,
}

impl<'a> CSystem<'a> {
    /// The search of `binary`; `baseline`, on a patched tree, is the unpatched tree's harness.
    pub fn new(
        model: CallSystem<'a>,
        binary: PathBuf,
        timeout: Duration,
        baseline: Option<PathBuf>,
    ) -> Result<Self, String> {
        let w0 = crate::charness::initial_world(model.scope)?;
        Ok(CSystem {
            w0: model.canonical(&w0),
            model,
            binary,
            timeout,
            pool: Mutex::new(Vec::new()),
            counts: Arc::default(),
            compared: if baseline.is_some() {
                Compared::Layout
            } else {
                Compared::Whole
            },
            baseline,
            base_pool: Mutex::new(Vec::new()),
            env: Vec::new(),
        })
    }

    /// The system counting into `counts` (shared with the other systems of one search).
    pub fn with_counts(mut self, counts: Arc<Counts>) -> Self {
        self.counts = counts;
        self
    }

    /// The system with `env` added to every harness process's environment (`GCOV_PREFIX`
    /// for a harness built with coverage).
    pub fn with_env(mut self, env: Vec<(String, String)>) -> Self {
        self.env = env;
        self
    }

    fn harness(&self) -> Result<Harness, Died> {
        if let Some(h) = self.pool.lock().expect("pool").pop() {
            return Ok(h);
        }
        self.counts.harnesses.fetch_add(1, Ordering::Relaxed);
        Harness::start_env(&self.binary, self.timeout, &self.env)
    }

    /// The unpatched C's canonical lines and notes count after `path` + `req`.
    fn baseline_lines(
        &self,
        binary: &std::path::Path,
        path: &[Option<String>],
        req: &Option<String>,
    ) -> Result<(Vec<String>, usize), String> {
        let popped = self.base_pool.lock().expect("pool").pop();
        let mut h = match popped {
            Some(h) => h,
            None => Harness::start(binary, self.timeout).map_err(|d| d.what)?,
        };
        let mut text = String::new();
        self.script(path, req, &mut text);
        h.send(&text).map_err(|d| d.what)?;
        let dump = self
            .read_one(&mut h, path, req)
            .map_err(|d| format!("the unpatched tree's C died replaying a divergence: {d}"))?;
        self.base_pool.lock().expect("pool").push(h);
        let raw = cdump::parse(&dump)?;
        Ok((raw.canonical(), raw.notes.len()))
    }

    /// The worlds after `n` differ: whose difference is it?
    fn classify(
        &self,
        path: &[Option<String>],
        n: &Next,
        calls: Vec<Call>,
        c: (Vec<String>, usize),
        model: Vec<String>,
    ) -> Result<Class, String> {
        let Some(base) = &self.baseline else {
            return Ok(Class::Diverged(Divergence {
                calls,
                c: Compared::Whole.lines(&c.0, c.1),
                model,
            }));
        };
        let (b, notes) = self.baseline_lines(base, path, &n.req)?;
        let b = Compared::Whole.lines(&b, notes);
        if Compared::Layout.differ(&b, 0, &model) {
            return Ok(Class::Diverged(Divergence { calls, c: b, model }));
        }
        let unpatched = Compared::Layout.lines(&b, 0);
        let patched = Compared::Layout.lines(&c.0, c.1);
        let k = patched
            .iter()
            .zip(&unpatched)
            .position(|(x, y)| x != y)
            .unwrap_or_else(|| patched.len().min(unpatched.len()));
        let what = format!(
            "the patch changes the VMA layout: after this call the patched C has `{}` where \
             the unpatched C (and the model) has `{}`",
            patched.get(k).map_or("(nothing)", |s| s.trim()),
            unpatched.get(k).map_or("(nothing)", |s| s.trim())
        );
        Ok(Class::PatchChanged(self.fail(
            Some(Invariant::Equivalent),
            what,
            c.0,
            n,
        )))
    }

    fn give_back(&self, h: Harness) {
        self.pool.lock().expect("pool").push(h);
    }

    /// The model's world after `calls` (the state's model half).
    fn model_world(&self, calls: &[Call]) -> World {
        let mut w = self.w0.clone();
        for c in calls {
            let _ = self.model.apply(&mut w, c);
            w = self.model.canonical(&w);
        }
        w
    }

    fn model_fp(w: &World) -> u64 {
        crate::world::fingerprint::stable_hash(w)
    }

    /// The batch of requests that rebuilds `path` + `req` from reset and dumps it.
    fn script(&self, path: &[Option<String>], req: &Option<String>, out: &mut String) {
        out.push_str(&reset(&self.w0));
        out.push('\n');
        for r in path.iter().chain(std::iter::once(req)).flatten() {
            out.push_str(r);
            out.push('\n');
        }
        out.push_str("dump\n");
    }

    /// Read the replies of one script: the C world's raw dump.
    fn read_one(
        &self,
        h: &mut Harness,
        path: &[Option<String>],
        req: &Option<String>,
    ) -> Result<Vec<String>, Died> {
        h.reset_reply()?;
        for q in path.iter().chain(std::iter::once(req)).flatten() {
            h.call_reply(q)?;
            self.counts.c_calls.fetch_add(1, Ordering::Relaxed);
        }
        h.dump_reply()
    }

    /// The C world of each successor, in order, as far as the harness got: a death ends the
    /// list with the error for the successor it died in.
    fn run_batch(
        &self,
        path: &[Option<String>],
        nexts: &[Next],
    ) -> Result<Vec<Result<Vec<String>, Died>>, String> {
        let mut h = self.harness().map_err(|d| d.what)?;
        let mut text = String::new();
        for n in nexts {
            self.script(path, &n.req, &mut text);
        }
        let mut out = Vec::new();
        let sent = h.send(&text);
        if let Err(d) = sent {
            // nothing read yet: a fresh harness replays them one by one below
            drop(h);
            return self.one_by_one(path, nexts, d);
        }
        for n in nexts {
            self.counts.replays.fetch_add(1, Ordering::Relaxed);
            match self.read_one(&mut h, path, &n.req) {
                Ok(lines) => out.push(Ok(lines)),
                Err(d) => {
                    out.push(Err(d));
                    drop(h);
                    return Ok(out);
                }
            }
        }
        self.give_back(h);
        Ok(out)
    }

    /// After a batch could not even be sent: each successor alone, on a fresh harness.
    fn one_by_one(
        &self,
        path: &[Option<String>],
        nexts: &[Next],
        first: Died,
    ) -> Result<Vec<Result<Vec<String>, Died>>, String> {
        let mut out = Vec::new();
        for n in nexts {
            let mut h = self.harness().map_err(|d| d.what)?;
            let mut text = String::new();
            self.script(path, &n.req, &mut text);
            self.counts.replays.fetch_add(1, Ordering::Relaxed);
            let r = h
                .send(&text)
                .and_then(|_| self.read_one(&mut h, path, &n.req));
            let died = r.is_err();
            out.push(r);
            if died {
                return Ok(out);
            }
            self.give_back(h);
        }
        Err(format!(
            "the harness died sending a batch but not on its own: {first}"
        ))
    }

    fn fail(&self, inv: Option<Invariant>, what: String, c: Vec<String>, n: &Next) -> CFailure {
        CFailure {
            invariant: inv,
            what,
            c,
            model: model_lines(&n.model),
            model_failed: n.model_failed.clone(),
        }
    }

    /// Check a C world: its canonical lines and the violation if there is one.
    fn judge(&self, dump: &[String]) -> Result<Judged, String> {
        let raw: Raw = cdump::parse(dump)?;
        super::pages::count_checkpoints(&raw, &self.counts.checkpoints_over);
        let lines = raw.canonical();
        let v = invariants::check(&raw, self.model.scope.invariant_set());
        Ok(Judged {
            lines,
            notes: raw.notes.len(),
            v,
        })
    }
}

impl TransitionSystem for CSystem<'_> {
    type State = CState;
    type Action = Call;
    type Failure = CFailure;

    fn initial(&self) -> Result<CState, Start<CFailure>> {
        let n = Next {
            call: Call {
                func: String::new(),
                args: Vec::new(),
            },
            req: None,
            model: self.w0.clone(),
            model_failed: None,
        };
        let r = self
            .run_batch(&[], std::slice::from_ref(&n))
            .map_err(Start::Error)?;
        let dump = match r.into_iter().next() {
            Some(Ok(d)) => d,
            Some(Err(d)) => return Err(Start::Error(format!("the harness died at reset: {d}"))),
            None => return Err(Start::Error("the harness answered nothing".into())),
        };
        let j = self.judge(&dump).map_err(Start::Error)?;
        if let Some(v) = j.v {
            return Err(Start::Failure(self.fail(
                Some(v.invariant),
                v.what,
                j.lines,
                &n,
            )));
        }
        Ok(CState {
            calls: Vec::new(),
            reqs: Vec::new(),
            fp: hash_lines(&j.lines, Self::model_fp(&self.w0)),
        })
    }

    fn fingerprint(&self, s: &CState) -> u64 {
        s.fp
    }

    fn expand(
        &self,
        s: &CState,
        _depth: u32,
        budget: &Budget,
    ) -> Expansion<Call, CState, CFailure> {
        let mut e = Expansion::default();
        if let Some(why) = budget.spent() {
            e.stopped = Some(why);
            return e;
        }
        let w = self.model_world(&s.calls);
        let mut nexts = Vec::new();
        for call in alphabet::calls(self.model.scope, self.model.prog, &w) {
            match self.next(&w, call) {
                Ok(Some(n)) => nexts.push(n),
                Ok(None) => {}
                Err(why) => {
                    e.stopped = Some(why);
                    return e;
                }
            }
        }
        let results = match self.run_batch(&s.reqs, &nexts) {
            Ok(r) => r,
            Err(why) => {
                e.stopped = Some(why);
                return e;
            }
        };
        for (n, r) in nexts.into_iter().zip(results) {
            let call = n.call.clone();
            match self.judge_next(s, n, r) {
                Made::Next(next) => e.succs.push((call, next)),
                Made::Failed(f) => {
                    e.failure = Some((Some(call), f));
                    return e;
                }
                Made::Left => {}
                Made::Stopped(why) => {
                    e.stopped = Some(why);
                    return e;
                }
            }
        }
        e
    }
}

/// Whole states in the frontier: a state is its call sequence and what the harness answered.
impl FrontierTuning for CSystem<'_> {
    fn action_bytes(&self, c: &Call) -> usize {
        c.func.capacity() + c.args.capacity() * std::mem::size_of::<crate::exec::host::Value>()
    }
}
