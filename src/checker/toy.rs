//! A toy transition system that shows the checker core is generic: the breadth-first search,
//! the random walks and the shrinking run on it as they run on call sequences and on the C.
//! A state is a counter; the actions add 1, 2 or 3; a state at `bad` or above fails.

use super::budget::Budget;
use super::shrink::shrink;
use super::walk::{walk, Step, Walk, Walked, Walks};
use super::{bfs, Config, Expansion, FrontierTuning, Start, TransitionSystem, Verdict};

struct Counter {
    bad: u32,
    /// The largest state a walk goes on from.
    top: u32,
}

impl TransitionSystem for Counter {
    type State = u32;
    type Action = u32;
    type Failure = u32;

    fn initial(&self) -> Result<u32, Start<u32>> {
        Ok(0)
    }

    fn fingerprint(&self, s: &u32) -> u64 {
        u64::from(*s)
    }

    fn expand(&self, s: &u32, _: u32, _: &Budget) -> Expansion<u32, u32, u32> {
        let mut e = Expansion::default();
        for a in self.actions(s) {
            match self.step(s, &a, 0, &Budget::unlimited()) {
                Step::Next(n) => e.succs.push((a, n)),
                Step::Failed(f) => {
                    e.failure = Some((Some(a), f));
                    return e;
                }
                Step::End | Step::Stopped(_) => {}
            }
        }
        e
    }
}

/// Whole states in the frontier, as by default.
impl FrontierTuning for Counter {}

impl Walk for Counter {
    fn actions(&self, s: &u32) -> Vec<u32> {
        if *s >= self.top {
            return Vec::new();
        }
        vec![1, 2, 3]
    }

    fn step(&self, s: &u32, a: &u32, _: u32, _: &Budget) -> Step<u32, u32> {
        let n = s + a;
        if n >= self.bad {
            Step::Failed(n)
        } else {
            Step::Next(n)
        }
    }

    fn simpler(&self, a: &u32) -> Vec<u32> {
        (1..*a).collect()
    }
}

fn cfg(depth: u32) -> Config {
    Config {
        max_depth: depth,
        max_states: 1000,
        threads: 1,
        batch: 4,
    }
}

#[test]
fn the_search_finds_a_shortest_path_to_the_bad_state() {
    let sys = Counter { bad: 7, top: 100 };
    let (v, _) = bfs(&sys, &cfg(5), &Budget::unlimited(), &mut |_| {});
    match v {
        Verdict::Failed { path, failure } => {
            assert_eq!(failure, 7);
            assert_eq!(path.len(), 3, "{path:?}");
            assert_eq!(path.iter().sum::<u32>(), 7);
        }
        other => panic!("{other:?}"),
    }
    let (v, _) = bfs(&sys, &cfg(2), &Budget::unlimited(), &mut |_| {});
    assert!(matches!(v, Verdict::Holds { exhausted: false }), "{v:?}");
}

#[test]
fn walks_find_the_bad_state_the_same_way_on_any_number_of_threads() {
    let sys = Counter { bad: 11, top: 30 };
    let w = Walks {
        walks: 200,
        depth: 12,
        seed: 3,
    };
    let one = walk(&sys, &w, &Budget::unlimited(), None, 1);
    let two = walk(&sys, &w, &Budget::unlimited(), None, 2);
    let (
        Walked::Failed {
            walk: a, path: p, ..
        },
        Walked::Failed {
            walk: b, path: q, ..
        },
    ) = (one.walked, two.walked)
    else {
        panic!("no walk reached 11");
    };
    // every walk of 12 steps passes 11: the first walk fails, on both thread counts alike
    assert_eq!((a, &p), (b, &q));
    assert_eq!(a, 0);
    assert!(p.iter().sum::<u32>() >= 11);
    assert!(p[..p.len() - 1].iter().sum::<u32>() < 11);
    assert_eq!(one.walks, 1, "the walks up to the failing one are counted");
    // another seed, another walk
    let other = walk(&sys, &Walks { seed: 4, ..w }, &Budget::unlimited(), None, 1);
    let Walked::Failed { path: o, .. } = other.walked else {
        panic!("no walk reached 11");
    };
    assert_ne!(o, p);
}

#[test]
fn walks_that_cannot_reach_the_bad_state_pass_and_count_every_walk() {
    let sys = Counter { bad: 1000, top: 10 };
    let w = Walks {
        walks: 50,
        depth: 40,
        seed: 1,
    };
    let r = walk(&sys, &w, &Budget::unlimited(), None, 2);
    assert!(matches!(r.walked, Walked::Passed { stopped: None }));
    assert_eq!(r.walks, 50);
    // a walk ends where the system offers nothing (at 10, 11 or 12): at most 10 steps
    assert!(r.stats.depth <= 10, "{}", r.stats.depth);
    assert!(r.stats.states > 10);
}

#[test]
fn shrinking_drops_every_action_the_failure_does_not_need() {
    let sys = Counter { bad: 7, top: 100 };
    let same = |f: &u32| *f >= 7;
    let s = shrink(&sys, vec![1, 1, 3, 3], 8, &Budget::unlimited(), &same);
    assert_eq!(s.path, vec![1, 3, 3]);
    assert_eq!(s.failure, 7);
    // no single 1 can go: the rest would stop at 6
    let ones = vec![1; 7];
    let s = shrink(&sys, ones.clone(), 7, &Budget::unlimited(), &same);
    assert_eq!(s.path, ones);
    // a failure of another kind is not kept
    let s = shrink(&sys, vec![1, 1, 3, 3], 8, &Budget::unlimited(), &|f| {
        *f == 8
    });
    assert_eq!(s.path, vec![1, 1, 3, 3]);
}

#[test]
fn shrinking_lowers_actions_to_simpler_ones_that_still_fail() {
    let sys = Counter { bad: 7, top: 100 };
    let s = shrink(&sys, vec![3, 3, 3], 9, &Budget::unlimited(), &|f| *f >= 7);
    assert_eq!(s.path, vec![1, 3, 3]);
    assert_eq!(s.failure, 7);
}
