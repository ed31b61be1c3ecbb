//! Counterexamples found with the symmetry reductions (`world::symmetry`), mapped back onto the
//! unreduced worlds. The search's path is a sequence of calls made on representatives (worlds
//! whose mms may have been renumbered), so its object ids need not name the same objects in
//! the worlds a replay builds without the reduction. Each call is matched instead by what it
//! does: from the unreduced world, the call whose successor has the same representative as
//! the path's call's successor (for the failing call: the same representative of the world it
//! left, or failing that the same invariants violated). Traces then replay as any other.

use super::alphabet;
use super::op::{apply, CheckOpts, OpOutcome};
use crate::invariant::Invariant;
use crate::lang::Program;
use crate::scope::Scope;
use crate::world::scenario::Call;
use crate::world::World;

/// The world a call leaves, its representative, and the invariants it violated.
struct Effect {
    rep: World,
    plain: World,
    failed: Option<Vec<Invariant>>,
}

fn effect(prog: &Program, scope: &Scope, w: &World, call: &Call, opts: CheckOpts) -> Effect {
    let mut w2 = w.clone();
    let OpOutcome { failure, .. } = apply(prog, &mut w2, call, opts);
    let failed = failure.map(|f| {
        let mut v: Vec<Invariant> = f.violations.iter().map(|v| v.invariant).collect();
        v.sort_by_key(|i| i.to_string());
        v.dedup();
        v
    });
    Effect {
        rep: w2.canonical_up_to(scope.symmetry, scope.file_symmetry),
        plain: w2.canonical(),
        failed,
    }
}

/// `path` (calls on representatives, the last one failing) as calls on the unreduced worlds,
/// or why it could not be mapped (the reduction would then have merged worlds that behave
/// differently: reported as an incomplete search, never as a verdict).
pub(crate) fn unreduced_path(
    prog: &Program,
    scope: &Scope,
    path: &[Call],
) -> Result<Vec<Call>, String> {
    let opts = CheckOpts {
        record: false,
        per_step: true,
        invariants: scope.invariant_set(),
    };
    let w0 = scope
        .initial_scenario()
        .build()
        .map_err(|e| format!("bad initial world: {e}"))?;
    let mut rep = w0.canonical_up_to(scope.symmetry, scope.file_symmetry);
    let mut plain = w0.canonical();
    let mut out = Vec::with_capacity(path.len());
    for (i, call) in path.iter().enumerate() {
        let want = effect(prog, scope, &rep, call, opts);
        let cands = alphabet::calls(scope, prog, &plain);
        let same = |e: &Effect| e.failed == want.failed && e.rep == want.rep;
        let mut found = None;
        let mut same_invariants = None;
        for c in cands {
            let e = effect(prog, scope, &plain, &c, opts);
            if same(&e) {
                found = Some((c, e));
                break;
            }
            if want.failed.is_some() && e.failed == want.failed && same_invariants.is_none() {
                same_invariants = Some((c, e));
            }
        }
        let Some((c, e)) = found.or(same_invariants) else {
            return Err(format!(
                "symmetry reduction: call {} of the counterexample ({call}) has no counterpart \
                 without the reduction; rerun without it",
                i + 1
            ));
        };
        out.push(c);
        if e.failed.is_some() {
            return Ok(out);
        }
        rep = want.rep;
        plain = e.plain;
    }
    Err("symmetry reduction: the counterexample's calls did not fail again".into())
}
