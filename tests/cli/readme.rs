//! The README check: every command README.md shows in an `sh` code block runs, in order, and
//! ends as the README says.
//!
//! The rules, which README.md repeats for its writers:
//! - Each non-empty line of a block fenced as `sh` that is not a comment is one command; what
//!   follows ` #` on it is its comment. Other blocks (output, file contents) are not run.
//! - A command starting with `rmapcheck`, or with `cargo run --release --`, runs the binary under
//!   test with the rest of the line as its arguments (split at whitespace: no quoting).
//! - It must exit 0, unless its comment says `exits N`; then exactly N.
//! - A comment `slow: the README check adds ARGS` runs it with ARGS appended (a smaller depth or
//!   budget), so the README can show the command a reviewer types.
//! - A comment `not run by the README check: REASON` skips it; any other command (another
//!   program, `$EDITOR`) is an error until it says so.
//! - `"$tree"` is the kernel tree the C tests use (`kernel_tree`: `RMAPCHECK_KERNEL_SRC`, which
//!   CI sets); without one a command naming it is skipped, as the C tests are. `my-series.mbx`
//!   is then a series made at test time (the review test's three patches, one of which breaks
//!   the lock rule), so `review` runs as a reviewer runs it.
//! - The commands run one after another in a scratch copy of `models/`, `proofs/`, `examples/`
//!   and `tests/scenarios/`, so `rmapcheck new` and `--trace-dir out` write there, and a later command sees
//!   what an earlier one wrote. Each may take at most [`LIMIT`]; a README whose blocks hold no
//!   command at all fails too.

use super::kernel_tree::tree;
use super::scratch::scratch;
use super::series;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

const BIN: &str = env!("CARGO_BIN_EXE_rmapcheck");

/// The longest one README command may run before the check calls it a failure.
const LIMIT: Duration = Duration::from_secs(300);

/// One command of a code block.
#[derive(Debug, PartialEq)]
struct Cmd {
    /// Line in the README (1-based).
    line: usize,
    /// The command as the README shows it, without its comment.
    text: String,
    /// The binary's arguments, or `None` when it is not run.
    args: Option<Vec<String>>,
    /// The exit status it must end with.
    exit: i32,
    /// It names the kernel tree (`"$tree"`), which the check puts in.
    needs_tree: bool,
}

/// How the README names the kernel tree in a command; the check puts the tests' tree there.
const TREE: &str = "\"$tree\"";

/// The commands of `markdown`'s `sh` blocks, or what is wrong with one.
fn commands(markdown: &str) -> Result<Vec<Cmd>, String> {
    let mut out = Vec::new();
    let mut in_sh = false;
    let mut in_other = false;
    for (i, raw) in markdown.lines().enumerate() {
        let line = i + 1;
        let t = raw.trim();
        if let Some(info) = t.strip_prefix("```") {
            if in_sh || in_other {
                (in_sh, in_other) = (false, false);
            } else if info.trim() == "sh" {
                in_sh = true;
            } else {
                in_other = true;
            }
            continue;
        }
        if !in_sh || t.is_empty() || t.starts_with('#') {
            continue;
        }
        let (cmd, comment) = match t.find(" #") {
            Some(k) => (t[..k].trim(), t[k + 2..].trim()),
            None => (t, ""),
        };
        let needs_tree = cmd.split_whitespace().any(|w| w == TREE);
        let plain = cmd.replace(TREE, "");
        if plain.contains(['"', '\'', '\\', '|', '>', '<', '&', ';', '$']) && !skipped(comment) {
            return Err(format!(
                "README.md:{line}: `{cmd}`: quoting, pipes and redirections are not run; \
                 write plain arguments or mark it `not run by the README check: why`"
            ));
        }
        let exit = match comment.find("exits ") {
            Some(k) => comment[k + 6..]
                .split(|c: char| !c.is_ascii_digit())
                .next()
                .and_then(|n| n.parse().ok())
                .ok_or_else(|| format!("README.md:{line}: `exits` without a number"))?,
            None => 0,
        };
        let words: Vec<String> = cmd.split_whitespace().map(str::to_string).collect();
        let mut args = if skipped(comment) {
            None
        } else if words.first().map(String::as_str) == Some("rmapcheck") {
            Some(words[1..].to_vec())
        } else if words.len() >= 3 && words[..3] == ["cargo", "run", "--release"] {
            if words.get(3).map(String::as_str) != Some("--") {
                return Err(format!(
                    "README.md:{line}: `cargo run --release` without `--`"
                ));
            }
            Some(words[4..].to_vec())
        } else {
            return Err(format!(
                "README.md:{line}: `{cmd}` is not rmapcheck; mark it `not run by the README \
                 check: why`"
            ));
        };
        if let (Some(a), Some(k)) = (&mut args, comment.find("the README check adds ")) {
            a.extend(
                comment[k + "the README check adds ".len()..]
                    .split_whitespace()
                    .map(str::to_string),
            );
        }
        out.push(Cmd {
            line,
            text: cmd.to_string(),
            args,
            exit,
            needs_tree,
        });
    }
    if in_sh {
        return Err("README.md: an `sh` block is not closed".into());
    }
    Ok(out)
}

fn skipped(comment: &str) -> bool {
    comment.contains("not run by the README check:")
}

/// Copies `from` into `to`, recursively.
fn copy_tree(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for e in std::fs::read_dir(from).unwrap() {
        let e = e.unwrap();
        let (src, dst) = (e.path(), to.join(e.file_name()));
        if e.file_type().unwrap().is_dir() {
            copy_tree(&src, &dst);
        } else {
            std::fs::copy(&src, &dst).unwrap();
        }
    }
}

