//! Exploration: applying entry-point calls with every check on, scopes (initial worlds and the
//! alphabet of calls), and the bounded breadth-first search over call sequences.

pub mod alphabet;
pub mod compare;
pub mod op;
pub mod proof;
pub mod scope;
pub mod search;
