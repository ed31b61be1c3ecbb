//! Seed corpora for the fuzz targets and the model-language dictionary, generated here from the
//! cases the baseline scenario tests cover. The committed files under fuzz/ must match what this
//! generates; `RMAPCHECK_WRITE_CORPUS=1 cargo test --release --test fuzz fuzz_corpus` rewrites them.
//! Each ops seed must also run clean on the baseline and make at least one call.

use rmapcheck::fuzzing::input::{encode, RawInput, VmaSeed, WorldSeed};
use rmapcheck::fuzzing::{decode, load_models, run_case, AbstractOp};
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

/// A file VMA of `pages` pages after `gap` free pages, pgoff linear in the address.
fn file_vma(gap: u8, pages: u8, writable: bool) -> VmaSeed {
    VmaSeed {
        gap,
        len: pages - 1,
        file: 1,
        pgoff: 0,
        shared: false,
        writable,
        anon: 0,
    }
}

fn world(two_files: bool, dev_zero: bool, vmas: Vec<VmaSeed>) -> WorldSeed {
    WorldSeed {
        two_files,
        dev_zero,
        vmas,
    }
}

fn raw(world: WorldSeed, contract: bool, ops: Vec<AbstractOp>) -> RawInput {
    RawInput {
        world,
        model: 0,
        contract,
        ops,
    }
}

/// Munmap of [s, s + n) anchored on the mm's first VMA, which must start at page 0 and be
/// longer than s (an even start choice anchors; the page is (choice / 2) - 1).
fn munmap(mm: u8, s: u8, n: u8) -> AbstractOp {
    assert!(s < 60 && (1..=12).contains(&n));
    AbstractOp::Munmap {
        mm,
        vma: 0,
        start: (s + 1) * 2,
        len: n - 1,
    }
}

fn mmap(file: u8, s: u8, n: u8) -> AbstractOp {
    AbstractOp::Mmap {
        mm: 0,
        file,
        start: s,
        len: n - 1,
        pgoff: 0,
        shared: false,
    }
}

/// mprotect of pages [off, off + n) of the mm's `vma`-th VMA.
fn mprotect(mm: u8, vma: u8, off: u8, n: u8, writable: bool) -> AbstractOp {
    AbstractOp::Mprotect {
        mm,
        vma,
        start: off,
        len: n - 1,
        writable,
    }
}

