//! Fixtures shared by the patch-model and mutant-model tests: loading a model, running a
//! scenario's calls with every check on, and the scenarios of `baseline_scenarios.rs`.
#![allow(dead_code)]

use rmapcheck::check::Invariant;
use rmapcheck::cmd::load_model;
use rmapcheck::explore::op::{apply, CheckOpts, Failure};
use rmapcheck::lang::Program;
use rmapcheck::world::scenario::{Call, Scenario};
use rmapcheck::world::World;
use std::path::Path;

pub const BASELINE: &str = "models/v7.3-rc4/baseline.rmap";
pub const SPLIT_SKIP: &str = "models/patches/split-skip-reinsert.rmap";
/// 000/003 as posted: v1 (applied in a public tree) and v2 (the mm queue's copy).
pub const INPLACE_V1: &str = "models/patches/inplace-pgoff-unchanged-v1.rmap";
pub const INPLACE: &str = "models/patches/inplace-pgoff-unchanged-v2.rmap";
pub const SKIP_ANON: &str = "models/patches/skip-anon-file-rmap.rmap";

pub fn load(path: &str) -> Program {
    load_model(Path::new(path)).unwrap_or_else(|d| panic!("{path} does not load:\n{d}"))
}

/// The interleaving configuration a search's walker phase uses: the program's footprint
/// table, so the reduction looks at what each thread may still do from where it stands.
pub fn with_table(p: &Program) -> rmapcheck::explore::interleave::Config {
    rmapcheck::explore::interleave::Config {
        footprints: Some(std::sync::Arc::new(
            rmapcheck::explore::footprint::Table::new(p),
        )),
        ..Default::default()
    }
}

/// Where a run stopped: the index of the failing call, the call, and the failure.
#[derive(Debug)]
pub struct Stop {
    pub call: usize,
    pub text: String,
    pub failure: Failure,
}

impl Stop {
    pub fn invariant(&self) -> Option<Invariant> {
        self.failure.invariant()
    }
}

/// Build `scenario` and apply `calls` in order, stopping at the first failing call.
pub fn run(prog: &Program, scenario: &str, calls: &[&str]) -> (World, Option<Stop>) {
    let mut w = Scenario::parse(scenario).unwrap().build().unwrap();
    for (i, c) in calls.iter().enumerate() {
        let call = Call::parse(c).unwrap();
        let r = apply(prog, &mut w, &call, CheckOpts::default());
        if let Some(f) = r.failure {
            return (
                w,
                Some(Stop {
                    call: i,
                    text: c.to_string(),
                    failure: f,
                }),
            );
        }
    }
    (w, None)
}

/// Run and insist on a clean result.
pub fn run_clean(prog: &Program, scenario: &str, calls: &[&str]) -> World {
    let (w, stop) = run(prog, scenario, calls);
    if let Some(s) = stop {
        panic!(
            "call {} `{}` failed: {:?}\n{}",
            s.call,
            s.text,
            s.failure.violations,
            w.render()
        );
    }
    w
}

/// Run and insist that call `call` fails with `invariant` (the first violation reported).
pub fn run_fails(
    prog: &Program,
    scenario: &str,
    calls: &[&str],
    call: usize,
    invariant: Invariant,
) -> Stop {
    let (w, stop) = run(prog, scenario, calls);
    let Some(s) = stop else {
        panic!(
            "expected `{invariant}` at call {call}, but every call ran clean\n{}",
            w.render()
        );
    };
    assert_eq!(
        (s.call, s.invariant()),
        (call, Some(invariant)),
        "stopped at `{}` with {:?}\n{}",
        s.text,
        s.failure.violations,
        w.render()
    );
    s
}

/// (start, end, pgoff) of each VMA of mm, in address order.
pub fn layout(w: &World, mm: u32) -> Vec<(u64, u64, u64)> {
    w.mm_vmas(mm)
        .into_iter()
        .map(|v| {
            let x = &w.vmas[v as usize];
            (x.vm_start, x.vm_end, x.vm_pgoff)
        })
        .collect()
}

/// One private file VMA [0, 8) at pgoff 100.
pub const ONE_FILE_VMA: &str = r#"
[[file]]
name = "f"
[[mm]]
[[mm.vma]]
start = 0
end = 8
pgoff = 100
file = "f"
"#;

