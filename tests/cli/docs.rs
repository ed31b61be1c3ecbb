//! The documents as a whole: `docs/BUILTINS.md` is what `rmapcheck list --builtins --format
//! markdown` prints from the builtin table, every reference page is reachable from the README
//! and every relative link resolves, and no document (proof and scope files included) names the
//! project's own work items (a reader outside the project cannot look them up; the history is in
//! CHANGELOG.md by date).

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

const BIN: &str = env!("CARGO_BIN_EXE_rmapcheck");

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// Pages the README links to that other work adds; they may be missing here.
const PENDING: &[&str] = &[
    "docs/VERDICTS.md",
    "docs/SEARCH.md",
    "docs/CDIFF.md",
    "docs/findings/README.md",
];

#[test]
fn builtins_page_is_the_builtin_table() {
    let o = Command::new(BIN)
        .args(["list", "--builtins", "--format", "markdown"])
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert_eq!(
        o.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    let made = String::from_utf8(o.stdout).unwrap();
    let committed = std::fs::read_to_string(root().join("docs/BUILTINS.md")).unwrap();
    assert!(
        made == committed,
        "docs/BUILTINS.md differs from the builtin table; regenerate it with\n  \
         cargo run --release -- list --builtins --format markdown > docs/BUILTINS.md"
    );
    // every builtin of the table is on the page
    assert!(made.contains("| `void anon_rmap_tree_propagate(struct anon_vma_chain *avc)` |"));
    assert!(
        made.contains("| `vm_area_struct` | `vm_pgoff` | `long` | yes |"),
        "{made}"
    );
    // the text form lists the same builtins
    let o = Command::new(BIN)
        .args(["list", "--builtins"])
        .output()
        .unwrap();
    let text = String::from_utf8(o.stdout).unwrap();
    assert!(text.contains("  void anon_rmap_tree_propagate(struct anon_vma_chain *avc)\n"));
    let o = Command::new(BIN)
        .args(["list", "--format", "json"])
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2));
}

/// The Markdown files of the project's documentation: README, CHANGELOG, docs/ (recursively)
/// and the READMEs under models/.
fn documents() -> Vec<PathBuf> {
    fn walk(d: &Path, out: &mut Vec<PathBuf>) {
        let Ok(rd) = std::fs::read_dir(d) else { return };
        for e in rd.flatten() {
            let p = e.path();
            if p.is_dir() {
                walk(&p, out);
            } else if p.extension().is_some_and(|x| x == "md") {
                out.push(p);
            }
        }
    }
    let mut v = vec![root().join("README.md"), root().join("CHANGELOG.md")];
    walk(&root().join("docs"), &mut v);
    walk(&root().join("models"), &mut v);
    v
}

/// Each `issue N`, `issues N`, `issue #N` or `work item` in `text`, with its line.
fn work_items(text: &str) -> Vec<(usize, String)> {
    let mut hits = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let low = line.to_ascii_lowercase();
        if low.contains("work item") {
            hits.push((i + 1, line.trim().to_string()));
            continue;
        }
        let mut from = 0;
        while let Some(k) = low[from..].find("issue") {
            let at = from + k;
            let rest = low[at + 5..].trim_start_matches('s');
            let rest = rest.trim_start_matches([' ', '#', '-']);
            if rest.starts_with(|c: char| c.is_ascii_digit()) {
                hits.push((i + 1, line.trim().to_string()));
                break;
            }
            from = at + 5;
        }
    }
    hits
}

/// The proof files and scope files: what a reviewer reads beside a certificate.
fn proof_files() -> Vec<PathBuf> {
    fn walk(d: &Path, out: &mut Vec<PathBuf>) {
        let Ok(rd) = std::fs::read_dir(d) else { return };
        for e in rd.flatten() {
            let p = e.path();
            if p.is_dir() {
                walk(&p, out);
            } else if p.extension().is_some_and(|x| x == "toml") {
                out.push(p);
            }
        }
    }
    let mut v = Vec::new();
    walk(&root().join("proofs"), &mut v);
    v
}

#[test]
fn no_document_names_a_work_item() {
    let mut bad = Vec::new();
    let proofs = proof_files();
    assert!(proofs.len() > 10, "proof files not found");
    for p in documents().into_iter().chain(proofs) {
        let text = std::fs::read_to_string(&p).unwrap();
        for (line, l) in work_items(&text) {
            bad.push(format!(
                "{}:{line}: {l}",
                p.strip_prefix(root()).unwrap().display()
            ));
        }
    }
    assert!(
        bad.is_empty(),
        "documents naming work items:\n{}",
        bad.join("\n")
    );
}

#[test]
fn the_work_item_check_fires() {
    let hits = work_items(
        "fine\nsee Issue 14 here\nissues #3, and\nissue-15\nan issue of taste\nthe work item\n",
    );
    let lines: Vec<usize> = hits.iter().map(|h| h.0).collect();
    assert_eq!(lines, vec![2, 3, 4, 6]);
}

/// The relative link targets of a Markdown text: `](target)`, without an anchor.
fn links(text: &str) -> Vec<String> {
    let mut v = Vec::new();
    let mut rest = text;
    while let Some(k) = rest.find("](") {
        rest = &rest[k + 2..];
        let Some(end) = rest.find(')') else { break };
        let t = &rest[..end];
        if !t.starts_with("http") && !t.starts_with('#') && !t.contains(' ') {
            v.push(t.split('#').next().unwrap().to_string());
        }
        rest = &rest[end..];
    }
    v
}

#[test]
fn every_reference_page_is_reachable_and_every_link_resolves() {
    let readme = std::fs::read_to_string(root().join("README.md")).unwrap();
    assert!(
        readme.lines().count() <= 260,
        "README.md is over 250 lines (and a margin)"
    );
    let from_readme = links(&readme);
    let mut bad = Vec::new();
    for e in std::fs::read_dir(root().join("docs")).unwrap().flatten() {
        let name = format!("docs/{}", e.file_name().to_string_lossy());
        if name.ends_with(".md") && !from_readme.contains(&name) {
            bad.push(format!("{name} is not linked from README.md"));
        }
    }
    let mut checked = 0;
    for p in documents() {
        let text = std::fs::read_to_string(&p).unwrap();
        let dir = p.parent().unwrap();
        for l in links(&text) {
            checked += 1;
            let target = dir.join(&l);
            let rel = target.canonicalize().ok().and_then(|t| {
                t.strip_prefix(root().canonicalize().unwrap())
                    .ok()
                    .map(Path::to_path_buf)
            });
            let pending = PENDING
                .iter()
                .any(|pd| root().join(pd) == target || l.ends_with(pd.trim_start_matches("docs/")));
            if rel.is_none() && !pending {
                bad.push(format!(
                    "{}: link to {l}, which does not exist",
                    p.strip_prefix(root()).unwrap().display()
                ));
            }
        }
    }
    assert!(
        checked >= 40,
        "only {checked} links found: is the link reader broken?"
    );
    assert!(bad.is_empty(), "{}", bad.join("\n"));
}

#[test]
fn the_link_reader_finds_relative_links_only() {
    let l = links("see [a](docs/A.md#x), [b](https://e.org/b), [c](#here) and [d](../D.md).");
    assert_eq!(l, vec!["docs/A.md", "../D.md"]);
}
