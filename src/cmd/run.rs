//! `rmapcheck run MODEL --ops SCENARIO`: run the scenario's calls on its initial world and print
//! the world and its trees after each call, stopping at the first violation.

use super::load_model;
use super::{CmdError, CmdResult, Exit};
use crate::explore::op::{apply, CheckOpts};
use crate::world::scenario::{Scenario, ScenarioError};
use std::io::Write;
use std::path::Path;

/// Ok when every call ran clean, Found on a violation, an error on bad input.
pub fn run(model: &Path, scenario: &Path, out: &mut dyn Write) -> CmdResult {
    let prog = match load_model(model) {
        Ok(p) => p,
        Err(d) => {
            return Err(CmdError::text(d));
        }
    };
    let text = match std::fs::read_to_string(scenario) {
        Ok(t) => t,
        Err(e) => {
            return Err(CmdError::line(format_args!("{}: {e}", scenario.display())));
        }
    };
    let parsed = Scenario::parse(&text)
        .map_err(|e| format!("{}:{e}", scenario.display()))
        .and_then(|s| {
            s.build()
                .and_then(|w| Ok((w, s.parsed_calls()?)))
                .map_err(|e: ScenarioError| format!("{}: {e}", scenario.display()))
        });
    let (mut world, calls) = match parsed {
        Ok(x) => x,
        Err(e) => {
            return Err(CmdError::line(e));
        }
    };
    // ids are renumbered between calls exactly as the explorer and traces do
    world = world.canonical();
    writeln!(out, "initial world:")?;
    write!(out, "{}", world.render())?;
    for (i, call) in calls.iter().enumerate() {
        let r = apply(&prog, &mut world, call, CheckOpts::default());
        writeln!(out, "\ncall {}: {call}", i + 1)?;
        if let Some(f) = r.failure {
            if let Some(s) = f.step.and_then(|s| r.steps.get(s)) {
                writeln!(
                    out,
                    "  failed at {} in {}: {}",
                    prog.loc_text(s.loc),
                    s.func,
                    s.what
                )?;
            } else {
                writeln!(out, "  failed when the call returned")?;
            }
            for v in &f.violations {
                writeln!(out, "  {v}")?;
            }
            write!(out, "{}", world.render())?;
            return Ok(Exit::Found);
        }
        world = world.canonical();
        write!(out, "{}", world.render())?;
    }
    Ok(Exit::Ok)
}
