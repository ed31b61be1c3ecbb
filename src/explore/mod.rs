//! Exploration: applying entry-point calls with every check on, scopes (initial worlds and the
//! alphabet of calls), the bounded breadth-first search over call sequences, and the
//! interleaving explorer for one writer call against concurrent walkers.
//!
//! It names nothing of the fuzzing harness, the oracle, the report, the C harness or the commands.

pub mod alphabet;
pub mod call_step;
pub(crate) mod commute;
pub mod compare;
pub mod consequence;
pub mod cover;
pub mod distributed;
pub mod footprint;
mod footprint_audit;
pub mod interleave;
pub mod lockorder;
pub mod minimise;
pub mod op;
pub mod plan;
pub mod proof;
pub mod replay;
pub mod search;
pub mod shrink;
pub mod simulate;
pub(crate) mod symmetric;
pub mod walkers;
