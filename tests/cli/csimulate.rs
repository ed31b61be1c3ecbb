//! `check --kernel DIR --simulate WALKS --depth D --seed S`: seeded random walks on the kernel's
//! C, on the checker core's generic walks. The unpatched tree gives incomplete (exit 3), never
//! holds, and says how many walks and C calls it made; a deep C mutant that no search of depth
//! 4 finds is found and shrunk to the calls it needs; the breadth-first search, the walks and
//! the distributed search run the same C system (a test of each on one harness).

use super::ccheck::check;
use super::kernel_tree::tree;
use rmapcheck::ccheck::{self, Run, Source};
use rmapcheck::checker::walk::Walks;
use rmapcheck::checker::Verdict;
use rmapcheck::cmd::load_model;
use rmapcheck::explore::distributed::Cluster;
use rmapcheck::scope::Scope;
use std::path::{Path, PathBuf};

const DEEP: &str = "cmutants/deep/rb-erase-right-rotate-stays-black.toml";

/// The number in `... after call N of N` of a C counterexample.
fn failing_call(out: &str) -> usize {
    let at = out.find("after call ").expect("a counterexample") + "after call ".len();
    out[at..]
        .split_whitespace()
        .next()
        .and_then(|n| n.parse().ok())
        .expect("a call number")
}

#[test]
fn walks_on_the_unpatched_tree_are_incomplete_and_count_their_c_calls() {
    let Some((rc, out, err)) = check(&["--simulate", "150", "--depth", "24", "--seed", "1"]) else {
        return;
    };
    assert_eq!(rc, 3, "{out}{err}");
    assert!(
        out.contains("deep random search: 150 walks of up to 24 calls, seed 1"),
        "{out}"
    );
    assert!(
        out.contains("incomplete: simulated 150 walks, depth 24, seed 1; no walk failed;"),
        "{out}"
    );
    assert!(!out.contains(": holds"), "{out}");
    let calls: u64 = out
        .split(" C calls)")
        .next()
        .and_then(|s| s.rsplit(", ").next())
        .and_then(|s| s.parse().ok())
        .unwrap_or(0);
    assert!(calls > 1000, "{out}");
}

#[test]
fn a_deep_c_mutant_is_found_by_the_walks_and_shrunk() {
    // no consequence search: it would add a minute of breadth-first searches of the C
    let d = tempfile::tempdir().unwrap();
    let scope = d.path().join("scope.toml");
    std::fs::write(&scope, "consequence_seconds = 0\n").unwrap();
    let args = [
        "--c-mutant",
        DEEP,
        "--scope",
        scope.to_str().unwrap(),
        "--simulate",
        "2000",
        "--depth",
        "24",
        "--seed",
        "1",
        "--deepen-budget",
        "0",
    ];
    let Some((rc, out, err)) = check(&args) else {
        return;
    };
    assert_eq!(rc, 1, "{out}{err}");
    assert!(
        out.contains("COUNTEREXAMPLE in the C: rb-shape after call"),
        "{out}"
    );
    assert!(out.contains("unequal black heights"), "{out}");
    // deeper than any breadth-first search of depth 4 (which holds on this mutant: see the
    // spec's figures), and shrunk from the failing walk's own length
    let n = failing_call(&out);
    assert!(n > 4, "{out}");
    assert!(
        out.contains(&format!("shrunk to the {n} the failure needs")),
        "{out}"
    );
}

/// The C system under each search of the checker core: the breadth-first search holds at
/// depth 2, walks of depth 2 see no state it did not (every walk state is within depth 2), and
/// the distributed search on two workers sees the same states and transitions.
#[test]
fn the_c_system_runs_under_the_search_and_the_walks() {
    let Some(t) = tree() else { return };
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let prog = load_model(&root.join("models/v7.3-rc4/baseline.rmap")).unwrap();
    let mut scope = Scope::load("default").unwrap();
    scope.max_depth = 2;
    let src = Source {
        kernel: t,
        ..Source::default()
    };
    let prep = ccheck::prepare(&src).unwrap();
    let run = |walks: Option<Walks>, cluster: Option<&Cluster>| {
        Run {
            binary: Path::new(&prep.built.binary),
            baseline: None,
            threads: 2,
            env: Vec::new(),
            walks,
            cluster,
        }
        .go(&prog, &scope, &mut |_| {})
        .unwrap()
    };
    let bfs = run(None, None);
    assert!(
        matches!(bfs.verdict, Verdict::Holds { .. }),
        "{:?}",
        bfs.verdict
    );
    let walks = run(
        Some(Walks {
            walks: 300,
            depth: 2,
            seed: 7,
        }),
        None,
    );
    match &walks.verdict {
        Verdict::Incomplete { reason, .. } => {
            assert_eq!(reason, "simulated 300 walks, depth 2, seed 7")
        }
        v => panic!("{v:?}"),
    }
    assert!(walks.stats.states > 1);
    assert!(
        walks.stats.states <= bfs.stats.states,
        "{} > {}",
        walks.stats.states,
        bfs.stats.states
    );
    assert!(walks.c_calls > 0 && walks.stats.depth == 2);
    // the distributed search on two timely workers: the same states and transitions
    let cluster = Cluster {
        workers: 2,
        process: 0,
        addresses: Vec::new(),
        connect_timeout: std::time::Duration::from_secs(5),
    };
    let dist = run(None, Some(&cluster));
    assert!(
        matches!(dist.verdict, Verdict::Holds { .. }),
        "{:?}",
        dist.verdict
    );
    assert_eq!(dist.stats.states, bfs.stats.states);
    assert_eq!(dist.stats.transitions, bfs.stats.transitions);
}
