//! Commuting calls (off by default; the scope's `commute` field, `check --commute`): a sleep-set
//! reduction (Godefroid) of the breadth-first search over call sequences. It runs fewer calls
//! and visits exactly the same states, at the same depths, in the same order, so the verdict,
//! the state count and the first counterexample are those of the search without it.
//!
//! # Independence
//!
//! Two calls `x` and `y` offered in a state `s` are *independent* there when they act on
//! different mms, neither is `sys_fork` (it makes an mm, whose id depends on how many there
//! are, and it is offered only while few enough mms are live), and the components
//! ([`World::components`]) of `x`'s mm and file arguments are not those of `y`'s. A call reaches
//! nothing outside its components but what it allocates (`world::reach`), so then:
//! - each call reads and writes objects the other never touches: from `s`, `y` then `x` leaves
//!   the same objects as `x` then `y`, up to the ids of what each allocated. The canonical form
//!   numbers objects by structure (VMAs by mm and address, AVCs along chains, anon_vmas and
//!   anonymous folios by first use), except the objects nothing refers to, which it orders by
//!   their old ids; so a call that changes how many of those there are
//!   ([`World::unreferenced`]), or the number of mms, is treated as dependent on every call.
//!   Apart from that, both orders give the same canonical world;
//! - `x` is offered after `y` with the same arguments up to the renumbering of VMAs (the
//!   alphabet's offers for an mm read its VMAs and page table, the files and the count of live
//!   mms, which only fork's offer reads), and runs the same steps: its verdict after `y` is its
//!   verdict in `s`. The checks agree: every check, per step or at the boundary, is a
//!   conjunction over trees, VMAs, AVCs, locks and ptes, each inside one component, and the
//!   components `x` does not touch are those of a state the search already checked;
//! - a call is named across such steps by a [`Key`]: its entry point, its mm and file ids, its
//!   integers, and each VMA argument by its start address in its mm, which `y` leaves alone.
//!
//! # The search
//!
//! Each state of the frontier carries a *sleep set* of keys. Expanding `s` runs the offered
//! calls in alphabet order, skipping those whose key is in `s`'s sleep set. The successor by call
//! `c` gets every key of `s`'s sleep set, and of the calls run at `s` before `c`, that is
//! independent of `c` in `s` and names a lower mm than `c` (the alphabet lists mms in order, so a
//! call run before `c` on another mm always does; a state with one live mm therefore passes
//! nothing on, and no key is computed there unless its own sleep set is not empty). A state
//! reached again at the level it was first reached at keeps the intersection of the sets
//! (`FrontierTuning::merge`); a state reached again at a deeper level is not expanded again,
//! as without the reduction. A call that changes the number of mms or of unreferenced objects
//! passes nothing on and is passed on by no later call.
//!
//! # Why nothing changes but the number of calls run
//!
//! Write `(s, c)` for running `c` in `s`, and order such pairs as the search does: by the
//! position of `s` in its level, then by `c`'s position in `s`'s alphabet. The search without the
//! reduction numbers each state by its first arrival, the least pair that reaches it.
//!
//! Lemma: if `x` is in `t`'s sleep set, `t` at level `k`, then `(t, x)` is not the first arrival
//! of the state `v` it leads to at level `k + 1`. Let `(s', c')` be `t`'s first arrival. The
//! sleep set of `t` is an intersection that includes the set `(s', c')` gave, so `x` was offered
//! in `s'`, is independent of `c'` there and comes before `c'` in `s'`'s alphabet. Let
//! `u = x(s')`; by independence `c'(u) = x(c'(s')) = v`. `u` is at level `k` (a shallower `u`
//! would put `v` at level `k` or above), and its first arrival is at most `(s', x)`, before
//! `(s', c')`: `u` comes before `t` in level `k`, so `(u, c')` comes before `(t, x)`.
//!
//! By induction over the levels, then: every level holds the same states in the same order
//! with and without the reduction, since the first arrival of each state is a pair the reduced
//! search runs (the lemma) and the pairs it runs are some of the same pairs in the same order.
//! The parent links, and so the paths, are the same. A call `x` skipped in `t` fails there
//! only if it failed in `s'` (independence keeps its verdict), or, when it was asleep in `s'`
//! too, in the state before, and so on up to a state where it was run: a failure one level
//! above, where the search would already have stopped. So every failing pair of the level where
//! the unreduced search first fails is run, and the first one in the order above is the same:
//! the same counterexample. States are checked as they are reached (a call fails when the world
//! it leaves violates an invariant): every reachable state is reached, so every violation,
//! during a call or after it, is found at the same depth as without the reduction. The state
//! bound, the depth bound and the VMA bound see the same states.
//!
//! Not with walkers (a skipped call is not run against them) and not with the symmetry
//! reductions (they renumber the mms and files that keys name); `scope.rs` refuses both.

