//! The layering src/lib.rs describes, checked on the sources: the model language (src/lang/)
//! names nothing of the interpreter or above it, the interval trees (src/tree/) name nothing but
//! std and themselves, the values (src/value.rs) name nothing else of the crate, and the traces
//! (src/trace/) and scopes (src/scope.rs) are data that name nothing of the searches above them.
//!
//! No two files import each other, directly or round a circle (`import_graph`, checked on every
//! file of src/).
//!
//! The check reads the text of each file (comments included, so a doc link counts too) and
//! collects the top-level modules it reaches: `crate::m`, each `m` of a `crate::{...}` group,
//! and `super::...::m` chains that climb to the crate root.

use super::source_scan::*;
use std::collections::BTreeSet;
use std::fs;
use std::path::Path;

#[test]
fn lang_names_nothing_above_it() {
    const ABOVE: &[&str] = &[
        "exec", "explore", "cmd", "trace", "fuzzing", "oracle", "report",
    ];
    let files = rust_files(&src().join("lang"));
    assert!(files.len() > 5, "src/lang/ read: {files:?}");
    let mut bad = Vec::new();
    for f in &files {
        let text = fs::read_to_string(f).unwrap();
        for m in crate_modules_named(&text, &module_path(f)) {
            if ABOVE.contains(&m.as_str()) {
                bad.push(format!("{} names crate::{m}", rel(f)));
            }
        }
    }
    assert!(
        bad.is_empty(),
        "the language depends on a layer above it:\n{}",
        bad.join("\n")
    );
}

#[test]
fn tree_names_nothing_but_std_and_itself() {
    let files = rust_files(&src().join("tree"));
    assert!(files.len() > 3, "src/tree/ read: {files:?}");
    let deps = dependency_crates();
    let mut bad = Vec::new();
    for f in &files {
        let text = fs::read_to_string(f).unwrap();
        for m in crate_modules_named(&text, &module_path(f)) {
            if m != "tree" {
                bad.push(format!("{} names crate::{m}", rel(f)));
            }
        }
        let own = declared_mods(&text);
        for r in use_roots(&text) {
            let std_or_self = matches!(r.as_str(), "std" | "core" | "crate" | "super" | "self");
            if !std_or_self && !own.contains(&r) {
                bad.push(format!("{} uses `{r}`", rel(f)));
            }
        }
        for d in &deps {
            if names_path_root(&text, d) {
                bad.push(format!("{} names the crate `{d}`", rel(f)));
            }
        }
    }
    assert!(
        bad.is_empty(),
        "the trees depend on something else:\n{}",
        bad.join("\n")
    );
}

#[test]
fn value_names_nothing_else_of_the_crate() {
    let f = src().join("value.rs");
    let text = fs::read_to_string(&f).unwrap();
    let mut bad: Vec<String> = crate_modules_named(&text, &module_path(&f))
        .into_iter()
        .map(|m| format!("names crate::{m}"))
        .collect();
    if names_path_root(&text, "super") {
        bad.push("names super::".into());
    }
    for r in use_roots(&text) {
        if !matches!(r.as_str(), "std" | "core" | "serde") {
            bad.push(format!("uses `{r}`"));
        }
    }
    for d in dependency_crates() {
        if d != "serde" && names_path_root(&text, &d) {
            bad.push(format!("names the crate `{d}`"));
        }
    }
    assert!(
        bad.is_empty(),
        "src/value.rs is not at the bottom:\n{}",
        bad.join("\n")
    );
}

#[test]
fn the_checker_sees_what_it_must() {
    let lang = vec![
        "lang".to_string(),
        "compile".to_string(),
        "expr".to_string(),
    ];
    let named = crate_modules_named(
        "use crate::{value::Value, exec::host};\nuse super::super::super::oracle::X;\n\
         use super::super::ast::Expr; // crate::report\nmy_crate::trace",
        &lang,
    );
    let got: Vec<&str> = named.iter().map(String::as_str).collect();
    assert_eq!(got, ["exec", "oracle", "report", "value"]);
    let plain = crate_modules_named("use crate::exec::host::Value;", &lang);
    assert_eq!(plain.into_iter().collect::<Vec<_>>(), ["exec"]);
    assert_eq!(
        use_roots("use std::fmt;\npub use serde::{A, B};\n    use {rand::X, super::y};\n")
            .into_iter()
            .collect::<Vec<_>>(),
        ["rand", "serde", "std", "super"]
    );
    assert_eq!(
        module_path(&src().join("lang/compile/mod.rs")),
        ["lang", "compile"]
    );
    assert_eq!(module_path(&src().join("value.rs")), ["value"]);
    let mods = declared_mods("pub mod types;\nmod inner {\n#[cfg(test)]\nmod tests {");
    assert_eq!(
        mods.into_iter().collect::<Vec<_>>(),
        ["inner", "tests", "types"]
    );
    assert!(names_path_root("x: serde::Value", "serde"));
    assert!(!names_path_root("x: my_serde::Value", "serde"));
}