/// Runs one command in `dir`; returns what is wrong with how it ended.
fn run(cmd: &Cmd, args: &[String], dir: &Path) -> Option<String> {
    let started = Instant::now();
    let mut child = Command::new(BIN)
        .args(args)
        .current_dir(dir)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run rmapcheck");
    // drain the pipes on threads so that a chatty command cannot block on a full pipe
    let mut so = child.stdout.take().unwrap();
    let mut se = child.stderr.take().unwrap();
    let o = std::thread::spawn(move || {
        let mut s = String::new();
        std::io::Read::read_to_string(&mut so, &mut s).ok();
        s
    });
    let e = std::thread::spawn(move || {
        let mut s = String::new();
        std::io::Read::read_to_string(&mut se, &mut s).ok();
        s
    });
    let status = loop {
        if let Some(st) = child.try_wait().unwrap() {
            break Some(st);
        }
        if started.elapsed() > LIMIT {
            let _ = child.kill();
            let _ = child.wait();
            break None;
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    let (out, err) = (o.join().unwrap(), e.join().unwrap());
    let tail = |s: &str| s.lines().rev().take(8).collect::<Vec<_>>().join("\n");
    match status.map(|s| s.code()) {
        None => Some(format!(
            "README.md:{}: `{}` ran past {LIMIT:?}; make it smaller or mark it slow",
            cmd.line, cmd.text
        )),
        Some(code) if code == Some(cmd.exit) => None,
        Some(code) => Some(format!(
            "README.md:{}: `{}` exited {code:?}, the README says {}\nstdout ends:\n{}\nstderr \
             ends:\n{}",
            cmd.line,
            cmd.text,
            cmd.exit,
            tail(&out),
            tail(&err)
        )),
    }
}

#[test]
fn every_readme_command_runs_as_the_readme_says() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(root.join("README.md")).unwrap();
    let cmds = commands(&text).unwrap_or_else(|e| panic!("{e}"));
    let runnable = cmds.iter().filter(|c| c.args.is_some()).count();
    assert!(
        runnable >= 5,
        "only {runnable} README commands to run: {cmds:?}"
    );
    let dir = scratch("readme");
    for d in ["models", "proofs", "examples", "tests/scenarios"] {
        copy_tree(&root.join(d), &dir.join(d));
    }
    let kernel = if cmds.iter().any(|c| c.needs_tree && c.args.is_some()) {
        tree()
    } else {
        None
    };
    if let Some(t) = &kernel {
        let cover = "Three patches made at test time for the README check.";
        std::fs::write(
            dir.join("my-series.mbx"),
            series::mbox(t, cover, &super::review::the_series()),
        )
        .unwrap();
    }
    let mut bad = Vec::new();
    for c in &cmds {
        let Some(args) = &c.args else { continue };
        let args: Vec<String> = match (&kernel, c.needs_tree) {
            (_, false) => args.clone(),
            (None, true) => continue,
            (Some(t), true) => args
                .iter()
                .map(|a| {
                    if a == TREE {
                        t.display().to_string()
                    } else {
                        a.clone()
                    }
                })
                .collect(),
        };
        bad.extend(run(c, &args, &dir));
    }
    assert!(bad.is_empty(), "{}", bad.join("\n\n"));
}

/// The rules themselves: what is run, with which arguments and status, and what is refused.
#[test]
fn the_readme_rules_read_blocks_as_documented() {
    let md = "text\n```sh\nrmapcheck check a   # exits 1: found\n\
              cargo run --release -- list\n# a comment\n\
              rmapcheck check b --scope contract   # slow: the README check adds --max-depth 3\n\
              cargo test --release   # not run by the README check: it is the suite\n```\n\
              ```\nrmapcheck not-run output\n```\n";
    let c = commands(md).unwrap();
    let args: Vec<Option<Vec<String>>> = c.iter().map(|c| c.args.clone()).collect();
    let v = |s: &str| Some(s.split_whitespace().map(str::to_string).collect::<Vec<_>>());
    assert_eq!(
        args,
        vec![
            v("check a"),
            v("list"),
            v("check b --scope contract --max-depth 3"),
            None
        ]
    );
    assert_eq!(c[0].exit, 1);
    assert_eq!((c[1].exit, c[2].line), (0, 6));
    // another program, quoting, an unclosed block: errors, never silently skipped
    let e = commands("```sh\nls models\n```\n").unwrap_err();
    assert!(
        e.contains("README.md:2") && e.contains("not rmapcheck"),
        "{e}"
    );
    // the kernel tree is the one quoted word allowed, and marks the command
    let md = "```sh\nrmapcheck review s.mbx --kernel \"$tree\"   # exits 1\nrmapcheck list\n```\n";
    let c = commands(md).unwrap();
    assert!(c[0].needs_tree && !c[1].needs_tree);
    assert_eq!(c[0].exit, 1);
    assert_eq!(c[0].args, v("review s.mbx --kernel \"$tree\""));
    assert!(commands("```sh\nrmapcheck review s.mbx --kernel $tree\n```\n").is_err());
    let e = commands("```sh\nrmapcheck check 'a b'\n```\n").unwrap_err();
    assert!(e.contains("quoting"), "{e}");
    assert!(commands("```sh\nrmapcheck list\n").is_err());
}

/// A command that ends otherwise than the README says is reported with its line.
#[test]
fn the_readme_check_fires_on_a_wrong_exit_status() {
    let c = &commands("```sh\nrmapcheck check no-such-model.rmap\n```\n").unwrap()[0];
    let dir = scratch("readme-fires");
    let why = run(c, c.args.as_ref().unwrap(), &dir).expect("a failure");
    assert!(
        why.contains("README.md:2") && why.contains("exited Some(2)"),
        "{why}"
    );
}
