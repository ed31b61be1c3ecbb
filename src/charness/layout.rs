//! The tree layout the C harness is built on, as anchors: each a fact of a v7.x tree that the
//! build or the glue (cglue/) relies on, found in the tree's own files, with where an older
//! tree keeps the same thing instead and what the harness would need there. A tree that lacks
//! a file the build reads is refused (exit 2) with every anchor it differs at, the first one
//! first, and the model it would need: the 6.12 LTS line is such a tree (docs/FIDELITY.md,
//! "Trees the harness refuses"). A tree is refused rather than bridged in part: glue or a
//! model that does not follow the tree's kernel would give false verdicts.
//!
//! Every anchor holds on the v7.3 and v7.2 trees (tests/cli/kernel_6_12.rs checks both when
//! their trees are named), and each was read in 6.12.118 (Debian linux-source-6.12
//! 6.12.118-1~deb12u1) where it differs.

use super::csource::{self, Def};
use super::generation::GENERATIONS;
use super::replaced::RMAP_FUNCTIONS;
use std::path::Path;

/// How an anchor is looked for in a tree (paths relative to the tree).
#[derive(Debug)]
pub enum Probe {
    /// Every one of these files exists.
    Files(&'static [&'static str]),
    /// The file defines every one of these functions (in kernel style: the body's `{` alone
    /// on a column-0 line).
    Functions(&'static str, &'static [&'static str]),
    /// The file defines `struct NAME {` at column 0.
    Struct(&'static str, &'static str),
    /// The file contains this text.
    Text(&'static str, &'static str),
    /// The file defines the function with exactly this parameter list (whitespace aside).
    Params(&'static str, &'static str, &'static str),
}

/// One fact of the v7.x layout the harness relies on.
#[derive(Debug)]
pub struct Anchor {
    /// What it is, in a few words.
    pub name: &'static str,
    /// How it is found in a v7.x tree.
    pub probe: Probe,
    /// Where an older tree may keep it instead: named in the report when found there.
    pub instead: Option<Probe>,
    /// What the harness does with it, and what a tree without it would need.
    pub role: &'static str,
}

/// The anchors, in the order the build and then the glue meet them.
pub const ANCHORS: &[Anchor] = &[
    Anchor {
        name: "the VMA allocator in mm/vma_init.c",
        probe: Probe::Functions(
            "mm/vma_init.c",
            &["vm_area_alloc", "vm_area_dup", "vm_area_free"],
        ),
        instead: Some(Probe::Functions(
            "kernel/fork.c",
            &["vm_area_alloc", "vm_area_dup", "vm_area_free"],
        )),
        role: "the harness compiles mm/vma_init.c whole: the VMA allocation, copy and free of \
               mmap_region(), __split_vma(), copy_vma(), fork's vm_area_dup() and \
               remove_vma(). kernel/fork.c cannot be built in user space: the harness would \
               need its own, written by us, doing what that tree's do for what the rmap \
               reads (the range, vm_pgoff, vm_file, anon_vma, the anon_vma_chain list, the \
               VMA lock and attach state)",
    },
    Anchor {
        name: "exec's stack move in mm/vma_exec.c",
        probe: Probe::Functions("mm/vma_exec.c", &["relocate_vma_down"]),
        instead: Some(Probe::Functions("mm/mmap.c", &["relocate_vma_down"])),
        role: "the glue's shift_down call (exec's setup_arg_pages()) calls it, compiled from \
               mm/vma_exec.c; mm/mmap.c cannot be built whole in user space: it would have to \
               be compiled alone with the helpers it calls there",
    },
    Anchor {
        name: "the userland VMA tests' include/ headers",
        probe: Probe::Files(&[
            "tools/testing/vma/include/stubs.h",
            "tools/testing/vma/include/custom.h",
            "tools/testing/vma/include/dup.h",
        ]),
        instead: Some(Probe::Struct(
            "tools/testing/vma/vma_internal.h",
            "vm_area_struct",
        )),
        role: "the build cuts the stubs the glue replaces out of include/stubs.h and \
               include/custom.h, struct anon_vma and anon_vma_chain (taken from the tree's \
               include/linux/rmap.h) out of custom.h and dup.h, adds page_table_lock to \
               dup.h's struct mm_struct, and puts glue.h after vma_internal.h's include of \
               include/custom.h (src/charness/build.rs). Where one vma_internal.h holds the \
               structs and stubs, each edit needs an anchor in it, and its own stubs of the \
               allocator, anon_vma_clone(), the tree operations and the locks replaced",
    },
    Anchor {
        name: "mmap, munmap and stack growth in mm/vma.c",
        probe: Probe::Functions(
            "mm/vma.c",
            &["mmap_region", "__vm_munmap", "expand_downwards"],
        ),
        instead: Some(Probe::Functions(
            "mm/mmap.c",
            &["mmap_region", "__vm_munmap", "expand_downwards"],
        )),
        role: "the glue's sys_mmap, sys_munmap and stack-fault calls (cglue/calls.c) call them \
               in mm/vma.c, which the harness compiles whole. mm/mmap.c cannot be built in \
               user space: each would have to be compiled alone with the static helpers it \
               calls there (mmap_region() with __mmap_region() and its side maple tree)",
    },
    Anchor {
        name: "the anon_vma functions of mm/rmap.c",
        probe: Probe::Functions("mm/rmap.c", RMAP_FUNCTIONS),
        instead: None,
        role: "the harness compiles these from mm/rmap.c one by one (RMAP_FUNCTIONS in \
               src/charness/replaced.rs), and the model's anon_vma code \
               (models/v7.3-rc4/lib/rmap.rmap) follows the same split; a tree without them \
               needs its own list, and a model of its anon_vma_clone() (which then reuses an \
               anon_vma and cleans up after a failure itself)",
    },
    Anchor {
        name: "VMA flags as vma_flags_t",
        probe: Probe::Text("include/linux/mm_types.h", "vma_flags_t"),
        instead: None,
        role: "the glue (cglue/calls.c, remap.c, undo.c, dump.c) writes flags as vma_flags_t \
               (legacy_to_vma_flags(), vma_flags_set(), the VMA_*_BIT numbers) and passes \
               vma_modify_flags() a vma_flags_t pointer; a tree with vm_flags_t alone needs \
               those calls written again",
    },
    Anchor {
        name: "the VMA's attach count vm_refcnt",
        probe: Probe::Text("include/linux/mm_types.h", "vm_refcnt"),
        instead: Some(Probe::Text("include/linux/mm_types.h", "bool detached;")),
        role: "the glue's fork marks each copy attached (vma_mark_attached()), its teardown \
               detached (vma_mark_detached(vma)), and v7.2's shims read vm_refcnt; a tree \
               whose VMA has a `detached` flag (vma_mark_detached(vma, bool)) and a VMA lock \
               allocated apart needs those written again",
    },
    Anchor {
        name: "struct pagetable_move_control in mm/internal.h",
        probe: Probe::Text("mm/internal.h", "struct pagetable_move_control {"),
        instead: None,
        role: "the glue's move_page_tables() (cglue/pages.c), which moves the ghost ptes for \
               mremap and exec's stack move, takes that struct; a tree whose \
               move_page_tables() takes the VMAs, addresses and length as arguments needs it \
               written again",
    },
    Anchor {
        name: "commit_merge() of a vma_merge_struct",
        probe: Probe::Params("mm/vma.c", "commit_merge", "struct vma_merge_struct *vmg"),
        instead: None,
        role: "the contract pass calls commit_merge() with a vma_merge_struct set up for a \
               boundary move (cglue/contract.c); a tree whose commit_merge() takes the VMA to \
               adjust, those to remove and the start adjustment as arguments needs that \
               call written again",
    },
    Anchor {
        name: "remove_vma() of one VMA",
        probe: Probe::Params("mm/vma.c", "remove_vma", "struct vm_area_struct *vma"),
        instead: None,
        role: "the glue's exit and fork teardown (glue_free_vmas() in cglue/calls.c) \
               call remove_vma(vma); a tree whose remove_vma() also takes `unreachable` needs \
               those calls written again",
    },
];

/// How a tree differs at one anchor.
#[derive(Debug, PartialEq, Eq)]
pub struct Difference {
    /// The anchor's name.
    pub name: &'static str,
    /// What the tree has, in words: what is missing, and where it is instead when found.
    pub found: String,
    /// The anchor's role.
    pub role: &'static str,
}

fn read(tree: &Path, file: &str) -> Option<String> {
    std::fs::read_to_string(tree.join(file)).ok()
}

fn params(head: &str) -> Option<String> {
    let open = head.find('(')?;
    let close = head.rfind(')')?;
    let inner = head.get(open + 1..close)?;
    Some(inner.split_whitespace().collect::<Vec<_>>().join(" "))
}

/// What `probe` misses in `tree`, in words; `None` when it holds.
fn misses(tree: &Path, probe: &Probe) -> Option<String> {
    match probe {
        Probe::Files(files) => {
            let absent: Vec<&str> = files
                .iter()
                .copied()
                .filter(|f| !tree.join(f).is_file())
                .collect();
            (!absent.is_empty()).then(|| format!("no {}", absent.join(", ")))
        }
        Probe::Functions(file, names) => {
            let Some(text) = read(tree, file) else {
                return Some(format!("no {file}"));
            };
            let defined: Vec<String> = csource::definitions(&text)
                .into_iter()
                .map(|(n, _)| n)
                .collect();
            let absent: Vec<String> = names
                .iter()
                .filter(|n| !defined.iter().any(|d| d == *n))
                .map(|n| format!("{n}()"))
                .collect();
            (!absent.is_empty()).then(|| format!("{file} does not define {}", absent.join(", ")))
        }
        Probe::Struct(file, name) => match read(tree, file) {
            None => Some(format!("no {file}")),
            Some(t) if csource::find(&t, name, Def::Struct).is_none() => {
                Some(format!("{file} does not define struct {name}"))
            }
            Some(_) => None,
        },
        Probe::Text(file, text) => match read(tree, file) {
            None => Some(format!("no {file}")),
            Some(t) if !t.contains(text) => Some(format!("{file} has no `{text}`")),
            Some(_) => None,
        },
        Probe::Params(file, name, want) => {
            let Some(text) = read(tree, file) else {
                return Some(format!("no {file}"));
            };
            let heads: Vec<String> = csource::definitions(&text)
                .into_iter()
                .filter(|(n, _)| n == name)
                .map(|(_, h)| h)
                .collect();
            match heads.first().and_then(|h| params(h)) {
                None => Some(format!("{file} does not define {name}()")),
                Some(p) if p == *want => None,
                Some(p) => Some(format!("{file}'s {name}() takes ({p})")),
            }
        }
    }
}

/// Where `instead` finds the anchor, in words (`None` when it does not).
fn found_instead(tree: &Path, instead: &Probe) -> Option<String> {
    if misses(tree, instead).is_some() {
        return None;
    }
    Some(match instead {
        Probe::Functions(file, _) => format!("defined in {file} instead"),
        Probe::Struct(file, name) => {
            let lines = read(tree, file).map_or(0, |t| t.lines().count());
            format!(
                "the tests' structs and stubs (struct {name} among them) are in one header, \
                 {file} ({lines} lines)"
            )
        }
        Probe::Text(file, text) => format!("{file} has `{text}` instead"),
        Probe::Files(files) => format!("{} instead", files.join(", ")),
        Probe::Params(file, name, p) => format!("{file}'s {name}() takes ({p}) instead"),
    })
}

/// Every anchor `tree` differs at, in [`ANCHORS`]' order.
pub fn differences(tree: &Path) -> Vec<Difference> {
    ANCHORS
        .iter()
        .filter_map(|a| {
            let missed = misses(tree, &a.probe)?;
            let found = match a.instead.as_ref().and_then(|i| found_instead(tree, i)) {
                Some(i) => format!("{missed}; {i}"),
                None => missed,
            };
            Some(Difference {
                name: a.name,
                found,
                role: a.role,
            })
        })
        .collect()
}

/// The report of a refused tree of release `release`: `lacks` (the files the build reads that
/// it lacks), every anchor it differs at (the first one first), and the model it would need.
pub fn refusal(tree: &Path, release: &str, lacks: &[&str]) -> String {
    let diffs = differences(tree);
    let mut out = format!(
        "{}: a {release} tree lacks {} that the C harness builds from (it follows the layout \
         of v7.x trees: mm/vma_init.c, mm/vma_exec.c and tools/testing/vma/include/); older \
         trees, 6.12 LTS among them, are not supported.",
        tree.display(),
        lacks.join(", ")
    );
    if let Some((first, rest)) = diffs.split_first() {
        out += &format!(
            "\nIt differs from that layout at {} of {} anchors (docs/FIDELITY.md, \"Trees the \
             harness refuses\"). First: {}: {} ({})",
            diffs.len(),
            ANCHORS.len(),
            first.name,
            first.found,
            first.role
        );
        for (i, d) in rest.iter().enumerate() {
            out += &format!("\n  {}. {}: {}", i + 2, d.name, d.found);
        }
    }
    let models: Vec<String> = GENERATIONS
        .iter()
        .map(|g| format!("{} ({}, read in {})", g.name, g.model, g.read_in))
        .collect();
    out += &format!(
        "\nNo model follows a {release} tree: the models are {}. A harness bridged in part \
         would compare one of them with C it does not follow and give false verdicts, so the \
         tree is refused.",
        models.join(" and ")
    );
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Writes `files` (path, text) under a fresh directory.
    fn tree(files: &[(&str, &str)]) -> tempfile::TempDir {
        let d = tempfile::tempdir().unwrap();
        for (p, t) in files {
            let p = d.path().join(p);
            std::fs::create_dir_all(p.parent().unwrap()).unwrap();
            std::fs::write(p, t).unwrap();
        }
        d
    }

    /// A function definition in kernel style, of no kernel's text.
    fn def(name: &str, params: &str) -> String {
        format!("int {name}({params})\n{{\n\treturn 0;\n}}\n\n")
    }

    /// A tree that holds at every anchor, built from nothing but the anchors' own names.
    fn v7_files() -> Vec<(String, String)> {
        let fns = |names: &[&str]| names.iter().map(|n| def(n, "int a")).collect::<String>();
        vec![
            (
                "mm/vma_init.c".into(),
                fns(&["vm_area_alloc", "vm_area_dup", "vm_area_free"]),
            ),
            ("mm/vma_exec.c".into(), fns(&["relocate_vma_down"])),
            ("tools/testing/vma/include/stubs.h".into(), String::new()),
            ("tools/testing/vma/include/custom.h".into(), String::new()),
            ("tools/testing/vma/include/dup.h".into(), String::new()),
            (
                "mm/vma.c".into(),
                fns(&["mmap_region", "__vm_munmap", "expand_downwards"])
                    + &def("commit_merge", "struct vma_merge_struct\n\t\t*vmg")
                    + &def("remove_vma", "struct vm_area_struct *vma"),
            ),
            ("mm/rmap.c".into(), fns(RMAP_FUNCTIONS)),
            (
                "include/linux/mm_types.h".into(),
                "typedef int vma_flags_t;\nint vm_refcnt;\n".into(),
            ),
            (
                "mm/internal.h".into(),
                "struct pagetable_move_control {\n};\n".into(),
            ),
        ]
    }

    fn with(files: &[(String, String)]) -> tempfile::TempDir {
        let v: Vec<(&str, &str)> = files
            .iter()
            .map(|(a, b)| (a.as_str(), b.as_str()))
            .collect();
        tree(&v)
    }

    #[test]
    fn a_tree_with_every_anchor_differs_at_none() {
        let d = with(&v7_files());
        assert_eq!(differences(d.path()), vec![]);
    }

    /// Each anchor fires alone when its one fact is taken away, naming what is missing and,
    /// where the tree keeps it elsewhere, where.
    #[test]
    fn each_anchor_fires_alone() {
        let cases: [(&str, &str, &str, &str); 10] = [
            (
                "mm/vma_init.c",
                "",
                "the VMA allocator",
                "mm/vma_init.c does not define vm_area_alloc(), vm_area_dup(), vm_area_free()",
            ),
            (
                "mm/vma_exec.c",
                "",
                "exec's stack move",
                "mm/vma_exec.c does not define relocate_vma_down()",
            ),
            (
                "tools/testing/vma/include/dup.h",
                "-",
                "include/ headers",
                "no tools/testing/vma/include/dup.h",
            ),
            (
                "mm/vma.c",
                "mmap",
                "mmap, munmap",
                "mm/vma.c does not define __vm_munmap()",
            ),
            (
                "mm/rmap.c",
                "",
                "anon_vma functions",
                "mm/rmap.c does not define anon_vma_alloc()",
            ),
            (
                "include/linux/mm_types.h",
                "int vm_refcnt;\n",
                "vma_flags_t",
                "include/linux/mm_types.h has no `vma_flags_t`",
            ),
            (
                "include/linux/mm_types.h",
                "typedef int vma_flags_t;\n",
                "vm_refcnt",
                "include/linux/mm_types.h has no `vm_refcnt`",
            ),
            (
                "mm/internal.h",
                "",
                "pagetable_move_control",
                "mm/internal.h has no `struct pagetable_move_control {`",
            ),
            (
                "mm/vma.c",
                "commit",
                "commit_merge()",
                "mm/vma.c's commit_merge() takes (struct vma_merge_struct *vmg, long adj_start)",
            ),
            (
                "mm/vma.c",
                "remove",
                "remove_vma()",
                "mm/vma.c's remove_vma() takes (struct vm_area_struct *vma, bool unreachable)",
            ),
        ];
        for (file, edit, anchor, found) in cases {
            let mut files = v7_files();
            let at = files.iter().position(|(p, _)| p == file).unwrap();
            match (file, edit) {
                (_, "-") => {
                    files.remove(at);
                }
                ("mm/vma.c", "mmap") => {
                    files[at].1 = files[at].1.replace("__vm_munmap(", "vm_munmap(");
                }
                ("mm/vma.c", "commit") => {
                    files[at].1 = files[at]
                        .1
                        .replace("\t\t*vmg)", "\t\t*vmg, long adj_start)");
                }
                ("mm/vma.c", "remove") => {
                    files[at].1 = files[at].1.replace("*vma)", "*vma, bool unreachable)");
                }
                _ => files[at].1 = edit.into(),
            }
            let d = with(&files);
            let diffs = differences(d.path());
            assert_eq!(diffs.len(), 1, "{anchor}: {diffs:?}");
            assert!(diffs[0].name.contains(anchor), "{anchor}: {diffs:?}");
            assert!(diffs[0].found.starts_with(found), "{anchor}: {diffs:?}");
        }
    }

    /// Where an older tree keeps an anchor's fact elsewhere, the report names where; where it
    /// does not, nothing is claimed.
    #[test]
    fn where_it_is_instead_is_named_only_when_found() {
        let mut files = v7_files();
        files.retain(|(p, _)| p != "mm/vma_init.c" && !p.contains("vma/include/"));
        files.push((
            "kernel/fork.c".into(),
            ["vm_area_alloc", "vm_area_dup", "vm_area_free"]
                .iter()
                .map(|n| def(n, "int a"))
                .collect(),
        ));
        files.push((
            "tools/testing/vma/vma_internal.h".into(),
            "struct vm_area_struct {\n\tint a;\n};\n".into(),
        ));
        let d = with(&files);
        let diffs = differences(d.path());
        assert_eq!(diffs.len(), 2, "{diffs:?}");
        assert_eq!(
            diffs[0].found,
            "no mm/vma_init.c; defined in kernel/fork.c instead"
        );
        assert!(
            diffs[1]
                .found
                .ends_with("are in one header, tools/testing/vma/vma_internal.h (3 lines)"),
            "{diffs:?}"
        );
        // kernel/fork.c defining only some of them is not "instead"
        std::fs::write(
            d.path().join("kernel/fork.c"),
            def("vm_area_alloc", "int a"),
        )
        .unwrap();
        assert_eq!(differences(d.path())[0].found, "no mm/vma_init.c");
    }

    #[test]
    fn the_refusal_names_the_first_anchor_then_the_rest_and_the_models() {
        let mut files = v7_files();
        files.retain(|(p, _)| p != "mm/vma_init.c" && p != "mm/vma_exec.c");
        let d = with(&files);
        let r = refusal(d.path(), "6.12.118", &["mm/vma_init.c", "mm/vma_exec.c"]);
        assert!(
            r.contains("a 6.12.118 tree lacks mm/vma_init.c, mm/vma_exec.c that the C harness"),
            "{r}"
        );
        assert!(
            r.contains("It differs from that layout at 2 of 10 anchors"),
            "{r}"
        );
        assert!(
            r.contains(
                "First: the VMA allocator in mm/vma_init.c: no mm/vma_init.c (the harness compiles"
            ),
            "{r}"
        );
        assert!(
            r.contains("\n  2. exec's stack move in mm/vma_exec.c: no mm/vma_exec.c"),
            "{r}"
        );
        assert!(r.contains("No model follows a 6.12.118 tree"), "{r}");
        assert!(
            r.contains("v7.2 (models/v7.2/v7.2.rmap, read in 7.2.13)"),
            "{r}"
        );
    }
}