/// The modules of `forbidden` that `text` (the file `file`) names, as "file names crate::m".
fn forbidden_named(text: &str, file: &Path, forbidden: &[&str]) -> Vec<String> {
    crate_modules_named(text, &module_path(file))
        .into_iter()
        .filter(|m| forbidden.contains(&m.as_str()))
        .map(|m| format!("{} names crate::{m}", rel(file)))
        .collect()
}

/// Modules under `dir` (or the file `dir`.rs) that name a module of `forbidden`, as "file names
/// crate::m" lines.
fn naming(dir: &str, forbidden: &[&str]) -> Vec<String> {
    let single = src().join(format!("{dir}.rs"));
    let files = if single.is_file() {
        vec![single]
    } else {
        rust_files(&src().join(dir))
    };
    assert!(!files.is_empty(), "src/{dir}/ read");
    let mut bad = Vec::new();
    for f in &files {
        let text = fs::read_to_string(f).unwrap();
        bad.extend(forbidden_named(&text, f, forbidden));
    }
    bad
}

/// What the traces and scopes must not name: they are data the searches, the fuzzing harness,
/// the oracle, the report and the command line build on.
const ABOVE_TRACE: &[&str] = &["explore", "cmd", "fuzzing", "oracle", "report"];

/// A trace is data (the struct, its JSON form, its text and DOT renderings): re-running and
/// minimising live in the explorer, which names the traces, never the other way round.
#[test]
fn trace_and_scope_name_nothing_of_the_searches() {
    let mut bad = naming("trace", ABOVE_TRACE);
    bad.extend(naming("scope", ABOVE_TRACE));
    assert!(
        bad.is_empty(),
        "the traces depend on a layer above them:\n{}",
        bad.join("\n")
    );
}

/// The rule above fires on the imports trace/mod.rs used to have, in each spelling.
#[test]
fn the_trace_rule_fires_on_an_upward_import() {
    let file = src().join("trace/mod.rs");
    for (text, m) in [
        ("use crate::explore::op::{apply, CheckOpts};", "explore"),
        (
            "use crate::{check::Invariant, explore::scope::Scope};",
            "explore",
        ),
        (
            "let x = crate::fuzzing::concretise::check_preconditions(w, c);",
            "fuzzing",
        ),
        ("/// [`crate::cmd::load_model`] reads it", "cmd"),
    ] {
        assert_eq!(
            forbidden_named(text, &file, ABOVE_TRACE),
            [format!("src/trace/mod.rs names crate::{m}")],
            "{text}"
        );
    }
    let nested = src().join("trace/text.rs");
    assert_eq!(
        forbidden_named("use super::super::report::page;", &nested, ABOVE_TRACE),
        ["src/trace/text.rs names crate::report"]
    );
    let fine = "use crate::check::Invariant;\nuse crate::world::World;\n// explore::replay";
    assert!(forbidden_named(fine, &file, ABOVE_TRACE).is_empty());
}

/// The kernel objects, the invariants and the interpreter sit below the searches, traces, the
/// fuzzing harness, the oracle, the report and the command line.
#[test]
fn world_check_and_exec_name_nothing_above_them() {
    const ABOVE: &[&str] = &[
        "explore", "trace", "cmd", "fuzzing", "oracle", "report", "models",
    ];
    let mut bad = Vec::new();
    for d in ["world", "check", "exec"] {
        bad.extend(naming(d, ABOVE));
    }
    assert!(bad.is_empty(), "an upward import:\n{}", bad.join("\n"));
}

/// The kernel objects record violations of the invariants but never call the checks that judge
/// them: `world` and `exec` name `invariant` (the type), never `check` (the judges), and the
/// invariant type names nothing above the trees.
#[test]
fn the_world_records_violations_without_naming_the_checks() {
    let mut bad = naming("world", &["check"]);
    bad.extend(naming("exec", &["check"]));
    let p = src().join("invariant.rs");
    let text = fs::read_to_string(&p).unwrap();
    for m in crate_modules_named(&text, &module_path(&p)) {
        if m != "tree" {
            bad.push(format!("{} names crate::{m}", rel(&p)));
        }
    }
    assert!(bad.is_empty(), "an upward import:\n{}", bad.join("\n"));
}

