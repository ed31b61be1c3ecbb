//! docs/findings/: each review reply still says what `rmapcheck` prints.
//!
//! A findings file quotes commands as `    $ rmapcheck ARGS` (a line ending in `\` continues on
//! the next) and, right below, what they print as `    | TEXT` lines. The test runs every
//! command (a `D` argument, or a `D/` prefix, is a scratch directory shared by the file's
//! commands, so `--trace-dir D` then `repro D/X.trace.json` work), and checks that
//! - each quoted block (consecutive `|` lines, joined, whitespace collapsed) appears in the
//!   command's output (stdout then stderr, whitespace collapsed); a `| ...` line splits a block
//!   into pieces that must appear in that order;
//! - the exit status is the one the verdict implies: 1 for a quoted `COUNTEREXAMPLE`, 0 for a
//!   quoted `holds`, 3 for a quoted `incomplete`, otherwise 0.
//!
//! An exhaustive search that holds in a scope other than `default` takes from half a minute
//! to minutes, and so does a simulation of more than 5,000 walks; those are run only with
//! `RMAPCHECK_FINDINGS_SLOW=1`, and otherwise only checked to name a model and scope file that
//! exist.
//! docs/findings/README.md must list every file, and there must be one file per seed patch.

use std::path::Path;
use std::process::Command;

/// A quoted command and the blocks quoted below it, with the file line of the command.
struct Quote {
    line: usize,
    args: Vec<String>,
    blocks: Vec<Vec<String>>,
}

fn collapse(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// The `$ rmapcheck` commands of a findings file and the `|` blocks under each.
fn quotes(text: &str) -> Vec<Quote> {
    let lines: Vec<&str> = text.lines().collect();
    let mut out: Vec<Quote> = Vec::new();
    let mut i = 0;
    while i < lines.len() {
        let t = lines[i].trim_start();
        if let Some(rest) = t.strip_prefix("$ rmapcheck") {
            let line = i + 1;
            let mut cmd = rest.to_string();
            while cmd.trim_end().ends_with('\\') && i + 1 < lines.len() {
                cmd = cmd.trim_end().trim_end_matches('\\').to_string();
                i += 1;
                cmd.push(' ');
                cmd.push_str(lines[i].trim());
            }
            let args = cmd.split_whitespace().map(String::from).collect();
            out.push(Quote {
                line,
                args,
                blocks: Vec::new(),
            });
        } else if let Some(q) = t.strip_prefix('|') {
            let q = q.strip_prefix(' ').unwrap_or(q);
            let cur = out.last_mut().unwrap_or_else(|| {
                panic!("line {}: a quoted output line before any command", i + 1)
            });
            let continues = i > 0 && lines[i - 1].trim_start().starts_with('|');
            if !continues || cur.blocks.is_empty() {
                cur.blocks.push(Vec::new());
            }
            cur.blocks.last_mut().unwrap().push(q.to_string());
        }
        i += 1;
    }
    out
}

/// An exhaustive search that holds explores its whole scope: beyond the default scope that
/// takes from half a minute to minutes. Counterexamples stop early; a simulation of more than
/// 5,000 walks that finds nothing takes about a minute.
fn is_slow(args: &[String], blocks: &[Vec<String>]) -> bool {
    let holds = blocks
        .iter()
        .flatten()
        .any(|l| l.contains("holds up to depth"));
    let scope = args
        .windows(2)
        .find(|w| w[0] == "--scope")
        .map(|w| w[1].as_str());
    let walks = args
        .windows(2)
        .find(|w| w[0] == "--simulate")
        .and_then(|w| w[1].parse::<u64>().ok());
    (holds && scope.is_some_and(|s| s != "default")) || walks.is_some_and(|n| n > 5_000)
}

fn expected_status(blocks: &[Vec<String>]) -> i32 {
    let all = blocks
        .iter()
        .flatten()
        .cloned()
        .collect::<Vec<_>>()
        .join(" ");
    if all.contains("COUNTEREXAMPLE") {
        1
    } else if all.contains(": incomplete") {
        3
    } else {
        0
    }
}

/// Run every command of docs/findings/NAME.txt and compare; returns how many ran.
fn check_file(name: &str) -> usize {
    let path = format!("docs/findings/{name}");
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
    check_text(&path, &text).unwrap_or_else(|e| panic!("{e}"))
}

/// The checks of [`check_file`] on a findings text read from `path`: the first mismatch, or
/// how many commands ran.
fn check_text(path: &str, text: &str) -> Result<usize, String> {
    for (n, l) in text.lines().enumerate() {
        if l.chars().count() > 80 {
            return Err(format!("{path}:{}: longer than 80 columns", n + 1));
        }
        if !l.is_ascii() {
            return Err(format!("{path}:{}: not plain ASCII", n + 1));
        }
    }
    let qs = quotes(text);
    if qs.is_empty() {
        return Err(format!("{path}: quotes no rmapcheck command"));
    }
    let dir = crate::scratch::scratch("findings");
    let slow = std::env::var_os("RMAPCHECK_FINDINGS_SLOW").is_some();
    let mut ran = 0;
    for q in &qs {
        let at = format!("{path}:{}", q.line);
        let args: Vec<String> = q
            .args
            .iter()
            .map(|a| {
                if a == "D" {
                    dir.display().to_string()
                } else if let Some(rest) = a.strip_prefix("D/") {
                    dir.join(rest).display().to_string()
                } else {
                    a.clone()
                }
            })
            .collect();
        for a in &args {
            if (a.starts_with("models/") || a.starts_with("proofs/")) && !Path::new(a).exists() {
                return Err(format!("{at}: {a} does not exist"));
            }
        }
        if is_slow(&q.args, &q.blocks) && !slow {
            continue;
        }
        let o = Command::new(env!("CARGO_BIN_EXE_rmapcheck"))
            .args(&args)
            .output()
            .expect("run rmapcheck");
        let raw = format!(
            "{}{}",
            String::from_utf8_lossy(&o.stdout),
            String::from_utf8_lossy(&o.stderr)
        );
        let out = collapse(&raw);
        for b in &q.blocks {
            let mut from = 0;
            for piece in b.split(|l| l.trim() == "...") {
                let want = collapse(&piece.join(" "));
                if want.is_empty() {
                    continue;
                }
                match out[from..].find(&want) {
                    Some(k) => from += k + want.len(),
                    None => {
                        return Err(format!(
                            "{at}: `rmapcheck {}` no longer prints\n  {want}\nit printed:\n{raw}",
                            q.args.join(" ")
                        ))
                    }
                }
            }
        }
        if o.status.code() != Some(expected_status(&q.blocks)) {
            return Err(format!(
                "{at}: exit status {:?} of `rmapcheck {}`:\n{raw}",
                o.status.code(),
                q.args.join(" ")
            ));
        }
        ran += 1;
    }
    Ok(ran)
}

/// The check fires: the 004 reply with a figure, a trace line or the verdict changed no longer
/// matches what `check` prints.
#[test]
fn a_findings_file_that_no_longer_matches_fails() {
    let path = "docs/findings/skip-anon-file-rmap.txt";
    let text = std::fs::read_to_string(path).unwrap();
    assert!(check_text(path, &text).is_ok());
    for (from, to) in [
        ("164 states", "165 states"),
        ("vma#0 is freed but still", "vma#1 is freed but still"),
        (
            "COUNTEREXAMPLE\n    | membership; 164",
            "holds\n    | up to depth 4; 164",
        ),
    ] {
        let bad = text.replacen(from, to, 1);
        assert_ne!(bad, text, "{from}");
        let e = check_text(path, &bad).expect_err(from);
        assert!(e.contains("no longer prints"), "{from}: {e}");
    }
    // a wrong exit status alone: nothing quoted says it fails, but it does
    let quiet = "    $ rmapcheck check models/patches/skip-anon-file-rmap.rmap --scope default\n    | skip-anon-file-rmap.rmap:\n";
    let e = check_text("x.txt", quiet).unwrap_err();
    assert!(e.contains("exit status Some(1)"), "{e}");
}

/// One findings file per seed patch the project models, each indexed in the README.
const FILES: &[&str] = &[
    "inplace-pgoff-unchanged-v1.txt",
    "inplace-pgoff-unchanged-v2.txt",
    "split-skip-reinsert.txt",
    "skip-anon-file-rmap.txt",
    "madv-dontneed-vma-lock.txt",
];

#[test]
fn every_findings_file_is_indexed() {
    let index = std::fs::read_to_string("docs/findings/README.md").unwrap();
    let mut on_disk: Vec<String> = std::fs::read_dir("docs/findings")
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".txt"))
        .collect();
    on_disk.sort();
    let mut want: Vec<String> = FILES.iter().map(|s| s.to_string()).collect();
    want.sort();
    assert_eq!(on_disk, want, "docs/findings/*.txt");
    for f in FILES {
        assert!(
            index.contains(f),
            "docs/findings/README.md does not list {f}"
        );
    }
}

