//! The alphabet of calls offered in a state: every entry point of the table in `crate::entry`
//! that the model defines and the scope allows, with every argument tuple the scope's bounds
//! allow that meets the entry point's preconditions in this world.

use crate::entry::offer::{offers, Bounds};
use crate::entry::{EntryPoint, Mode, Tier};
use crate::lang::Program;
use crate::scope::Scope;
use crate::world::scenario::Call;
use crate::world::World;

/// The bounds a scope puts on offered calls.
pub fn bounds(scope: &Scope) -> Bounds {
    Bounds {
        pages: scope.pages,
        max_len: scope.max_len,
        max_vmas: scope.max_vmas,
        max_mms: scope.max_mms,
        shared: scope.shared,
        offsets: scope.offsets,
    }
}

/// Whether the search calls `p`: the model defines it, the scope's mode includes it, and the
/// scope's `entries` name it or, when it names none, it is a core entry point or the scope asks
/// for the extended ones.
pub fn offered(scope: &Scope, prog: &Program, p: EntryPoint) -> bool {
    let e = p.entry();
    let chosen = if scope.entries.is_empty() {
        e.tier == Tier::Core || scope.extended
    } else {
        scope.entries.iter().any(|n| n == e.name)
    };
    (e.mode == Mode::Callers || scope.mode == Mode::Contract)
        && prog.function(e.name).is_some()
        && chosen
}

/// The calls to try from `w`, in a fixed order.
pub fn calls(scope: &Scope, prog: &Program, w: &World) -> Vec<Call> {
    offers(w, bounds(scope), &|p| offered(scope, prog, p))
}
