//! Building the C harness from a kernel tree: a copy of the tree's `tools/testing/vma` in a
//! cache directory, its rmap stubs removed, the kernel's rmap structs and functions taken
//! from the tree, rmapcheck's glue (`cglue/`, compiled into rmapcheck) added, and `make` run
//! there. The directory is keyed by a hash of every tree file the build reads and of the glue,
//! so a second run reuses it. The tree itself is never written.
//!
//! Kernel functions the harness compiles from the tree: all of mm/vma.c, mm/vma_init.c,
//! mm/vma_exec.c, mm/interval_tree.c, tools/lib/rbtree.c; from mm/rmap.c the anon_vma paths
//! listed in [`RMAP_FUNCTIONS`](super::replaced::RMAP_FUNCTIONS); from mm/internal.h `get_anon_vma`/`put_anon_vma`; from
//! include/linux/mm.h `vma_last_pgoff`; from include/linux/rmap.h `struct anon_vma_chain`
//! and `struct anon_vma`. What is replaced by glue and why is in [`STUBS_REMOVED`](super::replaced::STUBS_REMOVED),
//! [`CUSTOM_REMOVED`](super::replaced::CUSTOM_REMOVED) and docs/CDIFF.md.

use super::csource::{self, Def};
use super::generation::{self, Generation, TREE_OPS};
use super::layout;
use super::lock_wrappers;
use super::precedence;
use super::replaced::{CUSTOM_REMOVED, RMAP_FUNCTIONS, STUBS_REMOVED};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

/// rmapcheck's glue, compiled into the binary so that it stands alone.
const GLUE: &[(&str, &str)] = &[
    ("glue.h", include_str!("../../cglue/glue.h")),
    ("glue.c", include_str!("../../cglue/glue.c")),
    ("treecheck.c", include_str!("../../cglue/treecheck.c")),
    ("calls.c", include_str!("../../cglue/calls.c")),
    ("command.c", include_str!("../../cglue/command.c")),
    ("remap.c", include_str!("../../cglue/remap.c")),
    ("contract.c", include_str!("../../cglue/contract.c")),
    ("undo.c", include_str!("../../cglue/undo.c")),
    ("dump.c", include_str!("../../cglue/dump.c")),
    ("pages.c", include_str!("../../cglue/pages.c")),
    ("checkpoint.c", include_str!("../../cglue/checkpoint.c")),
    ("cover.c", include_str!("../../cglue/cover.c")),
    ("harness.c", include_str!("../../cglue/harness.c")),
    ("Makefile", include_str!("../../cglue/Makefile")),
];

/// The glue's files: the copy compiled into rmapcheck, or, when `RMAPCHECK_CGLUE` names a
/// directory (for working on the glue without rebuilding rmapcheck), the files there.
fn glue_files() -> Result<Vec<(&'static str, String)>, String> {
    match std::env::var_os("RMAPCHECK_CGLUE") {
        None => Ok(GLUE.iter().map(|(n, t)| (*n, t.to_string())).collect()),
        Some(d) => GLUE
            .iter()
            .map(|(n, _)| Ok((*n, csource::read(&Path::new(&d).join(n))?)))
            .collect(),
    }
}

/// Changed whenever the build steps below change, so old cache entries are not reused.
const BUILD_VERSION: &str = "charness-build 8";

/// A built harness.
#[derive(Clone, Debug)]
pub struct Built {
    pub binary: PathBuf,
    /// The tree's release (its Makefile's VERSION.PATCHLEVEL.SUBLEVEL-EXTRAVERSION).
    pub release: String,
    /// The tree's generation ([`generation::detect`]).
    pub generation: &'static Generation,
    /// False when the cached build was reused.
    pub compiled: bool,
    /// The tests' stubs cut out because the harness compiles the real function
    /// (`tools/testing/vma/FILE: NAME`, [`precedence`]).
    pub superseded: Vec<String>,
    pub seconds: f64,
}

/// The cache directory: `$RMAPCHECK_CACHE/charness`, else `$HOME/.cache/rmapcheck/charness`.
pub fn cache_root() -> PathBuf {
    if let Some(d) = std::env::var_os("RMAPCHECK_CACHE") {
        return PathBuf::from(d).join("charness");
    }
    let home = std::env::var_os("HOME").map_or_else(std::env::temp_dir, PathBuf::from);
    home.join(".cache/rmapcheck/charness")
}