#[test]
fn inplace_v1_finding_matches_check() {
    assert!(check_file("inplace-pgoff-unchanged-v1.txt") >= 2);
}

#[test]
fn inplace_v2_finding_matches_check() {
    assert!(check_file("inplace-pgoff-unchanged-v2.txt") >= 2);
}

#[test]
fn split_skip_reinsert_finding_matches_check() {
    assert!(check_file("split-skip-reinsert.txt") >= 1);
}

#[test]
fn skip_anon_file_rmap_finding_matches_check() {
    // the check, and the reproducer made from its trace
    assert!(check_file("skip-anon-file-rmap.txt") >= 2);
}

#[test]
fn madv_dontneed_finding_matches_check() {
    assert!(check_file("madv-dontneed-vma-lock.txt") >= 1);
}

/// The parser itself: continuation lines, `D` substitution is left to check_file, blocks split
/// by a line that is not quoted, and a `...` gap stays inside its block.
#[test]
fn quotes_are_parsed_as_documented() {
    let text = "x\n    $ rmapcheck check a \\\n        --scope b\n    | one\n    | ...\n    | two\n\n    | three\n";
    let q = quotes(text);
    assert_eq!(q.len(), 1);
    assert_eq!(q[0].line, 2);
    assert_eq!(q[0].args, ["check", "a", "--scope", "b"]);
    assert_eq!(q[0].blocks, vec![vec!["one", "...", "two"], vec!["three"]]);
    let holds = vec![vec!["m: holds up to depth 4; 1 states".to_string()]];
    let fails = vec![vec!["m: COUNTEREXAMPLE augment;".to_string()]];
    let scope = |s: &str| vec!["check".to_string(), "--scope".into(), s.into()];
    assert!(is_slow(&scope("walkers"), &holds));
    assert!(!is_slow(&scope("default"), &holds));
    assert!(!is_slow(&scope("walkers"), &fails));
    let sim = |n: &str| vec!["check".to_string(), "--simulate".into(), n.into()];
    assert!(is_slow(&sim("20000"), &[]));
    assert!(!is_slow(&sim("2000"), &[]));
    assert_eq!(
        expected_status(&[vec!["x: COUNTEREXAMPLE augment".into()]]),
        1
    );
    assert_eq!(expected_status(&[vec!["x: holds up to depth 4".into()]]), 0);
}
