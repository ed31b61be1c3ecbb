//! The entry table (`rmapcheck::entry`) is the single source of what a call may be: in many
//! worlds, every tuple the alphabet's offers build and every call the fuzzer's picks build
//! meets the table's preconditions (the page-level rule of the contract calls aside, which
//! only the world decides), and a call that breaks each rule is refused with that rule's
//! message.

use rmapcheck::entry::offer::{each_offer, Bounds};
use rmapcheck::entry::{check, judge, EntryPoint, Mode, Refusal, TABLE};
use rmapcheck::explore::op::apply;
use rmapcheck::fuzzing::concretise::concretise_any;
use rmapcheck::fuzzing::{decode, AbstractOp};
use rmapcheck::lang::Program;
use rmapcheck::world::scenario::{Call, Scenario};
use rmapcheck::world::World;
use std::collections::BTreeSet;
use std::path::Path;
use std::sync::OnceLock;

fn baseline() -> &'static Program {
    static P: OnceLock<Program> = OnceLock::new();
    P.get_or_init(|| {
        rmapcheck::cmd::load_model(Path::new("models/v7.3-rc4/baseline.rmap")).expect("loads")
    })
}

/// Deterministic bytes (xorshift), so the worlds are the same on every run.
fn bytes(seed: u64, n: usize) -> Vec<u8> {
    let mut x = seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1;
    (0..n)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            (x >> 24) as u8
        })
        .collect()
}

/// Worlds the fuzzer reaches: decoded initial worlds and each world after a call of their
/// operations on the baseline (contract mode).
fn worlds() -> &'static [World] {
    static W: OnceLock<Vec<World>> = OnceLock::new();
    W.get_or_init(|| {
        let mut out = Vec::new();
        for seed in 1..60 {
            let d = decode(&bytes(seed, 160)).expect("decodes");
            let mut w = d.scenario.build().expect("builds").canonical();
            out.push(w.clone());
            for op in d.ops.iter().take(10) {
                let Some(call) = rmapcheck::fuzzing::concretise(op, &w, Mode::Contract) else {
                    continue;
                };
                let r = apply(baseline(), &mut w, &call, Default::default());
                assert!(r.failure.is_none(), "{call}: {:?}", r.failure);
                w = w.canonical();
                out.push(w.clone());
            }
        }
        assert!(out.len() > 200, "{} worlds", out.len());
        out
    })
}

/// Accepted, or refused by the page-level rule of a contract call only.
fn structurally_sound(w: &World, p: EntryPoint, call: &Call) -> Result<(), String> {
    match judge(w, p.entry(), call) {
        Ok(()) => Ok(()),
        Err(Refusal::Pages) if p.entry().mode == Mode::Contract => Ok(()),
        Err(_) => Err(check(w, call).unwrap_err()),
    }
}

#[test]
fn the_table_is_indexed_by_its_entry_points_and_names_round_trip() {
    for (i, e) in TABLE.iter().enumerate() {
        assert_eq!(e.point as usize, i, "{}", e.name);
        assert_eq!(EntryPoint::from_name(e.name), Some(e.point));
        assert_eq!(e.point.name(), e.name);
        assert!(!e.kernel.is_empty());
        assert_eq!(e.name.starts_with("contract_"), e.mode == Mode::Contract);
    }
    assert_eq!(EntryPoint::from_name("sys_nothing"), None);
    assert_eq!(EntryPoint::all().count(), TABLE.len());
}

#[test]
fn every_offered_tuple_meets_the_preconditions() {
    let wide = Bounds {
        pages: 64,
        max_len: 4,
        max_vmas: 16,
        max_mms: 4,
        shared: true,
        offsets: true,
    };
    let mut seen = BTreeSet::new();
    let mut accepted = 0;
    for w in worlds() {
        each_offer(w, wide, &|_| true, &mut |e, call| {
            if let Err(why) = structurally_sound(w, e.point, &call) {
                panic!("the alphabet offers a call its preconditions refuse: {why}");
            }
            accepted += usize::from(check(w, &call).is_ok());
            seen.insert(e.point);
        });
    }
    assert_eq!(seen.len(), TABLE.len(), "offered: {seen:?}");
    assert!(accepted > 10_000, "{accepted} calls accepted");
}

