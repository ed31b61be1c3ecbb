//! The interleaving explorer: one writer call against concurrent walkers. The baseline holds on
//! each scenario; each concurrency mutant is caught with the property its header names, and the
//! trace shows both threads' steps; the reduction reports the same walker outcomes as the full
//! exploration while visiting fewer states.

use crate::model_fixtures::*;
use rmapcheck::check::Invariant;
use rmapcheck::explore::interleave::{explore, Config, IOutcome, IResult};
use rmapcheck::world::scenario::{Call, Scenario};

fn go(model: &str, world: &str, calls: &[&str], reduction: bool) -> IResult {
    let p = load(model);
    let w = Scenario::parse(world).unwrap().build().unwrap();
    let calls: Vec<Call> = calls.iter().map(|c| Call::parse(c).unwrap()).collect();
    let cfg = Config {
        reduction,
        ..with_table(&p)
    };
    explore(&p, model, &w, &calls, &cfg).unwrap()
}

fn holds(model: &str, world: &str, calls: &[&str]) -> IResult {
    let r = go(model, world, calls, true);
    match &r.outcome {
        IOutcome::Holds => {}
        IOutcome::Violation(t) => panic!("{model}: {:?}\n{:?}", t.violations, t.steps),
        IOutcome::Incomplete(m) => panic!("{model}: incomplete: {m}"),
    }
    r
}

fn caught(model: &str, world: &str, calls: &[&str], invariant: Invariant) -> IResult {
    let r = go(model, world, calls, true);
    match &r.outcome {
        IOutcome::Violation(t) => {
            assert_eq!(t.invariant(), Some(invariant), "{:?}", t.violations);
            let tids: std::collections::BTreeSet<u8> = t.steps.iter().map(|s| s.tid).collect();
            assert!(
                tids.len() >= 2,
                "the trace shows both threads: {:?}",
                t.steps
            );
        }
        o => panic!("{model}: expected {invariant}, got {o:?}"),
    }
    r
}

const MUNMAP_MIDDLE: &str = "sys_munmap(mm#0, 3, 5)";

#[test]
fn lock_dropped_between_caught_by_file_walker() {
    let calls = [MUNMAP_MIDDLE, "rmap_walk_file(mapping#0, 105)"];
    holds(BASELINE, ONE_FILE_VMA, &calls);
    caught(
        "models/mutants/lock-dropped-between.rmap",
        ONE_FILE_VMA,
        &calls,
        Invariant::WalkerComplete,
    );
}

fn without(inv: Invariant) -> rmapcheck::check::InvariantSet {
    rmapcheck::check::InvariantSet::all().without(inv)
}

fn go_with(model: &str, world: &str, calls: &[&str], cfg: Config) -> IResult {
    let p = load(model);
    let w = Scenario::parse(world).unwrap().build().unwrap();
    let calls: Vec<Call> = calls.iter().map(|c| Call::parse(c).unwrap()).collect();
    explore(&p, model, &w, &calls, &cfg).unwrap()
}

fn invariant_of(r: &IResult) -> Result<Invariant, String> {
    match &r.outcome {
        IOutcome::Violation(t) => {
            let tids: std::collections::BTreeSet<u8> = t.steps.iter().map(|s| s.tid).collect();
            assert!(
                tids.len() >= 2,
                "the trace shows both threads: {:?}",
                t.steps
            );
            t.invariant().ok_or_else(|| format!("{t:?}"))
        }
        o => Err(format!("{o:?}")),
    }
}

#[test]
fn walker_without_lock() {
    let m = "models/mutants/walker-no-lock.rmap";
    let calls = [MUNMAP_MIDDLE, "rmap_walk_file(mapping#0, 105)"];
    // with every check, the unlocked query itself is reported
    let r = go(m, ONE_FILE_VMA, &calls, true);
    match &r.outcome {
        IOutcome::Violation(t) => assert_eq!(t.invariant(), Some(Invariant::LockDiscipline)),
        o => panic!("{o:?}"),
    }
    // and what it leads to: a walk that misses the VMA being split
    let cfg = Config {
        invariants: without(Invariant::LockDiscipline),
        ..Config::default()
    };
    assert_eq!(
        invariant_of(&go_with(m, ONE_FILE_VMA, &calls, cfg)),
        Ok(Invariant::WalkerComplete)
    );
}

#[test]
fn flush_unlock_before_rekey_visible_only_to_flush_dcache_walker() {
    let m = "models/mutants/flush-unlock-before-rekey.rmap";
    let flush = [MUNMAP_MIDDLE, "flush_dcache_walk(mapping#0, 105)"];
    let file = [MUNMAP_MIDDLE, "rmap_walk_file(mapping#0, 105)"];
    holds(BASELINE, ONE_FILE_VMA, &flush);
    holds(m, ONE_FILE_VMA, &file);
    caught(m, ONE_FILE_VMA, &flush, Invariant::WalkerComplete);
}

