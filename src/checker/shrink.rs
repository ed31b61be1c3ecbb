//! Shrinking a failing path of any [`Walk`] system, as `replay --minimise` shrinks a model
//! trace: drop a run of actions (half the path, then a quarter, ..., then one), last first,
//! and keep the shorter path when it still fails the same way; then each action at each of
//! its simpler variants ([`Walk::simpler`]: smaller arguments), until nothing changes. Every candidate is replayed from the initial
//! state with every check, and each of its actions must be one the system offers where it is
//! taken, so a shrunk path is one the search itself could have found.

use super::budget::Budget;
use super::walk::{Step, Walk};

/// A path shrunk: its actions (the failing one last), its failure, and the replays tried.
pub struct Shrunk<A, F> {
    pub path: Vec<A>,
    pub failure: F,
    pub tries: usize,
}

/// Replay `path` from the initial state: the failure it ends in and the actions up to it,
/// when every action is offered where it is taken and some step fails as `same` accepts.
fn replay<S: Walk>(
    sys: &S,
    path: &[S::Action],
    budget: &Budget,
    same: &dyn Fn(&S::Failure) -> bool,
) -> Option<(Vec<S::Action>, S::Failure)> {
    let mut s = sys.initial().ok()?;
    for (depth, a) in path.iter().enumerate() {
        if !sys.actions(&s).contains(a) {
            return None;
        }
        match sys.step(&s, a, depth as u32, budget) {
            Step::Next(next) => s = next,
            Step::Failed(f) if same(&f) => return Some((path[..=depth].to_vec(), f)),
            Step::Failed(_) | Step::End | Step::Stopped(_) => return None,
        }
    }
    None
}

/// Shrink `path`, which fails with `failure`, keeping only paths whose failure `same`
/// accepts. Stops early, with the shortest path found so far, when `budget` is spent.
pub fn shrink<S: Walk>(
    sys: &S,
    path: Vec<S::Action>,
    failure: S::Failure,
    budget: &Budget,
    same: &dyn Fn(&S::Failure) -> bool,
) -> Shrunk<S::Action, S::Failure> {
    let mut best = Shrunk {
        path,
        failure,
        tries: 0,
    };
    // chunks of halving size first (as delta debugging does), then single actions, until no
    // chunk of any size can go
    let mut changed = true;
    while changed {
        changed = false;
        let mut size = (best.path.len() / 2).max(1);
        loop {
            let mut end = best.path.len();
            while end >= size && end > 0 {
                if budget.poll().is_some() {
                    return best;
                }
                let mut cand = best.path.clone();
                cand.drain(end - size..end);
                best.tries += 1;
                if let Some((p, f)) = replay(sys, &cand, budget, same) {
                    best.path = p;
                    best.failure = f;
                    changed = true;
                    end = (end - size).min(best.path.len());
                } else {
                    end -= 1;
                }
            }
            if size == 1 {
                break;
            }
            size /= 2;
        }
        // then each action at a simpler variant ([`Walk::simpler`]), first that still fails
        let mut i = 0;
        while i < best.path.len() {
            for v in sys.simpler(&best.path[i]) {
                if budget.poll().is_some() {
                    return best;
                }
                let mut cand = best.path.clone();
                cand[i] = v;
                best.tries += 1;
                if let Some((p, f)) = replay(sys, &cand, budget, same) {
                    best.path = p;
                    best.failure = f;
                    changed = true;
                    break;
                }
            }
            i += 1;
        }
    }
    best
}