#[test]
fn every_picked_call_meets_the_preconditions() {
    let mut seen = BTreeSet::new();
    for (i, w) in worlds().iter().enumerate() {
        for k in 0..40 {
            let raw = bytes(1000 * i as u64 + k, 16);
            let mut u = arbitrary::Unstructured::new(&raw);
            let Ok(op) = <AbstractOp as arbitrary::Arbitrary>::arbitrary(&mut u) else {
                continue;
            };
            let Some(call) = concretise_any(&op, w, Mode::Contract) else {
                continue;
            };
            let p = EntryPoint::from_name(&call.func).expect("a table entry point");
            if let Err(why) = structurally_sound(w, p, &call) {
                panic!("the fuzzer picks a call its preconditions refuse: {why} (from {op:?})");
            }
            seen.insert(p);
        }
    }
    assert_eq!(seen.len(), TABLE.len(), "picked: {seen:?}");
}

/// mm#0: f0 [0,2) pgoff 0 and f0 [2,4) pgoff 2 (mergeable), anonymous [6,8) with an
/// anon_vma (faulted, so exec's stack move may take it), /dev/zero [10,11); mm#1: f0 [0,2)
/// pgoff 0 and f0 [2,4) pgoff 0 (next's pgoff cannot move down).
const WORLD: &str = r#"
[[file]]
name = "f0"
[[file]]
name = "zero"
dev_zero = true
[[anon_vma]]
name = "A"

[[mm]]
[[mm.vma]]
start = 0
end = 2
file = "f0"
[[mm.vma]]
start = 2
end = 4
pgoff = 2
file = "f0"
[[mm.vma]]
start = 6
end = 8
anon_vmas = ["A"]
[[mm.vma]]
start = 10
end = 11
pgoff = 10
file = "zero"

[[mm]]
[[mm.vma]]
start = 0
end = 2
file = "f0"
[[mm.vma]]
start = 2
end = 4
file = "f0"
"#;