/// split-no-vma-start-write: the writer alone already reports the unlocked range change
/// (lock-discipline); a concurrent MADV_DONTNEED under the per-VMA lock sees the bounds move.
#[test]
fn split_without_vma_start_write_moves_a_read_locked_vma() {
    let m = "models/mutants/split-no-vma-start-write.rmap";
    let calls = [MUNMAP_MIDDLE, "madvise_dontneed(mm#0, 0, 2)"];
    let r = holds(BASELINE, ONE_FILE_VMA, &calls);
    // both paths of the reader are reached on the baseline: per-VMA lock (0) and fallback (1)
    let rets: std::collections::BTreeSet<String> =
        r.outcomes.iter().map(|o| o[1].clone()).collect();
    assert_eq!(rets.len(), 2, "{rets:?}");
    let cfg = Config {
        invariants: without(Invariant::LockDiscipline),
        ..Config::default()
    };
    assert_eq!(
        invariant_of(&go_with(m, ONE_FILE_VMA, &calls, cfg)),
        Ok(Invariant::VmaLockStable)
    );
}

#[test]
fn madvise_fallback_holding_vma_lock_deadlocks() {
    let m = "models/mutants/madv-fallback-holding-vma-lock.rmap";
    let calls = [MUNMAP_MIDDLE, "madvise_dontneed(mm#0, 0, 9)"];
    holds(BASELINE, ONE_FILE_VMA, &calls);
    let r = caught(m, ONE_FILE_VMA, &calls, Invariant::Deadlock);
    let g = rmapcheck::explore::lockorder::LockGraph::new(&r.lock_edges);
    let v = g.check();
    assert!(
        v.iter().any(|x| x.invariant == Invariant::LockOrder),
        "{v:?}"
    );
}

/// The excuse rule of walker-complete: on lock-dropped-between, munmap of [0, 3) splits off
/// the upper part (linked early) and only shrinks vma#0's end; a walk of pgoff 105 in the window
/// misses vma#0 but finds the upper half, which maps the same page at the same address. That
/// is enough for try_to_unmap and friends, so it is not a violation. (A walk of pgoff 101 during
/// munmap of [3, 5) is one: it can start while vma#0 is torn, vm_start moved and vm_pgoff not.)
#[test]
fn same_page_through_the_other_half_of_a_split_counts() {
    let calls = ["sys_munmap(mm#0, 0, 3)", "rmap_walk_file(mapping#0, 105)"];
    holds(
        "models/mutants/lock-dropped-between.rmap",
        ONE_FILE_VMA,
        &calls,
    );
}

/// Private anonymous mapping [0, 8) with its anon_vma, split by mprotect; anon walks run clean.
const ANON: &str = r#"
[[anon_vma]]
name = "A"
[[mm]]
[[mm.vma]]
start = 0
end = 8
pgoff = 0
anon_vmas = ["A"]
"#;

/// The baseline holds against every generated walker (each kind, every pgoff) for a split of
/// a file VMA, a split of an anon VMA and a munmap, and the three explorers agree on the
/// outcomes: no reduction, the reduction against whole entry functions (no table) and the one
/// against what each thread may still do (the table), which never explores more states than
/// the former and fewer somewhere.
#[test]
fn baseline_holds_against_every_walker_and_reduction_keeps_outcomes() {
    use rmapcheck::explore::walkers::walker_calls;
    let p = load(BASELINE);
    let table = with_table(&p);
    let mut reduced_total = 0;
    let mut remaining_saved = 0;
    for (world, writer) in [
        (ONE_FILE_VMA, MUNMAP_MIDDLE),
        (ONE_FILE_VMA, "sys_mprotect(mm#0, 2, 6, false)"),
        (ANON, "sys_mprotect(mm#0, 0, 3, false)"),
        (ANON, "sys_munmap(mm#0, 2, 4)"),
    ] {
        let w = Scenario::parse(world).unwrap().build().unwrap();
        for k in walker_calls(&p, &w, &[]) {
            let calls = vec![Call::parse(writer).unwrap(), k.clone()];
            let on = explore(&p, "baseline", &w, &calls, &Config::default()).unwrap();
            assert!(
                matches!(on.outcome, IOutcome::Holds),
                "{writer} | {k}: {:?}",
                on.outcome
            );
            let off = Config {
                reduction: false,
                ..Config::default()
            };
            let off = explore(&p, "baseline", &w, &calls, &off).unwrap();
            assert_eq!(on.outcomes, off.outcomes, "{writer} | {k}");
            assert!(on.stats.states <= off.stats.states);
            reduced_total += off.stats.states - on.stats.states;
            let rest = explore(&p, "baseline", &w, &calls, &table).unwrap();
            assert!(matches!(rest.outcome, IOutcome::Holds), "{writer} | {k}");
            assert_eq!(rest.outcomes, off.outcomes, "{writer} | {k}");
            assert!(rest.stats.states <= on.stats.states, "{writer} | {k}");
            remaining_saved += on.stats.states - rest.stats.states;
        }
    }
    assert!(reduced_total > 0, "the reduction saves states somewhere");
    assert!(
        remaining_saved > 0,
        "looking at what a thread may still do saves states somewhere"
    );
}

