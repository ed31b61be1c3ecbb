//! A violation found in a C world: the invariant and what broke it, in words. Its own room so
//! that the tree checks ([`super::invariants`]) and the page checks ([`super::pages`]) both name
//! it without naming each other.

use crate::invariant::Invariant;

/// A violation found in a C world.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Violation {
    pub invariant: Invariant,
    pub what: String,
}
