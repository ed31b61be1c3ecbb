//! `rmapcheck list`: the models under ./models (mutants included) and the invariants, grouped by
//! the phase they are checked in; `list --builtins` instead prints the builtins and fields models
//! may use, as text or as the Markdown page committed as `docs/BUILTINS.md`.

use super::formats::TraceFormat;
use super::{discover_models, CmdError, CmdResult, Exit};
use crate::check::{Invariant, Phase};
use crate::world::builtins::describe;
use std::io::Write;
use std::path::Path;

/// How `rmapcheck list --builtins` prints the builtins.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BuiltinsFormat {
    /// One entry per builtin: its signature, and what it does on the next line.
    Text,
    /// The page committed as `docs/BUILTINS.md`.
    Markdown,
}

/// Options of `rmapcheck list` (each field's doc comment is its `--help` text).
#[derive(clap::Args, Clone, Copy, Debug, Default)]
pub struct ListArgs {
    /// The builtins and fields instead of models and invariants.
    #[arg(long)]
    pub builtins: bool,
    /// text, or markdown (with --builtins).
    #[arg(long, value_enum, default_value = "text")]
    pub format: TraceFormat,
}

/// `rmapcheck list [--builtins] [--format F]`: [`list`] or [`builtins`] in the format asked
/// for; a format that neither writes is an error (exit 2).
pub fn run(a: &ListArgs, out: &mut dyn Write) -> CmdResult {
    match (a.builtins, a.format) {
        (false, TraceFormat::Text) => list(out),
        (true, TraceFormat::Text) => builtins(BuiltinsFormat::Text, out),
        (true, TraceFormat::Markdown) => builtins(BuiltinsFormat::Markdown, out),
        (_, f) => Err(CmdError::line(format_args!(
            "rmapcheck list: --format {f:?} is not offered here (text; markdown with \
             --builtins)"
        ))),
    }
}

/// `rmapcheck list`: the models and the invariants.
pub fn list(out: &mut dyn Write) -> CmdResult {
    models(out)
}

/// `rmapcheck list --builtins`: the builtins and fields models may use.
pub fn builtins(format: BuiltinsFormat, out: &mut dyn Write) -> CmdResult {
    let bad = describe::check();
    if !bad.is_empty() {
        // a table row without a description is a defect of this build, not of the input
        return Err(CmdError::text(format_args!(
            "rmapcheck list: the builtin descriptions do not match the table:\n{}\n",
            bad.join("\n")
        )));
    }
    let page = match format {
        BuiltinsFormat::Text => describe::text(),
        BuiltinsFormat::Markdown => describe::markdown(),
    };
    write!(out, "{page}")?;
    Ok(Exit::Ok)
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
