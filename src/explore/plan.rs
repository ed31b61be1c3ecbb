//! The passes of `rmapcheck check` with no `--scope` or `--mode`: every path the checker knows,
//! each pass a built-in scope with its own scope line and verdict line per model.
//!
//! - `callers`: the core callers-mode entry points, depth 4;
//! - `extended`: the core and extended callers-mode entry points (MAP_FIXED, the undo paths,
//!   the per-VMA-lock fault, the shrinking and MREMAP_DONTUNMAP moves, the upward stack),
//!   depth 3, where the extended alphabet stays affordable;
//! - `contract`: contract mode (the internal functions with any documented arguments, and
//!   non-linear file mappings), depth 4;
//! - `walkers`: one concurrent walker of every kind (`file`, `anon`, `flush`, `madv`, `fault`,
//!   `uprobe`) against every call made from a state of depth below 2, depth 4;
//! - `walkers-deep`: one walker of every kind against every call at every depth up to 4, in a
//!   smaller world (3 pages, one mm, at most 2 VMAs expanded, mappings up to 2 pages, no
//!   /dev/zero): the walker window a bug needs a few calls to open (faults, a second mapping,
//!   a move) before its racing call.
//!
//! Each bound is a field of the pass's scope and is printed in its scope line, with what the
//! pass leaves out ([`Scope::left_out`]); [`covered`] checks that what one pass leaves out
//! another covers.

use crate::scope::{Mode, Scope};

/// The passes, in the order they run.
pub fn every_path() -> Vec<Scope> {
    let d = Scope::default();
    let all_kinds: Vec<String> = crate::scope::WALKER_KINDS
        .iter()
        .chain(&crate::scope::EXTENDED_WALKER_KINDS)
        .map(|k| k.to_string())
        .collect();
    vec![
        Scope {
            name: "callers".into(),
            ..d.clone()
        },
        Scope {
            name: "extended".into(),
            extended: true,
            max_depth: 3,
            ..d.clone()
        },
        Scope {
            name: "contract".into(),
            mode: Mode::Contract,
            offsets: true,
            ..d.clone()
        },
        Scope {
            name: "walkers".into(),
            walkers: 1,
            walker_depth: 2,
            walker_kinds: all_kinds.clone(),
            ..d.clone()
        },
        Scope {
            name: "walkers-deep".into(),
            pages: 3,
            max_len: 2,
            max_mms: 1,
            max_vmas: 2,
            dev_zero: false,
            walkers: 1,
            walker_depth: 4,
            walker_kinds: all_kinds,
            ..d
        },
    ]
}

/// `--max-depth d` applied to a pass: its call depth becomes `d`. A pass whose walkers race
/// every call (`walker_depth` up to its depth, as `walkers-deep`) goes on racing every call
/// at the new depth; the others keep their walker window, cut at `d`.
pub fn set_depth(s: &mut Scope, d: u32) {
    let every_depth = s.walkers > 0 && s.walker_depth >= s.max_depth;
    s.max_depth = d;
    s.walker_depth = if every_depth {
        d
    } else {
        s.walker_depth.min(d)
    };
}

/// What the passes leave out together: each item of a pass's [`Scope::left_out`] that no other
/// pass offers, and the walker kinds no pass runs against calls from every depth. The bounds
/// are not compared (each pass prints its own).
pub fn left_out_by_all(passes: &[Scope]) -> Vec<String> {
    let mut out = Vec::new();
    for p in passes {
        for item in p.left_out() {
            if item.starts_with("walkers against") {
                // covered kind by kind by the passes whose walkers race every depth
                let deep = |k: &str| {
                    passes
                        .iter()
                        .any(|q| q.walkers > 0 && q.walker_depth >= q.max_depth && offers(q, k))
                };
                let kinds: Vec<&str> = all_kinds()
                    .into_iter()
                    .filter(|k| offers(p, k) && !deep(k))
                    .collect();
                if !kinds.is_empty() {
                    out.push(format!(
                        "walker kinds {} against calls from depth {}..{}",
                        kinds.join(", "),
                        p.walker_depth,
                        p.max_depth.saturating_sub(1)
                    ));
                }
            } else if !passes.iter().any(|q| covers(q, &item)) && !out.contains(&item) {
                out.push(item);
            }
        }
    }
    out
}

fn all_kinds() -> Vec<&'static str> {
    crate::scope::WALKER_KINDS
        .iter()
        .chain(&crate::scope::EXTENDED_WALKER_KINDS)
        .copied()
        .collect()
}

/// Whether pass `q` runs walkers of kind `k`.
fn offers(q: &Scope, k: &str) -> bool {
    q.walkers > 0
        && if q.walker_kinds.is_empty() {
            crate::scope::WALKER_KINDS.contains(&k)
        } else {
            q.walker_kinds.iter().any(|x| x == k)
        }
}

/// Whether pass `q` offers what `item` (an entry of another pass's left-out list) names.
fn covers(q: &Scope, item: &str) -> bool {
    match item.strip_prefix("walker kinds ") {
        Some(kinds) => kinds.split(", ").all(|k| offers(q, k)),
        None => !q.left_out().iter().any(|l| l == item),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_passes_together_leave_out_nothing_but_bounds() {
        let passes = every_path();
        assert!(
            left_out_by_all(&passes).is_empty(),
            "{:?}",
            left_out_by_all(&passes)
        );
        for p in &passes {
            p.validate().unwrap();
        }
    }

    #[test]
    fn a_deeper_search_keeps_each_pass_walker_window() {
        let deeper = |d| {
            let mut passes = every_path();
            for p in &mut passes {
                set_depth(p, d);
            }
            passes
        };
        for d in [1, 3, 5, 6] {
            let by_name = deeper(d);
            let pass = |n: &str| by_name.iter().find(|p| p.name == n).unwrap().clone();
            assert!(by_name.iter().all(|p| p.max_depth == d));
            // walkers-deep races every call at every depth
            assert_eq!(pass("walkers-deep").walker_depth, d);
            // walkers races calls from depth 0 and 1 only, whatever the depth
            assert_eq!(pass("walkers").walker_depth, d.min(2));
            assert_eq!(pass("callers").walkers, 0);
        }
        // at depth 5 the deep walkers still race every call
        assert!(left_out_by_all(&deeper(5)).is_empty());
        // a walkers-deep held at depth 4 leaves the calls of depth 4 to no walker
        let mut held = every_path();
        for p in &mut held {
            let w = p.walker_depth;
            set_depth(p, 5);
            p.walker_depth = p.walker_depth.min(w);
        }
        assert!(!left_out_by_all(&held).is_empty());
    }

    #[test]
    fn one_pass_alone_leaves_out_what_the_others_cover() {
        let passes = every_path();
        let callers = &passes[..1];
        let l = left_out_by_all(callers);
        assert!(
            l.iter().any(|x| x.starts_with("extended entry points")),
            "{l:?}"
        );
        assert!(l.iter().any(|x| x.starts_with("contract")), "{l:?}");
        assert!(
            l.iter().any(|x| x.starts_with("concurrent walkers")),
            "{l:?}"
        );
    }
}
