//! `rmapcheck report`: the HTML page of a counterexample. Traces are made by running `check` on
//! mutants with `--trace-dir`; the page must draw one SVG per non-empty tree on each side with
//! as many nodes as the tree has, mark the nodes that changed, escape what it shows, fetch
//! nothing, and reject bad input with exit 2. Headless Chromium (when installed; required
//! under CI) renders it: a screenshot, and a DOM dump in which every node has a real box.

use rmapcheck::cmd::load_model;
use rmapcheck::explore::replay::{rerun, Rerun};
use rmapcheck::trace::Trace;
use rmapcheck::tree::{IntervalKeys, RbRoot};
use rmapcheck::world::{AnonKeys, FileKeys, World};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

/// An anon_vma tree loses an AVC (`membership`, default scope).
const ANON_MUTANT: &str = "adj-next-avcs-not-reinserted";
/// A file tree loses adj_next (`membership`, default scope).
const FILE_MUTANT: &str = "no-reinsert-adj-next";

fn bin() -> Command {
    Command::new(env!("CARGO_BIN_EXE_rmapcheck"))
}

fn work_dir() -> tempfile::TempDir {
    tempfile::Builder::new()
        .prefix("rmapcheck-report-")
        .tempdir_in(std::env::temp_dir())
        .unwrap()
}

fn text(o: &Output) -> (String, String) {
    (
        String::from_utf8_lossy(&o.stdout).into_owned(),
        String::from_utf8_lossy(&o.stderr).into_owned(),
    )
}

/// Run `check` on a mutant and return the trace it saved in `dir`.
fn make_trace(dir: &Path, mutant: &str) -> PathBuf {
    let o = bin()
        .args(["check", "--scope", "default"])
        .arg(format!("models/mutants/{mutant}.rmap"))
        .args(["--format", "json", "--quiet", "--trace-dir"])
        .arg(dir)
        .output()
        .unwrap();
    let (out, err) = text(&o);
    assert_eq!(o.status.code(), Some(1), "{out}{err}");
    let trace = dir.join(format!("{mutant}.trace.json"));
    assert!(trace.exists(), "no {}: {out}{err}", trace.display());
    trace
}

/// `report TRACE -o DIR/NAME`; the page.
fn report_page(dir: &Path, trace: &Path, name: &str) -> (PathBuf, String) {
    let page = dir.join(name);
    let o = bin()
        .arg("report")
        .arg(trace)
        .arg("-o")
        .arg(&page)
        .output()
        .unwrap();
    let (out, err) = text(&o);
    assert_eq!(o.status.code(), Some(0), "{out}{err}");
    let html = std::fs::read_to_string(&page).unwrap();
    (page, html)
}

fn rerun_trace(trace: &Path) -> Rerun {
    let t = Trace::from_json(&std::fs::read_to_string(trace).unwrap()).unwrap();
    let prog = load_model(Path::new(&t.model)).unwrap();
    rerun(&prog, &t.initial, &t.calls, t.scope.invariant_set()).unwrap()
}

