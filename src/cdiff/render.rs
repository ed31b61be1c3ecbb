//! A mismatch as text, numbered: the calls and both worlds with the lines the other does not
//! have marked (`charness::worlds_text`).

use super::mismatch::Mismatch;
use crate::charness::worlds_text::{self, Sides};

/// The mismatch as text, numbered `n`.
pub fn mismatch(n: usize, m: &Mismatch) -> String {
    let sides = Sides {
        calls: &m.calls,
        at: m.at,
        what: &m.what,
        model: &m.model,
        c: m.c_raw.as_ref().map(|_| m.c.as_slice()),
    };
    worlds_text::text(&format!("MISMATCH {n}: after"), &sides)
}
