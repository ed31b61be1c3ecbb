//! The distributed search (`check --workers`, `--process/--processes/--hostfile`) against the
//! single-process search, end to end through the binary: at the default scope the same state
//! count, depth and verdict for 1, 2 and 4 workers and for two processes on 127.0.0.1; the same
//! counterexample for two mutants whatever the workers and processes; and a peer that never
//! connects, that dies during the search or that runs another command makes the run fail with
//! exit status 2 and a message, never a verdict.

#[path = "../common/scratch.rs"]
#[allow(dead_code)]
mod scratch;

use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

const BASELINE: &str = "models/v7.3-rc4/baseline.rmap";
const MUTANTS: [&str; 2] = [
    "models/mutants/no-reinsert-adj-next.rmap",
    "models/mutants/inplace-no-propagate.rmap",
];

fn rmapcheck(args: &[&str]) -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_rmapcheck"));
    c.current_dir(env!("CARGO_MANIFEST_DIR"));
    c.args(args);
    c
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

/// A hostfile naming `n` free ports on 127.0.0.1.
fn hostfile(dir: &Path, n: usize) -> PathBuf {
    let ls: Vec<TcpListener> = (0..n)
        .map(|_| TcpListener::bind("127.0.0.1:0").expect("a free port"))
        .collect();
    let lines: Vec<String> = ls
        .iter()
        .map(|l| l.local_addr().unwrap().to_string())
        .collect();
    let p = dir.join("hosts");
    std::fs::write(&p, format!("# test cluster\n{}\n", lines.join("\n"))).unwrap();
    p
}

/// `check` run as `processes` processes on one hostfile (process 0's output first), each with
/// `extra[i]` added and `env[i]` set.
fn cluster(
    args: &[&str],
    processes: usize,
    extra: &[&[&str]],
    env: &[Option<(&str, &str)>],
) -> Vec<Output> {
    let dir = scratch::scratch("cluster");
    let hosts = hostfile(&dir, processes);
    let hosts = hosts.to_str().unwrap().to_string();
    let n = processes.to_string();
    let children: Vec<_> = (0..processes)
        .map(|i| {
            let idx = i.to_string();
            let mut c = rmapcheck(args);
            c.args(["--process", &idx, "--processes", &n, "--hostfile", &hosts]);
            c.args(["--connect-timeout", "30"]);
            if let Some(e) = extra.get(i) {
                c.args(*e);
            }
            if let Some(Some((k, v))) = env.get(i) {
                c.env(k, v);
            }
            c.stdout(std::process::Stdio::piped())
                .stderr(std::process::Stdio::piped())
                .spawn()
                .expect("spawn rmapcheck")
        })
        .collect();
    children
        .into_iter()
        .map(|c| c.wait_with_output().expect("wait"))
        .collect()
}

/// The verdict, states, calls and depth of a `--format json` run, and its trace.
fn figures(o: &Output) -> (String, u64, u64, u64, serde_json::Value) {
    let doc: serde_json::Value = serde_json::from_slice(&o.stdout)
        .unwrap_or_else(|e| panic!("{e}: {}{}", text(&o.stdout), text(&o.stderr)));
    let r = &doc["results"][0];
    (
        r["verdict"].as_str().unwrap_or_default().to_string(),
        r["states"].as_u64().unwrap_or_default(),
        r["calls"].as_u64().unwrap_or_default(),
        r["depth"].as_u64().unwrap_or_default(),
        r["trace"].clone(),
    )
}

/// `check` at the default scope as JSON, every state (the distributed search does not reduce;
/// the single-process one does by default, so the comparisons turn that off).
fn json(model: &str) -> Vec<&str> {
    vec![
        "check",
        model,
        "--scope",
        "default",
        "--format",
        "json",
        "--quiet",
        "--unreduced",
    ]
}

#[test]
fn the_default_scope_gives_the_single_process_figures_on_any_workers_and_two_processes() {
    let single = rmapcheck(&json(BASELINE)).output().unwrap();
    let (verdict, states, calls, depth, _) = figures(&single);
    assert_eq!(verdict, "holds", "{}", text(&single.stderr));
    assert!(states > 100_000, "{states}");
    for w in ["1", "2", "4"] {
        let mut a = json(BASELINE);
        a.extend(["--workers", w]);
        let o = rmapcheck(&a).output().unwrap();
        assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
        let f = figures(&o);
        assert_eq!(
            (f.0, f.1, f.2, f.3),
            (verdict.clone(), states, calls, depth),
            "--workers {w}"
        );
    }
    let outs = cluster(&json(BASELINE), 2, &[], &[]);
    for (i, o) in outs.iter().enumerate() {
        assert_eq!(o.status.code(), Some(0), "process {i}: {}", text(&o.stderr));
        let f = figures(o);
        assert_eq!(
            (f.0, f.1, f.2, f.3),
            (verdict.clone(), states, calls, depth),
            "process {i}"
        );
    }
}

