//! Real definitions take precedence over stubs. The userland VMA tests (tools/testing/vma)
//! stub every kernel function mm/vma.c calls that they do not build; the harness builds more
//! of the kernel than they do (mm/interval_tree.c, the anon_vma paths of mm/rmap.c). A patch
//! that adds a function to one of those files adds, as mm patches do, a stub for it to the
//! tests' include/stubs.h so that the tests still build, and the harness would then compile
//! both. So, generically: every function that a kernel file the harness compiles defines is
//! cut out of the tests' stub headers, whatever its name, before the build. The names
//! [`super::replaced::STUBS_REMOVED`] and [`super::replaced::CUSTOM_REMOVED`] list are removed
//! first, and are not counted again here.

use super::csource;
use super::generation::Generation;
use super::replaced::{CUSTOM_REMOVED, RMAP_FUNCTIONS, STUBS_REMOVED};
use std::collections::BTreeSet;
use std::path::Path;

/// Kernel files the harness compiles whole: every function they define is real.
const BUILT_WHOLE: &[&str] = &[
    "mm/vma.c",
    "mm/vma_init.c",
    "mm/vma_exec.c",
    "mm/interval_tree.c",
];

/// Functions the harness takes one by one from other kernel files.
const BUILT_ONE_BY_ONE: &[&str] = &["get_anon_vma", "put_anon_vma", "vma_last_pgoff"];

/// The tests' headers that hold stubs (relative to tools/testing/vma), with the names the
/// build already removes from each, as the tree's `generation` spells them. Older trees kept
/// their stubs in vma_internal.h.
pub fn stub_files(generation: &Generation) -> [(&'static str, Vec<&'static str>); 3] {
    [
        ("include/stubs.h", generation.kernel_names(STUBS_REMOVED)),
        ("include/custom.h", generation.kernel_names(CUSTOM_REMOVED)),
        ("vma_internal.h", Vec::new()),
    ]
}

/// The names of the functions the harness compiles from the kernel files of `tree`.
pub fn real_functions(tree: &Path) -> Result<BTreeSet<String>, String> {
    let mut out = BTreeSet::new();
    for f in BUILT_WHOLE {
        let p = tree.join(f);
        if p.is_file() {
            out.extend(
                csource::definitions(&csource::read(&p)?)
                    .into_iter()
                    .map(|(n, _)| n),
            );
        }
    }
    out.extend(RMAP_FUNCTIONS.iter().map(|s| s.to_string()));
    out.extend(BUILT_ONE_BY_ONE.iter().map(|s| s.to_string()));
    Ok(out)
}

/// The stubs of the header `text` (one of [`stub_files`], whose build already removes
/// `removed`) that a real function of `real` supersedes, in the header's order.
pub fn superseded(text: &str, real: &BTreeSet<String>, removed: &[&str]) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for (name, _) in csource::definitions(text) {
        if real.contains(&name) && !removed.contains(&name.as_str()) && !out.contains(&name) {
            out.push(name);
        }
    }
    out
}

/// Every stub the build of `tree` (of `generation`) cuts out because the harness compiles the
/// real function: `tools/testing/vma/FILE: NAME` lines, for the report.
pub fn superseded_in_tree(tree: &Path, generation: &Generation) -> Result<Vec<String>, String> {
    let real = real_functions(tree)?;
    let mut out = Vec::new();
    for (file, removed) in stub_files(generation) {
        let p = tree.join("tools/testing/vma").join(file);
        if !p.is_file() {
            continue;
        }
        for n in superseded(&csource::read(&p)?, &real, &removed) {
            out.push(format!("tools/testing/vma/{file}: {n}"));
        }
    }
    Ok(out)
}

/// `text` (the header `what`) without every definition of each of `names` (a name may be
/// defined more than once under different `#if` branches).
pub fn cut(text: &str, what: &str, names: &[String]) -> Result<String, String> {
    let mut t = text.to_string();
    for n in names {
        t = csource::remove(&t, what, &[n.as_str()], csource::Def::Function)?;
        while csource::find(&t, n, csource::Def::Function).is_some() {
            t = csource::remove(&t, what, &[n.as_str()], csource::Def::Function)?;
        }
    }
    Ok(t)
}

#[cfg(test)]
mod tests {
    use super::*;

    const STUBS: &str = "static inline void kept(int a)\n{\n}\n\nstatic inline void gone(struct anon_vma *av,\n\t\t\t\tint b)\n{\n}\n\nstatic inline void mapping_rmap_tree_insert(void)\n{\n}\n";

    #[test]
    fn a_stub_of_a_real_function_is_cut_and_others_are_kept() {
        let real: BTreeSet<String> = ["gone", "mapping_rmap_tree_insert", "elsewhere"]
            .iter()
            .map(|s| s.to_string())
            .collect();
        let names = superseded(STUBS, &real, STUBS_REMOVED);
        // mapping_rmap_tree_insert is removed by the build's own list already
        assert_eq!(names, vec!["gone".to_string()]);
        let t = cut(STUBS, "stubs.h", &names).unwrap();
        assert!(
            t.contains("kept(int a)") && !t.contains("gone(struct"),
            "{t}"
        );
        assert!(t.contains("gone removed here"), "{t}");
    }

    #[test]
    fn a_name_defined_twice_is_cut_twice() {
        let t = "#ifdef A\nstatic inline int f(void)\n{\n\treturn 1;\n}\n#else\nstatic inline int f(void)\n{\n\treturn 0;\n}\n#endif\n";
        let got = cut(t, "x.h", &["f".to_string()]).unwrap();
        assert!(!got.contains("return"), "{got}");
    }
}
