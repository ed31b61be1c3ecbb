//! The interleaving reduction keeps every counterexample: one writer against one walker where
//! the bug shows only in some orders of their steps, each case a hole a footprint once had
//! (found in review). Each must give the same violated invariant with no reduction, with the
//! reduction against whole entry functions, and with the one against what each thread may
//! still do (the footprint table, as a search's walker phase explores). The models (in
//! `reduction/`) include the baseline and redefine one writer or walker.

use crate::model_fixtures::{crosschecked, with_table};
use rmapcheck::check::Invariant;
use rmapcheck::explore::interleave::{explore, setup, Config, IOutcome};
use rmapcheck::lang::Program;
use rmapcheck::world::scenario::Call;
use rmapcheck::world::World;
use std::path::Path;

/// `reduction/NAME.rmap`, the world its `NAME.toml` sets up (its calls but the last), and the
/// threads: that last call (the writer), then `walker`.
fn pair(name: &str, walker: &str) -> (Program, World, Vec<Call>) {
    let dir = Path::new("tests/model/reduction");
    let prog = rmapcheck::models::load_model(&dir.join(format!("{name}.rmap")))
        .unwrap_or_else(|e| panic!("{name}: {e}"));
    let text = std::fs::read_to_string(dir.join(format!("{name}.toml"))).unwrap();
    let (world, writer) = setup(&prog, &text).unwrap_or_else(|e| panic!("{name}: {e}"));
    (prog, world, vec![writer, Call::parse(walker).unwrap()])
}

/// [`pair`]`(name, walker)`: every explorer must report `want`.
fn caught_by_all(name: &str, walker: &str, want: Invariant) {
    let (prog, world, calls) = pair(name, walker);
    let configs = [
        (
            "no reduction",
            Config {
                reduction: false,
                ..Config::default()
            },
        ),
        ("whole functions", Config::default()),
        ("remaining footprints", with_table(&prog)),
    ];
    for (what, cfg) in configs {
        let r = explore(&prog, name, &world, &calls, &cfg).unwrap();
        match &r.outcome {
            IOutcome::Violation(t) => {
                assert_eq!(
                    t.invariant(),
                    Some(want),
                    "{name}, {what}: {:?}",
                    t.violations
                )
            }
            other => panic!("{name}, {what}: {other:?}"),
        }
    }
}

/// A writer that breaks a file-tree key without the rmap locks and restores it before it
/// returns, against a walker that takes the flush_dcache lock (which makes the tree count as
/// locked for the per-step check): the breakage shows only in the orders where the walker
/// does not hold that lock. Taking or dropping a tree's write-side lock reads what the
/// per-step check reads (`footprint::TREE_CHECKED`).
#[test]
fn a_transient_tree_breakage_is_found_whoever_holds_the_flush_lock() {
    caught_by_all(
        "transient-breakage-under-flush-lock",
        "flush_dcache_walk(mapping#0, 50)",
        Invariant::Augment,
    );
}

/// `World::observe` excuses a pte of a stack whose setup is incomplete (a `vm_flags` bit):
/// the walk oracle reads the flags. A stack marked incomplete only after `vma_expand()`
/// leaves a window in which an anon walk misses a pte.
#[test]
fn a_flag_write_is_seen_by_the_walk_oracle() {
    caught_by_all(
        "stack-flag-after-expand",
        "rmap_walk_anon(anon_vma#0, 3)",
        Invariant::RmapComplete,
    );
    caught_by_all(
        "flag-excuse-window",
        "rmap_walk_file(mapping#0, 1)",
        Invariant::RmapComplete,
    );
}

/// A zap clears ghost ptes, which the walk oracle reads: a re-key that leaves a pte behind is
/// visible to a walk until the zap.
#[test]
fn a_zap_writes_the_ptes_a_walk_must_reach() {
    caught_by_all(
        "zap-after-rekey",
        "rmap_walk_file(mapping#0, 1)",
        Invariant::RmapComplete,
    );
}

/// A write of `vma->anon_vma` asks whether the VMA is still in its mm's list.
#[test]
fn an_anon_vma_write_reads_the_mm_list() {
    caught_by_all(
        "anon-vma-set-after-clear",
        "madvise_dontneed(mm#0, 0, 4)",
        Invariant::LockDiscipline,
    );
}

/// A builtin given a freed VMA faults: every builtin reads whether its objects are alive.
#[test]
fn a_builtin_reads_whether_its_vma_is_alive() {
    caught_by_all(
        "vma-pages-after-free",
        "madvise_dontneed(mm#0, 0, 4)",
        Invariant::ModelFault,
    );
}