/// The release a tree's top Makefile names.
pub fn release(tree: &Path) -> Result<String, String> {
    let mk = csource::read(&tree.join("Makefile"))?;
    let get = |k: &str| {
        mk.lines()
            .find_map(|l| {
                l.strip_prefix(k)
                    .map(|v| v.trim_start_matches([' ', '=']).trim())
            })
            .unwrap_or("")
            .to_string()
    };
    let v = format!(
        "{}.{}.{}{}",
        get("VERSION"),
        get("PATCHLEVEL"),
        get("SUBLEVEL"),
        get("EXTRAVERSION")
    );
    if v.starts_with('.') {
        return Err(format!(
            "{}: no VERSION line: not a kernel tree's Makefile",
            tree.join("Makefile").display()
        ));
    }
    Ok(v)
}

/// Every tree file the build reads, relative to the tree (directories are walked).
const INPUTS: &[&str] = &[
    "Makefile",
    "tools/testing/vma",
    "tools/testing/shared",
    "tools/include",
    "tools/lib/rbtree.c",
    "tools/arch/x86/include",
    "tools/scripts/Makefile.arch",
    "mm/vma.c",
    "mm/vma.h",
    "mm/vma_init.c",
    "mm/vma_exec.c",
    "mm/interval_tree.c",
    "mm/rmap.c",
    "mm/internal.h",
    "include/linux/rmap.h",
    "include/linux/mm.h",
    "include/linux/maple_tree.h",
    "lib/maple_tree.c",
];

/// Refuse, naming what is missing, a tree older than the layout the harness is built on: the
/// VMA code split into mm/vma.c, mm/vma_init.c and mm/vma_exec.c, and the userland VMA tests
/// with their `include/` headers (stubs.h, custom.h), as in v7.x. The refusal names every
/// anchor of that layout the tree differs at ([`layout`]): a 6.12 tree has mm/vma.c and
/// tools/testing/vma, but neither of the other two files, one vma_internal.h for the tests'
/// headers, and the rest listed in docs/FIDELITY.md ("Trees the harness refuses").
fn older_tree(tree: &Path, release: &str) -> Result<(), String> {
    let missing: Vec<&str> = INPUTS
        .iter()
        .copied()
        .chain(["tools/testing/vma/include"])
        .filter(|f| !tree.join(f).exists())
        .collect();
    if missing.is_empty() {
        return Ok(());
    }
    Err(layout::refusal(tree, release, &missing))
}

/// [`older_tree`] on the tree `tree` as named (before a copy is patched, so that the refusal
/// names the tree, not the copy): `Ok` for a tree whose release cannot be read or that lacks
/// mm/vma.c, which the build refuses on its own terms.
pub fn refuse_older(tree: &Path) -> Result<(), String> {
    if !tree.join("mm/vma.c").is_file() {
        return Ok(());
    }
    match release(tree) {
        Ok(r) => older_tree(tree, &r),
        Err(_) => Ok(()),
    }
}

/// Files under [`INPUTS`] that the harness does not compile: the userland tests' own tests.
const NOT_COMPILED: &[&str] = &["tools/testing/vma/tests", "tools/testing/vma/main.c"];

/// Whether the harness build reads the tree file `rel` (a path relative to the tree): one of
/// [`INPUTS`] or under one, and not the userland tests' own test files.
pub fn reads(rel: &str) -> bool {
    let under = |i: &&str| rel == *i || rel.strip_prefix(*i).is_some_and(|r| r.starts_with('/'));
    INPUTS.iter().any(under) && !NOT_COMPILED.iter().any(under)
}

fn walk(p: &Path, out: &mut Vec<PathBuf>) -> Result<(), String> {
    let md = std::fs::metadata(p).map_err(|e| format!("{}: {e}", p.display()))?;
    if md.is_dir() {
        let mut entries: Vec<PathBuf> = std::fs::read_dir(p)
            .map_err(|e| format!("{}: {e}", p.display()))?
            .filter_map(|e| e.ok().map(|e| e.path()))
            .collect();
        entries.sort();
        for e in entries {
            walk(&e, out)?;
        }
    } else {
        out.push(p.to_path_buf());
    }
    Ok(())
}