/// Only the command line itself names `cmd`: the library never calls the CLI layer.
#[test]
fn only_the_command_line_names_cmd() {
    let mut bad = Vec::new();
    for d in [
        "check", "exec", "explore", "fuzzing", "lang", "oracle", "report", "trace", "tree", "world",
    ] {
        bad.extend(naming(d, &["cmd"]));
    }
    for f in ["models.rs", "value.rs", "toml_diag.rs"] {
        let p = src().join(f);
        let text = fs::read_to_string(&p).unwrap();
        if crate_modules_named(&text, &module_path(&p)).contains("cmd") {
            bad.push(format!("{} names crate::cmd", rel(&p)));
        }
    }
    assert!(
        bad.is_empty(),
        "the library calls the CLI layer:\n{}",
        bad.join("\n")
    );
}

/// The one checker core knows transition systems and budgets, nothing of worlds or models.
#[test]
fn the_checker_core_names_only_itself() {
    let files = rust_files(&src().join("checker"));
    assert!(files.len() >= 3);
    for f in &files {
        let text = fs::read_to_string(f).unwrap();
        let named = crate_modules_named(&text, &module_path(f));
        assert!(
            named.iter().all(|m| m == "checker"),
            "{} names {named:?}",
            rel(f)
        );
        for line in text
            .lines()
            .filter(|l| l.trim_start().starts_with("use crate::"))
        {
            assert!(
                line.contains("crate::checker::budget"),
                "{}: {line}",
                rel(f)
            );
        }
    }
}

/// Every top-level module of the library with its layer: a module may name only modules of a
/// lower layer (its own submodules aside). This is the whole of src/lib.rs's "data flows one
/// way", in one table; a new module must be added here (the test says so).
const LAYERS: &[(&str, u32)] = &[
    ("value", 0),
    ("checker", 0),
    ("tree", 0),
    ("toml_diag", 0),
    ("textbuf", 0),
    ("known", 0),
    ("cover", 0),
    ("lang", 1),
    ("invariant", 1),
    ("exec", 2),
    ("world", 3),
    ("check", 4),
    ("models", 4),
    ("entry", 5),
    ("scope", 6),
    ("trace", 7),
    ("explore", 8),
    ("fuzzing", 9),
    ("oracle", 9),
    ("report", 9),
    ("charness", 10),
    ("cdiff", 11),
    ("ccheck", 11),
    ("review", 12),
    ("cmd", 13),
];

/// Imports that still point up or sideways, each tolerated for a reason given beside it. Empty
/// is the goal (and the state today); an entry that no longer occurs fails the test, so the list
/// can only shrink.
const TOLERATED: &[(&str, &str)] = &[];

/// The "from -> to" pairs of `graph` that break [`LAYERS`], and the modules it has no layer for.
fn upward(graph: &[(String, BTreeSet<String>)]) -> (Vec<(String, String)>, Vec<String>) {
    let layer = |m: &str| LAYERS.iter().find(|(n, _)| *n == m).map(|&(_, l)| l);
    let mut bad = Vec::new();
    let mut unknown = Vec::new();
    for (from, named) in graph {
        let Some(lf) = layer(from) else {
            unknown.push(from.clone());
            continue;
        };
        for to in named {
            match layer(to) {
                Some(lt) if lt < lf => {}
                Some(_) => bad.push((from.clone(), to.clone())),
                None => unknown.push(to.clone()),
            }
        }
    }
    (bad, unknown)
}

/// Each top-level module of src/ with the other top-level modules its files name.
fn module_graph() -> Vec<(String, BTreeSet<String>)> {
    let mut graph: std::collections::BTreeMap<String, BTreeSet<String>> = Default::default();
    for f in rust_files(&src()) {
        let path = module_path(&f);
        let Some(top) = path.first().cloned() else {
            continue; // lib.rs and main.rs declare, they are not a layer
        };
        if top == "main" {
            continue;
        }
        let text = fs::read_to_string(&f).unwrap();
        let named = graph.entry(top.clone()).or_default();
        for m in crate_modules_named(&text, &path) {
            if m != top {
                named.insert(m);
            }
        }
    }
    // `super::x` in a test module of a top-level file can look like a crate path: keep only
    // names that are modules of the crate
    let modules: BTreeSet<String> = graph.keys().cloned().collect();
    for named in graph.values_mut() {
        named.retain(|m| modules.contains(m));
    }
    graph.into_iter().collect()
}