use super::alphabet;
use super::call_step::{fingerprint, CallFailure, CallStep, CallSteps};
use crate::checker::budget::Budget;
use crate::checker::{Expansion, FrontierTuning, Start, TransitionSystem};
use crate::entry::{Arg, EntryPoint};
use crate::exec::host::{ObjKind, Value};
use crate::world::reach::Components;
use crate::world::scenario::Call;
use crate::world::World;

/// A call, named so that the name survives calls on other mms (see the module documentation).
/// Fixed-size, so that the sleep sets of a large frontier hold no heap per key.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub(crate) struct Key {
    point: EntryPoint,
    /// The arguments, in order (unused places are -2).
    args: [i32; MAX_ARGS],
}

/// The most arguments an entry point takes.
const MAX_ARGS: usize = 7;

/// The key of `c` in `w`; `None` for a call the reduction does not name (an unknown entry
/// point or argument, or a number out of range), which then never sleeps and is independent
/// of nothing.
fn key(w: &World, c: &Call) -> Option<Key> {
    let point = EntryPoint::from_name(&c.func)?;
    if c.args.len() > MAX_ARGS {
        return None;
    }
    let mut args = [-2; MAX_ARGS];
    for (slot, a) in args.iter_mut().zip(&c.args) {
        let v: i64 = match *a {
            Value::Int(i) => i,
            Value::Bool(b) => b as i64,
            Value::Null => -1,
            Value::Obj(ObjKind::Vma, v) => w.vmas.get(v as usize)?.vm_start as i64,
            Value::Obj(ObjKind::Mm | ObjKind::File, id) => id as i64,
            _ => return None,
        };
        *slot = i32::try_from(v).ok().filter(|&x| x >= -1)?;
    }
    Some(Key { point, args })
}

/// What a call touches in a state: its mm, and the components of that mm and of its files.
struct Footprint {
    mm: u32,
    parts: Vec<u32>,
}

impl Footprint {
    /// Whether a call with this footprint is independent of one with `o` (`self` names the
    /// lower mm, as the sleep sets require).
    fn below_and_apart(&self, o: &Footprint) -> bool {
        self.mm < o.mm && !self.parts.iter().any(|p| o.parts.contains(p))
    }
}

/// The footprint of the call `k` names in a state with components `comps`; `None` for a call
/// that is dependent on every call (fork, or one whose mm or file the state lacks).
fn footprint(comps: &mut Components, k: &Key) -> Option<Footprint> {
    if k.point == EntryPoint::Fork {
        return None;
    }
    let mm = u32::try_from(k.args[0]).ok()?;
    let mut parts = vec![comps.of_mm(mm)?];
    for (arg, &kind) in k.args.iter().zip(k.point.entry().args) {
        if kind == Arg::FileOrNull && *arg >= 0 {
            parts.push(comps.of_file(u32::try_from(*arg).ok()?)?);
        }
    }
    Some(Footprint { mm, parts })
}

/// A frontier state: the canonical world and the keys of the calls it does not run.
pub(crate) struct Sleeping {
    pub(crate) world: World,
    /// Sorted.
    sleep: Vec<Key>,
}

/// A call system ([`CallSteps`]; `search`'s) with sleep sets: the same states and steps, fewer
/// calls run.
pub(crate) struct CommuteSystem<S> {
    pub(crate) calls: S,
}

impl<S: CallSteps> TransitionSystem for CommuteSystem<S> {
    type State = Sleeping;
    type Action = Call;
    type Failure = CallFailure;

    fn initial(&self) -> Result<Sleeping, Start<CallFailure>> {
        let world = self.calls.initial()?;
        Ok(Sleeping {
            world,
            sleep: Vec::new(),
        })
    }

