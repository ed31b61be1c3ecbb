//! Model/C mutant pairs: for each model mutant (models/mutants/) that has a C twin
//! (cmutants/, its `model_mutant`), the C search's first or worst consequence class is the
//! model's (first with first, or worst with worst; docs/VERDICTS.md ranks them: missed rmap
//! walk, use-after-free, broken tree, debug-only). The table of the pairs, with the classes
//! found, is docs/CHECK-C.md's "Model and C mutant pairs".
//!
//! The model runs in the scope that reaches its mutant (`walkers` for the bugs only a
//! concurrent walker sees, `contract` for the contract-only one), the C in the default scope,
//! both with the consequence search bounded to 10 s a class.

use std::path::PathBuf;
use std::process::Command;

use super::ccheck::check;

/// (model mutant, the model's scope, C mutant, whether the classes must agree). The one pair
/// that need not: `split-rekey-before-prepare` is of `adj-next-before-rekey`'s class (a key
/// changed while its VMA sits in a tree) on another path (`__split_vma()`, a callers path, where
/// the model's mutant is contract-only), and the C's walker checkpoint before vma_prepare()
/// takes the anon_vma lock sees the missed walk the model's bounded consequence search does not
/// reach (its missed-walk search is incomplete at 10 s); for it the C's worst must be at least
/// as severe as the model's.
const PAIRS: &[(&str, &str, &str, bool)] = &[
    (
        "adj-next-avcs-not-reinserted",
        "default",
        "adj-next-avcs-not-reinserted",
        true,
    ),
    (
        "inplace-no-propagate",
        "default",
        "erase-no-propagate",
        true,
    ),
    (
        "merge-left-no-dup-anon-vma",
        "default",
        "merge-left-no-dup-anon-vma",
        true,
    ),
    (
        "merge-left-no-dup-anon-vma",
        "default",
        "expand-no-dup-anon-vma",
        true,
    ),
    (
        "flush-unlock-before-rekey",
        "walkers",
        "flush-unlock-before-rekey",
        true,
    ),
    (
        "lock-dropped-between",
        "walkers",
        "i-mmap-dropped-between",
        true,
    ),
    (
        "lock-dropped-between",
        "walkers",
        "i-mmap-unlock-early",
        true,
    ),
    (
        "no-reinsert-adj-next",
        "default",
        "no-reinsert-adj-next",
        true,
    ),
    (
        "adj-next-before-rekey",
        "contract",
        "rekey-after-adj-next-insert",
        true,
    ),
    (
        "adj-next-before-rekey",
        "contract",
        "merge-rekey-before-lock",
        true,
    ),
    (
        "adj-next-before-rekey",
        "contract",
        "split-rekey-before-prepare",
        false,
    ),
    ("remove-vma-twice", "default", "remove-vma-twice", true),
    (
        "split-no-vma-start-write",
        "walkers",
        "split-no-vma-start-write",
        true,
    ),
];

/// A consequence class's rank, most severe first (docs/VERDICTS.md).
fn rank(class: &str) -> usize {
    [
        "missed rmap walk",
        "use-after-free",
        "broken tree",
        "debug-only",
    ]
    .iter()
    .position(|c| *c == class)
    .unwrap_or_else(|| panic!("unknown class {class}"))
}

/// A scope TOML: the built-in `base`'s fields that matter here (`contract` is the default
/// scope, run with `--mode contract`), the consequence search bounded to 10 s a class.
fn scope_file(dir: &std::path::Path, base: &str) -> PathBuf {
    let extra = match base {
        "walkers" => "walkers = 1\nwalker_depth = 2\n",
        _ => "",
    };
    let p = dir.join(format!("{base}.toml"));
    std::fs::write(
        &p,
        format!("name = \"{base}-pairs\"\nmax_depth = 4\n{extra}consequence_seconds = 10\n"),
    )
    .unwrap();
    p
}

/// The (first, worst) consequence classes of a `consequence:` line.
fn classes(out: &str) -> (String, String) {
    let line = out
        .lines()
        .find_map(|l| l.split_once("consequence: first ").map(|(_, r)| r))
        .unwrap_or_else(|| panic!("no consequence line: {out}"));
    let class = |s: &str| {
        s.split_once('(')
            .unwrap()
            .1
            .split_once(')')
            .unwrap()
            .0
            .to_string()
    };
    let (first, rest) = line.split_once("; ").unwrap();
    let first = class(first);
    let worst = match rest.strip_prefix("worst ") {
        Some(w) => class(w),
        None => first.clone(),
    };
    (first, worst)
}

#[test]
fn model_and_c_mutant_pairs_have_the_same_consequence() {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let dir = tempfile::tempdir().unwrap();
    let mut table = Vec::new();
    let mut bad = Vec::new();
    // the model's classes per (mutant, scope): several C mutants share a model mutant
    let mut models: std::collections::HashMap<(&str, &str), (String, String)> = Default::default();
    for &(model, scope, c, same) in PAIRS {
        let spec = root.join(format!("cmutants/{c}.toml"));
        let text = std::fs::read_to_string(&spec).unwrap();
        assert!(
            text.contains(&format!("model_mutant = \"{model}\"")),
            "{c}'s model_mutant is not {model}"
        );
        let sc = scope_file(dir.path(), scope);
        let Some((rc, cout, cerr)) = check(&[
            "--c-mutant",
            spec.to_str().unwrap(),
            "--scope",
            scope_file(dir.path(), "default").to_str().unwrap(),
        ]) else {
            return;
        };
        assert_eq!(rc, 1, "{c}: {cout}{cerr}");
        let (mf, mw) = models
            .entry((model, scope))
            .or_insert_with(|| {
                let mode = if scope == "contract" {
                    "contract"
                } else {
                    "callers"
                };
                let o = Command::new(env!("CARGO_BIN_EXE_rmapcheck"))
                    .current_dir(&root)
                    .args([
                        "check",
                        "--quiet",
                        "--mode",
                        mode,
                        "--scope",
                        sc.to_str().unwrap(),
                    ])
                    .arg(format!("models/mutants/{model}.rmap"))
                    .output()
                    .unwrap();
                let mout = String::from_utf8_lossy(&o.stdout).into_owned();
                assert_eq!(o.status.code(), Some(1), "{model}: {mout}");
                classes(&mout)
            })
            .clone();
        let (cf, cw) = classes(&cout);
        let row = format!("{model} ({scope}) {mf} / {mw} | {c} {cf} / {cw}");
        eprintln!("{row}");
        let ok = if same {
            mf == cf || mw == cw
        } else {
            rank(&cw) <= rank(&mw)
        };
        if !ok {
            bad.push(row.clone());
        }
        table.push(row);
    }
    println!("{}", table.join("\n"));
    assert!(
        bad.is_empty(),
        "pairs whose classes differ:\n{}",
        bad.join("\n")
    );
}
