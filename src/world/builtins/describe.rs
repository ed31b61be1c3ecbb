//! What each builtin is for, in a reader's words, and the reference page made from it
//! (`rmapcheck list --builtins`, committed as `docs/BUILTINS.md`).
//!
//! The signatures come from the builtin table ([`super::table::BUILTINS`]) and the field
//! tables ([`super::fields_of`]); this file adds only the parameter names, the kernel function
//! each builtin stands for and a sentence on what it does to the world. [`check`] finds a builtin
//! without a description, a description without a builtin and a parameter list of the wrong
//! length, and a test runs it, so the page cannot fall behind the table; another test requires
//! the committed page to be [`markdown`]'s output.

use super::fields_of;
use super::table::{BuiltinRow, BUILTINS};
use crate::exec::host::ObjKind;
use crate::world::schema::Ty;

/// One builtin's description: its name (a row of the table), the names of its parameters, and
/// what it does.
pub(crate) struct Doc {
    pub name: &'static str,
    pub params: &'static [&'static str],
    pub what: &'static str,
}

const fn d(name: &'static str, params: &'static [&'static str], what: &'static str) -> Doc {
    Doc { name, params, what }
}

/// The builtins by topic: a heading, a sentence under it, and its builtins.
pub(crate) static SECTIONS: &[(&str, &str, &[Doc])] = &[
    (
        "File rmap tree",
        "A mapping's `i_mmap` interval tree of VMAs (mm/interval_tree.c). Every operation checks \
         its precondition (`tree-precondition`), that the caller holds i_mmap_rwsem for write and \
         the flush_dcache lock where the kernel takes it (`lock-discipline`), and reports a descent \
         past a node whose key is out of place (`stale-descent`). Keys are read from the VMA when \
         used.",
        &[
            d("mapping_rmap_tree_insert", &["vma", "mapping"], "`vma_interval_tree_insert()`: insert by key descent."),
            d("mapping_rmap_tree_insert_after", &["vma", "prev", "mapping"], "`vma_interval_tree_insert_after()` (fork): link `vma` as `prev`'s in-order successor without comparing keys."),
            d("mapping_rmap_tree_remove", &["vma", "mapping"], "`vma_interval_tree_remove()`."),
            d("mapping_rmap_tree_propagate", &["vma"], "The augment callback's `propagate()` from `vma` to the root: recompute `subtree_last` after a key changed in place."),
            d("mapping_rmap_tree_iter_first", &["mapping", "first", "last"], "`vma_interval_tree_iter_first()`: the first VMA whose page range overlaps [first, last], or NULL."),
            d("mapping_rmap_tree_iter_next", &["vma", "first", "last"], "`vma_interval_tree_iter_next()`."),
        ],
    ),
    (
        "Anon rmap tree",
        "An anon_vma's interval tree of anon_vma_chains, keyed on the VMA's anonymous page offset \
         (`vma_start_anon_pgoff()`, `vma_last_anon_pgoff()`), with the same checks under the root \
         anon_vma's rwsem.",
        &[
            d("anon_rmap_tree_insert", &["avc", "anon_vma"], "`anon_vma_interval_tree_insert()`; with CONFIG_DEBUG_VM_RB the AVC caches its VMA's start and last (`cached-keys`)."),
            d("anon_rmap_tree_remove", &["avc", "anon_vma"], "`anon_vma_interval_tree_remove()`."),
            d("anon_rmap_tree_propagate", &["avc"], "`propagate()` from `avc` to the root: recompute `subtree_last` after its VMA's key changed in place."),
            d("anon_rmap_tree_iter_first", &["anon_vma", "first", "last"], "`anon_vma_interval_tree_iter_first()`."),
            d("anon_rmap_tree_iter_next", &["avc", "first", "last"], "`anon_vma_interval_tree_iter_next()`."),
            d("anon_rmap_tree_empty", &["anon_vma"], "`RB_EMPTY_ROOT(&anon_vma->rb_root.rb_root)`."),
        ],
    ),
    (
        "Rmap locks",
        "Sleeping locks: a thread that cannot take one waits (the interleaving explorer runs the \
         others). Every acquisition records lock-order edges (`lock-order`); a release of a lock \
         not held is `lock-discipline`.",
        &[
            d("i_mmap_lock_write", &["mapping"], "`i_mmap_lock_write()`: the mapping's i_mmap_rwsem for write."),
            d("i_mmap_unlock_write", &["mapping"], "`i_mmap_unlock_write()`."),
            d("i_mmap_lock_read", &["mapping"], "`i_mmap_lock_read()`."),
            d("i_mmap_unlock_read", &["mapping"], "`i_mmap_unlock_read()`."),
            d("flush_dcache_mmap_lock", &["mapping"], "`flush_dcache_mmap_lock()` (arm, parisc: the i_pages lock that `flush_dcache_page()` walks the tree under)."),
            d("flush_dcache_mmap_unlock", &["mapping"], "`flush_dcache_mmap_unlock()`."),
            d("anon_vma_lock_write", &["anon_vma"], "`anon_vma_lock_write()`: the root's rwsem for write."),
            d("anon_vma_unlock_write", &["anon_vma"], "`anon_vma_unlock_write()`."),
            d("anon_vma_lock_read", &["anon_vma"], "`anon_vma_lock_read()`."),
            d("anon_vma_unlock_read", &["anon_vma"], "`anon_vma_unlock_read()`."),
        ],
    ),
    (
        "mmap lock, page_table_lock and per-VMA locks",
        "",
        &[
            d("mmap_write_lock", &["mm"], "`mmap_write_lock()`."),
            d("mmap_write_unlock", &["mm"], "`mmap_write_unlock()`."),
            d("mmap_read_lock", &["mm"], "`mmap_read_lock()`."),
            d("mmap_read_unlock", &["mm"], "`mmap_read_unlock()`."),
            d("mmap_read_trylock", &["mm"], "`mmap_read_trylock()`: true when taken, false (nothing changed) when a writer holds it."),
            d("mmap_assert_locked", &["mm"], "`mmap_assert_locked()`: `lock-discipline` unless the thread holds the mmap lock."),
            d("page_table_lock", &["mm"], "`spin_lock(&mm->page_table_lock)`."),
            d("page_table_unlock", &["mm"], "`spin_unlock(&mm->page_table_lock)`."),
            d("mmap_write_downgrade", &["mm"], "`mmap_write_downgrade()`: the write lock becomes a read lock without a window."),
            d("vma_start_write", &["vma"], "`vma_start_write()`: write-lock the VMA, waiting for its readers; without the mmap write lock it is `lock-discipline`. It stays write-locked until the mmap write lock is dropped."),
            d("vma_start_read", &["vma"], "`vma_start_read()` as `lock_vma_under_rcu()` uses it: true when read-locked, false when the VMA is write-locked, detached or freed."),
            d("vma_end_read", &["vma"], "`vma_end_read()`."),
            d("vma_assert_write_locked", &["vma"], "`vma_assert_write_locked()`."),
        ],
    ),
    (
        "Records of concurrent rmap walks",
        "Ghost state for the walkers of `models/v7.3-rc4/lib/walkers.rmap`: what a walk must find \
         is fixed when it begins and checked when it ends (`walker-complete`, `rmap-complete`).",
        &[
            d("rmap_walk_file_begin", &["mapping", "pgoff"], "A file rmap walk of `mapping` at `pgoff` begins."),
            d("rmap_walk_anon_begin", &["anon_vma", "pgoff"], "An anon rmap walk of `anon_vma` at `pgoff` begins."),
            d("rmap_walk_found", &["vma"], "The walk in progress reached `vma`."),
            d("rmap_walk_end", &[], "The walk in progress ends: what it found is checked."),
        ],
    ),
    (
        "Ghost page tables and folios",
        "The page-table side of the kernel, written where the kernel writes it; model code never \
         reads it, the page-level invariants do (`src/world/pages.rs`).",
        &[
            d("unmap_vmas", &["vma"], "`unmap_vmas()`: drop every pte of the VMA and mark it zapped."),
            d("zap_page_range_single", &["vma", "start", "end"], "`zap_page_range_single()` (MADV_DONTNEED): drop the ptes of [start, end); a range outside the VMA, or a VMA gone, is a fault (its lock did not keep it stable)."),
            d("fault_anon_page", &["vma", "addr"], "`do_anonymous_page()`, `do_cow_fault()`, `wp_page_copy()`, `wp_page_reuse()`: the pte at `addr` maps an anonymous folio of `vma->anon_vma`; a folio only this pte maps is reused (`folio_move_anon_rmap()`)."),
            d("fault_file_page", &["vma", "addr"], "`do_read_fault()`: the pte at `addr` maps the page-cache folio at `linear_page_index()`."),
            d("copy_page_range", &["dst", "src"], "`copy_page_range()` in `dup_mmap()`: the child VMA maps the parent's folios at the same addresses."),
            d("move_page_tables", &["vma", "old", "new", "len"], "`move_page_tables()` (exec's stack move, mremap's `move_ptes()`): the ptes of [old, old + len) move to `new` with their folios."),
        ],
    ),
    (
        "Objects",
        "Allocation and freeing. Freeing marks the object; a model that uses a freed object faults \
         (`model-fault`), and one left reachable is `membership`.",
        &[
            d("mm_alloc", &[], "`mm_alloc()` (fork's child)."),
            d("vm_area_alloc", &["mm"], "`vm_area_alloc()`: a zeroed VMA of `mm`, in no list or tree."),
            d("vm_area_dup", &["vma"], "`vm_area_dup()`: a copy of the fields, in no list, tree or chain, unlocked."),
            d("vm_area_free", &["vma"], "`vm_area_free()`."),
            d("vma_mark_detached", &["vma"], "`vma_mark_detached()`."),
            d("vma_mark_attached", &["vma"], "`vma_mark_attached()`."),
            d("anon_vma_alloc", &[], "`anon_vma_alloc()`: its own root, one reference."),
            d("get_anon_vma", &["anon_vma"], "`get_anon_vma()`."),
            d("put_anon_vma", &["anon_vma"], "`put_anon_vma()`: the last put frees it (and drops a non-root anon_vma's reference to its root)."),
            d("anon_vma_chain_alloc", &[], "`anon_vma_chain_alloc()`."),
            d("anon_vma_chain_free", &["avc"], "`anon_vma_chain_free()`."),
        ],
    ),
    (
        "VMA list (the maple tree) and the munmap side tree",
        "",
        &[
            d("vma_iter_store", &["mm", "vma"], "`vma_iter_store()`: store the VMA at its range, over whatever the range held."),
            d("vma_iter_clear", &["mm", "start", "end"], "`vma_iter_clear()`: [start, end) holds no VMA any more."),
            d("vma_first", &["mm"], "The mm's lowest VMA, or NULL."),
            d("vma_next", &["mm", "vma"], "`vma_next()`: the VMA after `vma` in the list, or NULL."),
            d("vma_prev", &["mm", "vma"], "`vma_prev()`."),
            d("find_vma", &["mm", "addr"], "`find_vma()`: the first VMA ending above `addr`."),
            d("vma_lookup", &["mm", "addr"], "`vma_lookup()`: the VMA containing `addr`."),
            d("mas_detach_first", &["mm", "start", "end"], "The first VMA a munmap gathered into its side tree (`mas_detach` in `vms_gather_munmap_vmas()`): detached, not freed, in [start, end)."),
            d("mas_detach_next", &["mm", "vma", "end"], "The next one after `vma`."),
        ],
    ),
    (
        "VMA helpers",
        "",
        &[
            d("vma_is_anonymous", &["vma"], "`vma_is_anonymous()`: no vm_ops."),
            d("vma_set_anonymous", &["vma"], "`vma_set_anonymous()`."),
            d("call_mmap", &["file", "vma"], "The file's mmap hook (`call_mmap()` / `mmap_prepare`): sets the VMA's operations."),
            d("mmap_action_complete", &["vma"], "`mmap_action_complete()`: runs the success hook, which for a private /dev/zero mapping makes the VMA anonymous after it was linked into the file tree."),
            d("vma_pages", &["vma"], "`vma_pages()`."),
            d("vma_start_pgoff", &["vma"], "The file tree's start key (`vma->vm_pgoff`)."),
            d("vma_last_pgoff", &["vma"], "`vma_last_pgoff()`: the file tree's last key."),
            d("vma_start_anon_pgoff", &["vma"], "`vma_start_anon_pgoff()`: the anon trees' start key."),
            d("vma_last_anon_pgoff", &["vma"], "`vma_last_anon_pgoff()`: the anon trees' last key."),
        ],
    ),
    (
        "anon_vma_chain list",
        "A VMA's `anon_vma_chain` list; models walk it with `list_for_each_entry`.",
        &[
            d("anon_vma_chain_list_add", &["avc", "vma"], "`list_add(&avc->same_vma, &vma->anon_vma_chain)`: at the head."),
            d("anon_vma_chain_list_del", &["avc"], "`list_del(&avc->same_vma)`: off the list of the VMA it names."),
            d("anon_vma_chain_is_singular", &["vma"], "`list_is_singular(&vma->anon_vma_chain)`."),
        ],
    ),
];

/// A C type as models spell it.
fn c_type(t: Ty) -> String {
    match t {
        Ty::Void => "void".into(),
        Ty::Int => "long".into(),
        Ty::Bool => "bool".into(),
        Ty::Ptr(k) => format!("struct {} *", k.struct_tag()),
    }
}

/// `ret name(type param, ...)`.
fn signature(row: &BuiltinRow, doc: &Doc) -> String {
    let params: Vec<String> = row
        .params
        .iter()
        .zip(doc.params)
        .map(|(&t, p)| {
            let ty = c_type(t);
            if ty.ends_with('*') {
                format!("{ty}{p}")
            } else {
                format!("{ty} {p}")
            }
        })
        .collect();
    let ret = c_type(row.ret);
    let sep = if ret.ends_with('*') { "" } else { " " };
    let params = if params.is_empty() {
        "void".to_string()
    } else {
        params.join(", ")
    };
    format!("{ret}{sep}{}({params})", row.name)
}

fn row(name: &str) -> Option<&'static BuiltinRow> {
    BUILTINS.iter().find(|r| r.name == name)
}

