//! Minimisation: drop calls, and files of the initial world, while the same invariant still
//! fails. Breadth-first traces are already shortest in calls; this matters for traces that came
//! from elsewhere (fuzzing, hand-written scenarios).

use super::replay::rerun;
use crate::check::{Invariant, InvariantSet};
use crate::exec::host::{ObjKind, Value};
use crate::lang::Program;
use crate::world::scenario::{Call, Scenario};

fn fails_with(prog: &Program, initial: &Scenario, calls: &[Call], invariant: Invariant) -> bool {
    let set = InvariantSet::all();
    matches!(rerun(prog, initial, calls, set), Ok(r) if r.failure.as_ref().is_some_and(|f| f.invariant() == Some(invariant)))
}

/// Smallest (greedy) scenario and call list that still fails with `invariant`.
pub fn minimise(
    prog: &Program,
    initial: &Scenario,
    calls: &[Call],
    invariant: Invariant,
) -> (Scenario, Vec<Call>) {
    let m = minimise_explained(prog, initial, calls, invariant);
    (m.initial, m.calls)
}

/// What [`minimise_explained`] kept and dropped.
pub struct Minimised {
    pub initial: Scenario,
    pub calls: Vec<Call>,
    /// Indices (0-based, in the original list) of the calls dropped.
    pub dropped_calls: Vec<usize>,
    /// Names of the files dropped from the initial world.
    pub dropped_files: Vec<String>,
}

/// [`minimise`], saying which calls and files it dropped.
pub fn minimise_explained(
    prog: &Program,
    initial: &Scenario,
    calls: &[Call],
    invariant: Invariant,
) -> Minimised {
    let mut init = initial.clone();
    let mut calls = calls.to_vec();
    let mut kept: Vec<usize> = (0..calls.len()).collect();
    let mut dropped_calls = Vec::new();
    let mut dropped_files = Vec::new();
    if !fails_with(prog, &init, &calls, invariant) {
        return Minimised {
            initial: init,
            calls,
            dropped_calls,
            dropped_files,
        };
    }
    // Drop calls, one at a time, from the front, keeping what still fails.
    let mut i = 0;
    while i < calls.len() {
        let mut fewer = calls.clone();
        fewer.remove(i);
        if !fewer.is_empty() && fails_with(prog, &init, &fewer, invariant) {
            calls = fewer;
            dropped_calls.push(kept.remove(i));
        } else {
            i += 1;
        }
    }
    // Drop files no call names (renumbering the ones after it).
    let mut f = 0;
    while f < init.file.len() {
        let named = calls
            .iter()
            .any(|c| c.args.contains(&Value::Obj(ObjKind::File, f as u32)));
        let in_world = init
            .mm
            .iter()
            .flat_map(|m| &m.vma)
            .any(|v| v.file.as_deref() == Some(init.file[f].name.as_str()));
        if named || in_world {
            f += 1;
            continue;
        }
        let mut smaller = init.clone();
        smaller.file.remove(f);
        let renumbered: Vec<Call> = calls
            .iter()
            .map(|c| Call {
                func: c.func.clone(),
                args: c
                    .args
                    .iter()
                    .map(|a| match *a {
                        Value::Obj(ObjKind::File, j) if j as usize > f => {
                            Value::Obj(ObjKind::File, j - 1)
                        }
                        Value::Obj(ObjKind::Mapping, j) if j as usize > f => {
                            Value::Obj(ObjKind::Mapping, j - 1)
                        }
                        other => other,
                    })
                    .collect(),
            })
            .collect();
        if fails_with(prog, &smaller, &renumbered, invariant) {
            dropped_files.push(init.file[f].name.clone());
            init = smaller;
            calls = renumbered;
        } else {
            f += 1;
        }
    }
    dropped_calls.sort_unstable();
    Minimised {
        initial: init,
        calls,
        dropped_calls,
        dropped_files,
    }
}