/// The walker phase of a search of the baseline in `scope` to `depth`, every step of it
/// cross-checked: the differences, and how many checks and independence claims ran.
fn audited_walker_phase(
    scope: rmapcheck::scope::Scope,
    depth: u32,
) -> (crate::model_fixtures::Crosschecked, u64) {
    use rmapcheck::checker::budget::Budget;
    use rmapcheck::checker::{self, Config as CheckerConfig, Verdict};
    use rmapcheck::explore::interleave::independence_claims;
    use rmapcheck::explore::search::{CallFailure, CallSystem};

    let (claims, seen) = crosschecked(|| {
        let claims = independence_claims();
        let prog =
            rmapcheck::models::load_model(Path::new("models/v7.3-rc4/baseline.rmap")).unwrap();
        let mut scope = scope;
        scope.max_depth = depth;
        let budget = Budget::unlimited();
        let sys = CallSystem::new(&prog, &scope, budget.clone());
        let cfg = CheckerConfig {
            max_depth: scope.max_depth,
            max_states: scope.max_states,
            threads: 1,
            batch: 256,
        };
        let (verdict, stats) = checker::bfs(&sys, &cfg, &budget, &mut |_| {});
        let failure = match &verdict {
            Verdict::Failed {
                failure: CallFailure::Interleaving(t),
                ..
            } => format!("{:?}", t.violations),
            _ => String::new(),
        };
        assert!(
            matches!(verdict, Verdict::Holds { .. }),
            "the baseline holds {failure}"
        );
        assert!(stats.transitions > 0);
        independence_claims() - claims
    });
    println!(
        "{} cross-checks, {claims} independence claims",
        seen.compared
    );
    (seen, claims)
}

/// With cross-checking on, the interleaving explorer audits every step it takes: the classes
/// the step changed must be written by its footprint (`footprint_audit`), and every time the
/// reduction steps one thread alone, that step must commute with each other thread's steps
/// on its own (`interleave::independence`). The baseline's walker phase at depth 2 of the
/// walkers scope (every call of the scope's first level against every walker it generates)
/// and the regression models above, with and without the reduction, give no difference.
#[test]
fn every_step_of_the_walker_phase_keeps_to_its_footprint() {
    let (seen, claims) =
        audited_walker_phase(rmapcheck::scope::Scope::builtin("walkers").unwrap(), 2);
    assert!(seen.compared > 1_000_000, "{} cross-checks", seen.compared);
    assert!(claims > 1_000_000, "{claims} independence claims audited");
    let d = &seen.differences;
    assert!(d.is_empty(), "{} differences, first {}", d.len(), d[0]);
    let ((), seen) = crosschecked(|| {
        for (name, walker) in [
            ("stack-flag-after-expand", "rmap_walk_anon(anon_vma#0, 3)"),
            ("zap-after-rekey", "rmap_walk_file(mapping#0, 1)"),
            ("vma-pages-after-free", "madvise_dontneed(mm#0, 0, 4)"),
        ] {
            let (p, world, calls) = pair(name, walker);
            let cfg = Config {
                reduction: false,
                ..Config::default()
            };
            explore(&p, name, &world, &calls, &cfg).unwrap();
            explore(&p, name, &world, &calls, &with_table(&p)).unwrap();
        }
    });
    assert!(seen.compared > 0);
    let d = &seen.differences;
    assert!(d.is_empty(), "{} differences, first {}", d.len(), d[0]);
}

/// The same audit on the per-VMA-lock write faults as the concurrent threads
/// (`proofs/scopes/fault-walkers.toml`), which write the world as the writers do.
#[test]
fn every_step_against_the_fault_walkers_keeps_to_its_footprint() {
    let text = std::fs::read_to_string("proofs/scopes/fault-walkers.toml").unwrap();
    let scope = rmapcheck::scope::Scope::parse(&text).unwrap();
    let (seen, claims) = audited_walker_phase(scope, 2);
    assert!(claims > 100_000, "{claims} independence claims audited");
    let d = &seen.differences;
    assert!(d.is_empty(), "{} differences, first {}", d.len(), d[0]);
}

/// Two walkers of one kind: the order in which they begin their walks is not part of the state
/// (the world keeps the walk records in thread order), so the audit finds that the reduction's
/// claims between them hold, and the two orders meet in one state.
#[test]
fn two_walkers_of_one_kind_commute_in_the_audit() {
    use rmapcheck::explore::interleave::independence_claims;
    let prog = crate::model_fixtures::load(crate::model_fixtures::BASELINE);
    let text = std::fs::read_to_string("examples/interleave/munmap-middle.toml").unwrap();
    let (world, writer) = setup(&prog, &text).unwrap();
    let calls = [
        writer,
        Call::parse("rmap_walk_file(mapping#0, 101)").unwrap(),
        Call::parse("rmap_walk_file(mapping#0, 106)").unwrap(),
    ];
    let (claims, seen) = crosschecked(|| {
        let claims = independence_claims();
        let r = explore(&prog, "two-walkers", &world, &calls, &with_table(&prog)).unwrap();
        assert!(matches!(r.outcome, IOutcome::Holds), "{:?}", r.outcome);
        independence_claims() - claims
    });
    assert!(claims > 100, "{claims} claims");
    let d = &seen.differences;
    assert!(d.is_empty(), "{} differences, first {}", d.len(), d[0]);
}

/// A write to a VMA that is in no mm list and no tree is taken alone only while no other
/// thread holds the VMA (`interleave::private`): here the walker looked the VMA up before
/// the writer took it out of the list, and sees it emptied between two writes.
#[test]
fn a_vma_out_of_every_list_is_private_only_while_no_thread_holds_it() {
    caught_by_all(
        "held-after-unpublish",
        "madvise_dontneed(mm#0, 0, 4)",
        Invariant::ModelAssert,
    );
}

/// A detached VMA that is not freed can be found again by its mm (`mas_detach_first`), so it
/// is not private to the thread that holds it: here the walker holds it while the writer,
/// holding no pointer to it for a moment, finds it again and empties it.
#[test]
fn a_detached_vma_can_be_found_again() {
    caught_by_all(
        "refound-detached",
        "madvise_dontneed(mm#0, 0, 4)",
        Invariant::ModelAssert,
    );
}
