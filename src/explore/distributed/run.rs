//! Running a distributed search: the initial world is checked before anything is connected
//! (every process finds the same), the timely workers are started (threads of this process, or
//! this process's share of a cluster over the mesh of [`super::connect`]), a progress line is
//! kept while they run, and their common ledger becomes the same [`Outcome`] and [`Stats`] as
//! the single-process search's: a failing path is replayed into calls and its last state
//! re-expanded here to recover the failure (an interleaving trace too).
//!
//! While the workers run, a panic anywhere (a peer that died closes its sockets, and timely's
//! receiving thread panics on the broken connection) ends the process with exit status 2 and a
//! message: a worker that is gone would otherwise leave the others waiting for ever.

use super::connect;
use super::dataflow::{self, Live, Shared};
use super::ledger::{End, Ledger};
use super::{Cluster, Factory};
use crate::checker::budget::{self, Budget};
use crate::checker::{Start, TransitionSystem, Verdict};
use crate::explore::search::{outcome_of, CallFailure, CallSystem, Outcome, Stats};
use crate::lang::Program;
use crate::scope::Scope;
use crate::world::scenario::Call;
use std::hash::{Hash, Hasher};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};
use timely::communication::allocator::zero_copy::initialize::initialize_networking_from_sockets;
use timely::communication::allocator::ProcessBuilder;
use timely::communication::{AllocatorBuilder, Hooks};

/// A digest of what a process is about to explore (the compiled model without its file names,
/// every field of the scope but its name and origin, the workers per process): processes with
/// different digests refuse each other, and checkouts at different paths do not differ.
pub fn digest(prog: &Program, scope: &Scope, workers: usize) -> u64 {
    #[allow(deprecated)]
    let mut h = std::hash::SipHasher::new();
    let code = format!(
        "{:?}{:?}{:?}{:?}",
        prog.funcs, prog.by_name, prog.structs, prog.defines
    );
    code.hash(&mut h);
    let mut sc = scope.clone();
    sc.name.clear();
    sc.source = None;
    serde_json::to_string(&sc).unwrap_or_default().hash(&mut h);
    workers.hash(&mut h);
    h.finish()
}

/// The testing hook of `RMAPCHECK_TEST_EXIT_AT_DEPTH`.
fn die_at() -> Option<u32> {
    std::env::var("RMAPCHECK_TEST_EXIT_AT_DEPTH")
        .ok()?
        .parse()
        .ok()
}

