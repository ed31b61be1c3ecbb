//! Decode an initial world, a model and a sequence of operations; run them on that model with
//! every invariant checked after every step. Any failure is a crash for libFuzzer to keep;
//! `rmapcheck replay-crash FILE` turns it back into a trace.
#![no_main]

mod common;

use libfuzzer_sys::fuzz_target;
use rmapcheck::fuzzing;

fuzz_target!(|data: &[u8]| {
    let Ok(d) = fuzzing::decode(data) else {
        return;
    };
    let models = common::models();
    let r = fuzzing::run_case(models, &d);
    if let Some(f) = r.failure {
        let calls: Vec<String> = r.calls.iter().map(|c| c.to_string()).collect();
        panic!(
            "{}: call {} `{}` failed: {:?}\ncalls: {calls:?}",
            models[r.model].path.display(),
            f.index + 1,
            f.call,
            f.failure.violations
        );
    }
});