/// The cache key: XXH3-64 over the build version, the tree's generation (its name and C,
/// [`generation`]), the glue and every input file (path and bytes), as 16 hex digits.
pub fn key(tree: &Path) -> Result<String, String> {
    key_salted(tree, generation::detect(tree)?, &[])
}

/// [`key`] of a tree of `generation`, with `salt` (the patches and edits a patched copy of a
/// tree was made with) hashed in too.
pub fn key_salted(tree: &Path, generation: &Generation, salt: &[u8]) -> Result<String, String> {
    let mut h = xxhash_rust::xxh3::Xxh3::new();
    h.update(BUILD_VERSION.as_bytes());
    h.update(&generation.key_bytes());
    h.update(salt);
    for (n, t) in glue_files()? {
        h.update(n.as_bytes());
        h.update(t.as_bytes());
    }
    let mut files = Vec::new();
    for i in INPUTS {
        walk(&tree.join(i), &mut files)?;
    }
    for f in files {
        let rel = f.strip_prefix(tree).unwrap_or(&f);
        h.update(rel.to_string_lossy().as_bytes());
        h.update(&std::fs::read(&f).map_err(|e| format!("{}: {e}", f.display()))?);
    }
    Ok(format!("{:016x}", h.digest()))
}

/// Build the harness for `tree` (or reuse the cached one).
pub fn build(tree: &Path) -> Result<Built, String> {
    build_salted(tree, &[])
}

/// [`build`] keyed also by `salt` (see [`key_salted`]).
pub fn build_salted(tree: &Path, salt: &[u8]) -> Result<Built, String> {
    build_with(tree, salt, Instrument::None)
}

/// [`build_salted`] with gcov's line coverage (`--coverage`) compiled in: each harness process
/// writes its counts (`.gcda`, under `$GCOV_PREFIX` when set) when it exits, and the notes
/// (`.gcno`) lie beside the objects in the binary's directory (`ccheck::coverage` reads both).
pub fn build_covered(tree: &Path, salt: &[u8]) -> Result<Built, String> {
    build_with(tree, salt, Instrument::Gcov)
}

/// [`build_salted`] for the C fuzz target: the kernel's code (the harness's translation unit
/// and tools/lib/rbtree.c) compiled with gcc's `-fsanitize-coverage=trace-pc`, each basic block
/// counted by cglue/cover.c into the edge map `$RMAPCHECK_COVER_MAP` names ([`COVER_MAP_ENV`],
/// [`COVER_MAP_SIZE`]; nothing is counted without it). Cached under its own key.
pub fn build_fuzz(tree: &Path, salt: &[u8]) -> Result<Built, String> {
    build_with(tree, salt, Instrument::Edges)
}

/// The environment variable naming the edge map of a [`build_fuzz`] harness.
pub const COVER_MAP_ENV: &str = "RMAPCHECK_COVER_MAP";
/// The edge map's size in bytes (cglue/cover.c's `GLUE_COVER_MAP_SIZE`).
pub const COVER_MAP_SIZE: usize = 1 << 16;

/// What a harness build compiles in besides the kernel's code and the glue.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Instrument {
    None,
    /// gcov's line counts, for "did the patch run" ([`build_covered`]).
    Gcov,
    /// Edge counts for libFuzzer ([`build_fuzz`]).
    Edges,
}