/// Every disagreement between the table and the descriptions: a builtin without one, one
/// described twice, a description of no builtin, a parameter list of another length.
pub fn check() -> Vec<String> {
    let mut bad = Vec::new();
    let docs: Vec<&Doc> = SECTIONS.iter().flat_map(|s| s.2.iter()).collect();
    for r in BUILTINS {
        match docs.iter().filter(|d| d.name == r.name).count() {
            0 => bad.push(format!("builtin {} has no description", r.name)),
            1 => {}
            n => bad.push(format!("builtin {} is described {n} times", r.name)),
        }
    }
    for d in &docs {
        match row(d.name) {
            None => bad.push(format!("{} is described but is no builtin", d.name)),
            Some(r) if r.params.len() != d.params.len() => bad.push(format!(
                "{} takes {} parameters; its description names {}",
                d.name,
                r.params.len(),
                d.params.len()
            )),
            Some(_) => {}
        }
    }
    bad
}

/// The object kinds whose fields models read, in the order of the page.
const KINDS: &[ObjKind] = &[
    ObjKind::Vma,
    ObjKind::File,
    ObjKind::AnonVma,
    ObjKind::Avc,
    ObjKind::Mm,
];

/// One line per builtin: the signature and what it does.
pub fn text() -> String {
    let mut s = String::new();
    for (heading, _, docs) in SECTIONS {
        s.push_str(heading);
        s.push_str(":\n");
        for d in *docs {
            if let Some(r) = row(d.name) {
                s.push_str(&format!("  {}\n      {}\n", signature(r, d), d.what));
            }
        }
    }
    s
}