type Hook = Box<dyn Fn(&std::panic::PanicHookInfo<'_>) + Sync + Send + 'static>;

/// Every panic while the workers run ends the process (exit 2) with a message; the hook that
/// was there before comes back when dropped.
struct PanicExit(Option<Hook>);

impl PanicExit {
    fn install() -> PanicExit {
        let before = std::panic::take_hook();
        std::panic::set_hook(Box::new(|info| {
            let msg = info
                .payload()
                .downcast_ref::<String>()
                .cloned()
                .or_else(|| info.payload().downcast_ref::<&str>().map(|s| s.to_string()))
                .unwrap_or_else(|| "a worker panicked".into());
            let hint = if msg.contains("timely communication error") {
                " (a peer process died or the connection to it broke)"
            } else {
                ""
            };
            eprintln!("rmapcheck check: the distributed search failed{hint}: {msg}; no verdict");
            std::process::exit(2);
        }));
        PanicExit(Some(before))
    }
}

impl Drop for PanicExit {
    fn drop(&mut self) {
        if let Some(h) = self.0.take() {
            std::panic::set_hook(h);
        }
    }
}

/// The allocators of this process's workers, and what keeps the network threads alive.
fn allocators(
    cluster: &Cluster,
    digest: u64,
) -> Result<(Vec<AllocatorBuilder>, Box<dyn std::any::Any + Send>), String> {
    if cluster.addresses.len() <= 1 {
        return timely::CommunicationConfig::Process(cluster.workers).try_build();
    }
    let sockets = connect::mesh(
        &cluster.addresses,
        cluster.process,
        digest,
        cluster.connect_timeout,
    )?;
    let hooks = Hooks::default();
    let procs = ProcessBuilder::new_typed_vector(cluster.workers, hooks.refill.clone(), None);
    let (builders, guard) =
        initialize_networking_from_sockets(procs, sockets, cluster.process, cluster.workers, hooks)
            .map_err(|e| format!("starting the network threads: {e}"))?;
    Ok((
        builders.into_iter().map(AllocatorBuilder::Tcp).collect(),
        Box::new(guard),
    ))
}

/// The progress line, about once a second, until `done`.
fn watch(live: &Live, done: &AtomicBool, t0: Instant, report: &(dyn Fn(&str) + Sync)) {
    let mut last = (Instant::now(), 0u64);
    while !done.load(Ordering::Relaxed) {
        std::thread::sleep(Duration::from_millis(100));
        if last.0.elapsed() < Duration::from_secs(1) {
            continue;
        }
        let sent = live.sent.load(Ordering::Relaxed);
        let rate = (sent - last.1) as f64 / last.0.elapsed().as_secs_f64();
        last = (Instant::now(), sent);
        let per: Vec<String> = live
            .states
            .iter()
            .zip(&live.expanded)
            .map(|(s, x)| {
                format!(
                    "{} ({} expanded)",
                    s.load(Ordering::Relaxed),
                    x.load(Ordering::Relaxed)
                )
            })
            .collect();
        let remote = live.remote.load(Ordering::Relaxed);
        report(&format!(
            "depth {}, states per worker [{}], exchange {rate:.0} successors/s ({:.0}% to other \
             workers), {:.0}s",
            live.depth.load(Ordering::Relaxed),
            per.join(", "),
            100.0 * remote as f64 / sent.max(1) as f64,
            t0.elapsed().as_secs_f64()
        ));
    }
}

/// The failure at the end of `path`: replay its prefix and expand the last state again (with
/// no bound, so that a budget spent in the search does not hide it).
fn failure_at<F: Factory>(
    sys: &F::Sys<'_>,
    s0: &F::State,
    path: &[u16],
) -> Result<(Vec<F::Action>, F::Failure), String> {
    let unbounded = Budget::unlimited();
    let mut actions = Vec::new();
    let mut w = s0.clone();
    for (d, &j) in path[..path.len() - 1].iter().enumerate() {
        let (a, w2) = F::nth(sys, &w, usize::from(j), d as u32, &unbounded)
            .ok_or("replaying the failing path: a state has fewer successors than its index")?;
        actions.push(a);
        w = w2;
    }
    match sys.expand(&w, actions.len() as u32, &unbounded).failure {
        Some((Some(a), f)) => {
            actions.push(a);
            Ok((actions, f))
        }
        Some((None, f)) => Ok((actions, f)),
        None => Err("replaying the failing path: its last state no longer fails".into()),
    }
}

/// The model's call sequences, for the workers: each builds its [`CallSystem`] from the shared
/// model and scope.
pub struct ModelFactory {
    pub prog: Arc<Program>,
    pub scope: Arc<Scope>,
    pub budget: Arc<Budget>,
}

impl Factory for ModelFactory {
    type State = crate::world::World;
    type Action = Call;
    type Failure = CallFailure;
    type Sys<'a> = CallSystem<'a>;

    fn system(&self) -> Result<CallSystem<'_>, String> {
        Ok(CallSystem::new(
            &self.prog,
            &self.scope,
            Arc::clone(&self.budget),
        ))
    }

    fn bounds(&self) -> (u32, usize) {
        (self.scope.max_depth, self.scope.max_states)
    }

    /// One call alone, as the alphabet offers it at position `j`.
    fn nth(
        sys: &CallSystem<'_>,
        w: &crate::world::World,
        j: usize,
        _: u32,
        _: &Budget,
    ) -> Option<(Call, crate::world::World)> {
        sys.step(w, j)
    }
}

