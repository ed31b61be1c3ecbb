//! One checker core for every search: a [`TransitionSystem`] (in the spirit of stateright's
//! `Model`: an initial state, the successors of a state under each enabled action with the
//! step's verdict, a fingerprint; nothing else) and one breadth-first search over it ([`bfs`])
//! with the seen-set (fingerprints only), the frontier ([`frontier`]: whole states, or for a
//! system that can rebuild a successor from its parent, a node and a fingerprint per state),
//! the depth, state, time, memory and stop-request bounds, the statistics and the path
//! rebuilding from parent links. How the search keeps a system's states (the compact frontier,
//! recycling, merging, the memory figure) is the system's [`FrontierTuning`], an extension
//! with defaults that only [`bfs`] reads; the random walks ([`walk`]) and the distributed
//! search need the small trait alone. A search reports its [`Progress`] through one reporter,
//! [`OnProgress`].
//!
//! Three systems use it: call sequences (`explore::search`), interleavings of a writer and
//! walkers (`explore::interleave`) and the base x patch product of `compare`. Because the search
//! is breadth-first and successors are merged in the order the system lists them, the first
//! failure found is one of the shallowest, the same one on every run, whatever the number of
//! threads.

mod bfs;
pub mod budget;
mod frontier;
pub mod shrink;
#[cfg(test)]
mod toy;
pub mod walk;

pub use bfs::bfs;

use budget::Budget;

/// A state space to explore.
pub trait TransitionSystem: Sync {
    /// A state (for call sequences: a canonical world).
    type State: Send + Sync;
    /// What leads from a state to a successor (a call, a thread's step). The search keeps
    /// each distinct action once (parent links name them by number), hence `Eq + Hash`.
    type Action: Clone + Eq + std::hash::Hash + Send + Sync;
    /// What a failing step reports (a violation, a difference).
    type Failure: Send;

    /// The initial state, a failure found in it, or why the system cannot start.
    fn initial(&self) -> Result<Self::State, Start<Self::Failure>>;

    /// A stable 64-bit fingerprint; states with the same fingerprint are taken to be equal.
    fn fingerprint(&self, s: &Self::State) -> u64;

    /// The successors of `s`, found at `depth` (0 for the initial state), in a deterministic
    /// order. The system polls `budget` as often as it likes (at least once per action that
    /// may take long; the search itself polls after every batch of states it merges) and
    /// reports a spent budget in [`Expansion::stopped`].
    fn expand(
        &self,
        s: &Self::State,
        depth: u32,
        budget: &Budget,
    ) -> Expansion<Self::Action, Self::State, Self::Failure>;
}

/// How the breadth-first search ([`bfs`]) keeps a system's states: its frontier and its memory.
/// Every item has a default (whole states in the frontier, nothing recycled or merged, the
/// memory figure read), so a system that needs none of it writes `impl FrontierTuning for X {}`.
/// The random walks ([`walk`]) and the distributed search need only [`TransitionSystem`].
pub trait FrontierTuning: TransitionSystem {
    /// Heap bytes an action holds (for the bytes-per-state figure).
    fn action_bytes(&self, _a: &Self::Action) -> usize {
        0
    }

    /// Whether [`FrontierTuning::successor`] rebuilds states: the search then keeps only a
    /// parent link and a fingerprint per frontier state, not the state (a compact frontier),
    /// and rebuilds each state from the initial one along its path when it expands it.
    fn rebuilds(&self) -> bool {
        false
    }

    /// The successor of `s` under `a`: the very state [`TransitionSystem::expand`] listed for
    /// that action (the search checks its fingerprint), without the step's checks. `None`
    /// when the system does not rebuild states ([`FrontierTuning::rebuilds`] is false).
    fn successor(&self, _s: &Self::State, _a: &Self::Action) -> Option<Self::State> {
        None
    }

    /// A state the search is done with (a successor fingerprinted and not kept, a replayed
    /// state left behind): the system may keep it to overwrite rather than allocate a later
    /// state. Dropped by default.
    fn recycle(&self, _s: Self::State) {}

    /// Whether the search reads the process's peak resident set ([`Stats::peak_rss_bytes`])
    /// when it ends: a system explored thousands of times over by another search, whose
    /// figures nobody reports, spares itself the read.
    const MEMORY_FIGURE: bool = true;

    /// Whether [`FrontierTuning::merge`] must see every further arrival at a state of the
    /// next level (a reduction that keeps data beside its states, such as a sleep set): the
    /// search then keeps the next level's fingerprints in a map of their own. Such a system
    /// must keep whole states ([`FrontierTuning::rebuilds`] false): a compact frontier has no
    /// state to merge into.
    const MERGES: bool = false;

    /// A state of the next level, not yet expanded, is reached again (same fingerprint) by
    /// another step of the level being expanded: `again` is that step's successor. Called only
    /// when [`FrontierTuning::MERGES`] is set.
    fn merge(&self, _kept: &mut Self::State, _again: Self::State) {}
}