/// The trees the page must draw on one side: (tree, members, keys) of every non-empty
/// mapping tree and live anon_vma tree.
fn trees_of(w: &World) -> Vec<(String, &RbRoot, Box<dyn IntervalKeys + '_>)> {
    let mut out: Vec<(String, &RbRoot, Box<dyn IntervalKeys + '_>)> = Vec::new();
    for (m, a) in w.mappings.iter().enumerate() {
        if !a.i_mmap.is_empty() {
            out.push((
                format!("mapping#{m}"),
                &a.i_mmap,
                Box::new(FileKeys { vmas: &w.vmas }),
            ));
        }
    }
    for (i, a) in w.anon_vmas.iter().enumerate() {
        if !a.freed && !a.rb_root.is_empty() {
            out.push((
                format!("anon_vma#{i}"),
                &a.rb_root,
                Box::new(AnonKeys {
                    vmas: &w.vmas,
                    avcs: &w.avcs,
                }),
            ));
        }
    }
    out
}

/// One drawing found in the page: node id -> its `data-changed`.
type Drawn = BTreeMap<(String, String), BTreeMap<u32, String>>;

fn attr(tag: &str, name: &str) -> String {
    let key = format!("{name}=\"");
    let i = tag
        .find(&key)
        .unwrap_or_else(|| panic!("no {name} in {tag}"))
        + key.len();
    tag[i..][..tag[i..].find('"').unwrap()].to_string()
}

/// Every `<svg` of the page keyed by (data-tree, data-side), with its nodes.
fn drawings(html: &str) -> Drawn {
    let mut out = Drawn::new();
    for part in html.split("<svg").skip(1) {
        let part = &part[..part.find("</svg>").expect("closed svg")];
        let head = &part[..part.find('>').unwrap()];
        let mut nodes = BTreeMap::new();
        for g in part.split("<g class=\"node\"").skip(1) {
            let g = &g[..g.find('>').unwrap()];
            nodes.insert(attr(g, "data-id").parse().unwrap(), attr(g, "data-changed"));
        }
        assert_eq!(
            attr(head, "data-nodes").parse::<usize>().unwrap(),
            nodes.len(),
            "{head}"
        );
        let key = (attr(head, "data-tree"), attr(head, "data-side"));
        assert!(out.insert(key.clone(), nodes).is_none(), "{key:?} twice");
    }
    out
}

/// Number of `<svg` in the page equals the drawings expected, each with the tree's node count.
fn check_drawings(trace: &Path, html: &str) -> usize {
    let r = rerun_trace(trace);
    let drawn = drawings(html);
    assert_eq!(html.matches("<svg").count(), drawn.len());
    let mut expected = BTreeMap::new();
    for (side, w) in [("before", &r.before), ("after", &r.after)] {
        for (name, t, _) in trees_of(w) {
            expected.insert((name, side.to_string()), t.len());
        }
    }
    let got: BTreeMap<(String, String), usize> =
        drawn.iter().map(|(k, v)| (k.clone(), v.len())).collect();
    assert_eq!(got, expected);
    expected.values().sum()
}

/// Nodes only on one side are marked added/removed; a node whose record and key are the same
/// on both sides is not marked; one whose colour, key or subtree_last differ is.
fn check_marks(trace: &Path, html: &str) -> usize {
    let r = rerun_trace(trace);
    let drawn = drawings(html);
    let (before, after) = (trees_of(&r.before), trees_of(&r.after));
    let find = |v: &[(String, &RbRoot, Box<dyn IntervalKeys + '_>)], name: &str| {
        v.iter().position(|(n, _, _)| n == name)
    };
    let mut marked = 0;
    for ((tree, side), nodes) in &drawn {
        let (this, other) = if side == "before" {
            (&before, &after)
        } else {
            (&after, &before)
        };
        let (_, t, keys) = &this[find(this, tree).unwrap()];
        let o = find(other, tree).map(|i| &other[i]);
        for (id, changed) in nodes {
            let here = t.node(*id).unwrap();
            let there = o.and_then(|(_, ot, ok)| ot.node(*id).map(|n| (n, ok)));
            match there {
                None => {
                    let want = if side == "before" { "removed" } else { "added" };
                    assert_eq!(changed, want, "{tree} {side} #{id}");
                }
                Some((n, ok)) => {
                    let same_key =
                        (keys.start(*id), keys.last(*id)) == (ok.start(*id), ok.last(*id));
                    if n == here && same_key {
                        assert_eq!(changed, "", "{tree} {side} #{id}");
                    }
                    if n.color != here.color || n.subtree_last != here.subtree_last || !same_key {
                        assert!(!changed.is_empty(), "{tree} {side} #{id}");
                    }
                }
            }
            marked += usize::from(!changed.is_empty());
        }
    }
    marked
}

#[test]
fn report_draws_every_tree_and_marks_changes() {
    let dir = work_dir();
    for mutant in [ANON_MUTANT, FILE_MUTANT] {
        let trace = make_trace(dir.path(), mutant);
        let (_, html) = report_page(dir.path(), &trace, &format!("{mutant}.html"));
        assert!(check_drawings(&trace, &html) > 0, "{mutant}: nothing drawn");
        assert!(check_marks(&trace, &html) > 0, "{mutant}: no change marked");
        assert!(
            html.contains("violates <code>membership</code>"),
            "{mutant}"
        );
        assert!(html.contains("class=\"legend\""), "{mutant}");
        assert!(html.contains("Steps of call"), "{mutant}");
        assert!(html.contains("World before call"), "{mutant}");
        assert!(html.contains("World at the failure"), "{mutant}");
        // the failing step or the call's end, with model file:line
        assert!(html.contains(".rmap:"), "{mutant}");
    }
    // the anon mutant leaves an AVC out of its tree: it is drawn before and marked removed
    let html = std::fs::read_to_string(dir.path().join(format!("{ANON_MUTANT}.html"))).unwrap();
    let drawn = drawings(&html);
    let before = &drawn[&("anon_vma#0".to_string(), "before".to_string())];
    assert!(before.values().any(|c| c == "removed"), "{before:?}");
}

#[test]
fn report_is_self_contained_escaped_and_goes_to_stdout() {
    let dir = work_dir();
    let trace = make_trace(dir.path(), ANON_MUTANT);
    let (_, html) = report_page(dir.path(), &trace, "page.html");
    for bad in ["<script", "<link", "src=", "@import", "url("] {
        assert!(!html.contains(bad), "page contains {bad}");
    }
    let without_ns = html.replace("xmlns=\"http://www.w3.org/2000/svg\"", "");
    assert!(!without_ns.contains("http://") && !without_ns.contains("https://"));
    // the same page on standard output when -o is absent
    let o = bin().arg("report").arg(&trace).output().unwrap();
    assert_eq!(o.status.code(), Some(0), "{}", text(&o).1);
    assert_eq!(String::from_utf8(o.stdout).unwrap(), html);
    // markup in the trace is shown, not interpreted
    let mut v: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&trace).unwrap()).unwrap();
    v["failure"]["violations"][0]["message"] = "<script>alert('x')</script> & \"q\"".into();
    let evil = dir.path().join("evil.trace.json");
    std::fs::write(&evil, serde_json::to_string(&v).unwrap()).unwrap();
    let (_, html) = report_page(dir.path(), &evil, "evil.html");
    assert!(!html.contains("<script"));
    assert!(
        html.contains("&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt; &amp; &quot;q&quot;"),
        "message not escaped"
    );
}

