//! Shrinking a counterexample's arguments: after [`super::minimise`] has dropped the calls a
//! failure does not need, each argument left is tried at smaller values (a lower page, a
//! shorter length, a smaller page offset, `false` for a flag, a lower-numbered mm, file or
//! VMA), and a range at a lower place (every integer argument of the call, or of every call
//! of the trace, moved down together), keeping a change only when the same invariant still fails and every call is
//! still one the trace may make ([`Guard`]). A call the guard refuses after a change (a munmap
//! of a range the change left empty, which the alphabet no longer offers) is dropped with it
//! ([`pruned`]). Each change lowers the sum of the call list's argument values, or drops a
//! call, so the search ends.

use super::op::{apply, CheckOpts};
use crate::check::{Invariant, InvariantSet};
use crate::exec::host::Value;
use crate::lang::Program;
use crate::scope::Scope;
use crate::world::scenario::{Call, Scenario};
use crate::world::World;

/// Which calls a shrunk list may contain.
#[derive(Clone, Copy)]
pub enum Guard<'a> {
    /// Every call is one the scope's alphabet offers in the world before it (the trace stays
    /// one the search could have found).
    Alphabet(&'a Scope),
    /// Every call meets its entry point's preconditions (`entry::check`): a call the kernel's
    /// callers may make, maybe outside the trace's scope.
    Preconditions,
    /// No check (a list whose own calls meet neither: a hand-written scenario).
    Unchecked,
}

/// Whether `c` is a call `prog` can run in `w`: an entry point the model defines, arguments
/// its function takes, and the entry point's preconditions (`entry::check`).
fn runs(prog: &Program, w: &World, c: &Call) -> bool {
    prog.function(&c.func).is_some()
        && crate::exec::thread::Thread::start(prog, &c.func, &c.args).is_ok()
        && crate::entry::check(w, c).is_ok()
}

impl Guard<'_> {
    fn allows(&self, prog: &Program, w: &World, c: &Call) -> bool {
        match self {
            Guard::Unchecked => true,
            Guard::Preconditions => runs(prog, w, c),
            Guard::Alphabet(scope) => {
                runs(prog, w, c) && super::alphabet::calls(scope, prog, w).contains(c)
            }
        }
    }
}

/// A call of the list being minimised, with its index in the original list.
pub type Numbered = (usize, Call);

/// Run `calls` from `initial`, skipping each call `guard` refuses in the world before it, up to
/// the first failing call. The calls run (the skipped ones left out) when that failure is
/// `invariant`, else `None` (no failure, another invariant, or a world that cannot be built).
pub fn pruned(
    prog: &Program,
    guard: Guard,
    initial: &Scenario,
    calls: &[Numbered],
    invariant: Invariant,
) -> Option<Vec<Numbered>> {
    let mut w = initial.build().ok()?.canonical();
    let opts = CheckOpts {
        record: false,
        invariants: match guard {
            Guard::Alphabet(scope) => scope.invariant_set(),
            _ => InvariantSet::all(),
        },
        ..CheckOpts::default()
    };
    let mut ran = Vec::new();
    for (i, c) in calls {
        if !guard.allows(prog, &w, c) {
            continue;
        }
        ran.push((*i, c.clone()));
        let out = apply(prog, &mut w, c, opts);
        if let Some(f) = out.failure {
            return (f.invariant() == Some(invariant)).then_some(ran);
        }
        w = w.canonical();
    }
    None
}

/// The strictest guard the list itself meets: the scope's alphabet, else the preconditions,
/// else none.
pub(crate) fn strictest<'a>(
    prog: &Program,
    scope: Option<&'a Scope>,
    initial: &Scenario,
    calls: &[Call],
    invariant: Invariant,
) -> Guard<'a> {
    let numbered: Vec<Numbered> = calls.iter().cloned().enumerate().collect();
    // the guard holds for the list when nothing is skipped up to the failing call
    let holds = |g: Guard| {
        pruned(prog, g, initial, &numbered, invariant)
            .is_some_and(|r| r.iter().enumerate().all(|(k, (i, _))| k == *i))
    };
    if let Some(s) = scope {
        if holds(Guard::Alphabet(s)) {
            return Guard::Alphabet(s);
        }
    }
    if holds(Guard::Preconditions) {
        Guard::Preconditions
    } else {
        Guard::Unchecked
    }
}