/// Search `prog` in `scope` on the workers of `cluster`: the same outcome as
/// [`crate::explore::search::search_within`], or why the run could not be made (a peer that did
/// not connect, a bad cluster setup).
pub fn search(
    prog: &Program,
    model_name: &str,
    scope: &Scope,
    budget: &Arc<Budget>,
    cluster: &Cluster,
    report: &(dyn Fn(&str) + Sync),
) -> Result<(Outcome, Stats), String> {
    let factory = ModelFactory {
        prog: Arc::new(prog.clone()),
        scope: Arc::new(scope.clone()),
        budget: Arc::clone(budget),
    };
    let id = digest(prog, scope, cluster.workers);
    let (verdict, st) = run_on(factory, budget, cluster, id, report)?;
    Ok((outcome_of(prog, model_name, scope, verdict), st))
}

/// The verdict of a distributed search of the systems a factory makes.
pub type Searched<F> = Verdict<<F as Factory>::Action, <F as Factory>::Failure>;

/// The distributed breadth-first search of the systems `factory` makes, on the workers of
/// `cluster`; `id` is a digest of what is explored (processes with different digests refuse
/// each other). The same verdict, states, depth and failure as the one-process search.
pub fn run_on<F: Factory>(
    factory: F,
    budget: &Arc<Budget>,
    cluster: &Cluster,
    id: u64,
    report: &(dyn Fn(&str) + Sync),
) -> Result<(Searched<F>, Stats), String> {
    let t0 = Instant::now();
    let (s0, fp0) = {
        let sys = factory.system()?;
        match sys.initial() {
            Ok(s) => {
                let fp = sys.fingerprint(&s);
                (s, fp)
            }
            Err(Start::Error(e)) => return Ok((Verdict::Error(e), Stats::default())),
            Err(Start::Failure(f)) => {
                let st = Stats {
                    states: 1,
                    ..Stats::default()
                };
                return Ok((Verdict::FailedInitial(f), st));
            }
        }
    };
    let (builders, others) = allocators(cluster, id)?;
    let live = Arc::new(Live::new(cluster.workers));
    let shared = Arc::new(Shared {
        factory,
        budget: Arc::clone(budget),
        s0,
        live: Arc::clone(&live),
        die_at: die_at(),
    });
    let first = cluster.process * cluster.workers;
    let guard = PanicExit::install();
    let sh = Arc::clone(&shared);
    let guards = timely::execute::execute_from(
        builders,
        others,
        timely::WorkerConfig::default(),
        move |w| {
            let local = w.index() - first;
            dataflow::run(w, Arc::clone(&sh), fp0, local)
        },
    )?;
    let done = AtomicBool::new(false);
    let results = std::thread::scope(|sc| {
        sc.spawn(|| watch(&live, &done, t0, report));
        let r = guards.join();
        done.store(true, Ordering::Relaxed);
        r
    });
    drop(guard);
    let ledgers: Vec<Ledger> = results.into_iter().collect::<Result<_, _>>()?;
    let l = ledgers.into_iter().next().ok_or("no worker ran")?;
    let mut st = Stats {
        states: l.states() as usize,
        transitions: l.transitions as usize,
        depth: l.depth,
        seconds: t0.elapsed().as_secs_f64(),
        bytes_per_state: 0,
        peak_rss_bytes: budget::peak_resident_bytes(),
        digest: 0,
    };
    let verdict = match l.end.clone() {
        Some(End::Holds) => {
            let local: u64 = live.states.iter().map(|s| s.load(Ordering::Relaxed)).sum();
            let bytes: u64 = live
                .seen_bytes
                .iter()
                .map(|s| s.load(Ordering::Relaxed))
                .sum();
            st.bytes_per_state = (bytes / local.max(1)) as usize;
            Verdict::Holds { exhausted: !l.cut }
        }
        Some(End::Incomplete {
            reason,
            complete_depth,
        }) => Verdict::Incomplete {
            reason,
            complete_depth,
        },
        Some(End::Failed(path)) => {
            let sys = shared.factory.system()?;
            let (path, failure) = failure_at::<F>(&sys, &shared.s0, &path)?;
            Verdict::Failed { path, failure }
        }
        None => return Err("the workers stopped without a verdict".into()),
    };
    Ok((verdict, st))
}