fn build_with(tree: &Path, salt: &[u8], instrument: Instrument) -> Result<Built, String> {
    let t0 = Instant::now();
    let tree = tree
        .canonicalize()
        .map_err(|e| format!("{}: {e}", tree.display()))?;
    if !tree.join("mm/vma.c").is_file() || !tree.join("tools/testing/vma").is_dir() {
        return Err(format!(
            "{}: not a kernel source tree with mm/vma.c and tools/testing/vma (scripts/fetch-kernel.sh fetches one)",
            tree.display()
        ));
    }
    let release = release(&tree)?;
    older_tree(&tree, &release)?;
    let generation = generation::detect(&tree)?;
    let salt = match instrument {
        Instrument::None => salt.to_vec(),
        Instrument::Gcov => [salt, b"\0coverage"].concat(),
        Instrument::Edges => [salt, b"\0fuzz-edges"].concat(),
    };
    let superseded = precedence::superseded_in_tree(&tree, generation)?;
    let dir = cache_root().join(key_salted(&tree, generation, &salt)?);
    let binary = dir.join("tools/testing/vma/harness");
    if binary.is_file() {
        return Ok(Built {
            binary,
            release,
            generation,
            compiled: false,
            superseded,
            seconds: t0.elapsed().as_secs_f64(),
        });
    }
    std::fs::create_dir_all(cache_root())
        .map_err(|e| format!("{}: {e}", cache_root().display()))?;
    let work = tempfile::Builder::new()
        .prefix(".build.")
        .tempdir_in(cache_root())
        .map_err(|e| format!("{}: {e}", cache_root().display()))?;
    prepare(&tree, generation, work.path())?;
    let vma = work.path().join("tools/testing/vma");
    let mut make = Command::new("make");
    make.arg("-C").arg(&vma).arg(format!("-j{}", jobs()));
    match instrument {
        Instrument::None => {}
        // the kernel's mm objects only (cglue/Makefile), and the link
        Instrument::Gcov => {
            make.arg("COVER_CFLAGS=--coverage")
                .arg("COVER_LDFLAGS=--coverage");
        }
        // the kernel's objects only (cglue/Makefile): cover.c and the link do without
        Instrument::Edges => {
            make.arg("COVER_CFLAGS=-fsanitize-coverage=trace-pc");
        }
    }
    let out = make
        .output()
        .map_err(|e| format!("cannot run make: {e} (scripts/fetch-kernel.sh installs it)"))?;
    if !out.status.success() {
        let log = String::from_utf8_lossy(&out.stderr);
        let tail: Vec<&str> = log.lines().rev().take(30).collect();
        // for working on the glue or a generation: the failed build directory, kept
        let kept = match std::env::var_os("RMAPCHECK_KEEP_FAILED_BUILD") {
            Some(_) => format!(" (build directory kept: {})", work.keep().display()),
            None => String::new(),
        };
        return Err(format!(
            "building the C harness from {} (a {} tree) failed ({}){kept}:\n{}",
            tree.display(),
            generation.name,
            out.status,
            tail.into_iter().rev().collect::<Vec<_>>().join("\n")
        ));
    }
    // publish: a concurrent build of the same key may have won; either copy is the same
    let staged = work.keep();
    if std::fs::rename(&staged, &dir).is_err() {
        let _ = std::fs::remove_dir_all(&staged);
        if !binary.is_file() {
            return Err(format!(
                "cannot move the built harness to {}",
                dir.display()
            ));
        }
    }
    Ok(Built {
        binary,
        release,
        generation,
        compiled: true,
        superseded,
        seconds: t0.elapsed().as_secs_f64(),
    })
}

fn jobs() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get().min(4))
}

fn write(p: &Path, text: &str) -> Result<(), String> {
    std::fs::write(p, text).map_err(|e| format!("{}: {e}", p.display()))
}

#[cfg(unix)]
fn link(src: &Path, dst: &Path) -> Result<(), String> {
    std::os::unix::fs::symlink(src, dst).map_err(|e| format!("{}: {e}", dst.display()))
}

fn copy_dir(src: &Path, dst: &Path) -> Result<(), String> {
    std::fs::create_dir_all(dst).map_err(|e| format!("{}: {e}", dst.display()))?;
    for e in std::fs::read_dir(src).map_err(|e| format!("{}: {e}", src.display()))? {
        let e = e.map_err(|e| format!("{}: {e}", src.display()))?;
        let to = dst.join(e.file_name());
        if e.path().is_dir() {
            copy_dir(&e.path(), &to)?;
        } else {
            std::fs::copy(e.path(), &to).map_err(|err| format!("{}: {err}", to.display()))?;
        }
    }
    Ok(())
}