    fn fingerprint(&self, s: &Sleeping) -> u64 {
        fingerprint(&s.world)
    }

    fn expand(
        &self,
        s: &Sleeping,
        depth: u32,
        _: &Budget,
    ) -> Expansion<Call, Sleeping, CallFailure> {
        expand(&self.calls, s, depth)
    }
}

/// Whole states (a sleep set is kept beside its world), merged at each further arrival.
impl<S: CallSteps> FrontierTuning for CommuteSystem<S> {
    const MERGES: bool = true;

    fn action_bytes(&self, c: &Call) -> usize {
        self.calls.action_bytes(c)
    }

    fn merge(&self, kept: &mut Sleeping, again: Sleeping) {
        kept.sleep.retain(|k| again.sleep.binary_search(k).is_ok());
    }
}

fn expand(
    sys: &impl CallSteps,
    s: &Sleeping,
    depth: u32,
) -> Expansion<Call, Sleeping, CallFailure> {
    let mut ex = Expansion::default();
    let w = &s.world;
    if sys.cut(w) {
        ex.cut = true;
        return ex;
    }
    // with one live mm every call is on it: nothing passes on (the common case, kept cheap)
    let live: Vec<u32> = (0..w.mms.len() as u32)
        .filter(|&m| !w.mms[m as usize].freed)
        .collect();
    let last_mm = live.last().copied().unwrap_or(0);
    let mut apart = (live.len() >= 2).then(|| Apart::new(w, &s.sleep));
    for call in alphabet::calls(sys.scope(), sys.program(), w) {
        if let Some(reason) = sys.budget().poll() {
            ex.stopped = Some(reason);
            return ex;
        }
        let k = if s.sleep.is_empty() && apart.is_none() {
            None
        } else {
            key(w, &call)
        };
        if k.as_ref().is_some_and(|k| s.sleep.binary_search(k).is_ok()) {
            continue;
        }
        let world = match sys.call_step(w, &call, depth) {
            CallStep::Next(w2) => w2,
            CallStep::Failed(f) => {
                ex.failure = Some((Some(call), f));
                return ex;
            }
            CallStep::Stopped(reason) => {
                ex.stopped = Some(reason);
                return ex;
            }
        };
        let sleep = match (&mut apart, k) {
            (Some(a), Some(k)) => a.after(k, w, &world, last_mm),
            _ => Vec::new(),
        };
        ex.succs.push((call, Sleeping { world, sleep }));
    }
    ex
}

/// The keys that may pass on from a state with two live mms or more: asleep there, then run
/// there, each with its footprint.
struct Apart {
    comps: Components,
    unreferenced: Option<usize>,
    passable: Vec<(Key, Footprint)>,
}

impl Apart {
    fn new(w: &World, sleep: &[Key]) -> Apart {
        let mut comps = w.components();
        let passable = sleep
            .iter()
            .filter_map(|k| Some((*k, footprint(&mut comps, k)?)))
            .collect();
        Apart {
            comps,
            unreferenced: None,
            passable,
        }
    }

    /// The sleep set of `next`, which the call `k` made from `w`; `k` then joins the keys
    /// that may pass on, unless it commutes with nothing (no footprint, a new mm, a new
    /// unreferenced object) or no later call could take it (it is on the last live mm).
    fn after(&mut self, k: Key, w: &World, next: &World, last_mm: u32) -> Vec<Key> {
        let Some(fp) = footprint(&mut self.comps, &k) else {
            return Vec::new();
        };
        let mut sleep: Vec<Key> = self
            .passable
            .iter()
            .filter(|(_, x)| x.below_and_apart(&fp))
            .map(|(k, _)| *k)
            .collect();
        let keeps = fp.mm < last_mm;
        if sleep.is_empty() && !keeps {
            return sleep;
        }
        let before = *self.unreferenced.get_or_insert_with(|| w.unreferenced());
        if next.mms.len() != w.mms.len() || next.unreferenced() != before {
            return Vec::new();
        }
        if keeps {
            self.passable.push((k, fp));
        }
        sleep.sort();
        sleep.dedup();
        sleep
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_entry_point_fits_a_key() {
        assert!(EntryPoint::all().all(|p| p.entry().args.len() <= MAX_ARGS));
    }
}
