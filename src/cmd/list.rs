//! `rmapcheck list`: the models under ./models (mutants included) and the invariants, grouped by
//! the phase they are checked in.

use super::{discover_models, CmdResult, Exit};
use crate::check::{Invariant, Phase};
use std::io::Write;
use std::path::Path;

pub fn list(out: &mut dyn Write) -> CmdResult {
    writeln!(out, "Models:")?;
    for m in discover_models(Path::new("models"), true) {
        writeln!(out, "  {}", m.display())?;
    }
    writeln!(out, "\nInvariants, by when they are checked:")?;
    for &phase in Phase::ALL {
        writeln!(out, " {}:", phase.describe())?;
        for i in Invariant::ALL.iter().filter(|i| i.phase() == phase) {
            writeln!(out, "  {:<18} {}", i.name(), i.description())?;
        }
    }
    Ok(Exit::Ok)
}