fn bad(args: &[&Path]) -> (String, String) {
    let o = bin().arg("report").args(args).output().unwrap();
    let (out, err) = text(&o);
    assert_eq!(o.status.code(), Some(2), "{args:?}: {out}{err}");
    (out, err)
}

#[test]
fn report_rejects_bad_input_with_exit_2() {
    let dir = work_dir();
    let missing = dir.path().join("missing.trace.json");
    let (_, err) = bad(&[&missing]);
    assert!(err.contains("cannot read") && err.contains(&*missing.to_string_lossy()));
    for (name, body) in [("other.json", "{\"hello\": 1}"), ("notes.txt", "not json")] {
        let f = dir.path().join(name);
        std::fs::write(&f, body).unwrap();
        let (_, err) = bad(&[&f]);
        assert!(err.contains("not a counterexample trace"), "{err}");
        assert!(err.contains(&*f.to_string_lossy()), "{err}");
    }
    // a real trace whose model does not load
    let trace = make_trace(dir.path(), ANON_MUTANT);
    let broken = dir.path().join("broken.rmap");
    std::fs::write(&broken, "this is not a model {").unwrap();
    let o = bin()
        .arg("report")
        .arg(&trace)
        .arg("--model")
        .arg(&broken)
        .output()
        .unwrap();
    let (out, err) = text(&o);
    assert_eq!(o.status.code(), Some(2), "{out}{err}");
    assert!(err.contains("does not load"), "{err}");
    assert!(err.contains(&*broken.to_string_lossy()), "{err}");
    assert!(out.is_empty(), "{out}");
}

