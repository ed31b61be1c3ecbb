//! The uprobe registration walk (`uprobe_register_walk`, issue 14): `build_map_info()` takes
//! i_mmap_rwsem for read and iterates the file tree at the probed page, as `rmap_walk_file()`
//! does, and is held to the same `walker-complete` oracle. So every failure it can show,
//! `rmap_walk_file` shows too: on every model of the repository (baseline, patches, mutants)
//! and every interleaving example, the two walks give the same verdict at every page. The two
//! exceptions break one walk itself: `walker-no-lock` (`rmap_walk_file`) and
//! `uprobe-walk-no-lock` (the uprobe walk; proofs/mutant-uprobe-walk-no-lock.toml shows that
//! only the uprobe walk reaches it).

use crate::model_fixtures::load;
use rmapcheck::check::Invariant;
use rmapcheck::explore::interleave::{explore, setup, Config, IOutcome};
use rmapcheck::explore::walkers::walker_calls;
use rmapcheck::world::scenario::Call;

fn models() -> Vec<String> {
    let mut out = vec!["models/v7.3-rc4/baseline.rmap".to_string()];
    for dir in ["models/patches", "models/mutants"] {
        let mut v: Vec<String> = std::fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().path())
            .filter(|p| p.extension().is_some_and(|x| x == "rmap"))
            .map(|p| p.display().to_string())
            .filter(|p| {
                !p.ends_with("/walker-no-lock.rmap") && !p.ends_with("uprobe-walk-no-lock.rmap")
            })
            .collect();
        v.sort();
        out.extend(v);
    }
    out
}

const EXAMPLES: [&str; 3] = [
    "examples/interleave/munmap-middle.toml",
    "examples/interleave/fault-then-munmap-middle.toml",
    "examples/interleave/remap-merge-prev.toml",
];

/// The verdict of `writer` against `walker`: the invariant that fired, or none.
fn verdict(
    p: &rmapcheck::lang::Program,
    w: &rmapcheck::world::World,
    writer: &Call,
    walker: Call,
) -> Option<Invariant> {
    let calls = vec![writer.clone(), walker];
    let r = explore(p, "m", w, &calls, &Config::default()).unwrap();
    match r.outcome {
        IOutcome::Holds => None,
        IOutcome::Violation(t) => t.invariant(),
        IOutcome::Incomplete(m) => panic!("incomplete: {m}"),
    }
}

#[test]
fn the_uprobe_walk_fails_exactly_where_rmap_walk_file_does() {
    let (mut compared, mut failing) = (0, 0);
    for m in models() {
        let p = load(&m);
        for ex in EXAMPLES {
            let text = std::fs::read_to_string(ex).unwrap();
            let Ok((w, writer)) = setup(&p, &text) else {
                continue; // a mutant that fails in the setup calls
            };
            let files = walker_calls(&p, &w, &["file".to_string()]);
            let uprobes = walker_calls(&p, &w, &["uprobe".to_string()]);
            assert_eq!(files.len(), uprobes.len(), "{m} {ex}");
            for (f, u) in files.into_iter().zip(uprobes) {
                assert_eq!(f.args, u.args);
                let (a, b) = (
                    verdict(&p, &w, &writer, f.clone()),
                    verdict(&p, &w, &writer, u),
                );
                assert_eq!(a, b, "{m} {ex} {f}");
                compared += 1;
                failing += a.is_some() as usize;
            }
        }
    }
    // the comparison saw failures, not only runs that hold
    assert!(
        compared > 100 && failing > 0,
        "{compared} compared, {failing} failing"
    );
}

/// `uprobe` is offered only when named: a scope naming no kinds explores what it did before.
#[test]
fn the_uprobe_kind_is_offered_only_when_named() {
    let p = load("models/v7.3-rc4/baseline.rmap");
    let text = std::fs::read_to_string(EXAMPLES[0]).unwrap();
    let (w, _) = setup(&p, &text).unwrap();
    assert!(walker_calls(&p, &w, &[])
        .iter()
        .all(|c| c.func != "uprobe_register_walk" && c.func != "do_anonymous_fault_vma_lock"));
    assert!(walker_calls(&p, &w, &["uprobe".into()])
        .iter()
        .all(|c| c.func == "uprobe_register_walk"));
}
