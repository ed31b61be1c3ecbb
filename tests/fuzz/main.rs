//! Fuzzing in `cargo test`: proptest cases and state machines, the committed corpora, and the
//! fuzz findings kept as regressions.
//!
//! One test binary for the area (each file below is a module), so the suite links a few
//! binaries instead of one per file.
mod entry_table;
mod fuzz_cases;
mod fuzz_corpus;
mod fuzz_findings;
mod fuzz_state_machine;
#[path = "../common/fuzz_strategy.rs"]
mod fuzz_strategy;