/// Lay out the build directory `b`: links to the tree's directories, a copy of
/// tools/testing/vma edited as described in the module docs, the generated files and the glue.
fn prepare(tree: &Path, generation: &Generation, b: &Path) -> Result<(), String> {
    let mk = |p: &Path| std::fs::create_dir_all(p).map_err(|e| format!("{}: {e}", p.display()));
    mk(&b.join("tools/testing"))?;
    for d in ["mm", "lib", "include", "arch"] {
        link(&tree.join(d), &b.join(d))?;
    }
    for d in ["include", "lib", "arch", "scripts"] {
        link(&tree.join("tools").join(d), &b.join("tools").join(d))?;
    }
    link(
        &tree.join("tools/testing/shared"),
        &b.join("tools/testing/shared"),
    )?;
    let v = b.join("tools/testing/vma");
    copy_dir(&tree.join("tools/testing/vma"), &v)?;

    let edit = |name: &str, f: &dyn Fn(&str, &str) -> Result<String, String>| {
        let p = v.join(name);
        let t = csource::read(&p)?;
        write(&p, &f(&t, &format!("tools/testing/vma/{name}"))?)
    };
    edit("include/stubs.h", &|t, w| {
        csource::remove(t, w, &generation.kernel_names(STUBS_REMOVED), Def::Function)
    })?;
    edit("include/custom.h", &|t, w| {
        let t = csource::remove(t, w, CUSTOM_REMOVED, Def::Function)?;
        csource::remove(&t, w, &["anon_vma"], Def::Struct)
    })?;
    // a stub of any function the harness compiles from the tree gives way to the real one
    let real = precedence::real_functions(tree)?;
    for (file, removed) in precedence::stub_files(generation) {
        if v.join(file).is_file() {
            edit(file, &|t, w| {
                precedence::cut(t, w, &precedence::superseded(t, &real, &removed))
            })?;
        }
    }
    edit("include/dup.h", &|t, w| {
        let t = csource::remove(t, w, &["anon_vma_chain"], Def::Struct)?;
        // __anon_vma_prepare() takes mm->page_table_lock, which the harness's mm lacks
        csource::replace_once(
            &t,
            w,
            "struct mm_struct {\n\tstruct maple_tree mm_mt;\n",
            "struct mm_struct {\n\tstruct maple_tree mm_mt;\n\tspinlock_t page_table_lock; /* rmapcheck: for __anon_vma_prepare() */\n",
        )
    })?;
    edit("vma_internal.h", &|t, w| {
        csource::replace_once(
            t,
            w,
            "#include \"include/custom.h\"\n",
            "#include \"include/custom.h\"\n#include \"glue.h\"\n",
        )
    })?;
    let rmap_h = tree.join("include/linux/rmap.h");
    write(
        &v.join("rmap_structs.h"),
        &format!(
            "/* generated by rmapcheck at build time from the tree's include/linux/rmap.h */\n\
             #define CONFIG_DEBUG_VM_RB 1\n{}\n",
            csource::extract(&rmap_h, &["anon_vma_chain", "anon_vma"], Def::Struct)?
        ),
    )?;
    write(
        &v.join("generation.h"),
        &format!(
            "/* generated by rmapcheck at build time: a {} tree's tree operations routed to the\n \
             * glue's checked wrappers (src/charness/generation.rs) */\n\
             #ifndef RMAPCHECK_GENERATION_H\n#define RMAPCHECK_GENERATION_H\n{}#endif\n",
            generation.name, generation.routes
        ),
    )?;
    let tree_ops = generation.kernel_names(TREE_OPS);
    let helpers = tree_helpers(tree, &tree_ops)?;
    write(
        &v.join("rmap_gen.c"),
        &rmap_gen(tree, generation, &helpers)?,
    )?;
    write(
        &v.join("rmap_helpers.c"),
        &lock_wrappers::wrappers(&helpers),
    )?;
    // every other function mm/interval_tree.c exports (a patch may add one that vma.c calls)
    write(
        &v.join("rmap_protos.h"),
        &format!(
            "/* generated by rmapcheck at build time from the tree's mm/interval_tree.c */\n{}\n",
            csource::prototypes(&csource::read(&tree.join("mm/interval_tree.c"))?, &tree_ops)
        ),
    )?;
    for (n, t) in glue_files()? {
        write(&v.join(n), &t)?;
    }
    Ok(())
}

/// The functions mm/interval_tree.c exports beside the tree operations `tree_ops` (their kernel
/// names) that change a tree and get a lock-checking wrapper ([`lock_wrappers`]); an error
/// names one that could not be wrapped.
fn tree_helpers(tree: &Path, tree_ops: &[&str]) -> Result<Vec<lock_wrappers::Helper>, String> {
    let it = tree.join("mm/interval_tree.c");
    let (found, unchecked) =
        lock_wrappers::helpers(&csource::exported(&csource::read(&it)?, tree_ops));
    match unchecked.first() {
        None => Ok(found),
        Some(name) => Err(format!(
            "{}: {name} takes a tree's owner and a parameter rmapcheck cannot name (a \
             function pointer or an array): its harness cannot check the lock it runs under",
            it.display()
        )),
    }
}

