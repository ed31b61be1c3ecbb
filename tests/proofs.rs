//! The invariant suites: every proof obligation under proofs/ must give its expected verdict
//! (each model has a callers and a contract obligation; every mutant's names the invariant that
//! must fire). Counterexample traces of three mutants are kept as plain-text snapshots; set
//! `UPDATE_EXPECT=1` (expect-test) to rewrite them after an intended change.

use rmapcheck::cmd::load_model;
use rmapcheck::explore::proof::{prove, ProofFile};
use rmapcheck::trace::text;
use std::path::Path;

fn proof_files() -> Vec<std::path::PathBuf> {
    let mut v: Vec<_> = std::fs::read_dir("proofs")
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|e| e == "toml"))
        .collect();
    v.sort();
    v
}

#[test]
fn every_model_has_a_proof_file_with_both_modes() {
    let proofs: Vec<ProofFile> = proof_files()
        .iter()
        .map(|p| ProofFile::parse(&std::fs::read_to_string(p).unwrap()).unwrap())
        .collect();
    for m in rmapcheck::cmd::discover_models(Path::new("models"), true) {
        let rel = m.to_string_lossy().to_string();
        let pf = proofs
            .iter()
            .find(|p| p.model.to_string_lossy() == rel)
            .unwrap_or_else(|| panic!("no proof file for {rel}"));
        let modes: Vec<_> = pf.obligation.iter().map(|o| o.mode.to_string()).collect();
        assert!(modes.contains(&"callers".to_string()), "{rel}");
        assert!(modes.contains(&"contract".to_string()), "{rel}");
    }
}

/// The failures of one proof file, rendered.
fn failures_of(f: &Path) -> Vec<String> {
    let pf = ProofFile::parse(&std::fs::read_to_string(f).unwrap()).unwrap();
    let certs = prove(&pf, Path::new("."), &|p| load_model(p)).unwrap();
    certs
        .iter()
        .filter(|c| !c.passed())
        .map(|c| format!("{}:\n{}", f.display(), c.render()))
        .collect()
}

#[test]
fn every_proof_obligation_gives_its_expected_verdict() {
    // Two proof files at a time: one search leaves a core idle while it merges a level's
    // successors, and the other fills it. Each file's verdicts do not depend on the other.
    let files = proof_files();
    let next = std::sync::atomic::AtomicUsize::new(0);
    let workers = std::thread::available_parallelism().map_or(1, |n| n.get().min(2));
    let mut failed: Vec<(usize, String)> = std::thread::scope(|s| {
        let handles: Vec<_> = (0..workers)
            .map(|_| {
                s.spawn(|| {
                    let mut mine = Vec::new();
                    loop {
                        let i = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                        let Some(f) = files.get(i) else { break mine };
                        mine.extend(failures_of(f).into_iter().map(|m| (i, m)));
                    }
                })
            })
            .collect();
        handles
            .into_iter()
            .flat_map(|h| h.join().expect("a proof worker panicked"))
            .collect()
    });
    failed.sort();
    let failed: Vec<String> = failed.into_iter().map(|(_, m)| m).collect();
    assert!(failed.is_empty(), "{}", failed.join("\n"));
}

fn snapshot(mutant: &str, snap: &str) {
    let file = format!("proofs/mutant-{mutant}.toml");
    let pf = ProofFile::parse(&std::fs::read_to_string(&file).unwrap()).unwrap();
    let mut pf1 = pf.clone();
    pf1.obligation.truncate(1); // the callers-mode obligation
    let certs = prove(&pf1, Path::new("."), &|p| load_model(p)).unwrap();
    let t = certs[0].trace().expect("a counterexample");
    let prog = load_model(&pf.model).unwrap();
    let got = text::render(t, &prog);
    // expect-test: `UPDATE_EXPECT=1 cargo test --release --test proofs snapshot` rewrites
    expect_test::expect_file![format!("snapshots/{snap}.txt")].assert_eq(&got);
    assert!(got.lines().all(|l| l.len() <= 80 && l.is_ascii()));
}

#[test]
fn snapshot_remove_vma_twice() {
    snapshot("remove-vma-twice", "remove-vma-twice");
}

#[test]
fn snapshot_inplace_no_propagate() {
    snapshot("inplace-no-propagate", "inplace-no-propagate");
}

#[test]
fn snapshot_skip_anon_unlink_only() {
    snapshot("skip-anon-unlink-only", "skip-anon-unlink-only");
}