#[test]
fn every_import_points_down_the_layers() {
    let (bad, unknown) = upward(&module_graph());
    assert!(
        unknown.is_empty(),
        "modules without a layer in LAYERS: {unknown:?}"
    );
    let untolerated: Vec<String> = bad
        .iter()
        .filter(|(a, b)| !TOLERATED.contains(&(a.as_str(), b.as_str())))
        .map(|(a, b)| format!("{a} names {b}"))
        .collect();
    assert!(
        untolerated.is_empty(),
        "an import against the layers:\n{}",
        untolerated.join("\n")
    );
    for (a, b) in TOLERATED {
        assert!(
            bad.iter().any(|(x, y)| x == a && y == b),
            "{a} -> {b} is tolerated but no longer occurs: remove it from TOLERATED"
        );
    }
}

/// The layer check fires on an upward, a sideways and an unknown import.
#[test]
fn the_layer_check_fires() {
    let set = |xs: &[&str]| xs.iter().map(|s| s.to_string()).collect::<BTreeSet<_>>();
    let graph = vec![
        ("world".to_string(), set(&["tree", "explore"])),
        ("check".to_string(), set(&["models"])),
        ("lang".to_string(), set(&["nowhere"])),
    ];
    let (bad, unknown) = upward(&graph);
    assert_eq!(
        bad,
        [
            ("world".to_string(), "explore".to_string()),
            ("check".to_string(), "models".to_string())
        ]
    );
    assert_eq!(unknown, ["nowhere"]);
}

/// The entry table sits above the world, the invariants and the interpreter and below every
/// user of it (the alphabet, the fuzzer, replay), so the fuzzer and replay use it without the
/// searches or the command line; the world and the interpreter name nothing of it.
#[test]
fn the_entry_table_names_only_what_lies_below_it() {
    let mut bad = naming(
        "entry",
        &[
            "explore", "trace", "cmd", "fuzzing", "oracle", "report", "models",
        ],
    );
    for d in ["world", "exec", "lang", "tree"] {
        bad.extend(naming(d, &["entry"]));
    }
    assert!(bad.is_empty(), "a layering break:\n{}", bad.join("\n"));
}

/// No two files of the crate import each other, directly or round a circle (`import_graph`):
/// a circle inside a folder is two concepts that should be one module, or one that should be
/// split out for both to name.
#[test]
fn no_import_circle_between_files() {
    let mods = super::import_graph::modules(&src());
    assert!(mods.len() > 100, "src/ read: {} files", mods.len());
    let edges = super::import_graph::edges(&mods);
    assert!(
        edges["cdiff::run"].contains("charness::calls"),
        "the graph misses an import: {:?}",
        edges["cdiff::run"]
    );
    let circles = super::import_graph::circles(&edges);
    let lines: Vec<String> = circles.iter().map(|c| c.join(", ")).collect();
    assert!(
        lines.is_empty(),
        "import circles between files:\n{}",
        lines.join("\n")
    );
}

/// The circle check fires on a generated tree: two files of one folder that import each other
/// (one through `super::`, one through `crate::`), a four-file circle through a group import
/// and a `super::super::` climb, and nothing for an import named only in a comment or one way.
#[test]
fn the_circle_check_fires() {
    let d = tempfile::tempdir().unwrap();
    let write = |rel: &str, text: &str| {
        let p = d.path().join(rel);
        fs::create_dir_all(p.parent().unwrap()).unwrap();
        fs::write(p, text).unwrap();
    };
    write("lib.rs", "pub mod a;\npub mod b;\n");
    write("a/mod.rs", "pub mod x;\npub mod y;\npub mod z;\n");
    write("a/x.rs", "use super::y::Thing;\n");
    write(
        "a/y.rs",
        "pub struct Thing;\nfn f() { crate::a::x::g() } // super::z::h()\n",
    );
    write(
        "a/z.rs",
        "//! names crate::a::x in a comment only\nuse super::x;\n",
    );
    write(
        "b/mod.rs",
        "pub mod p;\npub mod q;\npub mod r;\npub mod deep;\n",
    );
    write("b/p.rs", "use crate::b::{q::Q, deep::inner};\n");
    write("b/q.rs", "pub struct Q;\nuse super::r;\n");
    write("b/r.rs", "use super::deep::inner::X;\nuse crate::a::z;\n");
    write(
        "b/deep/inner.rs",
        "use super::super::r::X;\nuse super::super::p;\n",
    );
    let mods = super::import_graph::modules(d.path());
    let edges = super::import_graph::edges(&mods);
    assert_eq!(
        edges["b::deep::inner"].iter().collect::<Vec<_>>(),
        ["b::p", "b::r"]
    );
    let circles = super::import_graph::circles(&edges);
    assert_eq!(
        circles,
        [
            vec!["a::x".to_string(), "a::y".to_string()],
            vec![
                "b::deep::inner".to_string(),
                "b::p".to_string(),
                "b::q".to_string(),
                "b::r".to_string()
            ]
        ]
    );
}