/// One argument changed: of call `call` (0-based, in the original list), argument `arg`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ShrunkArg {
    /// The entry point called.
    pub func: String,
    pub call: usize,
    pub arg: usize,
    pub from: Value,
    pub to: Value,
}

/// The size of one argument: what shrinking lowers.
fn weight(v: &Value) -> u64 {
    match *v {
        Value::Int(n) => n.unsigned_abs(),
        Value::Bool(b) => u64::from(b),
        Value::Obj(_, i) => u64::from(i),
        _ => 0,
    }
}

/// Smaller values for one argument, smallest first.
fn smaller(v: &Value) -> Vec<Value> {
    match *v {
        Value::Int(n) if n > 0 => (0..n).map(Value::Int).collect(),
        Value::Bool(true) => vec![Value::Bool(false)],
        Value::Obj(k, i) if i > 0 => (0..i).map(|j| Value::Obj(k, j)).collect(),
        _ => Vec::new(),
    }
}

/// The call with every integer argument (pages, lengths and offsets alike) lowered by `by`, when
/// each of them is at least `by`; `None` when one is not. This moves a range down without
/// changing its length (mmap's start and end, and its offset with them).
fn moved_down(c: &Call, by: i64) -> Option<Call> {
    let ints = c.args.iter().filter(|a| matches!(a, Value::Int(_))).count();
    if ints < 2 {
        return None;
    }
    let args = c
        .args
        .iter()
        .map(|a| match *a {
            Value::Int(n) if n >= by => Some(Value::Int(n - by)),
            Value::Int(_) => None,
            other => Some(other),
        })
        .collect::<Option<Vec<_>>>()?;
    Some(Call {
        func: c.func.clone(),
        args,
    })
}

/// Candidates for call `c`, simplest first: the whole call moved down, then each argument
/// alone at each smaller value. Each is lighter than `c` (a lower sum of argument weights).
pub(crate) fn candidates(c: &Call) -> Vec<Call> {
    let top = c
        .args
        .iter()
        .filter_map(|a| match a {
            Value::Int(n) => Some(*n),
            _ => None,
        })
        .min()
        .unwrap_or(0);
    let mut out: Vec<Call> = (1..=top).rev().filter_map(|by| moved_down(c, by)).collect();
    for (i, a) in c.args.iter().enumerate() {
        for v in smaller(a) {
            let mut args = c.args.clone();
            args[i] = v;
            out.push(Call {
                func: c.func.clone(),
                args,
            });
        }
    }
    out
}

/// Note each argument that differs between `before` and `after` (call `orig`).
fn note_changes(changes: &mut Vec<ShrunkArg>, orig: usize, before: &Call, after: &Call) {
    for (a, (x, y)) in before.args.iter().zip(&after.args).enumerate() {
        if x != y {
            changes.push(ShrunkArg {
                func: after.func.clone(),
                call: orig,
                arg: a,
                from: *x,
                to: *y,
            });
        }
    }
}

/// The whole list moved down by the most pages that still fails the same way with every call
/// kept: each call with two or more integer arguments, all at least that far from 0, has them
/// all lowered. `None` when no such move keeps the failure.
fn moved_trace(
    prog: &Program,
    guard: Guard,
    initial: &Scenario,
    calls: &[Numbered],
    invariant: Invariant,
) -> Option<Vec<Numbered>> {
    let top = calls
        .iter()
        .flat_map(|(_, c)| &c.args)
        .filter_map(|a| match a {
            Value::Int(n) => Some(*n),
            _ => None,
        })
        .max()
        .unwrap_or(0);
    (1..=top).rev().find_map(|by| {
        let moved: Vec<Numbered> = calls
            .iter()
            .map(|(i, c)| (*i, moved_down(c, by).unwrap_or_else(|| c.clone())))
            .collect();
        if moved == calls {
            return None;
        }
        pruned(prog, guard, initial, &moved, invariant).filter(|kept| kept.len() == calls.len())
    })
}