/// Chromium, or None (after a note) when it is not installed outside CI.
fn chromium() -> Option<PathBuf> {
    let p = PathBuf::from("/usr/bin/chromium");
    if p.exists() {
        return Some(p);
    }
    if std::env::var_os("CI").is_some() {
        panic!("/usr/bin/chromium is missing (apt-get install -y chromium)");
    }
    eprintln!("note: /usr/bin/chromium not installed; skipping the rendering check");
    None
}

/// Run headless Chromium with `args` (stdout to `stdout_file`), killed after 60 s.
fn run_chromium(exe: &Path, profile: &Path, args: &[String], stdout_file: &Path) {
    let mut child = Command::new(exe)
        .args(["--headless", "--no-sandbox", "--disable-gpu"])
        .arg(format!("--user-data-dir={}", profile.display()))
        .args(args)
        .stdin(Stdio::null())
        .stdout(std::fs::File::create(stdout_file).unwrap())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        if let Some(status) = child.try_wait().unwrap() {
            assert!(status.success(), "chromium {args:?}: {status}");
            return;
        }
        if Instant::now() > deadline {
            let _ = child.kill();
            let _ = child.wait();
            panic!("chromium {args:?} did not finish within 60 s");
        }
        std::thread::sleep(Duration::from_millis(100));
    }
}

/// Counts the SVG nodes that have a rendered box and records it on the body.
const COUNT_SCRIPT: &str = "<script>
(function () {
  var n = 0;
  document.querySelectorAll('svg g.node').forEach(function (g) {
    var b = g.getBBox();
    if (b.width > 0 && b.height > 0) { n += 1; }
  });
  document.body.dataset.renderedNodes = String(n);
})();
</script>
</body>";

#[test]
fn chromium_renders_every_node() {
    let Some(exe) = chromium() else { return };
    let dir = work_dir();
    let trace = make_trace(dir.path(), FILE_MUTANT);
    let (page, html) = report_page(dir.path(), &trace, "page.html");
    let nodes = check_drawings(&trace, &html);
    let profile = dir.path().join("profile");
    // screenshot: a PNG of the window size with something drawn
    let png = dir.path().join("page.png");
    run_chromium(
        &exe,
        &profile,
        &[
            format!("--screenshot={}", png.display()),
            "--window-size=1200,2000".to_string(),
            format!("file://{}", page.display()),
        ],
        &dir.path().join("screenshot.out"),
    );
    let bytes = std::fs::read(&png).expect("screenshot written");
    assert_eq!(&bytes[..8], b"\x89PNG\r\n\x1a\n");
    let be = |i: usize| u32::from_be_bytes(bytes[i..i + 4].try_into().unwrap());
    assert_eq!((be(16), be(20)), (1200, 2000), "PNG size");
    assert!(bytes.len() > 20_000, "PNG of {} bytes", bytes.len());
    // DOM dump of a copy with the counting script
    let counted = dir.path().join("counted.html");
    std::fs::write(&counted, html.replace("</body>", COUNT_SCRIPT)).unwrap();
    let dom = dir.path().join("dom.html");
    run_chromium(
        &exe,
        &profile,
        &[
            "--dump-dom".to_string(),
            format!("file://{}", counted.display()),
        ],
        &dom,
    );
    let dom = std::fs::read_to_string(&dom).unwrap();
    let key = "data-rendered-nodes=\"";
    let i = dom.find(key).expect("count written by the script") + key.len();
    let rendered: usize = dom[i..][..dom[i..].find('"').unwrap()].parse().unwrap();
    assert_eq!(rendered, nodes);
}
