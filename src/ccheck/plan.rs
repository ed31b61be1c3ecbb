//! The passes of `check --kernel` with no narrowing flag: the model's passes
//! ([`crate::explore::plan::every_path`]) that the C can run, with the same names, scopes and
//! depths: `callers` (depth 4), `extended` (depth 3) and `contract` (depth 4). The model's
//! `walkers` and `walkers-deep` passes race walker threads against the calls; the harness runs
//! one call at a time and runs its walker checkpoints at every lock moment of every call of
//! every pass instead, so they have no pass of their own on the C.
//!
//! What every pass together leaves out is said once, in the plan line ([`left_out_by_all`]):
//! the model's items, with walker threads replaced by what the checkpoints cover, and the entry
//! points the harness cannot make, each with its reason.

use crate::entry::EntryPoint;
use crate::scope::Scope;

/// The C's passes, in the order they run.
pub fn passes() -> Vec<Scope> {
    crate::explore::plan::every_path()
        .into_iter()
        .filter(|s| s.walkers == 0)
        .collect()
}

/// `--max-depth d` applied to a pass, as the model's plan applies it.
pub fn set_depth(s: &mut Scope, d: u32) {
    crate::explore::plan::set_depth(s, d);
}

/// The entry points `scope` offers that the harness cannot make, each with its reason.
pub fn unreachable_entries(scope: &Scope) -> Vec<(EntryPoint, &'static str)> {
    EntryPoint::all()
        .filter(|p| offered(scope, *p))
        .filter_map(|p| crate::charness::calls::skip_reason(p).map(|r| (p, r)))
        .collect()
}

/// Whether `scope` offers entry point `p` (its mode and tier, or its `entries` list).
fn offered(scope: &Scope, p: EntryPoint) -> bool {
    let e = p.entry();
    if !scope.entries.is_empty() {
        return scope.entries.iter().any(|n| n == p.name());
    }
    let mode_ok = e.mode == crate::entry::Mode::Callers || scope.mode == e.mode;
    let tier_ok = e.tier == crate::entry::Tier::Core || scope.extended;
    mode_ok && tier_ok
}

/// What the passes leave out together (bounds aside, each pass's scope line has its own).
pub fn left_out_by_all(passes: &[Scope]) -> Vec<String> {
    let mut out: Vec<String> = crate::explore::plan::left_out_by_all(passes)
        .into_iter()
        .filter(|item| !item.starts_with("concurrent walkers"))
        .collect();
    out.push(
        "concurrent walker threads (the harness runs one call at a time; its walker \
         checkpoints run at every lock moment of every call, in every pass)"
            .to_string(),
    );
    let mut reasons: Vec<(&str, Vec<&str>)> = Vec::new();
    for p in passes {
        for (e, why) in unreachable_entries(p) {
            match reasons.iter_mut().find(|(w, _)| *w == why) {
                Some((_, v)) if !v.contains(&e.name()) => v.push(e.name()),
                Some(_) => {}
                None => reasons.push((why, vec![e.name()])),
            }
        }
    }
    for (why, names) in reasons {
        out.push(format!(
            "entry points the harness cannot make: {} ({why})",
            names.join(", ")
        ));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_c_runs_the_models_passes_without_walker_threads() {
        let names: Vec<String> = passes().into_iter().map(|s| s.name).collect();
        assert_eq!(names, ["callers", "extended", "contract"]);
        let model: Vec<String> = crate::explore::plan::every_path()
            .into_iter()
            .map(|s| s.name)
            .collect();
        assert!(names.iter().all(|n| model.contains(n)));
    }

    #[test]
    fn the_plan_line_names_what_the_harness_cannot_make() {
        let left = left_out_by_all(&passes());
        let joined = left.join("; ");
        // the extended pass offers CONFIG_STACK_GROWSUP's stack; the x86 harness has none
        assert!(joined.contains("setup_stack_growsup"), "{joined}");
        // the undo paths and the extended moves are made on the C
        for made in ["sys_munmap_abort", "sys_fork_fail", "sys_mremap_dontunmap"] {
            assert!(!joined.contains(made), "{made}: {joined}");
        }
        assert!(joined.contains("concurrent walker threads"), "{joined}");
        // contract calls are made on the C: not left out
        assert!(!joined.contains("contract_split"), "{joined}");
        // the contract pass covers the callers pass's "contract entry points" item
        assert!(!joined.contains("contract entry points"), "{joined}");
    }

    #[test]
    fn only_the_extended_pass_offers_unreachable_entries() {
        for s in passes() {
            let n = unreachable_entries(&s).len();
            assert_eq!(n > 0, s.extended, "{}: {n}", s.name);
        }
    }
}
