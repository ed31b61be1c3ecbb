//! The functions the harness does not take from the userland VMA tests' stubs: the stubs the
//! glue replaces, and the functions of mm/rmap.c compiled for real. Read by the build (which
//! cuts and emits them) and by the stub precedence rule (which must not cut them twice).

/// Stubs of the copy's include/stubs.h that the glue replaces: the lock functions (recorded),
/// the rmap tree operations (the real ones), the page-table move (it must report the whole
/// range moved for mremap and exec's stack move to go on, and moves the ghost ptes), a file's
/// ->mmap (it must set vm_ops), free_pgtables() (it unlinks the rmap of the VMAs it frees) and
/// unmap_vmas() (it zaps the ghost ptes).
pub const STUBS_REMOVED: &[&str] = &[
    "anon_vma_unlock_write",
    "i_mmap_unlock_write",
    "mmap_write_downgrade",
    "mmap_read_unlock",
    "mmap_write_unlock",
    "mmap_write_lock_killable",
    "mmap_assert_locked",
    "mmap_assert_write_locked",
    "mapping_rmap_tree_insert",
    "mapping_rmap_tree_remove",
    "flush_dcache_mmap_unlock",
    "anon_rmap_tree_insert",
    "anon_rmap_tree_remove",
    "i_mmap_lock_write",
    "anon_vma_lock_write",
    "flush_dcache_mmap_lock",
    "move_page_tables",
    "mmap_file",
    "free_pgtables",
    "unmap_vmas",
];

/// Stubs of the copy's include/custom.h that the glue or the real mm/rmap.c replaces.
pub const CUSTOM_REMOVED: &[&str] = &[
    "unlink_anon_vmas",
    "vma_start_write",
    "vma_start_write_killable",
    "anon_vma_clone",
    "__anon_vma_prepare",
    "anon_vma_prepare",
];

/// The functions of mm/rmap.c the harness compiles, in the order they are emitted.
pub const RMAP_FUNCTIONS: &[&str] = &[
    "anon_vma_alloc",
    "anon_vma_free",
    "anon_vma_chain_alloc",
    "anon_vma_chain_free",
    "anon_vma_chain_assign",
    "__anon_vma_prepare",
    "check_anon_vma_clone",
    "maybe_reuse_anon_vma",
    "anon_vma_clone",
    "anon_vma_fork",
    "cleanup_partial_anon_vmas",
    "unlink_anon_vmas",
    "anon_vma_ctor",
    "anon_vma_init",
    "__put_anon_vma",
];