fn seeds() -> Vec<(&'static str, RawInput)> {
    use AbstractOp::*;
    let one = || world(false, false, vec![file_vma(0, 8, true)]);
    let empty = || world(true, true, vec![]);
    let three = || {
        world(
            false,
            false,
            vec![
                file_vma(0, 2, false),
                file_vma(0, 4, true),
                file_vma(0, 2, false),
            ],
        )
    };
    vec![
        (
            "split-below-and-above",
            raw(
                one(),
                true,
                vec![
                    ContractSplit {
                        mm: 0,
                        vma: 0,
                        at: 2,
                        new_below: true,
                    },
                    ContractSplit {
                        mm: 0,
                        vma: 1,
                        at: 1,
                        new_below: false,
                    },
                ],
            ),
        ),
        (
            "munmap-in-the-middle",
            raw(one(), false, vec![munmap(0, 3, 2)]),
        ),
        (
            "munmap-abort-then-fork-fail",
            raw(
                one(),
                false,
                vec![
                    MunmapAbort {
                        mm: 0,
                        vma: 0,
                        start: 6,
                        len: 1,
                    },
                    ForkFail { mm: 0, copied: 2 },
                ],
            ),
        ),
        (
            "mmap-fixed-fail",
            raw(
                one(),
                false,
                vec![MmapFixedFail {
                    mm: 0,
                    vma: 0,
                    start: 3,
                    len: 2,
                }],
            ),
        ),
        (
            "mmap-merges",
            raw(
                empty(),
                false,
                vec![mmap(1, 0, 2), mmap(1, 4, 2), mmap(1, 2, 2), mmap(0, 10, 3)],
            ),
        ),
        (
            "mprotect-merge-cases",
            raw(
                three(),
                false,
                vec![
                    mprotect(0, 1, 0, 2, false),
                    mprotect(0, 1, 1, 1, true),
                    mprotect(0, 0, 3, 2, true),
                ],
            ),
        ),
        (
            "fork-then-split-in-the-child",
            raw(
                one(),
                false,
                vec![
                    Fault {
                        mm: 0,
                        vma: 0,
                        off: 0,
                    },
                    Fork { mm: 0 },
                    mprotect(1, 0, 2, 2, false),
                ],
            ),
        ),
        (
            "dev-zero-private",
            raw(empty(), false, vec![mmap(2, 0, 4), munmap(0, 1, 1)]),
        ),
        (
            "exit-unlinks-everything",
            raw(
                one(),
                false,
                vec![
                    Fault {
                        mm: 0,
                        vma: 0,
                        off: 0,
                    },
                    Fork { mm: 0 },
                    Exit { mm: 1 },
                    Exit { mm: 0 },
                ],
            ),
        ),
        (
            "mremap-and-stack-shift",
            raw(
                // exec moves only a faulted anonymous stack: an anonymous VMA with its anon_vma
                world(
                    false,
                    false,
                    vec![VmaSeed {
                        anon: 1,
                        file: 0,
                        ..file_vma(3, 6, true)
                    }],
                ),
                false,
                vec![
                    MremapExpand {
                        mm: 0,
                        vma: 0,
                        grow: 2,
                    },
                    ShiftDown {
                        mm: 0,
                        vma: 0,
                        shift: 1,
                    },
                    MremapShrink {
                        mm: 0,
                        vma: 0,
                        keep: 3,
                    },
                ],
            ),
        ),
        (
            "mmap-fixed-over-mappings",
            raw(
                three(),
                false,
                vec![
                    Fault {
                        mm: 0,
                        vma: 1,
                        off: 1,
                    },
                    MmapFixed {
                        mm: 0,
                        vma: 1,
                        file: 0,
                        start: 3,
                        len: 2,
                        pgoff: 0,
                        shared: false,
                    },
                ],
            ),
        ),
        (
            "remap-ext-moves-and-upward-stack",
            raw(
                one(),
                false,
                vec![
                    Fault {
                        mm: 0,
                        vma: 0,
                        off: 1,
                    },
                    MremapDontunmap {
                        mm: 0,
                        vma: 0,
                        start: 0,
                        len: 1,
                        dest: 40,
                    },
                    MremapMoveShrink {
                        mm: 0,
                        vma: 0,
                        start: 2,
                        len: 1,
                        cut: 0,
                        dest: 50,
                    },
                    SetupStackGrowsup {
                        mm: 0,
                        start: 60,
                        len: 0,
                    },
                    StackFaultUp {
                        mm: 0,
                        vma: 4,
                        above: 2,
                    },
                ],
            ),
        ),
        (
            "contract-adjust-shrink",
            raw(
                world(
                    false,
                    false,
                    vec![
                        VmaSeed {
                            anon: 1,
                            ..file_vma(0, 4, true)
                        },
                        VmaSeed {
                            anon: 2,
                            ..file_vma(0, 4, true)
                        },
                    ],
                ),
                true,
                vec![
                    ContractAdjustNext {
                        mm: 0,
                        vma: 0,
                        at: 1,
                        pgoff: 0,
                    },
                    ContractAdjustMiddle {
                        mm: 0,
                        vma: 1,
                        at: 0,
                        pgoff: 0,
                    },
                    ContractShrink {
                        mm: 0,
                        vma: 0,
                        keep: 0,
                    },
                ],
            ),
        ),
    ]
}

/// Small deterministic byte strings for the tree target (its input is an `arbitrary` op list).
fn tree_seeds() -> Vec<(String, Vec<u8>)> {
    let mut x: u64 = 0x2545_f491_4f6c_dd1d;
    (0..4)
        .map(|i| {
            let n = 64 << i;
            let bytes = (0..n)
                .map(|_| {
                    x ^= x << 13;
                    x ^= x >> 7;
                    x ^= x << 17;
                    (x >> 24) as u8
                })
                .collect();
            (format!("random-{n}"), bytes)
        })
        .collect()
}

