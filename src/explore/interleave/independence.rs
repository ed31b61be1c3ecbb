//! With cross-checking on (`check::crosscheck`), an audit of every independence claim the
//! partial-order reduction acts on: where it steps one thread `t` alone because `t`'s step
//! conflicts with nothing another live thread `u` may still do, the audit runs `u` on its own
//! from that state, a few steps ([`SOLO_STEPS`]), and at each of them takes the two steps in
//! both orders (`t` then `u`, `u` then `t`). They must commute the way the reduction assumes:
//! - neither step blocks the other (a thread enabled before the other's step is enabled after
//!   it), and `u`'s steps never block `t`;
//! - a check fails in both orders or in neither (the checks after each step included: they
//!   are what the states in between are explored for);
//! - where neither fails, both orders reach the same state (world and threads).
//!
//! This tests, on the states a search reaches, what the footprints claim: a class a step
//! *reads* but its footprint leaves out shows as two orders that differ, which the write
//! audit (`footprint_audit`) cannot see. It follows one future of `u` (the one it takes on its
//! own), not every future the reduction's remaining footprint covers.

use super::{recycle, spare_copy, step_thread, IState, Next};
use crate::check;
use crate::exec::Thread;
use crate::lang::Program;
use std::collections::BTreeSet;
use std::sync::atomic::{AtomicU64, Ordering};

/// Independence claims audited so far, in this process.
static CLAIMS: AtomicU64 = AtomicU64::new(0);

/// How many independence claims (a reduced state and one other live thread that could step
/// there) were audited so far in this process.
pub fn claims() -> u64 {
    CLAIMS.load(Ordering::Relaxed)
}

/// At most how many of `u`'s steps on its own each claim is audited against (the walkers of
/// the built-in models finish well before: the walker phase at depth 2 audits the same
/// number of claims in 1.15x the time of 8 steps).
pub(super) const SOLO_STEPS: usize = 256;

/// One step of a thread from a state.
enum One {
    /// The thread waits.
    Blocked,
    /// A check failed after the step.
    Failed,
    /// The step passed every check and reached this state.
    Passed(Box<IState>),
}

fn one(prog: &Program, s: &IState, tid: usize, cfg: &super::Config) -> One {
    let mut edges = BTreeSet::new();
    match step_thread(prog, s, tid, cfg, &mut edges) {
        Next::Blocked => One::Blocked,
        Next::Step(n, _, v, _) if !v.is_empty() => {
            recycle(n);
            One::Failed
        }
        Next::Step(n, ..) => One::Passed(n),
    }
}

/// Two steps in one order, from one state.
enum Pair {
    /// The first step's thread waits.
    FirstBlocked,
    /// The second step's thread waits after the first step.
    SecondBlocked,
    /// A check failed after the first (0) or the second (1) step.
    Failed(usize),
    /// Both steps passed every check.
    Reached(Box<IState>),
}

/// The first step taken (`first`), then thread `second`'s.
fn pair(prog: &Program, first: &One, second: usize, cfg: &super::Config) -> Pair {
    let mid = match first {
        One::Blocked => return Pair::FirstBlocked,
        One::Failed => return Pair::Failed(0),
        One::Passed(mid) => mid,
    };
    match one(prog, mid, second, cfg) {
        One::Blocked => Pair::SecondBlocked,
        One::Failed => Pair::Failed(1),
        One::Passed(n) => Pair::Reached(n),
    }
}

fn recycle_one(x: One) {
    if let One::Passed(n) = x {
        recycle(n);
    }
}

fn done(t: &Thread) -> bool {
    t.is_finished() || t.is_failed()
}

/// Where a thread stands, for a report.
fn at(prog: &Program, s: &IState, tid: usize) -> String {
    s.threads[tid]
        .loc(prog)
        .map(|l| prog.loc_text(l))
        .unwrap_or_else(|| "its end".into())
}

/// Audit the claim that thread `t`'s step from `s` is independent of every other live
/// thread's: one cross-check recorded per other thread.
pub(super) fn audit(prog: &Program, s: &IState, t: usize, alive: &[usize], cfg: &super::Config) {
    for &u in alive.iter().filter(|&&u| u != t) {
        if let Some(found) = claim(prog, s, t, u, cfg) {
            CLAIMS.fetch_add(1, Ordering::Relaxed);
            check::crosscheck::record(found);
        }
    }
}

/// The first way `t`'s step from `s` fails to commute with `u`'s next steps (`Some(None)`:
/// none); `None` when there was nothing to compare (`u` waits at `s`, so it has no step
/// before `t` moves).
fn claim(
    prog: &Program,
    s: &IState,
    t: usize,
    u: usize,
    cfg: &super::Config,
) -> Option<Option<String>> {
    let mut p = spare_copy(s);
    let mut found = None;
    let mut compared = false;
    for i in 0..SOLO_STEPS {
        if done(&p.threads[u]) {
            break;
        }
        let t_first = one(prog, &p, t, cfg);
        let tu = pair(prog, &t_first, u, cfg);
        recycle_one(t_first);
        // `u`'s step on its own, which the next round starts from
        let u_first = one(prog, &p, u, cfg);
        let ut = pair(prog, &u_first, t, cfg);
        let (tt, uu) = (format!("thread {t}"), format!("thread {u}"));
        let what = match (&tu, &ut) {
            // (never at the first: `t` has stepped from `s`)
            (Pair::FirstBlocked, _) => Some(format!("{uu}'s steps on its own made {tt} wait")),
            // `u` waits where it stands: its later steps wait for something to change
            (_, Pair::FirstBlocked) => None,
            (Pair::SecondBlocked, _) => Some(format!("{tt}'s step made {uu} wait")),
            (_, Pair::SecondBlocked) => Some(format!("{uu}'s step made {tt} wait")),
            (Pair::Failed(_), Pair::Failed(_)) => None,
            (Pair::Failed(k), _) => Some(format!(
                "a check fails after {}'s step when {tt} steps first, and after neither step \
                 when {uu} does",
                [&tt, &uu][*k]
            )),
            (_, Pair::Failed(k)) => Some(format!(
                "a check fails after {}'s step when {uu} steps first, and after neither step \
                 when {tt} does",
                [&uu, &tt][*k]
            )),
            (Pair::Reached(a), Pair::Reached(b)) => {
                (a != b).then(|| "the two orders of the steps reach different states".to_string())
            }
        };
        if let Some(w) = what {
            found = Some(format!(
                "reduction: thread {t}'s step at {} is not independent of thread {u}'s step \
                 at {} (step {} of thread {u} run on its own from a state where the reduction \
                 steps thread {t} alone): {w}",
                at(prog, &p, t),
                at(prog, &p, u),
                i + 1,
            ));
        }
        compared |= !matches!(ut, Pair::FirstBlocked);
        let stop = found.is_some() || !matches!(ut, Pair::Reached(_));
        for r in [tu, ut] {
            if let Pair::Reached(n) = r {
                recycle(n);
            }
        }
        match u_first {
            // `u` takes its step on its own (it passed its checks)
            One::Passed(n) if !stop => recycle(std::mem::replace(&mut p, n)),
            other => {
                recycle_one(other);
                break;
            }
        }
    }
    recycle(p);
    compared.then_some(found)
}
