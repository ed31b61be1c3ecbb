//! The models and the checks: the baseline's scenarios, invariants firing on corrupted worlds,
//! compare, interleavings, mutants and patches, ghost page tables, world builtins.
//!
//! One test binary for the area (each file below is a module), so the suite links a few
//! binaries instead of one per file.
mod baseline_scenarios;
mod check_invariants;
mod commute;
mod compare;
mod deep_search;
mod engine_diff;
mod every_path;
mod fault_vma_lock;
mod fidelity_doc;
mod frontier;
mod incremental_checks;
mod independence_audit;
mod interleave;
mod mmap_fixed;
#[path = "../model_fixtures/mod.rs"]
mod model_fixtures;
mod mutant_models;
mod pages;
mod patch_models;
mod reduction_footprints;
mod remap;
mod remap_ext;
mod stack;
mod symmetry;
mod undo;
mod uprobe_walk;
mod v7_2;
mod vm_account;
mod world_basics;