/// Parser seeds: mode byte 0 (raw text) with small valid models, mode 2 with no edits (the
/// whole baseline) and mode 1 with a short token soup.
fn parser_seeds() -> Vec<(String, Vec<u8>)> {
    let mut out = vec![
        ("baseline-unedited".to_string(), vec![2u8]),
        ("token-soup".to_string(), vec![1u8, 5, 9, 30, 2, 60, 61, 7]),
    ];
    let small = [
        ("empty-function", "void f(void) { }\n"),
        (
            "struct-and-loop",
            "#define N 3\nstruct s { long a; bool b; };\nlong f(struct vm_area_struct *vma)\n{\n\tlong i;\n\tstruct s x = { .a = 1 };\n\tfor (i = 0; i < N; i++)\n\t\tx.a += vma->vm_end - vma->vm_start;\n\treturn x.a;\n}\n",
        ),
    ];
    for (name, text) in small {
        let mut b = vec![0u8];
        b.extend(text.as_bytes());
        out.push((name.to_string(), b));
    }
    out
}

/// The libFuzzer dictionary: keywords, punctuation, builtins, struct and field names.
fn dictionary() -> String {
    let schema = rmapcheck::world::schema();
    let mut words: BTreeSet<String> = [
        "struct",
        "static",
        "if",
        "else",
        "for",
        "while",
        "return",
        "break",
        "continue",
        "bool",
        "int",
        "long",
        "unsigned",
        "void",
        "true",
        "false",
        "NULL",
        "const",
        "#define",
        "#include",
        "pgoff_t",
        "vm_flags_t",
        "list_for_each_entry",
        "list_for_each_entry_reverse",
        "list_for_each_entry_safe",
        "VM_WARN_ON",
        "VM_WARN_ON_ONCE",
        "VM_BUG_ON",
        "same_vma",
        "same_anon_vma",
        "->",
        "<<=",
        ">>=",
        "&&",
        "||",
        "/*",
        "*/",
        "//",
        "0x",
        "UL",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    words.extend(schema.builtins.keys().cloned());
    for (name, fields) in &schema.structs {
        words.insert(name.clone());
        words.extend(fields.iter().map(|f| f.name.clone()));
    }
    let mut out = String::from(
        "# libFuzzer dictionary for the rmapcheck model language (generated by tests/fuzz/fuzz_corpus.rs)\n",
    );
    for w in words {
        out += &format!("\"{}\"\n", w.replace('\\', "\\\\").replace('"', "\\\""));
    }
    out
}

/// Every file the generator owns: path relative to the repository -> contents.
fn generated() -> Vec<(PathBuf, Vec<u8>)> {
    let mut out = Vec::new();
    for (name, r) in seeds() {
        let bytes = encode(&r);
        for target in ["ops", "equivalence", "cops"] {
            out.push((
                PathBuf::from(format!("fuzz/corpus/{target}/seed-{name}")),
                bytes.clone(),
            ));
        }
    }
    for (name, b) in parser_seeds() {
        out.push((PathBuf::from(format!("fuzz/corpus/parser/seed-{name}")), b));
    }
    for (name, b) in tree_seeds() {
        out.push((PathBuf::from(format!("fuzz/corpus/tree/seed-{name}")), b));
    }
    out.push((PathBuf::from("fuzz/model.dict"), dictionary().into_bytes()));
    out
}

#[test]
fn ops_seeds_run_clean_on_the_baseline_and_make_calls() {
    let models = load_models(Path::new("models")).unwrap();
    for (name, r) in seeds() {
        let d = decode(&encode(&r)).unwrap();
        let res = run_case(&models, &d);
        assert!(res.failure.is_none(), "{name}: {:?}", res.failure);
        assert_eq!(
            res.calls.len(),
            r.ops.len(),
            "{name}: every op should make a call: {:?}",
            res.calls
        );
    }
}

#[test]
fn committed_corpus_and_dictionary_are_up_to_date() {
    let write = std::env::var_os("RMAPCHECK_WRITE_CORPUS").is_some();
    let mut stale = Vec::new();
    for (path, bytes) in generated() {
        if write {
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(&path, &bytes).unwrap();
        } else if std::fs::read(&path).ok().as_deref() != Some(&bytes[..]) {
            stale.push(path.display().to_string());
        }
    }
    assert!(
        stale.is_empty(),
        "out of date (regenerate with RMAPCHECK_WRITE_CORPUS=1 cargo test --release --test fuzz fuzz_corpus): {stale:?}"
    );
}
