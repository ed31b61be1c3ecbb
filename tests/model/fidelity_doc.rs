//! docs/FIDELITY.md stays true to the models: every row's `(file.rmap:N)` points at the line
//! that defines the function it names, and every baseline function annotated with its kernel
//! counterpart (`// kernel: FILE FUNCTION`) has a row. A model edit that moves a function, or a
//! new baseline function without a row, fails here.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

fn rmap_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for e in std::fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        if p.is_dir() {
            rmap_files(&p, out);
        } else if p.extension().is_some_and(|x| x == "rmap") {
            out.push(p);
        }
    }
}

/// The name of the function a definition line defines: the identifier before its first `(`.
fn defined_name(line: &str) -> Option<&str> {
    if !line.starts_with(|c: char| c.is_ascii_alphabetic()) || line.trim_end().ends_with(';') {
        return None;
    }
    let head = &line[..line.find('(')?];
    let start = head
        .rfind(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
        .map_or(0, |i| i + 1);
    Some(&head[start..])
}

/// `(function, file name, line)` for every row of the model-function tables.
fn rows(doc: &str) -> Vec<(String, String, usize)> {
    let mut out = Vec::new();
    for line in doc.lines().filter(|l| l.starts_with("| `")) {
        let Some(rest) = line.strip_prefix("| `") else {
            continue;
        };
        let Some((name, after)) = rest.split_once('`') else {
            continue;
        };
        let Some(loc) = after.strip_prefix(" (").and_then(|a| a.split_once(')')) else {
            continue;
        };
        let Some((file, n)) = loc.0.split_once(':') else {
            continue;
        };
        if !file.ends_with(".rmap") {
            continue;
        }
        let name = name.split('(').next().unwrap().to_string();
        out.push((name, file.to_string(), n.parse().expect(line)));
    }
    out
}

#[test]
fn fidelity_rows_point_at_the_definitions() {
    let mut files = Vec::new();
    rmap_files(Path::new("models"), &mut files);
    let mut by_name: BTreeMap<String, Vec<PathBuf>> = BTreeMap::new();
    for f in &files {
        let base = f.file_name().unwrap().to_string_lossy().to_string();
        by_name.entry(base).or_default().push(f.clone());
    }
    let doc = std::fs::read_to_string("docs/FIDELITY.md").unwrap();
    let rows = rows(&doc);
    assert!(rows.len() > 70, "only {} rows read", rows.len());
    let mut wrong = Vec::new();
    for (name, file, n) in &rows {
        let paths = by_name.get(file).map(Vec::as_slice).unwrap_or(&[]);
        assert_eq!(paths.len(), 1, "{file} names {paths:?}");
        let text = std::fs::read_to_string(&paths[0]).unwrap();
        let line = text.lines().nth(n - 1).unwrap_or("");
        if defined_name(line) != Some(name.as_str()) {
            wrong.push(format!("{name} ({file}:{n}) is `{line}`"));
        }
    }
    assert!(wrong.is_empty(), "stale rows:\n{}", wrong.join("\n"));

    // every annotated baseline function has a row
    let have: BTreeSet<(String, String)> = rows
        .iter()
        .map(|(n, f, _)| (n.clone(), f.clone()))
        .collect();
    let mut missing = Vec::new();
    for f in files.iter().filter(|f| f.starts_with("models/v7.3-rc4")) {
        let text = std::fs::read_to_string(f).unwrap();
        let lines: Vec<&str> = text.lines().collect();
        for (i, l) in lines.iter().enumerate() {
            if l.starts_with("// kernel:") {
                let name = lines.get(i + 1).and_then(|d| defined_name(d)).expect(l);
                let base = f.file_name().unwrap().to_string_lossy().to_string();
                if !have.contains(&(name.to_string(), base.clone())) {
                    missing.push(format!("{name} ({base})"));
                }
            }
        }
    }
    assert!(missing.is_empty(), "no FIDELITY.md row: {missing:?}");
}

#[test]
fn a_moved_function_is_caught() {
    // the check itself fires: a row one line off does not point at a definition
    assert_eq!(
        defined_name("int vma_shrink(struct vm_area_struct *vma, unsigned long end)"),
        Some("vma_shrink")
    );
    assert_eq!(
        defined_name("struct mm_struct *sys_fork(struct mm_struct *oldmm)"),
        Some("sys_fork")
    );
    assert_eq!(defined_name("\tvma_shrink(vma, end);"), None);
    assert_eq!(
        defined_name("int vma_shrink(struct vm_area_struct *vma, unsigned long end);"),
        None
    );
    let r = rows("| `vma_shrink` (vma.rmap:12) | x |\n| `a_builtin` | y |\n");
    assert_eq!(r, vec![("vma_shrink".into(), "vma.rmap".into(), 12)]);
}
