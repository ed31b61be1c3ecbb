//! The schema models are checked against: the kernel structs the world exposes (fields, types,
//! whether a model may write them) and every builtin with its C signature.

use crate::lang::types::{BuiltinSig, FieldDef, Schema, Type};
use std::collections::HashMap;
use std::sync::OnceLock;

fn p(tag: &str) -> Type {
    Type::Ptr(tag.to_string())
}

const VMA: &str = "vm_area_struct";
const MM: &str = "mm_struct";
const FILE: &str = "file";
const MAPPING: &str = "address_space";
const AV: &str = "anon_vma";
const AVC: &str = "anon_vma_chain";

/// (struct, field, type, writable)
fn fields() -> Vec<(&'static str, &'static str, Type, bool)> {
    vec![
        (VMA, "vm_start", Type::Int, true),
        (VMA, "vm_end", Type::Int, true),
        (VMA, "vm_pgoff", Type::Int, true),
        (VMA, "vm_anon_pgoff", Type::Int, true),
        (VMA, "vm_flags", Type::Int, true),
        (VMA, "vm_file", p(FILE), true),
        (VMA, "vm_mm", p(MM), true),
        (VMA, "anon_vma", p(AV), true),
        // list head, only walked with list_for_each_entry*(); reading it as a value faults
        (VMA, "anon_vma_chain", Type::Int, false),
        (FILE, "f_mapping", p(MAPPING), false),
        (AV, "root", p(AV), true),
        (AV, "parent", p(AV), true),
        (AV, "refcount", Type::Int, false),
        (AV, "num_children", Type::Int, true),
        (AV, "num_active_vmas", Type::Int, true),
        (AVC, "vma", p(VMA), true),
        (AVC, "anon_vma", p(AV), true),
        (AVC, "cached_vma_start", Type::Int, true),
        (AVC, "cached_vma_last", Type::Int, true),
        (MM, "map_count", Type::Int, true),
    ]
}