/// Two walkers and the writer: the reduction keeps every outcome and explores fewer states.
#[test]
fn two_walkers_reduction_is_exact_on_outcomes() {
    let p = load(BASELINE);
    let w = Scenario::parse(ONE_FILE_VMA).unwrap().build().unwrap();
    let calls: Vec<Call> = [
        MUNMAP_MIDDLE,
        "rmap_walk_file(mapping#0, 105)",
        "madvise_dontneed(mm#0, 0, 2)",
    ]
    .iter()
    .map(|c| Call::parse(c).unwrap())
    .collect();
    let on = explore(&p, "b", &w, &calls, &with_table(&p)).unwrap();
    let off = Config {
        reduction: false,
        ..Config::default()
    };
    let off = explore(&p, "b", &w, &calls, &off).unwrap();
    let whole = explore(&p, "b", &w, &calls, &Config::default()).unwrap();
    assert!(matches!(on.outcome, IOutcome::Holds));
    assert!(matches!(off.outcome, IOutcome::Holds));
    assert!(matches!(whole.outcome, IOutcome::Holds));
    assert_eq!(on.outcomes, off.outcomes);
    assert_eq!(whole.outcomes, off.outcomes);
    assert!(on.stats.states <= whole.stats.states);
    assert!(
        on.stats.states < off.stats.states,
        "{:?} {:?}",
        on.stats,
        off.stats
    );
}

/// The observed lock order of the baseline follows mm/rmap.c; the interleaved trace fits 80
/// columns and shows a thread column.
#[test]
fn lock_order_and_trace_rendering() {
    let p = load(BASELINE);
    let scope = rmapcheck::scope::Scope::builtin("tiny").unwrap();
    let edges = rmapcheck::cmd::locks::observe(&p, &scope).unwrap();
    let g = rmapcheck::explore::lockorder::LockGraph::new(&edges);
    assert!(g.check().is_empty(), "{:?}", g.check());
    assert!(
        g.dot().contains("\"mmap_lock\" -> \"i_mmap_rwsem\""),
        "{}",
        g.dot()
    );

    let m = "models/mutants/lock-dropped-between.rmap";
    let r = go(
        m,
        ONE_FILE_VMA,
        &[MUNMAP_MIDDLE, "rmap_walk_file(mapping#0, 105)"],
        true,
    );
    let IOutcome::Violation(t) = r.outcome else {
        panic!("not caught")
    };
    let text = rmapcheck::trace::interleaved::render(&t, &load(m));
    for l in text.lines() {
        assert!(l.len() <= 80 && l.is_ascii(), "{l:?}");
    }
    assert!(text.contains("T0 ") && text.contains("T1"), "{text}");
    assert!(text.contains("missed vma#0"), "{text}");
}

/// The subcommand: a counterexample exits 1 with the interleaved trace; bad walker calls, an
/// unknown kind and a scenario without calls are errors (exit 2), not panics.
#[test]
fn interleave_subcommand() {
    use rmapcheck::cmd::interleave::{interleave, InterleaveArgs};
    let args = |model: &str, walker: &[&str], kinds: &[&str]| InterleaveArgs {
        model: model.into(),
        ops: "examples/interleave/munmap-middle.toml".into(),
        walker: walker.iter().map(|s| s.to_string()).collect(),
        walkers: Some(1),
        kinds: kinds.iter().map(|s| s.to_string()).collect(),
        scope: None,
        no_reduction: false,
        audit: false,
        max_states: 0,
        progress: false,
    };
    let run = |a: &InterleaveArgs| {
        let (mut out, mut err) = (Vec::new(), Vec::new());
        let rc = rmapcheck::cmd::exit_status(interleave(a, &mut out), &mut err);
        (
            rc,
            String::from_utf8(out).unwrap(),
            String::from_utf8(err).unwrap(),
        )
    };
    let (rc, out, _) = run(&args(BASELINE, &[], &["file", "flush"]));
    assert_eq!(rc, 0, "{out}");
    let m = "models/mutants/lock-dropped-between.rmap";
    let (rc, out, _) = run(&args(m, &[], &["file"]));
    assert_eq!(rc, 1);
    assert!(out.contains("COUNTEREXAMPLE walker-complete"), "{out}");
    assert!(out.lines().all(|l| l.len() <= 80), "{out}");
    let (rc, _, err) = run(&args(BASELINE, &["rmap_walk_file(mapping#0"], &[]));
    assert_eq!(rc, 2, "{err}");
    let (rc, _, err) = run(&args(BASELINE, &["no_such_walker(1)"], &[]));
    assert_eq!(rc, 2, "{err}");
    let (rc, _, err) = run(&args(BASELINE, &[], &["bogus"]));
    assert_eq!(rc, 2, "{err}");
}