/// Shrink the arguments of `calls` while the same invariant still fails under `guard` (calls
/// the guard then refuses are dropped). Returns the new list and the changes made, in the
/// order made (an argument changed twice appears twice).
pub fn shrink_args(
    prog: &Program,
    guard: Guard,
    initial: &Scenario,
    calls: &[Numbered],
    invariant: Invariant,
) -> (Vec<Numbered>, Vec<ShrunkArg>) {
    let mut calls = calls.to_vec();
    let mut changes = Vec::new();
    loop {
        let mut changed = false;
        // the whole trace moved down (every call's integers, where each can move), before any
        // one call: calls whose ranges line up keep lining up
        if let Some(kept) = moved_trace(prog, guard, initial, &calls, invariant) {
            for ((orig, before), (_, after)) in calls.iter().zip(&kept) {
                note_changes(&mut changes, *orig, before, after);
            }
            calls = kept;
            changed = true;
        }
        let mut i = 0;
        while i < calls.len() {
            let (orig, now) = calls[i].clone();
            let weight_now: u64 = now.args.iter().map(weight).sum();
            for cand in candidates(&now) {
                if cand.args.iter().map(weight).sum::<u64>() >= weight_now {
                    continue;
                }
                let mut trial = calls.clone();
                trial[i].1 = cand.clone();
                let Some(kept) = pruned(prog, guard, initial, &trial, invariant) else {
                    continue;
                };
                // the changed call itself must stay
                if !kept.iter().any(|(k, _)| *k == orig) {
                    continue;
                }
                note_changes(&mut changes, orig, &now, &cand);
                calls = kept;
                changed = true;
                break;
            }
            i = calls
                .iter()
                .position(|(k, _)| *k == orig)
                .map_or(i, |p| p + 1);
        }
        if !changed {
            return (calls, changes);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn call(s: &str) -> Call {
        Call::parse(s).unwrap()
    }

    #[test]
    fn smaller_values_come_smallest_first_and_never_include_the_value() {
        assert_eq!(
            smaller(&Value::Int(3)),
            vec![Value::Int(0), Value::Int(1), Value::Int(2)]
        );
        assert!(smaller(&Value::Int(0)).is_empty());
        assert_eq!(smaller(&Value::Bool(true)), vec![Value::Bool(false)]);
        assert!(smaller(&Value::Bool(false)).is_empty());
        assert!(smaller(&Value::Null).is_empty());
    }

    #[test]
    fn a_call_moves_down_only_as_far_as_its_smallest_integer() {
        let c = call("sys_mmap(mm#0, file#0, 2, 4, 3, true)");
        let cands = candidates(&c);
        // moved down by 2 first (the most), then by 1
        assert_eq!(cands[0], call("sys_mmap(mm#0, file#0, 0, 2, 1, true)"));
        assert_eq!(cands[1], call("sys_mmap(mm#0, file#0, 1, 3, 2, true)"));
        // then each argument alone, smallest first
        assert_eq!(cands[2], call("sys_mmap(mm#0, file#0, 0, 4, 3, true)"));
        // every candidate weighs less (the mm and file at 0 give none)
        let w = |c: &Call| c.args.iter().map(weight).sum::<u64>();
        assert!(cands.iter().all(|x| w(x) < w(&c)));
        assert_eq!(cands.len(), 2 + 2 + 4 + 3 + 1);
        assert!(moved_down(&call("sys_munmap(mm#0, 0, 1)"), 1).is_none());
    }
}
