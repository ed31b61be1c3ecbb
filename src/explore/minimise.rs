//! Minimisation: drop calls, and files of the initial world, and shrink the arguments of the
//! calls left ([`super::shrink`]), while the same invariant still fails. Breadth-first traces
//! are already shortest in calls, but not smallest in their arguments; random walks and traces
//! from elsewhere (fuzzing, hand-written scenarios) are neither. Every list tried is held to
//! the strictest rule the original meets: each call one the trace's scope offers in the world
//! before it, else one that meets its entry point's preconditions, so a minimised trace is
//! never a call the kernel's callers could not make.

use super::shrink::{pruned, shrink_args, strictest, Guard, Numbered, ShrunkArg};
use crate::check::Invariant;
use crate::exec::host::{ObjKind, Value};
use crate::lang::Program;
use crate::scope::Scope;
use crate::world::scenario::{Call, Scenario};

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

/// What [`minimise_explained`] kept, dropped and shrank.
pub struct Minimised {
    pub initial: Scenario,
    pub calls: Vec<Call>,
    /// Indices (0-based, in the original list) of the calls dropped.
    pub dropped_calls: Vec<usize>,
    /// Names of the files dropped from the initial world.
    pub dropped_files: Vec<String>,
    /// Arguments changed, in the order changed; `call` indexes the list as it was then (the
    /// calls left after the drops before it).
    pub shrunk_args: Vec<ShrunkArg>,
    /// The rule every list tried was held to, in words.
    pub guard: &'static str,
}

/// [`minimise`], saying what it dropped and shrank; each call is held to the preconditions of
/// its entry point (when the original's calls all meet them).
pub fn minimise_explained(
    prog: &Program,
    initial: &Scenario,
    calls: &[Call],
    invariant: Invariant,
) -> Minimised {
    minimise_within(prog, None, initial, calls, invariant)
}

/// Drop the calls the failure does not need, one at a time from the front (with any call the
/// guard then refuses).
fn drop_calls(
    prog: &Program,
    guard: Guard,
    init: &Scenario,
    calls: &mut Vec<Numbered>,
    invariant: Invariant,
) {
    let mut i = 0;
    while i < calls.len() {
        let mut fewer = calls.clone();
        fewer.remove(i);
        match pruned(prog, guard, init, &fewer, invariant) {
            Some(kept) if !kept.is_empty() => *calls = kept,
            _ => i += 1,
        }
    }
}

/// `calls` with file `f` gone from the world: the files and mappings after it renumbered.
fn without_file(calls: &[Numbered], f: usize) -> Vec<Numbered> {
    let renumber = |a: &Value| match *a {
        Value::Obj(ObjKind::File, j) if j as usize > f => Value::Obj(ObjKind::File, j - 1),
        Value::Obj(ObjKind::Mapping, j) if j as usize > f => Value::Obj(ObjKind::Mapping, j - 1),
        other => other,
    };
    calls
        .iter()
        .map(|(i, c)| {
            let args = c.args.iter().map(renumber).collect();
            let func = c.func.clone();
            (*i, Call { func, args })
        })
        .collect()
}

/// [`minimise_explained`] for a trace found in `scope`: when every call of the original is one
/// the scope offers, every call of the minimised list is too.
pub fn minimise_within(
    prog: &Program,
    scope: Option<&Scope>,
    initial: &Scenario,
    calls: &[Call],
    invariant: Invariant,
) -> Minimised {
    let mut init = initial.clone();
    let mut list: Vec<Numbered> = calls.iter().cloned().enumerate().collect();
    let mut dropped_files = Vec::new();
    let mut shrunk_args = Vec::new();
    let guard = strictest(prog, scope, &init, calls, invariant);
    let guard_name = match guard {
        Guard::Alphabet(_) => "every call one the scope offers",
        Guard::Preconditions => "every call meets its entry point's preconditions",
        Guard::Unchecked => "calls not checked: the original's do not all meet their preconditions",
    };
    if let Some(ran) = pruned(prog, guard, &init, &list, invariant) {
        // up to the failing call
        list = ran;
        loop {
            drop_calls(prog, guard, &init, &mut list, invariant);
            // a smaller argument may free a call to drop (a call on mm#1 moved to mm#0 no
            // longer needs the fork), so go round again
            let (smaller, changes) = shrink_args(prog, guard, &init, &list, invariant);
            if changes.is_empty() {
                break;
            }
            list = smaller;
            shrunk_args.extend(changes);
        }
        // drop files no call names and no VMA of the initial world maps
        let mut f = 0;
        while f < init.file.len() {
            let named = list
                .iter()
                .any(|(_, c)| c.args.contains(&Value::Obj(ObjKind::File, f as u32)));
            let in_world = init
                .mm
                .iter()
                .flat_map(|m| &m.vma)
                .any(|v| v.file.as_deref() == Some(init.file[f].name.as_str()));
            let mut smaller = init.clone();
            smaller.file.remove(f);
            let renumbered = without_file(&list, f);
            let same = |r: &Vec<Numbered>| r.len() == renumbered.len();
            if !named
                && !in_world
                && pruned(prog, guard, &smaller, &renumbered, invariant).is_some_and(|r| same(&r))
            {
                dropped_files.push(init.file[f].name.clone());
                init = smaller;
                list = renumbered;
            } else {
                f += 1;
            }
        }
    } else {
        list = calls.iter().cloned().enumerate().collect();
    }
    let dropped_calls = (0..calls.len())
        .filter(|i| !list.iter().any(|(k, _)| k == i))
        .collect();
    Minimised {
        initial: init,
        calls: list.into_iter().map(|(_, c)| c).collect(),
        dropped_calls,
        dropped_files,
        shrunk_args,
        guard: guard_name,
    }
}