/// The generated rmap_gen.c: mm/interval_tree.c (its tree operations named `__real_*`, behind
/// the glue's wrappers), `vma_last_pgoff`, `get_anon_vma`/`put_anon_vma` and the mm/rmap.c
/// functions of [`RMAP_FUNCTIONS`](super::replaced::RMAP_FUNCTIONS), allocating through the
/// glue's registry. The generation's shims follow mm/interval_tree.c.
fn rmap_gen(
    tree: &Path,
    generation: &Generation,
    helpers: &[lock_wrappers::Helper],
) -> Result<String, String> {
    let mut g = vec![
        "/* generated by rmapcheck at build time from the tree's mm/interval_tree.c,\n * include/linux/mm.h, mm/internal.h and mm/rmap.c */".to_string(),
        "#include <linux/interval_tree_generic.h>".to_string(),
    ];
    let tree_ops = generation.kernel_names(TREE_OPS);
    for op in &tree_ops {
        g.push(format!("#undef {op}\n#define {op} __real_{op}"));
    }
    g.push(format!(
        "#ifndef vma_last_pgoff\n{}\n#endif",
        csource::extract(
            &tree.join("include/linux/mm.h"),
            &["vma_last_pgoff"],
            Def::Function
        )?
    ));
    let it = tree.join("mm/interval_tree.c");
    let (before, after) = lock_wrappers::renames(helpers);
    g.push(before);
    g.push(csource::drop_includes(&csource::read(&it)?));
    g.push(after);
    for op in &tree_ops {
        g.push(format!("#undef {op}"));
    }
    g.push(generation.routes.to_string());
    g.push(format!(
        "/* the harness's names in a {} tree's terms (src/charness/generation.rs) */\n{}",
        generation.name, generation.shims
    ));
    g.push(csource::extract(
        &tree.join("mm/internal.h"),
        &["get_anon_vma", "put_anon_vma"],
        Def::Function,
    )?);
    g.push(
        "#define kmem_cache_alloc(c, g) glue_cache_alloc(c, g)\n#define kmem_cache_free(c, p) glue_cache_free(c, p)"
            .into(),
    );
    g.push(
        "static struct kmem_cache *anon_vma_cachep;\nstatic struct kmem_cache *anon_vma_chain_cachep;"
            .into(),
    );
    g.push("static void cleanup_partial_anon_vmas(struct vm_area_struct *vma);".into());
    g.push(csource::extract_lined(
        &tree.join("mm/rmap.c"),
        "mm/rmap.c",
        RMAP_FUNCTIONS,
        Def::Function,
    )?);
    g.push("#undef kmem_cache_alloc\n#undef kmem_cache_free".into());
    Ok(g.join("\n\n") + "\n")
}

#[cfg(test)]
mod tests {
    use super::{older_tree, INPUTS};

    /// A tree laid out as 6.12 is (mm/vma.c and tools/testing/vma, no vma_init.c, vma_exec.c
    /// or tests' include/) is refused naming each missing piece; a tree with every input passes.
    #[test]
    fn a_tree_older_than_the_harness_layout_is_refused_naming_what_it_lacks() {
        let d = tempfile::tempdir().unwrap();
        for f in INPUTS {
            let p = d.path().join(f);
            std::fs::create_dir_all(p.parent().unwrap()).unwrap();
            if f.contains('.') || f.ends_with("Makefile") {
                std::fs::write(&p, "").unwrap();
            } else {
                std::fs::create_dir_all(&p).unwrap();
            }
        }
        std::fs::create_dir_all(d.path().join("tools/testing/vma/include")).unwrap();
        assert_eq!(older_tree(d.path(), "7.3.0"), Ok(()));
        std::fs::remove_file(d.path().join("mm/vma_init.c")).unwrap();
        std::fs::remove_file(d.path().join("mm/vma_exec.c")).unwrap();
        std::fs::remove_dir(d.path().join("tools/testing/vma/include")).unwrap();
        let e = older_tree(d.path(), "6.12.118").unwrap_err();
        assert!(
            e.contains(
                "a 6.12.118 tree lacks mm/vma_init.c, mm/vma_exec.c, tools/testing/vma/include"
            ),
            "{e}"
        );
        assert!(e.contains("6.12 LTS among them, are not supported"), "{e}");
    }
}
