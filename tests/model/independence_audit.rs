//! The audit of the reduction's independence claims (`interleave::independence`, on with
//! cross-checking) catches a footprint that leaves out a class a step reads or writes: each
//! footprint hole once found in review (the cases of `reduction_footprints.rs`) is opened
//! again in a mutant footprint table, and the reduced exploration of that case, with the
//! mutant table, must record a claim that does not hold. With the real table the same
//! explorations record none (`reduction_footprints.rs`).

use crate::model_fixtures::crosschecked;
use rmapcheck::explore::footprint::{Class, Mode, Table, TREE_CHECKED};
use rmapcheck::explore::interleave::{explore, setup, Config, IOutcome};
use rmapcheck::world::scenario::Call;
use std::path::Path;
use std::sync::Arc;

/// Explore case `name` of `reduction/` (its writer against `walker`) with the reduction and
/// the table `mutant(prog)`, cross-checked; the differences recorded, and whether the
/// reduced exploration still found the case's bug.
fn audit(name: &str, walker: &str, mutant: impl Fn(&rmapcheck::lang::Program) -> Table) {
    let dir = Path::new("tests/model/reduction");
    let prog = rmapcheck::models::load_model(&dir.join(format!("{name}.rmap"))).unwrap();
    let text = std::fs::read_to_string(dir.join(format!("{name}.toml"))).unwrap();
    let (world, writer) = setup(&prog, &text).unwrap();
    let calls = [writer, Call::parse(walker).unwrap()];
    let cfg = Config {
        footprints: Some(Arc::new(mutant(&prog))),
        ..Config::default()
    };
    let (r, seen) = crosschecked(|| explore(&prog, name, &world, &calls, &cfg).unwrap());
    let claims: Vec<&String> = seen
        .differences
        .iter()
        .filter(|d| d.starts_with("reduction: "))
        .collect();
    let found = matches!(r.outcome, IOutcome::Violation(_));
    println!(
        "{name}: the mutant's reduced exploration {} the bug; {} claims fail, first: {:?}",
        if found { "finds" } else { "misses" },
        claims.len(),
        claims.first()
    );
    assert!(
        !claims.is_empty(),
        "{name}: no independence claim fails under the mutant table ({} cross-checks)",
        seen.compared
    );
}

fn reads(classes: &[Class]) -> Vec<(Class, Mode)> {
    classes.iter().map(|&c| (c, Mode::Read)).collect()
}

/// Taking or dropping the flush_dcache lock without reading what the per-step tree check
/// reads.
#[test]
fn a_tree_lock_that_reads_nothing_is_caught() {
    audit(
        "transient-breakage-under-flush-lock",
        "flush_dcache_walk(mapping#0, 50)",
        |p| {
            Table::dropping(
                p,
                &["flush_dcache_mmap_lock", "flush_dcache_mmap_unlock"],
                &reads(&TREE_CHECKED),
            )
        },
    );
}

/// A walk's oracle that does not read `vm_flags`.
#[test]
fn a_walk_oracle_blind_to_vm_flags_is_caught() {
    let walk = [
        "rmap_walk_file_begin",
        "rmap_walk_anon_begin",
        "rmap_walk_found",
        "rmap_walk_end",
    ];
    let mutant =
        |p: &rmapcheck::lang::Program| Table::dropping(p, &walk, &reads(&[Class::VmFlags]));
    audit(
        "stack-flag-after-expand",
        "rmap_walk_anon(anon_vma#0, 3)",
        mutant,
    );
    audit("flag-excuse-window", "rmap_walk_file(mapping#0, 1)", mutant);
}

/// Zaps that do not write the ghost ptes.
#[test]
fn a_zap_that_writes_no_pte_is_caught() {
    audit("zap-after-rekey", "rmap_walk_file(mapping#0, 1)", |p| {
        Table::dropping(
            p,
            &["unmap_vmas", "zap_page_range_single"],
            &[(Class::Ptes, Mode::Write)],
        )
    });
}

/// No step reads the mm's VMA list (a write of `vma->anon_vma` among them).
#[test]
fn a_step_blind_to_the_mm_list_is_caught() {
    audit(
        "anon-vma-set-after-clear",
        "madvise_dontneed(mm#0, 0, 4)",
        |p| Table::dropping(p, &[], &reads(&[Class::MmList])),
    );
}

/// No step reads whether its objects are alive.
#[test]
fn a_step_blind_to_freed_objects_is_caught() {
    audit(
        "vma-pages-after-free",
        "madvise_dontneed(mm#0, 0, 4)",
        |p| Table::dropping(p, &[], &reads(&[Class::Lifecycle])),
    );
}
