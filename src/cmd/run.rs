//! `rmapcheck run MODEL --ops SCENARIO`: run the scenario's calls on its initial world and print
//! the world and its trees after each call, stopping at the first violation.

use super::load_model;
use crate::explore::op::{apply, CheckOpts};
use crate::world::scenario::Scenario;
use std::io::Write;
use std::path::Path;

/// Returns 0 when every call ran clean, 1 on a violation, 2 on bad input.
pub fn run(model: &Path, scenario: &Path, out: &mut dyn Write, err: &mut dyn Write) -> i32 {
    let prog = match load_model(model) {
        Ok(p) => p,
        Err(d) => {
            let _ = write!(err, "{d}");
            return 2;
        }
    };
    let text = match std::fs::read_to_string(scenario) {
        Ok(t) => t,
        Err(e) => {
            let _ = writeln!(err, "{}: {e}", scenario.display());
            return 2;
        }
    };
    let parsed = Scenario::parse(&text)
        .map_err(|e| format!("{}:{e}", scenario.display()))
        .and_then(|s| {
            Ok((s.build()?, s.parsed_calls()?))
                .map_err(|e: String| format!("{}: {e}", scenario.display()))
        });
    let (mut world, calls) = match parsed {
        Ok(x) => x,
        Err(e) => {
            let _ = writeln!(err, "{e}");
            return 2;
        }
    };
    // ids are renumbered between calls exactly as the explorer and traces do
    world = world.canonical();
    let _ = writeln!(out, "initial world:");
    let _ = write!(out, "{}", world.render());
    for (i, call) in calls.iter().enumerate() {
        let r = apply(&prog, &mut world, call, CheckOpts::default());
        let _ = writeln!(out, "\ncall {}: {call}", i + 1);
        if let Some(f) = r.failure {
            if let Some(s) = f.step.and_then(|s| r.steps.get(s)) {
                let _ = writeln!(
                    out,
                    "  failed at {} in {}: {}",
                    prog.loc_text(s.loc),
                    s.func,
                    s.what
                );
            } else {
                let _ = writeln!(out, "  failed when the call returned");
            }
            for v in &f.violations {
                let _ = writeln!(out, "  {v}");
            }
            let _ = write!(out, "{}", world.render());
            return 1;
        }
        world = world.canonical();
        let _ = write!(out, "{}", world.render());
    }
    0
}
