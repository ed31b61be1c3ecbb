//! One call from a world, as the call-sequence searches see it: the world's fingerprint, how a
//! call sequence fails ([`CallFailure`]), what one call found ([`CallStep`]), and what a search
//! over call sequences offers the sleep-set search of `commute` ([`CallSteps`]). The call
//! system of `search` implements it; `commute` names only this module, never `search`.

use super::interleave::ITrace;
use crate::check;
use crate::checker::budget::Budget;
use crate::checker::{FrontierTuning, TransitionSystem};
use crate::lang::Program;
use crate::scope::Scope;
use crate::world::scenario::Call;
use crate::world::World;

/// Stable 64-bit fingerprint of a (canonical) world.
pub fn fingerprint(w: &World) -> u64 {
    // XXH3-64 over a platform-independent byte stream: the same on every run and machine, and
    // uniform enough for the collision estimate (see `world::fingerprint`)
    crate::world::fingerprint::stable_hash(w)
}

/// Why a call sequence failed.
pub enum CallFailure {
    /// The initial world already violates an invariant.
    Initial(Vec<check::Violation>),
    /// The last call failed on its own.
    Call,
    /// The last call failed against concurrent walkers.
    Interleaving(Box<ITrace>),
}

/// What [`CallSteps::call_step`] found. The successor is the common case: not boxed.
#[allow(clippy::large_enum_variant)]
pub enum CallStep {
    Next(World),
    Failed(CallFailure),
    Stopped(String),
}

/// A search over call sequences, one call at a time.
pub trait CallSteps:
    TransitionSystem<State = World, Action = Call, Failure = CallFailure> + FrontierTuning
{
    fn program(&self) -> &Program;
    fn scope(&self) -> &Scope;
    /// Whether `w` is over the scope's VMA bound: it is not expanded (the search is bounded).
    fn cut(&self, w: &World) -> bool;
    /// The search's budget (time, memory, stop requests).
    fn budget(&self) -> &Budget;
    /// One call from `w`, a state found at `depth`: the canonical successor, or how the call
    /// failed, or why a walker exploration stopped short.
    fn call_step(&self, w: &World, call: &Call, depth: u32) -> CallStep;
}
