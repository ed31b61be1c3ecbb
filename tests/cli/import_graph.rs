//! The import graph between the crate's source files, for the layering tests (`layering.rs`):
//! a file names another when its code (comments left out) has a path to that file's module:
//! `crate::a::b` (and each item of a `crate::a::{b, c}` group) or `super::b` (and each item of
//! a `super::{b, c}` group), resolved to the longest module path that is a file. The files that
//! only declare their children (`mod.rs`, `lib.rs`, `main.rs`) are left out. [`circles`] are
//! the strongly connected components of two files or more (Tarjan).

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::Path;

/// Each module (`a::b`, from `a/b.rs`) of the `.rs` files under `root` with its text.
pub(crate) fn modules(root: &Path) -> BTreeMap<String, String> {
    let mut out = BTreeMap::new();
    for f in super::source_scan::rust_files(root) {
        let rel = f.strip_prefix(root).expect("a file under root");
        let mut parts: Vec<String> = rel
            .iter()
            .map(|c| c.to_string_lossy().into_owned())
            .collect();
        let last = parts.pop().expect("a file name");
        let stem = last.trim_end_matches(".rs");
        if matches!(stem, "mod" | "lib" | "main") {
            continue;
        }
        parts.push(stem.to_string());
        out.insert(
            parts.join("::"),
            fs::read_to_string(&f).expect("a source file"),
        );
    }
    out
}

/// `text` without its `//` comments (doc comments included).
fn code(text: &str) -> String {
    text.lines()
        .map(|l| l.find("//").map_or(l, |i| &l[..i]))
        .collect::<Vec<_>>()
        .join("\n")
}

/// The `a::b::c` path starting at `s` (identifiers joined by `::`), and, when it ends in `::{`,
/// the first identifier of each item of that group.
fn path_at(s: &str) -> (Vec<String>, Vec<String>) {
    let mut segs = Vec::new();
    let mut rest = s;
    loop {
        let id = super::source_scan::ident_at(rest);
        if id.is_empty() {
            break;
        }
        segs.push(id.to_string());
        rest = rest.trim_start()[id.len()..].trim_start();
        match rest.strip_prefix("::") {
            Some(r) => rest = r.trim_start(),
            None => return (segs, Vec::new()),
        }
    }
    let group = if rest.starts_with('{') {
        super::source_scan::group_heads(rest)
    } else {
        Vec::new()
    };
    (segs, group)
}

/// The longest prefix of `path` that is a module of `mods`.
fn resolve(path: &[String], mods: &BTreeMap<String, String>) -> Option<String> {
    (1..=path.len())
        .rev()
        .map(|n| path[..n].join("::"))
        .find(|c| mods.contains_key(c))
}

/// Each module of `mods` with the other modules its code names.
pub(crate) fn edges(mods: &BTreeMap<String, String>) -> BTreeMap<String, BTreeSet<String>> {
    let mut out = BTreeMap::new();
    for (m, text) in mods {
        let text = code(text);
        let parent: Vec<String> = m.split("::").map(String::from).collect();
        let parent = &parent[..parent.len() - 1];
        let mut named = BTreeSet::new();
        let bytes = text.as_bytes();
        for (key, base) in [("crate::", &[][..]), ("super::", parent)] {
            for (i, _) in text.match_indices(key) {
                let before = i.checked_sub(1).map(|j| bytes[j] as char);
                if before.is_some_and(|c| super::source_scan::is_ident_char(c) || c == ':') {
                    continue;
                }
                let (mut segs, group) = path_at(&text[i + key.len()..]);
                let mut full: Vec<String> = base.to_vec();
                // `super::super::x` climbs once more for each `super`
                while segs.first().is_some_and(|s| s == "super") && key == "super::" {
                    segs.remove(0);
                    full.pop();
                }
                full.extend(segs);
                let mut targets = vec![resolve(&full, mods)];
                for g in group {
                    let mut p = full.clone();
                    p.push(g);
                    targets.push(resolve(&p, mods));
                }
                named.extend(targets.into_iter().flatten().filter(|t| t != m));
            }
        }
        out.insert(m.clone(), named);
    }
    out
}

/// The import circles of `edges`: each strongly connected component of two modules or more,
/// sorted.
pub(crate) fn circles(edges: &BTreeMap<String, BTreeSet<String>>) -> Vec<Vec<String>> {
    struct Tarjan<'a> {
        edges: &'a BTreeMap<String, BTreeSet<String>>,
        index: BTreeMap<&'a str, usize>,
        low: BTreeMap<&'a str, usize>,
        stack: Vec<&'a str>,
        out: Vec<Vec<String>>,
    }
    impl<'a> Tarjan<'a> {
        fn visit(&mut self, v: &'a str) {
            let n = self.index.len();
            self.index.insert(v, n);
            self.low.insert(v, n);
            self.stack.push(v);
            for w in self.edges.get(v).into_iter().flatten() {
                let w = w.as_str();
                if !self.index.contains_key(w) {
                    self.visit(w);
                    let lw = self.low[w];
                    let lv = self.low.get_mut(v).expect("visited");
                    *lv = (*lv).min(lw);
                } else if self.stack.contains(&w) {
                    let iw = self.index[w];
                    let lv = self.low.get_mut(v).expect("visited");
                    *lv = (*lv).min(iw);
                }
            }
            if self.low[v] == self.index[v] {
                let mut c = Vec::new();
                loop {
                    let w = self.stack.pop().expect("on the stack");
                    c.push(w.to_string());
                    if w == v {
                        break;
                    }
                }
                if c.len() > 1 {
                    c.sort();
                    self.out.push(c);
                }
            }
        }
    }
    let mut t = Tarjan {
        edges,
        index: BTreeMap::new(),
        low: BTreeMap::new(),
        stack: Vec::new(),
        out: Vec::new(),
    };
    for v in edges.keys() {
        if !t.index.contains_key(v.as_str()) {
            t.visit(v);
        }
    }
    t.out.sort();
    t.out
}
