//! The scopes `rmapcheck check` searches: the scope named on the command line with its
//! overrides (`--mode`, `--max-depth`, the reduction flags, `--simulate`), or the passes of
//! `check` with no flags, and the reductions `check` turns on by default.

use super::args::CheckArgs;
use crate::scope::Scope;

/// The scope after command-line overrides.
pub(crate) fn effective_scope(a: &CheckArgs) -> Result<Scope, String> {
    let mut s =
        Scope::load(a.scope.name.as_deref().unwrap_or("default")).map_err(|e| e.to_string())?;
    if let Some(m) = a.scope.mode {
        s.mode = m;
        if a.scope.name.is_none() {
            s.name = m.to_string();
        }
    }
    if let Some(d) = a.scope.max_depth {
        s.max_depth = d;
    }
    if a.symmetry {
        s.symmetry = true;
    }
    if a.file_symmetry {
        s.file_symmetry = true;
    }
    if a.commute {
        s.commute = true;
    }
    s.engine = a.engine;
    if a.cluster.given() && s.commute {
        return Err("the distributed search does not use sleep sets: no --commute".into());
    }
    if a.audit && (a.simulation().is_some() || a.cluster.given()) {
        return Err("--audit audits the single-process exhaustive search".into());
    }
    if let Some(sim) = &a.simulation() {
        if a.scope.max_depth.is_some() {
            return Err(
                "--max-depth bounds the exhaustive search; the walks of --simulate take --depth"
                    .into(),
            );
        }
        sim.validate()?;
        if s.symmetry {
            return Err("--simulate walks the unreduced worlds: no --symmetry".into());
        }
        if s.file_symmetry {
            return Err("--simulate walks the unreduced worlds: no --file-symmetry".into());
        }
        if s.commute {
            return Err("--simulate runs no breadth-first search: no --commute".into());
        }
        // the walks' depth, so that the scope line and the traces say it
        s.max_depth = sim.depth;
    }
    s.validate()?;
    Ok(s)
}

/// The scopes `check` runs: the passes of [`crate::explore::plan::every_path`] when no flag
/// narrows the run (no `--scope`, `--mode`, `--simulate`, distributed search or reduction),
/// each with `--max-depth`, the engine and `--audit` applied; else the one scope of
/// [`effective_scope`].
pub(crate) fn effective_scopes(a: &CheckArgs) -> Result<Vec<Scope>, String> {
    let narrowed = a.scope.name.is_some()
        || a.scope.mode.is_some()
        || a.simulation().is_some()
        || a.cluster.given()
        || a.symmetry
        || a.file_symmetry
        || a.commute;
    let mut scopes = if narrowed {
        vec![effective_scope(a)?]
    } else {
        let mut passes = crate::explore::plan::every_path();
        for s in &mut passes {
            if let Some(d) = a.scope.max_depth {
                crate::explore::plan::set_depth(s, d);
            }
            s.engine = a.engine;
        }
        passes
    };
    for s in &mut scopes {
        default_reductions(a, s);
        s.validate()?;
    }
    Ok(scopes)
}

/// Turn the symmetry reductions over mms and files on, as `check` does by default, in a scope
/// whose search they apply to: an exhaustive single-process search without walkers (a
/// counterexample against walkers could not be mapped back) that neither `--unreduced`,
/// `--audit`, a reduction flag nor the scope file settles otherwise. The reductions change
/// the states counted, never a verdict or a counterexample's length (`world::symmetry`;
/// `tests/model/reductions.rs` runs every model and mutant both ways).
fn default_reductions(a: &CheckArgs, s: &mut Scope) {
    let settled = a.unreduced
        || a.audit
        || a.symmetry
        || a.file_symmetry
        || a.commute
        || a.simulation().is_some()
        || a.cluster.given()
        || s.reductions_set;
    if !settled {
        s.reduce_by_default();
    }
}
