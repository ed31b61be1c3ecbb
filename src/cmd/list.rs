//! `rmapcheck list`: the models under ./models (mutants included) and the invariants, grouped by
//! the phase they are checked in; `list --builtins` instead prints the builtins and fields models
//! may use, as text or as the Markdown page committed as `docs/BUILTINS.md`.

use super::{discover_models, CmdError, CmdResult, Exit};
use crate::check::{Invariant, Phase};
use crate::world::builtins::describe;
use std::io::Write;
use std::path::Path;

/// What `rmapcheck list` prints.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum ListWhat {
    /// Models and invariants.
    #[default]
    Models,
    /// The builtin reference, as text.
    BuiltinsText,
    /// The builtin reference as `docs/BUILTINS.md`.
    BuiltinsMarkdown,
}

pub fn list(what: ListWhat, out: &mut dyn Write) -> CmdResult {
    match what {
        ListWhat::Models => models(out),
        ListWhat::BuiltinsText | ListWhat::BuiltinsMarkdown => {
            let bad = describe::check();
            if !bad.is_empty() {
                // a table row without a description is a defect of this build, not bad input
                return Err(CmdError::text(format_args!(
                    "rmapcheck list: the builtin descriptions do not match the table:\n{}\n",
                    bad.join("\n")
                )));
            }
            let page = if what == ListWhat::BuiltinsText {
                describe::text()
            } else {
                describe::markdown()
            };
            write!(out, "{page}")?;
            Ok(Exit::Ok)
        }
    }
}

fn models(out: &mut dyn Write) -> CmdResult {
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
