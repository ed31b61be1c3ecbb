//! `rmapcheck list`: the models under ./models (mutants included) and the invariants.

use super::discover_models;
use crate::check::INVARIANTS;
use std::io::Write;
use std::path::Path;

pub fn list(out: &mut dyn Write) -> i32 {
    let _ = writeln!(out, "Models:");
    for m in discover_models(Path::new("models"), true) {
        let _ = writeln!(out, "  {}", m.display());
    }
    let _ = writeln!(out, "\nInvariants:");
    for (name, what) in INVARIANTS {
        let _ = writeln!(out, "  {name:<18} {what}");
    }
    0
}