/// (name, params, return)
fn builtins() -> Vec<(&'static str, Vec<Type>, Type)> {
    use Type::{Bool, Int, Void};
    vec![
        // file rmap tree (mm/interval_tree.c)
        ("mapping_rmap_tree_insert", vec![p(VMA), p(MAPPING)], Void),
        (
            "mapping_rmap_tree_insert_after",
            vec![p(VMA), p(VMA), p(MAPPING)],
            Void,
        ),
        ("mapping_rmap_tree_remove", vec![p(VMA), p(MAPPING)], Void),
        ("mapping_rmap_tree_propagate", vec![p(VMA)], Void),
        (
            "mapping_rmap_tree_iter_first",
            vec![p(MAPPING), Int, Int],
            p(VMA),
        ),
        (
            "mapping_rmap_tree_iter_next",
            vec![p(VMA), Int, Int],
            p(VMA),
        ),
        // anon rmap tree
        ("anon_rmap_tree_insert", vec![p(AVC), p(AV)], Void),
        ("anon_rmap_tree_remove", vec![p(AVC), p(AV)], Void),
        ("anon_rmap_tree_propagate", vec![p(AVC)], Void),
        ("anon_rmap_tree_iter_first", vec![p(AV), Int, Int], p(AVC)),
        ("anon_rmap_tree_iter_next", vec![p(AVC), Int, Int], p(AVC)),
        ("anon_rmap_tree_empty", vec![p(AV)], Bool),
        // rmap locks
        ("i_mmap_lock_write", vec![p(MAPPING)], Void),
        ("i_mmap_unlock_write", vec![p(MAPPING)], Void),
        ("i_mmap_lock_read", vec![p(MAPPING)], Void),
        ("i_mmap_unlock_read", vec![p(MAPPING)], Void),
        ("flush_dcache_mmap_lock", vec![p(MAPPING)], Void),
        ("flush_dcache_mmap_unlock", vec![p(MAPPING)], Void),
        ("anon_vma_lock_write", vec![p(AV)], Void),
        ("anon_vma_unlock_write", vec![p(AV)], Void),
        ("anon_vma_lock_read", vec![p(AV)], Void),
        ("anon_vma_unlock_read", vec![p(AV)], Void),
        // mmap lock and per-VMA locks
        ("mmap_write_lock", vec![p(MM)], Void),
        ("mmap_write_unlock", vec![p(MM)], Void),
        ("mmap_read_lock", vec![p(MM)], Void),
        ("mmap_read_unlock", vec![p(MM)], Void),
        ("vma_start_write", vec![p(VMA)], Void),
        ("vma_start_read", vec![p(VMA)], Bool),
        ("vma_end_read", vec![p(VMA)], Void),
        ("vma_assert_write_locked", vec![p(VMA)], Void),
        // ghost records of concurrent rmap walks (src/world/conc.rs)
        ("rmap_walk_file_begin", vec![p(MAPPING), Int], Void),
        ("rmap_walk_anon_begin", vec![p(AV), Int], Void),
        ("rmap_walk_found", vec![p(VMA)], Void),
        ("rmap_walk_end", vec![], Void),
        // page tables: unmap_vmas() zaps a VMA's pages; zap_page_range_single() a range
        ("unmap_vmas", vec![p(VMA)], Void),
        ("zap_page_range_single", vec![p(VMA), Int, Int], Void),
        // ghost page tables and folios (src/world/pages.rs)
        ("fault_anon_page", vec![p(VMA), Int], Void),
        ("fault_file_page", vec![p(VMA), Int], Void),
        ("copy_page_range", vec![p(VMA), p(VMA)], Void),
        ("move_page_tables", vec![p(VMA), Int, Int, Int], Void),
        // objects
        ("mm_alloc", vec![], p(MM)),
        ("vm_area_alloc", vec![p(MM)], p(VMA)),
        ("vm_area_dup", vec![p(VMA)], p(VMA)),
        ("vm_area_free", vec![p(VMA)], Void),
        ("vma_mark_detached", vec![p(VMA)], Void),
        ("vma_iter_store", vec![p(MM), p(VMA)], Void),
        ("vma_iter_clear", vec![p(MM), Int, Int], Void),
        ("vma_first", vec![p(MM)], p(VMA)),
        ("vma_next", vec![p(MM), p(VMA)], p(VMA)),
        ("vma_prev", vec![p(MM), p(VMA)], p(VMA)),
        ("find_vma", vec![p(MM), Int], p(VMA)),
        ("vma_lookup", vec![p(MM), Int], p(VMA)),
        ("vma_is_anonymous", vec![p(VMA)], Bool),
        ("vma_set_anonymous", vec![p(VMA)], Void),
        ("call_mmap", vec![p(FILE), p(VMA)], Void),
        ("mmap_action_complete", vec![p(VMA)], Void),
        ("vma_pages", vec![p(VMA)], Int),
        ("vma_start_pgoff", vec![p(VMA)], Int),
        ("vma_last_pgoff", vec![p(VMA)], Int),
        ("vma_start_anon_pgoff", vec![p(VMA)], Int),
        ("vma_last_anon_pgoff", vec![p(VMA)], Int),
        ("anon_vma_alloc", vec![], p(AV)),
        ("get_anon_vma", vec![p(AV)], Void),
        ("put_anon_vma", vec![p(AV)], Void),
        ("anon_vma_chain_alloc", vec![], p(AVC)),
        ("anon_vma_chain_free", vec![p(AVC)], Void),
        ("anon_vma_chain_list_add", vec![p(AVC), p(VMA)], Void),
        ("anon_vma_chain_list_del", vec![p(AVC)], Void),
        ("anon_vma_chain_is_singular", vec![p(VMA)], Bool),
    ]
}

/// Number of arguments a builtin takes, or None if there is no such builtin.
pub fn builtin_arity(name: &str) -> Option<usize> {
    static ARITY: OnceLock<HashMap<&'static str, usize>> = OnceLock::new();
    ARITY
        .get_or_init(|| {
            builtins()
                .into_iter()
                .map(|(n, ps, _)| (n, ps.len()))
                .collect()
        })
        .get(name)
        .copied()
}

/// The schema of the world, for the model type checker.
pub fn schema() -> Schema {
    let mut s = Schema::default();
    for tag in [VMA, MM, FILE, MAPPING, AV, AVC] {
        s.structs.insert(tag.to_string(), Vec::new());
    }
    for (tag, name, ty, writable) in fields() {
        s.structs.get_mut(tag).unwrap().push(FieldDef {
            name: name.to_string(),
            ty,
            writable,
        });
    }
    for (name, params, ret) in builtins() {
        s.builtins.insert(
            name.to_string(),
            BuiltinSig {
                name: name.to_string(),
                params,
                ret,
            },
        );
    }
    s
}
