//! The bounds and signals of a search: a time or memory bound reached, SIGINT or SIGTERM,
//! each gives `incomplete` (exit 3) and says which; the verdict line's memory figures.

use std::process::{Command, Stdio};

use super::cli_output::{rc, Tmp, BASE, BIN};

/// The bound holds within 10% (plus the time of one call), and the verdict is incomplete.
#[test]
fn time_and_memory_bounds_hold_and_say_incomplete() {
    let t = Tmp::new("bounds");
    let s = t.file(
        "w.toml",
        "name = \"w\"\nwalkers = 2\nwalker_depth = 3\nmax_seconds = 2\n",
    );
    let (code, out, _) = rc(&["check", BASE, "--quiet", "--scope", &s]);
    assert_eq!(code, 3, "{out}");
    assert!(out.contains("incomplete up to depth"), "{out}");
    assert!(out.contains("time bound 2s reached"), "{out}");
    let secs: f64 = seconds(&out).expect("seconds in the verdict line");
    assert!(
        secs <= 2.0 * 1.1 + 0.05,
        "ran {secs}s for a 2 s bound: {out}"
    );
    let s = t.file(
        "m.toml",
        "name = \"m\"\nmax_depth = 6\nmax_memory_mb = 32\n",
    );
    // at 32 MiB the seen-set is about to double: before the search
    // checked a table's growth against the bound, this run peaked at 37 MiB
    let (code, out, _) = rc(&["check", BASE, "--quiet", "--scope", &s]);
    assert_eq!(code, 3, "{out}");
    assert!(out.contains("memory bound 32 MiB reached"), "{out}");
    let peak: f64 = field(&out, " MiB, p(").expect("peak RSS in the verdict line");
    assert!(
        peak <= 32.0 * 1.1,
        "peak RSS {peak} MiB for a 32 MiB bound: {out}"
    );
}

/// The verdict line says what a state really costs, the process's peak resident set over the
/// states, beside the search tables' estimate; the JSON document carries the same figures.
#[test]
fn the_verdict_reports_peak_rss_per_state() {
    let (code, out, _) = rc(&["check", BASE, "--quiet", "--scope", "tiny"]);
    assert_eq!(code, 0, "{out}");
    let per_state = field(&out, " B/state (peak RSS / states; tables").expect("memory figure");
    assert!(per_state > 0.0, "{out}");
    let (code, out, _) = rc(&[
        "check", BASE, "--quiet", "--scope", "tiny", "--format", "json",
    ]);
    assert_eq!(code, 0, "{out}");
    let doc: serde_json::Value = serde_json::from_str(&out).expect("stdout is JSON");
    let mem = &doc["results"][0]["memory"];
    for key in [
        "peak_rss_bytes",
        "peak_rss_bytes_per_state",
        "table_bytes_per_state",
    ] {
        assert!(mem[key].as_u64().is_some_and(|n| n > 0), "{key}: {mem}");
    }
}

/// The seconds figure of a verdict line (`..., depth 2, 2.0s, ...`).
fn seconds(s: &str) -> Option<f64> {
    s.split(", ")
        .find_map(|t| t.strip_suffix('s').and_then(|n| n.parse().ok()))
}

/// The number just before `suffix` in `s`.
fn field(s: &str, suffix: &str) -> Option<f64> {
    let end = s.find(suffix)?;
    let start = s[..end]
        .rfind(|c: char| !(c.is_ascii_digit() || c == '.'))
        .map_or(0, |i| i + 1);
    s[start..end].parse().ok()
}

fn interrupt(args: &[&str], sig: i32) -> (i32, String) {
    let child = Command::new(BIN)
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    std::thread::sleep(std::time::Duration::from_millis(1500));
    // SAFETY: the pid is our own child's, still unwaited
    unsafe { libc::kill(child.id() as i32, sig) };
    let o = child.wait_with_output().unwrap();
    (
        o.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&o.stdout).into_owned(),
    )
}

#[test]
fn sigint_and_sigterm_give_incomplete_and_exit_3() {
    let t = Tmp::new("signals");
    let dir = t.path("traces");
    let (code, out) = interrupt(
        &[
            "check",
            "--scope",
            "default",
            BASE,
            "--quiet",
            "--max-depth",
            "7",
            "--trace-dir",
            &dir,
        ],
        libc::SIGINT,
    );
    assert_eq!(code, 3, "{out}");
    assert!(out.contains("incomplete up to depth"), "{out}");
    assert!(out.contains("(interrupted)"), "{out}");
    // nothing half written
    if let Ok(rd) = std::fs::read_dir(&dir) {
        assert_eq!(rd.count(), 0);
    }
    let (code, out) = interrupt(
        &[
            "compare",
            BASE,
            "models/patches/split-skip-reinsert.rmap",
            "--max-depth",
            "7",
            "--quiet",
        ],
        libc::SIGTERM,
    );
    assert_eq!(code, 3, "{out}");
    assert!(
        out.contains("incomplete up to depth") && out.contains("interrupted"),
        "{out}"
    );
}
