//! rmapcheck's call sequences as a `stateright::Model`, for the side-by-side benchmark
//! (`benches/stateright.rs`) and the test that the two checkers count the same states
//! (`tests/peer`).
//!
//! The adapter does not re-implement any semantics: it wraps the explorer's own
//! [`CallSystem`]. A state is the canonical world the explorer keeps, plus a flag set when the
//! call that reached it failed; the actions of a state are the calls the scope's alphabet offers
//! in it, in the explorer's order; the successor of a state under a call is
//! [`CallSystem::call_step`]'s (the same interpreter, the same per-step and whole-world checks,
//! the same canonical form). stateright fingerprints a state by its `Hash`, which is the
//! world's derived `Hash` over the canonical form, the same notion of equality as the
//! explorer's fingerprint (which hashes the same value with another hasher).
//!
//! How the two count states, and why the counts agree:
//! - The explorer counts the distinct canonical worlds it has seen, the initial one included,
//!   and expands those at a depth below `max_depth` (0 for the initial world); a world over the
//!   scope's VMA bound is counted but not expanded. Every call made from an expanded world is
//!   checked, also one into the last level. stateright's `unique_state_count` counts the
//!   distinct fingerprints it has generated, the initial state included.
//! - stateright's own depth bound (`target_max_depth`) skips a state at the bound before its
//!   properties are checked, so a call failing into the last level would go unseen. Instead
//!   a state carries the depth it was first reached at, and offers no action at `max_depth`
//!   (nor over the VMA bound, nor after a failure). The depth is search bookkeeping, like the
//!   explorer's level: it is left out of the state's `Hash` and equality, so stateright's
//!   fingerprint is over the canonical world (and the failure flag) alone.
//! - A failing call ends the explorer's search at once (its successor is never counted).
//!   stateright counts the failing state and stops when the `always` property has a
//!   discovery. So the counts are compared only when both checkers find no failure.
//! - On one thread stateright's BFS is one FIFO queue: a state is first reached at its least
//!   depth, as in the explorer, and the counts are equal. On more threads its workers share
//!   out their queues and a level is no longer finished before the next starts: a state first
//!   reached along a longer path keeps that depth, may stop at the bound, and the count can
//!   fall below the explorer's (never above it: every state it generates is reachable within
//!   the bound).
//!
//! Walkers are not modelled (a call's verdict against walkers depends on the depth it is made
//! at, which is not part of the state): the adapter refuses a scope with `walkers > 0`.

use rmapcheck::checker::budget::Budget;
use rmapcheck::explore::alphabet;
use rmapcheck::explore::search::{CallStep, CallSystem};
use rmapcheck::lang::Program;
use rmapcheck::scope::Scope;
use rmapcheck::world::scenario::Call;
use rmapcheck::world::World;
use stateright::{Model, Property};
use std::hash::{Hash, Hasher};

/// A state of the peer model: the canonical world, and whether the call into it failed (then
/// the world is the one before the call, and the state has no successor); `depth` is the
/// length of the call sequence that first reached it, not part of the state's identity.
#[derive(Clone, Debug)]
pub struct PeerState {
    pub world: World,
    pub failed: bool,
    pub depth: u32,
}

impl PartialEq for PeerState {
    fn eq(&self, other: &Self) -> bool {
        self.failed == other.failed && self.world == other.world
    }
}

impl Eq for PeerState {}

impl Hash for PeerState {
    fn hash<H: Hasher>(&self, h: &mut H) {
        self.world.hash(h);
        self.failed.hash(h);
    }
}

/// The explorer's call system seen through stateright's `Model`.
pub struct PeerModel {
    sys: CallSystem<'static>,
}

impl PeerModel {
    /// The model of `prog` in `scope`. stateright's checker runs the model on its own threads
    /// and needs it `'static`: the program and the scope are leaked (a benchmark or a test
    /// makes a handful). `Err` for a scope with walkers.
    pub fn new(prog: Program, scope: Scope) -> Result<PeerModel, String> {
        if scope.walkers > 0 {
            return Err(format!(
                "scope {}: walkers = {}; the peer model covers call sequences only",
                scope.name, scope.walkers
            ));
        }
        let prog: &'static Program = Box::leak(Box::new(prog));
        let scope: &'static Scope = Box::leak(Box::new(scope));
        Ok(PeerModel {
            sys: CallSystem::new(prog, scope, Budget::unlimited()),
        })
    }
}

impl Model for PeerModel {
    type State = PeerState;
    type Action = Call;

    fn init_states(&self) -> Vec<PeerState> {
        let world = self
            .sys
            .scope
            .initial_scenario()
            .build()
            .expect("the scope's initial world builds")
            .canonical();
        vec![PeerState {
            world,
            failed: false,
            depth: 0,
        }]
    }

    fn actions(&self, s: &PeerState, actions: &mut Vec<Call>) {
        if s.failed || s.depth >= self.sys.scope.max_depth || self.sys.cut(&s.world) {
            return;
        }
        actions.extend(alphabet::calls(self.sys.scope, self.sys.prog, &s.world));
    }

    fn next_state(&self, s: &PeerState, call: Call) -> Option<PeerState> {
        // the depth only matters with walkers, which the model refuses
        match self.sys.call_step(&s.world, &call, 0) {
            CallStep::Next(world) => Some(PeerState {
                world,
                failed: false,
                depth: s.depth + 1,
            }),
            // `Stopped` comes only from walkers, which the model refuses
            CallStep::Failed(_) | CallStep::Stopped(_) => Some(PeerState {
                world: s.world.clone(),
                failed: true,
                depth: s.depth + 1,
            }),
        }
    }

    fn properties(&self) -> Vec<Property<Self>> {
        vec![Property::always("no call failed", |_, s: &PeerState| {
            !s.failed
        })]
    }
}