/// A file and /dev/zero, one empty mm.
pub const EMPTY: &str = r#"
[[file]]
name = "f"
[[file]]
name = "zero"
dev_zero = true
[[mm]]
"#;

/// prev [0,2) ro, middle [2,6) rw, next [6,8) ro, all linear in one file.
pub const THREE: &str = r#"
[[file]]
name = "f"
[[mm]]
[[mm.vma]]
start = 0
end = 2
pgoff = 0
file = "f"
writable = false
[[mm.vma]]
start = 2
end = 6
pgoff = 2
file = "f"
[[mm.vma]]
start = 6
end = 8
pgoff = 6
file = "f"
writable = false
"#;

/// prev [0,2) ro, middle [2,4) rw, next [4,6) rw, linear in one file.
pub const RO_RW_RW: &str = r#"
[[file]]
name = "f"
[[mm]]
[[mm.vma]]
start = 0
end = 2
pgoff = 0
file = "f"
writable = false
[[mm.vma]]
start = 2
end = 4
pgoff = 2
file = "f"
[[mm.vma]]
start = 4
end = 6
pgoff = 4
file = "f"
"#;

/// [0,2) rw at pgoff 50, middle [2,4) ro, next [4,6) rw: making middle rw merges it into next,
/// which grows down (its pgoff goes down).
pub const NEXT_GROWS_DOWN: &str = r#"
[[file]]
name = "f"
[[mm]]
[[mm.vma]]
start = 0
end = 2
pgoff = 50
file = "f"
[[mm.vma]]
start = 2
end = 4
pgoff = 2
file = "f"
writable = false
[[mm.vma]]
start = 4
end = 6
pgoff = 4
file = "f"
"#;

/// The scenarios of tests/model/baseline_scenarios.rs, as (name, world, calls), one entry per call
/// list (a test there that runs several lists appears here several times).
pub fn baseline_scenarios() -> Vec<(&'static str, &'static str, Vec<&'static str>)> {
    vec![
        (
            "split new_below=1",
            ONE_FILE_VMA,
            vec!["contract_split(mm#0, vma#0, 3, 1)"],
        ),
        (
            "split new_below=0",
            ONE_FILE_VMA,
            vec!["contract_split(mm#0, vma#0, 5, 0)"],
        ),
        (
            "munmap in the middle",
            ONE_FILE_VMA,
            vec!["sys_munmap(mm#0, 3, 5)"],
        ),
        (
            "mmap merges with prev",
            EMPTY,
            vec![
                "sys_mmap(mm#0, file#0, 0, 2, 10, false)",
                "sys_mmap(mm#0, file#0, 2, 4, 12, false)",
            ],
        ),
        (
            "mmap merges with next",
            EMPTY,
            vec![
                "sys_mmap(mm#0, file#0, 2, 4, 12, false)",
                "sys_mmap(mm#0, file#0, 0, 2, 10, false)",
            ],
        ),
        (
            "mmap fills a hole",
            EMPTY,
            vec![
                "sys_mmap(mm#0, file#0, 0, 2, 10, false)",
                "sys_mmap(mm#0, file#0, 4, 6, 14, false)",
                "sys_mmap(mm#0, file#0, 2, 4, 12, false)",
            ],
        ),
        (
            "mmap non-linear pgoff",
            EMPTY,
            vec![
                "sys_mmap(mm#0, file#0, 0, 2, 10, false)",
                "sys_mmap(mm#0, file#0, 2, 4, 20, false)",
            ],
        ),
        (
            "mprotect merge both",
            THREE,
            vec!["sys_mprotect(mm#0, 2, 6, false)"],
        ),
        (
            "mprotect merge left partial (adjust_middle_start)",
            THREE,
            vec!["sys_mprotect(mm#0, 2, 4, false)"],
        ),
        (
            "mprotect merge right partial (adjust_next_start)",
            THREE,
            vec!["sys_mprotect(mm#0, 4, 6, false)"],
        ),
        (
            "mprotect no merge: two splits",
            THREE,
            vec!["sys_mprotect(mm#0, 3, 5, false)"],
        ),
        (
            "mprotect merge left whole",
            RO_RW_RW,
            vec!["sys_mprotect(mm#0, 2, 4, false)"],
        ),
        (
            "mprotect merge right whole (next is middle)",
            RO_RW_RW,
            vec!["sys_mprotect(mm#0, 0, 2, true)"],
        ),
        (
            "mprotect merge right whole (next grows down)",
            NEXT_GROWS_DOWN,
            vec!["sys_mprotect(mm#0, 2, 4, true)"],
        ),
        (
            "fork then split in the child",
            ONE_FILE_VMA,
            vec![
                "do_anonymous_fault(mm#0, 0)",
                "sys_fork(mm#0)",
                "sys_mprotect(mm#1, 2, 4, false)",
            ],
        ),
        (
            "private /dev/zero mapping, munmap in the middle",
            EMPTY,
            vec![
                "sys_mmap(mm#0, file#1, 0, 4, 0, false)",
                "sys_munmap(mm#0, 1, 2)",
            ],
        ),
        (
            "exit unlinks everything",
            ONE_FILE_VMA,
            vec![
                "do_anonymous_fault(mm#0, 0)",
                "sys_fork(mm#0)",
                "sys_exit(mm#1)",
                "sys_exit(mm#0)",
            ],
        ),
    ]
}