/// Why a system did not start.
#[derive(Debug)]
pub enum Start<F> {
    /// It could not be set up (a bad initial world).
    Error(String),
    /// The initial state already fails.
    Failure(F),
}

/// The successors of one state.
pub struct Expansion<A, S, F> {
    /// Actions and their successor states, in order.
    pub succs: Vec<(A, S)>,
    /// A failing step after `succs` (it ends the expansion). The action is `None` when the
    /// failure is the state's own (a deadlock).
    pub failure: Option<(Option<A>, F)>,
    /// The state was deliberately not expanded (a size bound of the scope): the search is
    /// then bounded, not exhaustive.
    pub cut: bool,
    /// The budget ran out, or a nested exploration stopped short, before every action was
    /// tried: the search must stop, incomplete, with this reason.
    pub stopped: Option<String>,
}

impl<A, S, F> Default for Expansion<A, S, F> {
    fn default() -> Self {
        Expansion {
            succs: Vec::new(),
            failure: None,
            cut: false,
            stopped: None,
        }
    }
}

/// Bounds of a search besides its [`Budget`].
#[derive(Clone, Copy, Debug)]
pub struct Config {
    /// States at this depth are not expanded (the search is then bounded).
    pub max_depth: u32,
    /// Distinct states after which the search stops, incomplete.
    pub max_states: usize,
    /// Worker threads expanding a batch of frontier states (1: in the caller's thread).
    pub threads: usize,
    /// Frontier states expanded together.
    pub batch: usize,
}

impl Config {
    /// The default parallelism: every core, at most 8.
    pub(crate) fn cores() -> usize {
        std::thread::available_parallelism()
            .map(|n| n.get())
            .unwrap_or(1)
            .min(8)
    }
}

/// How a search ended.
#[derive(Debug)]
pub enum Verdict<A, F> {
    /// No failure in any state reached. `exhausted`: no state was cut off by the depth bound
    /// or [`Expansion::cut`].
    Holds { exhausted: bool },
    /// A failure, with the actions from the initial state to it (the failing one last, when
    /// the failure has one).
    Failed { path: Vec<A>, failure: F },
    /// The initial state failed.
    FailedInitial(F),
    /// A bound (or a stop request) ended the search; no failure up to `complete_depth`.
    Incomplete { reason: String, complete_depth: u32 },
    /// The system could not start.
    Error(String),
}

/// Figures of a search.
#[derive(Clone, Debug, Default)]
pub struct Stats {
    /// Distinct states seen.
    pub states: usize,
    /// Actions taken (including those into states already seen, and a failing one).
    pub transitions: usize,
    /// Deepest level reached.
    pub depth: u32,
    pub seconds: f64,
    /// Bytes the search's tables hold per distinct state (seen-set, parent links, actions),
    /// counted at the end of a search that holds: an estimate that leaves out the frontier,
    /// the workers and the allocator. The process's peak resident set is the real figure.
    pub bytes_per_state: usize,
    /// The process's peak resident set (`VmHWM`) when the search ended, in bytes; 0 if
    /// unknown.
    pub peak_rss_bytes: u64,
    /// The sum (wrapping) of the fingerprints of the distinct states seen: two searches that
    /// saw the same states have the same digest, whatever their order (0 where a search does
    /// not compute it).
    pub digest: u64,
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
    pub(crate) fn collision_probability(&self) -> f64 {
        let n = self.states as f64;
        n * n / 2f64.powi(65)
    }
}

/// Live figures of a breadth-first search, handed to its reporter ([`OnProgress`]).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Progress {
    /// Distinct states seen.
    pub states: usize,
    /// The depth being reached (the one the level being expanded adds).
    pub depth: u32,
    /// States reached and not yet expanded.
    pub frontier: usize,
    pub seconds: f64,
}

impl Progress {
    pub fn states_per_second(&self) -> f64 {
        self.states as f64 / self.seconds.max(1e-9)
    }
}

/// `N states, depth D, frontier F, R states/s, Ts`: the line a progress display shows.
impl std::fmt::Display for Progress {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{} states, depth {}, frontier {}, {:.0} states/s, {:.0}s",
            self.states,
            self.depth,
            self.frontier,
            self.states_per_second(),
            self.seconds
        )
    }
}

/// The reporter of a search's [`Progress`], called about once a second.
pub type OnProgress<'a> = &'a mut dyn FnMut(&Progress);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_progress_line_names_each_figure() {
        let p = Progress {
            states: 1200,
            depth: 3,
            frontier: 40,
            seconds: 2.0,
        };
        assert_eq!(p.states_per_second(), 600.0);
        assert_eq!(
            p.to_string(),
            "1200 states, depth 3, frontier 40, 600 states/s, 2s"
        );
        // no division by zero at the first report
        assert!(Progress::default().states_per_second() == 0.0);
    }
}
