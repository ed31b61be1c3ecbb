//! Reading the crate's sources for the layering tests (`layering.rs`): the `.rs` files under
//! a directory, the module path of a file, and the crate modules and dependency crates a file's
//! text names (`crate::m`, each `m` of a `crate::{...}` group, `super::...::m` chains that
//! climb to the crate root, `use` roots and declared submodules).

use std::collections::BTreeSet;
use std::fs;
use std::path::{Path, PathBuf};

/// Every `.rs` file under `dir`, sorted.
pub(crate) fn rust_files(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut todo = vec![dir.to_path_buf()];
    while let Some(d) = todo.pop() {
        for entry in fs::read_dir(&d).unwrap_or_else(|e| panic!("{}: {e}", d.display())) {
            let p = entry.expect("directory entry").path();
            if p.is_dir() {
                todo.push(p);
            } else if p.extension().is_some_and(|x| x == "rs") {
                out.push(p);
            }
        }
    }
    out.sort();
    out
}

pub(crate) fn src() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("src")
}

/// The module path of a source file below src/: `lang/compile/mod.rs` is `[lang, compile]`.
pub(crate) fn module_path(file: &Path) -> Vec<String> {
    let rel = file.strip_prefix(src()).expect("a file under src/");
    let mut parts: Vec<String> = rel
        .iter()
        .map(|c| c.to_string_lossy().into_owned())
        .collect();
    let last = parts.pop().expect("a file name");
    let stem = last.trim_end_matches(".rs");
    if stem != "mod" && stem != "lib" {
        parts.push(stem.to_string());
    }
    parts
}

pub(crate) fn is_ident_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_'
}

/// The identifier at the start of `s` (after blanks).
pub(crate) fn ident_at(s: &str) -> &str {
    let s = s.trim_start();
    let end = s.find(|c: char| !is_ident_char(c)).unwrap_or(s.len());
    &s[..end]
}

/// The first identifier of each item of a `{a::b, c, d::{e}}` group starting at `s[0] == '{'`.
pub(crate) fn group_heads(s: &str) -> Vec<String> {
    let mut heads = Vec::new();
    let mut depth = 0;
    let mut at_item = true;
    for (i, c) in s.char_indices() {
        match c {
            '{' => {
                depth += 1;
                if depth == 1 {
                    at_item = true;
                    continue;
                }
            }
            '}' => {
                depth -= 1;
                if depth == 0 {
                    break;
                }
            }
            ',' if depth == 1 => {
                at_item = true;
                continue;
            }
            _ => {}
        }
        if depth == 1 && at_item && !c.is_whitespace() {
            at_item = false;
            let h = ident_at(&s[i..]);
            if !h.is_empty() {
                heads.push(h.to_string());
            }
        }
    }
    heads
}

/// Top-level modules of the crate that `text` (the file at module path `path`) names.
pub(crate) fn crate_modules_named(text: &str, path: &[String]) -> BTreeSet<String> {
    let mut named = BTreeSet::new();
    let bytes = text.as_bytes();
    for (i, _) in text.match_indices("crate::") {
        if i > 0 && (is_ident_char(bytes[i - 1] as char) || bytes[i - 1] == b':') {
            continue; // `foo_crate::` or `$crate::` style paths are someone else's
        }
        let rest = &text[i + "crate::".len()..];
        if rest.trim_start().starts_with('{') {
            named.extend(group_heads(rest.trim_start()));
        } else {
            named.insert(ident_at(rest).to_string());
        }
    }
    // `super::super::x` from deep enough reaches the crate root
    for (i, _) in text.match_indices("super::") {
        if i > 0 && (is_ident_char(bytes[i - 1] as char) || bytes[i - 1] == b':') {
            continue;
        }
        let mut rest = &text[i..];
        let mut ups = 0;
        while let Some(r) = rest.strip_prefix("super::") {
            ups += 1;
            rest = r.trim_start();
        }
        if ups >= path.len() {
            if rest.starts_with('{') {
                named.extend(group_heads(rest));
            } else {
                named.insert(ident_at(rest).to_string());
            }
        }
    }
    named.remove("");
    named
}

/// The first path segment of every `use` declaration in `text`.
pub(crate) fn use_roots(text: &str) -> BTreeSet<String> {
    let mut roots = BTreeSet::new();
    for line in text.lines() {
        let l = line.trim_start();
        let l = l.strip_prefix("pub ").unwrap_or(l);
        let l = l
            .strip_prefix("pub(crate) ")
            .or_else(|| l.strip_prefix("pub(super) "))
            .unwrap_or(l);
        if let Some(u) = l.strip_prefix("use ") {
            let u = u.trim_start().trim_start_matches("::");
            if u.starts_with('{') {
                roots.extend(group_heads(u));
            } else {
                roots.insert(ident_at(u).to_string());
            }
        }
    }
    roots
}

/// The modules `text` declares (`mod x;`, `pub mod x {`): a `use` may start at them.
pub(crate) fn declared_mods(text: &str) -> BTreeSet<String> {
    let mut mods = BTreeSet::new();
    for line in text.lines() {
        let l = line.trim_start();
        let l = l.strip_prefix("pub ").unwrap_or(l);
        if let Some(m) = l.strip_prefix("mod ") {
            mods.insert(ident_at(m).to_string());
        }
    }
    mods
}

/// External crates this package depends on, as Rust spells their names.
pub(crate) fn dependency_crates() -> Vec<String> {
    let manifest =
        fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("Cargo.toml")).unwrap();
    let mut crates = Vec::new();
    let mut in_deps = false;
    for line in manifest.lines() {
        let l = line.trim();
        if l.starts_with('[') {
            in_deps = l.ends_with("dependencies]");
            continue;
        }
        if in_deps {
            if let Some((name, _)) = l.split_once('=') {
                let name = name.trim();
                if !name.is_empty() && !name.starts_with('#') {
                    crates.push(name.replace('-', "_"));
                }
            }
        }
    }
    assert!(
        crates.iter().any(|c| c == "serde"),
        "Cargo.toml parsed: {crates:?}"
    );
    crates
}

/// Whether `text` names `krate` as a path root (`krate::`), outside longer identifiers.
pub(crate) fn names_path_root(text: &str, krate: &str) -> bool {
    let pat = format!("{krate}::");
    let bytes = text.as_bytes();
    text.match_indices(&pat)
        .any(|(i, _)| i == 0 || !(is_ident_char(bytes[i - 1] as char) || bytes[i - 1] == b':'))
}

pub(crate) fn rel(file: &Path) -> String {
    file.strip_prefix(env!("CARGO_MANIFEST_DIR"))
        .unwrap_or(file)
        .display()
        .to_string()
}