/// An anonymous-capable world: no VMA yet, a file, /dev/zero.
pub const ANON_EMPTY: &str = EMPTY;

/// One file mapped by two mms: mm#0 [0,8) at pgoff 100, mm#1 [0,4) at 104 and [4,8) at 120.
pub const TWO_MMS: &str = r#"
[[file]]
name = "f"
[[mm]]
[[mm.vma]]
start = 0
end = 8
pgoff = 100
file = "f"
[[mm]]
[[mm.vma]]
start = 0
end = 4
pgoff = 104
file = "f"
[[mm.vma]]
start = 4
end = 8
pgoff = 120
file = "f"
"#;

/// middle [2,4) at pgoff 2 and next [4,6) at pgoff 4 in mm#0, same flags; mm#1 maps the file
/// at pgoff 10, so vma#2 sits to the right of middle in the file tree.
pub const MIDDLE_NEXT_AND_OTHER: &str = r#"
[[file]]
name = "f"
[[mm]]
[[mm.vma]]
start = 2
end = 4
pgoff = 2
file = "f"
[[mm.vma]]
start = 4
end = 6
pgoff = 4
file = "f"
[[mm]]
[[mm.vma]]
start = 0
end = 2
pgoff = 10
file = "f"
"#;

/// A stack-like file VMA [4, 8) at pgoff 100, room below it.
pub const HIGH_FILE_VMA: &str = r#"
[[file]]
name = "f"
[[mm]]
[[mm.vma]]
start = 4
end = 8
pgoff = 100
file = "f"
"#;

