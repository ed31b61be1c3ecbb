//! The baseline and a patch model run the same concretised call sequence (callers mode); after
//! every call the VMA layout of each mm and the rmap walk answers must agree. With no patch
//! model under models/patches/ yet, the baseline is compared with itself (which still checks
//! the baseline's invariants and that the run is deterministic).
#![no_main]

mod common;

use libfuzzer_sys::fuzz_target;
use rmapcheck::fuzzing;
use std::sync::OnceLock;

/// (baseline index, patch indices), reported once per process.
fn pairs() -> &'static (usize, Vec<usize>) {
    static P: OnceLock<(usize, Vec<usize>)> = OnceLock::new();
    P.get_or_init(|| {
        let models = common::models();
        let Some(base) = fuzzing::baseline_index(models) else {
            eprintln!("equivalence: no baseline.rmap among the models");
            std::process::exit(2);
        };
        let mut patches = fuzzing::patch_indices(models);
        if patches.is_empty() {
            eprintln!(
                "equivalence: no patch model under models/patches/: comparing the baseline with itself"
            );
            patches.push(base);
        }
        (base, patches)
    })
}

fuzz_target!(|data: &[u8]| {
    let Ok(d) = fuzzing::decode(data) else {
        return;
    };
    let models = common::models();
    let (base, patches) = pairs();
    let patch = patches[d.model as usize % patches.len()];
    let r = fuzzing::run_equivalence(&models[*base].prog, &models[patch].prog, &d);
    let calls: Vec<String> = r.calls.iter().map(|c| c.to_string()).collect();
    if let Some((side, f)) = r.failure {
        panic!(
            "{}: call {} `{}` failed: {:?}\ncalls: {calls:?}",
            models[if side == 0 { *base } else { patch }].path.display(),
            f.index + 1,
            f.call,
            f.failure.violations
        );
    }
    if let Some(why) = r.divergence {
        panic!(
            "{} differs from {} after call {}: {why}\ncalls: {calls:?}",
            models[patch].path.display(),
            models[*base].path.display(),
            calls.len()
        );
    }
});