#[test]
fn a_call_that_breaks_each_rule_is_refused() {
    let mut w = Scenario::parse(WORLD).unwrap().build().unwrap().canonical();
    let ok = |w: &World, c: &str| {
        let c = Call::parse(c).unwrap();
        check(w, &c).unwrap_or_else(|e| panic!("refused: {e}"));
    };
    // one valid call per entry point, so the refusals below are about their one rule
    for c in [
        "sys_mmap(mm#0, file#0, 4, 6, 4, true)",
        "sys_munmap(mm#0, 3, 9)",
        "sys_mprotect(mm#0, 0, 2, false)",
        "sys_mremap_expand(mm#0, 2, 6)",
        "sys_mremap_shrink(mm#0, 6, 7)",
        "sys_shift_down(mm#0, 6, 1)",
        "do_anonymous_fault(mm#0, 6)",
        "do_file_fault(mm#0, 1)",
        "contract_split(mm#0, vma#0, 1, 0)",
        "contract_shrink(mm#0, vma#1, 3)",
        "contract_adjust_next(mm#0, vma#0, 1, 0)",
        "contract_adjust_middle(mm#0, vma#1, 3, 0)",
        "sys_munmap_abort(mm#0, 3, 9)",
        "sys_fork_fail(mm#0, 1)",
        "sys_mmap_fixed_fail(mm#0, 1, 7)",
        "sys_fork(mm#0)",
        "sys_exit(mm#1)",
        "sys_mmap_fixed(mm#0, file#0, 1, 7, 1, true)",
        "sys_mremap_move_shrink(mm#0, 6, 3, 1, 20)",
        "sys_mremap_dontunmap(mm#0, 6, 1, 20)",
        "setup_stack_growsup(mm#0, 4, 5)",
    ] {
        ok(&w, c);
    }
    let refused = |w: &World, c: &str, why: &str| {
        let call = Call::parse(c).unwrap();
        let e = check(w, &call).expect_err(c);
        assert!(e.contains(why), "{c}: want {why:?} in {e:?}");
    };
    for (c, why) in [
        ("sys_nope(mm#0)", "not an entry point rmapcheck knows"),
        ("sys_munmap(mm#5, 0, 1)", "no live Mm#5"),
        (
            "sys_mmap(mm#0, NULL, 4, 6, 0)",
            "sys_mmap takes 6 arguments",
        ),
        ("sys_mmap(mm#0, file#7, 4, 6, 4, false)", "no live File#7"),
        ("sys_mmap(mm#0, NULL, 5, 5, 0, false)", "empty range"),
        (
            "sys_mmap(mm#0, NULL, 1, 5, 0, false)",
            "the range is not free",
        ),
        ("sys_mmap(mm#0, file#1, 4, 5, 4, true)", "shared /dev/zero"),
        (
            "sys_mmap_fixed(mm#0, NULL, 4, 6, 0, false)",
            "overlaps no VMA",
        ),
        (
            "sys_mmap_fixed(mm#0, file#1, 1, 3, 1, true)",
            "shared /dev/zero",
        ),
        ("sys_munmap(mm#0, 3, 3)", "empty range"),
        ("sys_munmap_abort(mm#0, 3, 3)", "empty range"),
        ("sys_fork_fail(mm#0, 9)", "copies 9 VMAs but the mm has"),
        ("sys_mmap_fixed_fail(mm#0, 7, 7)", "empty range"),
        ("sys_mmap_fixed_fail(mm#0, 4, 6)", "overlaps no VMA"),
        ("sys_mprotect(mm#0, 4, 5, true)", "no VMA at 4"),
        ("sys_mprotect(mm#0, 0, 3, true)", "not inside one VMA"),
        ("sys_mprotect(mm#0, 0, 2, NULL)", "not a flag"),
        (
            "sys_mremap_expand(mm#0, 1, 5)",
            "not a VMA start, or no growth",
        ),
        ("sys_mremap_expand(mm#0, 2, 7)", "overlaps the next VMA"),
        ("sys_mremap_shrink(mm#0, 0, 2)", "not strictly inside"),
        ("sys_shift_down(mm#0, 2, 1)", "does not fit below the VMA"),
        ("do_anonymous_fault(mm#0, -1)", "not a page"),
        (
            "contract_split(mm#0, vma#0, 0, 0)",
            "split point is not strictly inside",
        ),
        ("contract_split(mm#0, vma#9, 1, 0)", "no live Vma#9"),
        ("contract_split(mm#0, vma#4, 1, 0)", "vma#4 is not in mm#0"),
        (
            "contract_shrink(mm#0, vma#0, 2)",
            "new end is not strictly inside",
        ),
        (
            "contract_adjust_next(mm#0, vma#1, 3, 2)",
            "not adjacent and compatible",
        ),
        (
            "contract_adjust_middle(mm#0, vma#0, 1, 0)",
            "no neighbour on that side",
        ),
        (
            "contract_adjust_next(mm#0, vma#0, 2, 0)",
            "new boundary is not strictly",
        ),
        (
            "contract_adjust_next(mm#1, vma#4, 1, 0)",
            "next's pgoff would go below 0",
        ),
        (
            "sys_mremap_move_shrink(mm#0, 6, 2, 2, 20)",
            "not a shrinking move",
        ),
        (
            "sys_mremap_move_shrink(mm#0, 0, 4, 3, 20)",
            "the part that moves is not inside one VMA",
        ),
        (
            "sys_mremap_move_shrink(mm#0, 6, 2, 1, 7)",
            "the new range overlaps the old one",
        ),
        (
            "sys_mremap_move_shrink(mm#0, 6, 2, 1, 10)",
            "the new range is not free",
        ),
        ("sys_mremap_dontunmap(mm#0, 5, 1, 20)", "no VMA at 5"),
        (
            "sys_mremap_dontunmap(mm#0, 6, 3, 20)",
            "the old range is not inside one VMA",
        ),
        (
            "sys_mremap_dontunmap(mm#0, 6, 1, 10)",
            "the new range is not free",
        ),
        ("setup_stack_growsup(mm#0, 5, 5)", "empty range"),
        ("setup_stack_growsup(mm#0, 1, 2)", "the range is not free"),
        (
            "do_stack_fault_up(mm#0, 6)",
            "the address is mapped: no stack grows",
        ),
        (
            "do_stack_fault_up(mm#0, 9)",
            "no VM_GROWSUP VMA below the address",
        ),
    ] {
        refused(&w, c, why);
    }
    // a fault above a VM_GROWSUP stack is accepted once there is one
    let stack = Call::parse("setup_stack_growsup(mm#0, 4, 5)").unwrap();
    let mut up = w.clone();
    assert!(apply(baseline(), &mut up, &stack, Default::default())
        .failure
        .is_none());
    ok(&up, "do_stack_fault_up(mm#0, 5)");
    // the page-level rule: a faulted page in the tail a shrink would give up
    let fault = Call::parse("do_file_fault(mm#0, 3)").unwrap();
    assert!(apply(baseline(), &mut w, &fault, Default::default())
        .failure
        .is_none());
    refused(
        &w,
        "contract_shrink(mm#0, vma#1, 3)",
        "would leave a mapped page",
    );
}