/// Further call lists, beyond the baseline scenarios: the anon side, private /dev/zero mappings
/// under every entry point, the other callers of vma_shrink()/vma_expand(), and contract-mode
/// calls with arguments today's callers never pass.
pub fn extra_scenarios() -> Vec<(&'static str, &'static str, Vec<&'static str>)> {
    vec![
        (
            "anon: fault, lower split, upper split, mprotect merge back",
            ANON_EMPTY,
            vec![
                "sys_mmap(mm#0, NULL, 0, 8, 0, false)",
                "do_anonymous_fault(mm#0, 0)",
                "sys_munmap(mm#0, 6, 8)",
                "sys_munmap(mm#0, 0, 1)",
                "sys_mprotect(mm#0, 2, 4, false)",
                "sys_mprotect(mm#0, 2, 4, true)",
            ],
        ),
        (
            "anon: fork, then split and merge in the child and the parent",
            ANON_EMPTY,
            vec![
                "sys_mmap(mm#0, NULL, 0, 8, 0, false)",
                "do_anonymous_fault(mm#0, 0)",
                "sys_fork(mm#0)",
                "sys_mprotect(mm#1, 2, 4, false)",
                "sys_mprotect(mm#1, 4, 6, false)",
                "sys_munmap(mm#0, 6, 8)",
                "sys_exit(mm#1)",
            ],
        ),
        (
            "file with anon_vma: fork, munmap tail in both",
            ONE_FILE_VMA,
            vec![
                "do_anonymous_fault(mm#0, 0)",
                "sys_fork(mm#0)",
                "sys_munmap(mm#1, 5, 8)",
                "sys_munmap(mm#0, 6, 8)",
                "sys_mremap_expand(mm#0, 0, 8)",
            ],
        ),
        (
            "/dev/zero private: fork",
            EMPTY,
            vec!["sys_mmap(mm#0, file#1, 0, 4, 0, false)", "sys_fork(mm#0)"],
        ),
        (
            "/dev/zero private: munmap the whole mapping",
            EMPTY,
            vec![
                "sys_mmap(mm#0, file#1, 0, 4, 0, false)",
                "sys_munmap(mm#0, 0, 4)",
            ],
        ),
        (
            "/dev/zero private: mprotect part",
            EMPTY,
            vec![
                "sys_mmap(mm#0, file#1, 0, 4, 0, false)",
                "sys_mprotect(mm#0, 2, 4, false)",
            ],
        ),
        (
            "/dev/zero private: two mmaps that merge, exit",
            EMPTY,
            vec![
                "sys_mmap(mm#0, file#1, 0, 2, 0, false)",
                "sys_mmap(mm#0, file#1, 2, 4, 2, false)",
                "sys_exit(mm#0)",
            ],
        ),
        (
            "mremap grows and shrinks in place",
            ONE_FILE_VMA,
            vec![
                "sys_mremap_expand(mm#0, 0, 12)",
                "sys_mremap_shrink(mm#0, 0, 5)",
            ],
        ),
        (
            "exec moves the stack down (vma_expand then vma_shrink)",
            HIGH_FILE_VMA,
            vec!["sys_shift_down(mm#0, 4, 2)"],
        ),
        (
            "shared file: shrink and splits with other mms in the tree",
            TWO_MMS,
            vec![
                "sys_munmap(mm#0, 6, 8)",
                "sys_munmap(mm#0, 0, 1)",
                "sys_mprotect(mm#1, 1, 3, false)",
                "sys_mremap_expand(mm#0, 1, 8)",
            ],
        ),
        (
            "contract: vma_shrink gives up the tail",
            TWO_MMS,
            vec!["contract_shrink(mm#0, vma#0, 5)"],
        ),
        (
            "contract: adjust_middle_start between pgoff-disjoint neighbours",
            EMPTY,
            vec![
                "sys_mmap(mm#0, file#0, 0, 1, 0, false)",
                "sys_mmap(mm#0, file#0, 1, 2, 5, false)",
                "sys_mmap(mm#0, file#0, 2, 4, 2, false)",
                "contract_adjust_middle(mm#0, vma#2, 3, 5)",
            ],
        ),
        (
            "contract: adjust_next_start keeping middle's pgoff",
            MIDDLE_NEXT_AND_OTHER,
            vec!["contract_adjust_next(mm#0, vma#0, 3, 2)"],
        ),
        (
            "contract: adjust_next_start with a new pgoff for middle",
            MIDDLE_NEXT_AND_OTHER,
            vec!["contract_adjust_next(mm#0, vma#0, 3, 50)"],
        ),
        (
            "contract: adjust_middle_start keeping prev's pgoff",
            MIDDLE_NEXT_AND_OTHER,
            vec!["contract_adjust_middle(mm#0, vma#1, 5, 2)"],
        ),
        (
            "contract: adjust_middle_start with a new pgoff for prev",
            MIDDLE_NEXT_AND_OTHER,
            vec!["contract_adjust_middle(mm#0, vma#1, 5, 50)"],
        ),
    ]
}

/// What [`crosschecked`] saw: the cross-checks recorded while it ran and their differences.
pub struct Crosschecked {
    pub compared: u64,
    pub differences: Vec<String>,
}

/// Run `f` with cross-checking on (`rmapcheck::check::crosscheck`), one such run at a time in
/// this test binary: the switch and the record of differences are the process's, so two runs
/// at once would switch it off under each other or take each other's differences. Tests that
/// do not cross-check may run meanwhile; their checks are then compared too.
pub fn crosschecked<R>(f: impl FnOnce() -> R) -> (R, Crosschecked) {
    use rmapcheck::check::crosscheck;
    static ONE_AT_A_TIME: std::sync::Mutex<()> = std::sync::Mutex::new(());
    let _g = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    // what earlier unchecked runs left is not this run's
    crosscheck::take_differences();
    crosscheck::enable();
    let start = crosscheck::compared();
    let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(f));
    crosscheck::disable();
    let seen = Crosschecked {
        compared: crosscheck::compared() - start,
        differences: crosscheck::take_differences(),
    };
    match r {
        Ok(r) => (r, seen),
        Err(p) => std::panic::resume_unwind(p),
    }
}