#[test]
fn two_mutants_give_the_same_counterexample_whatever_the_workers_and_processes() {
    for m in MUTANTS {
        let single = rmapcheck(&json(m)).output().unwrap();
        assert_eq!(single.status.code(), Some(1), "{}", text(&single.stderr));
        let (verdict, _, _, depth, trace) = figures(&single);
        assert_eq!(verdict, "counterexample");
        assert!(trace.is_object(), "{trace}");
        let mut runs = Vec::new();
        for w in ["1", "2", "3", "4"] {
            let mut a = json(m);
            a.extend(["--workers", w]);
            runs.push((format!("--workers {w}"), rmapcheck(&a).output().unwrap()));
        }
        for (i, o) in cluster(
            &json(m),
            2,
            &[&["--workers", "2"], &["--workers", "2"]],
            &[],
        )
        .into_iter()
        .enumerate()
        {
            runs.push((format!("process {i} of 2"), o));
        }
        for (what, o) in runs {
            assert_eq!(o.status.code(), Some(1), "{m} {what}: {}", text(&o.stderr));
            let f = figures(&o);
            assert_eq!((f.0.as_str(), f.3), ("counterexample", depth), "{m} {what}");
            assert_eq!(f.4, trace, "{m} {what}: another trace");
        }
        // and the text trace, byte for byte from its heading; the single-process run goes on
        // to search the bug's worst consequence (the distributed search does not), so what
        // follows the first trace is left out of the comparison
        let body = |o: &Output| {
            let t = text(&o.stdout);
            let from = t.find("rmapcheck counterexample").unwrap_or(t.len());
            let t = &t[from..];
            let to = t.find("Worst consequence found").unwrap_or(t.len());
            t[..to].trim_end().to_string()
        };
        let t1 = rmapcheck(&["check", "--scope", "default", m, "--quiet", "--unreduced"])
            .output()
            .unwrap();
        let t2 = rmapcheck(&["check", m, "--quiet", "--workers", "2"])
            .output()
            .unwrap();
        assert!(
            body(&t1).contains("rmapcheck counterexample"),
            "{}",
            text(&t1.stdout)
        );
        assert_eq!(body(&t1), body(&t2), "{m}: text traces differ");
    }
}

#[test]
fn a_peer_that_never_connects_fails_the_run_with_exit_2() {
    let dir = scratch::scratch("noconnect");
    let hosts = hostfile(&dir, 2);
    let o = rmapcheck(&[
        "check",
        MUTANTS[0],
        "--quiet",
        "--process",
        "0",
        "--processes",
        "2",
    ])
    .args([
        "--hostfile",
        hosts.to_str().unwrap(),
        "--connect-timeout",
        "1",
    ])
    .output()
    .unwrap();
    let err = text(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(
        err.contains("process 1") && err.contains("did not connect"),
        "{err}"
    );
    assert!(err.contains("no verdict"), "{err}");
    assert!(
        !text(&o.stdout).contains("COUNTEREXAMPLE"),
        "{}",
        text(&o.stdout)
    );
}

#[test]
fn a_peer_that_dies_during_the_search_fails_the_run_with_exit_2() {
    let mut a = json(BASELINE);
    a.extend(["--max-depth", "3"]);
    let outs = cluster(
        &a,
        2,
        &[],
        &[None, Some(("RMAPCHECK_TEST_EXIT_AT_DEPTH", "2"))],
    );
    let err = text(&outs[0].stderr);
    assert_eq!(outs[0].status.code(), Some(2), "{err}");
    assert!(err.contains("a peer process died"), "{err}");
    assert!(
        !text(&outs[0].stdout).contains("holds"),
        "{}",
        text(&outs[0].stdout)
    );
    assert_ne!(outs[1].status.code(), Some(0));
}

#[test]
fn processes_started_with_different_commands_refuse_each_other() {
    let outs = cluster(
        &["check", MUTANTS[1], "--quiet"],
        2,
        &[&[], &["--max-depth", "3"]],
        &[],
    );
    for (i, o) in outs.iter().enumerate() {
        let err = text(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "process {i}: {err}");
        assert!(
            err.contains("different model, scope or --workers"),
            "process {i}: {err}"
        );
    }
}

#[test]
fn bad_cluster_flags_are_usage_errors() {
    for (args, want) in [
        (vec!["--workers", "0"], "at least 1"),
        (vec!["--process", "2", "--processes", "2"], "not below"),
        (vec!["--processes", "2"], "needs --hostfile"),
        (
            vec!["--processes", "2", "--hostfile", "/nonexistent/hosts"],
            "--hostfile",
        ),
    ] {
        let o = rmapcheck(&["check", MUTANTS[0], "--quiet"])
            .args(&args)
            .output()
            .unwrap();
        let err = text(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {err}");
        assert!(err.contains(want), "{args:?}: {err}");
    }
}

#[test]
fn bounds_make_the_run_incomplete_as_in_the_single_process_search() {
    let dir = scratch::scratch("bounds");
    for (toml, want) in [
        (
            "max_states = 5000\n",
            "incomplete up to depth 2 (state bound 5000 reached)",
        ),
        ("max_seconds = 0.5\n", "(time bound 0.5s reached)"),
    ] {
        let scope = dir.join("scope.toml");
        std::fs::write(&scope, toml).unwrap();
        let scope = scope.to_str().unwrap().to_string();
        for w in [None, Some("2")] {
            let mut c = rmapcheck(&[
                "check",
                BASELINE,
                "--quiet",
                "--scope",
                &scope,
                "--unreduced",
            ]);
            if let Some(w) = w {
                c.args(["--workers", w]);
            }
            let o = c.output().unwrap();
            let out = text(&o.stdout);
            assert_eq!(o.status.code(), Some(3), "{w:?}: {out}{}", text(&o.stderr));
            assert!(out.contains(want), "{w:?}: {out}");
        }
    }
}