/// The reference page `docs/BUILTINS.md`.
pub fn markdown() -> String {
    let mut s = String::from(
        "# Builtins and fields\n\n\
         <!-- Generated by `rmapcheck list --builtins --format markdown` from \
         src/world/builtins/table.rs, describe.rs and fields.rs; a test fails when this file \
         differs. Do not edit it by hand. -->\n\n\
         A model (docs/LANGUAGE.md) calls these functions by their kernel names; the world runs \
         them and checks what the kernel relies on. A builtin's name is the kernel function it \
         stands for where one exists; `long` stands for the language's one integer type.\n",
    );
    for (heading, intro, docs) in SECTIONS {
        s.push_str(&format!("\n## {heading}\n\n"));
        if !intro.is_empty() {
            s.push_str(intro);
            s.push_str("\n\n");
        }
        s.push_str("| builtin | what it does |\n|---|---|\n");
        for d in *docs {
            if let Some(r) = row(d.name) {
                s.push_str(&format!("| `{}` | {} |\n", signature(r, d), d.what));
            }
        }
    }
    s.push_str(
        "\n## Fields\n\n\
         The kernel fields models read as `obj->field`; the writable ones may be assigned. A write \
         of a key (`vm_start`, `vm_end`, `vm_pgoff`, `vm_anon_pgoff`, `avc->vma`) marks the trees \
         that read it for the structural checks, and a VMA its mm lists must be write-locked \
         (`vma_start_write`) before its range changes.\n\n\
         | struct | field | type | models may write it |\n|---|---|---|---|\n",
    );
    for &k in KINDS {
        for f in fields_of(k) {
            s.push_str(&format!(
                "| `{}` | `{}` | `{}` | {} |\n",
                k.struct_tag(),
                f.name,
                c_type(f.ty).trim_end(),
                if f.write.is_some() { "yes" } else { "no" }
            ));
        }
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_builtin_is_described_once_with_its_parameters() {
        assert_eq!(check(), Vec::<String>::new());
    }

    #[test]
    fn signatures_read_like_c() {
        let r = row("mapping_rmap_tree_insert_after").unwrap();
        let d = SECTIONS
            .iter()
            .flat_map(|s| s.2.iter())
            .find(|d| d.name == r.name)
            .unwrap();
        assert_eq!(
            signature(r, d),
            "void mapping_rmap_tree_insert_after(struct vm_area_struct *vma, \
             struct vm_area_struct *prev, struct address_space *mapping)"
        );
        let r = row("mm_alloc").unwrap();
        let d = Doc {
            name: "mm_alloc",
            params: &[],
            what: "",
        };
        assert_eq!(signature(r, &d), "struct mm_struct *mm_alloc(void)");
    }
}
