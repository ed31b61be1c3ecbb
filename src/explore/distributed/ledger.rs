//! The messages the workers of a distributed search exchange, and the ledger of the search that
//! every worker keeps from the reports they all broadcast, so that each takes the same decision
//! at the end of each phase without a coordinator.
//!
//! A depth `d` of the breadth-first search takes two timely timestamps: `2d`, at which the owners
//! de-duplicate the candidates of depth `d` and broadcast how many were new, and `2d + 1`, at
//! which (once every worker knows the total) they expand them and broadcast what they found. A
//! failure, a spent budget, the state bound, the depth bound or a depth without new states ends
//! the search, decided here from the reports alone.

use serde::{Deserialize, Serialize};

/// A state, named by the successor indices from the initial world (worlds are replayed at their
/// owner rather than shipped).
pub type Path = Vec<u16>;

/// What travels between workers.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub(crate) enum Msg {
    /// A successor, sent to the worker its fingerprint hashes to.
    Cand { fp: u64, path: Path },
    /// One worker's report of a phase, one copy per worker (`to`).
    Report { to: u32, from: u32, body: Body },
}

impl Msg {
    /// The routing key: timely sends a record to worker `key % peers` (by a mask when `peers`
    /// is a power of two, the same thing), so a candidate goes to [`owner`] of its fingerprint
    /// and a report to the worker it is addressed to.
    pub(crate) fn route(&self) -> u64 {
        match self {
            Msg::Cand { fp, .. } => *fp,
            Msg::Report { to, .. } => u64::from(*to),
        }
    }
}

/// The worker that owns (de-duplicates and expands) the state with fingerprint `fp`.
pub(crate) fn owner(fp: u64, peers: u32) -> u32 {
    (fp % u64::from(peers.max(1))) as u32
}

/// A phase report.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub(crate) enum Body {
    /// After de-duplication: how many of the depth's states this worker owns are new.
    Seen { new: u64 },
    /// After expansion.
    Expanded(Expanded),
}

/// What one worker's expansion of its share of a depth found.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub(crate) struct Expanded {
    /// Calls made (successors, including those into states already seen, and a failing one).
    pub transitions: u64,
    /// Candidates sent (after dropping those this worker had already sent at this depth).
    pub sent: u64,
    /// Of those, to another worker.
    pub remote: u64,
    /// A state was not expanded because of a size bound of the scope.
    pub cut: bool,
    /// The least failing path this worker found (it expands in path order and stops at its first).
    pub failure: Option<Path>,
    /// The budget ran out (or a nested exploration stopped short) with this reason.
    pub stopped: Option<String>,
}

/// How the search ended.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum End {
    Holds,
    /// The least failing path at the shallowest failing depth.
    Failed(Path),
    Incomplete {
        reason: String,
        complete_depth: u32,
    },
}

/// The search as every worker sees it.
#[derive(Clone, Debug, Default)]
pub(crate) struct Ledger {
    /// Distinct states owned by each worker.
    pub per_worker: Vec<u64>,
    /// New states at each depth.
    pub levels: Vec<u64>,
    pub transitions: u64,
    pub sent: u64,
    pub remote: u64,
    pub cut: bool,
    /// The depth figure of the verdict line (as the single-process search counts it).
    pub depth: u32,
    pub end: Option<End>,
}

impl Ledger {
    pub fn new(peers: u32) -> Ledger {
        Ledger {
            per_worker: vec![0; peers as usize],
            ..Ledger::default()
        }
    }

    /// Distinct states seen.
    pub fn states(&self) -> u64 {
        self.levels.iter().sum()
    }

    /// Every worker's [`Body::Seen`] report of depth `d`; whether to expand the depth.
    pub fn seen(
        &mut self,
        d: u32,
        reports: &[(u32, u64)],
        max_depth: u32,
        max_states: usize,
    ) -> bool {
        let mut total = 0;
        for &(from, new) in reports {
            if let Some(n) = self.per_worker.get_mut(from as usize) {
                *n += new;
            }
            total += new;
        }
        self.levels.push(total);
        self.depth = d;
        if total == 0 {
            self.end = Some(End::Holds);
        } else if self.states() > max_states as u64 {
            self.end = Some(End::Incomplete {
                reason: format!("state bound {max_states} reached"),
                complete_depth: d.saturating_sub(1),
            });
        } else if d >= max_depth {
            self.cut = true;
            self.end = Some(End::Holds);
        }
        self.end.is_none()
    }

    /// Every worker's [`Body::Expanded`] report of depth `d`; whether the search goes on.
    pub fn expanded(&mut self, d: u32, reports: &[(u32, Expanded)]) -> bool {
        let mut sorted: Vec<&(u32, Expanded)> = reports.iter().collect();
        sorted.sort_by_key(|(from, _)| *from);
        for (_, e) in &sorted {
            self.transitions += e.transitions;
            self.sent += e.sent;
            self.remote += e.remote;
            self.cut |= e.cut;
        }
        // a failure is a real counterexample even when another worker stopped short
        if let Some(p) = sorted.iter().filter_map(|(_, e)| e.failure.clone()).min() {
            self.depth = d + 1;
            self.end = Some(End::Failed(p));
        } else if let Some(r) = sorted.iter().find_map(|(_, e)| e.stopped.clone()) {
            self.depth = d + 1;
            self.end = Some(End::Incomplete {
                reason: r,
                complete_depth: d,
            });
        }
        self.end.is_none()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_depth_without_new_states_holds_at_that_depth() {
        let mut l = Ledger::new(2);
        assert!(l.seen(0, &[(0, 1), (1, 0)], 4, 100));
        assert!(l.expanded(0, &[(1, Expanded::default()), (0, Expanded::default())]));
        assert!(!l.seen(1, &[(0, 0), (1, 0)], 4, 100));
        assert_eq!(
            (l.end.clone(), l.depth, l.cut),
            (Some(End::Holds), 1, false)
        );
    }

    #[test]
    fn the_depth_bound_cuts_and_the_least_failure_wins() {
        let mut l = Ledger::new(2);
        assert!(!l.seen(4, &[(0, 3), (1, 2)], 4, 100));
        assert!(l.cut && l.end == Some(End::Holds) && l.per_worker == vec![3, 2]);
        let mut l = Ledger::new(2);
        let f = |p: Path| Expanded {
            failure: Some(p),
            ..Expanded::default()
        };
        assert!(!l.expanded(2, &[(1, f(vec![0, 3, 1])), (0, f(vec![1, 0, 0]))]));
        assert_eq!((l.end, l.depth), (Some(End::Failed(vec![0, 3, 1])), 3));
    }

    #[test]
    fn the_state_bound_and_a_spent_budget_are_incomplete() {
        let mut l = Ledger::new(1);
        assert!(!l.seen(2, &[(0, 11)], 4, 10));
        assert!(matches!(
            l.end,
            Some(End::Incomplete {
                complete_depth: 1,
                ..
            })
        ));
        let mut l = Ledger::new(1);
        let e = Expanded {
            stopped: Some("time bound 1s reached".into()),
            ..Expanded::default()
        };
        assert!(!l.expanded(3, &[(0, e)]));
        assert_eq!(l.depth, 4);
        assert!(matches!(
            l.end,
            Some(End::Incomplete {
                complete_depth: 3,
                ..
            })
        ));
    }
}
