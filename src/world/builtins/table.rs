//! The one table of builtins: each row a kernel function's name, its C signature as models see
//! it, and the function that runs it. The schema the type checker reads is built from it, and a
//! compiled model calls a builtin by its row ([`crate::exec::host::BuiltinId`]), so nothing is
//! looked up by name while exploring.
//!
//! Adding a builtin is adding one row: `b("name", &[param types], return type, run)`, where
//! `run(world, thread, name, args)` gets the arguments already counted against the row (their
//! types are the type checker's business; convert them with `World::obj`, `vma_arg`, `int_arg`,
//! ...) and the row's name for its messages. Rows may go anywhere in the table.

use super::locks::{LockOp, VmaLockOp};
use super::trees::{AnonTree, Change, FileTree};
use super::{World, R};
use crate::exec::host::{ObjKind, ThreadId, Value};
use crate::world::schema::Ty::{self, Bool, Int, Void};

/// How a builtin runs: `(world, thread, its name, its arguments)`.
pub(crate) type Run = fn(&mut World, ThreadId, &'static str, &[Value]) -> R<Value>;

/// One builtin: name, parameter types, return type, implementation.
pub(crate) struct BuiltinRow {
    pub name: &'static str,
    pub params: &'static [Ty],
    pub ret: Ty,
    pub run: Run,
}

const fn b(name: &'static str, params: &'static [Ty], ret: Ty, run: Run) -> BuiltinRow {
    BuiltinRow {
        name,
        params,
        ret,
        run,
    }
}

const VMA: Ty = Ty::Ptr(ObjKind::Vma);
const MM: Ty = Ty::Ptr(ObjKind::Mm);
const FILE: Ty = Ty::Ptr(ObjKind::File);
const MAPPING: Ty = Ty::Ptr(ObjKind::Mapping);
const AV: Ty = Ty::Ptr(ObjKind::AnonVma);
const AVC: Ty = Ty::Ptr(ObjKind::Avc);

/// A builtin that returns nothing.
fn void(r: R<()>) -> R<Value> {
    r.map(|()| Value::Void)
}

/// A VMA helper that answers an integer computed from the VMA.
fn vma_int(w: &mut World, name: &str, a: &[Value], f: fn(&crate::world::Vma) -> u64) -> R<Value> {
    let v = w.vma_arg(a[0], name)?;
    Ok(Value::Int(f(&w.vmas[v as usize]) as i64))
}

/// Every builtin, in [`crate::exec::host::BuiltinId`] order.
pub(crate) static BUILTINS: &[BuiltinRow] = &[
    // file rmap tree (mm/interval_tree.c)
    b(
        "mapping_rmap_tree_insert",
        &[VMA, MAPPING],
        Void,
        |w, t, n, a| w.tree_change::<FileTree>(t, n, Change::Insert, a),
    ),
    b(
        "mapping_rmap_tree_insert_after",
        &[VMA, VMA, MAPPING],
        Void,
        |w, t, n, a| w.tree_change::<FileTree>(t, n, Change::InsertAfter, a),
    ),
    b(
        "mapping_rmap_tree_remove",
        &[VMA, MAPPING],
        Void,
        |w, t, n, a| w.tree_change::<FileTree>(t, n, Change::Remove, a),
    ),
    b("mapping_rmap_tree_propagate", &[VMA], Void, |w, t, n, a| {
        w.tree_change::<FileTree>(t, n, Change::Propagate, a)
    }),
    b(
        "mapping_rmap_tree_iter_first",
        &[MAPPING, Int, Int],
        VMA,
        |w, t, n, a| w.tree_query::<FileTree>(t, n, true, a),
    ),
    b(
        "mapping_rmap_tree_iter_next",
        &[VMA, Int, Int],
        VMA,
        |w, t, n, a| w.tree_query::<FileTree>(t, n, false, a),
    ),
    // anon rmap tree
    b("anon_rmap_tree_insert", &[AVC, AV], Void, |w, t, n, a| {
        w.tree_change::<AnonTree>(t, n, Change::Insert, a)
    }),
    b("anon_rmap_tree_remove", &[AVC, AV], Void, |w, t, n, a| {
        w.tree_change::<AnonTree>(t, n, Change::Remove, a)
    }),
    b("anon_rmap_tree_propagate", &[AVC], Void, |w, t, n, a| {
        w.tree_change::<AnonTree>(t, n, Change::Propagate, a)
    }),
    b(
        "anon_rmap_tree_iter_first",
        &[AV, Int, Int],
        AVC,
        |w, t, n, a| w.tree_query::<AnonTree>(t, n, true, a),
    ),
    b(
        "anon_rmap_tree_iter_next",
        &[AVC, Int, Int],
        AVC,
        |w, t, n, a| w.tree_query::<AnonTree>(t, n, false, a),
    ),
    b("anon_rmap_tree_empty", &[AV], Bool, |w, _, n, a| {
        let av = w.obj(a[0], ObjKind::AnonVma, n)?;
        Ok(Value::Bool(w.anon_vmas[av as usize].rb_root.is_empty()))
    }),
    // rmap locks
    b("i_mmap_lock_write", &[MAPPING], Void, |w, t, n, a| {
        w.lock_op(t, n, LockOp::IMmapLockWrite, a)
    }),
    b("i_mmap_unlock_write", &[MAPPING], Void, |w, t, n, a| {
        w.lock_op(t, n, LockOp::IMmapUnlockWrite, a)
    }),
    b("i_mmap_lock_read", &[MAPPING], Void, |w, t, n, a| {
        w.lock_op(t, n, LockOp::IMmapLockRead, a)
    }),
    b("i_mmap_unlock_read", &[MAPPING], Void, |w, t, n, a| {
        w.lock_op(t, n, LockOp::IMmapUnlockRead, a)
    }),
    b("flush_dcache_mmap_lock", &[MAPPING], Void, |w, t, n, a| {
        w.lock_op(t, n, LockOp::FlushDcacheLock, a)
    }),
    b(
        "flush_dcache_mmap_unlock",
        &[MAPPING],
        Void,
        |w, t, n, a| w.lock_op(t, n, LockOp::FlushDcacheUnlock, a),
    ),
    b("anon_vma_lock_write", &[AV], Void, |w, t, n, a| {
        w.lock_op(t, n, LockOp::AnonVmaLockWrite, a)
    }),
    b("anon_vma_unlock_write", &[AV], Void, |w, t, n, a| {
        w.lock_op(t, n, LockOp::AnonVmaUnlockWrite, a)
    }),
    b("anon_vma_lock_read", &[AV], Void, |w, t, n, a| {
        w.lock_op(t, n, LockOp::AnonVmaLockRead, a)
    }),
    b("anon_vma_unlock_read", &[AV], Void, |w, t, n, a| {
        w.lock_op(t, n, LockOp::AnonVmaUnlockRead, a)
    }),
    // mmap lock and per-VMA locks
    b("mmap_write_lock", &[MM], Void, |w, t, n, a| {
        w.lock_op(t, n, LockOp::MmapWriteLock, a)
    }),
    b("mmap_write_unlock", &[MM], Void, |w, t, n, a| {
        w.lock_op(t, n, LockOp::MmapWriteUnlock, a)
    }),
    b("mmap_read_lock", &[MM], Void, |w, t, n, a| {
        w.lock_op(t, n, LockOp::MmapReadLock, a)
    }),
    b("mmap_read_unlock", &[MM], Void, |w, t, n, a| {
        w.lock_op(t, n, LockOp::MmapReadUnlock, a)
    }),
    b("mmap_read_trylock", &[MM], Bool, |w, t, n, a| {
        w.lock_op(t, n, LockOp::MmapReadTrylock, a)
    }),
    b("mmap_assert_locked", &[MM], Void, |w, t, n, a| {
        w.lock_op(t, n, LockOp::MmapAssertLocked, a)
    }),
    b("page_table_lock", &[MM], Void, |w, t, n, a| {
        w.lock_op(t, n, LockOp::PageTableLock, a)
    }),
    b("page_table_unlock", &[MM], Void, |w, t, n, a| {
        w.lock_op(t, n, LockOp::PageTableUnlock, a)
    }),
    b("mmap_write_downgrade", &[MM], Void, |w, t, n, a| {
        w.lock_op(t, n, LockOp::MmapWriteDowngrade, a)
    }),
    b("vma_start_write", &[VMA], Void, |w, t, n, a| {
        w.vma_lock_op(t, n, VmaLockOp::StartWrite, a)
    }),
    b("vma_start_read", &[VMA], Bool, |w, t, n, a| {
        w.vma_lock_op(t, n, VmaLockOp::StartRead, a)
    }),
    b("vma_end_read", &[VMA], Void, |w, t, n, a| {
        w.vma_lock_op(t, n, VmaLockOp::EndRead, a)
    }),
    b("vma_assert_write_locked", &[VMA], Void, |w, t, n, a| {
        w.vma_lock_op(t, n, VmaLockOp::AssertWriteLocked, a)
    }),
    // ghost records of concurrent rmap walks (src/world/conc.rs)
    b(
        "rmap_walk_file_begin",
        &[MAPPING, Int],
        Void,
        |w, t, n, a| void(w.rmap_walk_begin(t, n, a)),
    ),
    b("rmap_walk_anon_begin", &[AV, Int], Void, |w, t, n, a| {
        void(w.rmap_walk_begin(t, n, a))
    }),
    b("rmap_walk_found", &[VMA], Void, |w, t, n, a| {
        let v = w.obj(a[0], ObjKind::Vma, n)?;
        void(w.walk_found(t, v).map_err(super::HostError::Fault))
    }),
    b("rmap_walk_end", &[], Void, |w, t, _, _| {
        void(w.walk_end(t).map_err(super::HostError::Fault))
    }),
    // page tables: unmap_vmas() zaps a VMA's pages; zap_page_range_single() a range
    b("unmap_vmas", &[VMA], Void, |w, _, n, a| {
        let v = w.vma_arg(a[0], n)?;
        w.vmas[v as usize].zapped = true;
        let (s, e) = (w.vmas[v as usize].vm_start, w.vmas[v as usize].vm_end);
        w.zap_ptes(v, s, e);
        Ok(Value::Void)
    }),
    b(
        "zap_page_range_single",
        &[VMA, Int, Int],
        Void,
        |w, _, n, a| void(w.zap_page_range_single(n, a)),
    ),
    // ghost page tables and folios (src/world/pages.rs)
    b("fault_anon_page", &[VMA, Int], Void, |w, _, n, a| {
        void(w.fault_page(n, a))
    }),
    b("fault_file_page", &[VMA, Int], Void, |w, _, n, a| {
        void(w.fault_page(n, a))
    }),
    b("copy_page_range", &[VMA, VMA], Void, |w, _, n, a| {
        let dst = w.vma_arg(a[0], n)?;
        let src = w.vma_arg(a[1], n)?;
        void(w.copy_page_range(dst, src).map_err(super::HostError::Fault))
    }),
    b(
        "move_page_tables",
        &[VMA, Int, Int, Int],
        Void,
        |w, _, n, a| void(w.move_page_tables_builtin(n, a)),
    ),
    // objects
    b("mm_alloc", &[], MM, |w, _, _, _| {
        Ok(Value::Obj(ObjKind::Mm, w.add_mm()))
    }),
    b("vm_area_alloc", &[MM], VMA, |w, _, n, a| {
        let mm = w.obj(a[0], ObjKind::Mm, n)?;
        Ok(Value::Obj(ObjKind::Vma, w.alloc_vma(Some(mm))))
    }),
    b("vm_area_dup", &[VMA], VMA, |w, _, n, a| w.vm_area_dup(n, a)),
    b("vm_area_free", &[VMA], Void, |w, _, n, a| {
        let v = w.vma_arg(a[0], n)?;
        w.vmas[v as usize].freed = true;
        Ok(Value::Void)
    }),
    b("vma_mark_detached", &[VMA], Void, |w, _, n, a| {
        let v = w.vma_arg(a[0], n)?;
        w.vmas[v as usize].detached = true;
        Ok(Value::Void)
    }),
    b("vma_mark_attached", &[VMA], Void, |w, _, n, a| {
        let v = w.vma_arg(a[0], n)?;
        w.vmas[v as usize].detached = false;
        Ok(Value::Void)
    }),
    // the side tree of a munmap (mas_detach): the detached VMAs of mm in [start, end)
    b("mas_detach_first", &[MM, Int, Int], VMA, |w, _, n, a| {
        w.mas_detach_find(n, a)
    }),
    b("mas_detach_next", &[MM, VMA, Int], VMA, |w, _, n, a| {
        w.mas_detach_find(n, a)
    }),
    b("vma_iter_store", &[MM, VMA], Void, |w, _, n, a| {
        w.vma_iter_store(n, a)
    }),
    b("vma_iter_clear", &[MM, Int, Int], Void, |w, _, n, a| {
        w.vma_iter_clear(n, a)
    }),
    b("vma_first", &[MM], VMA, |w, _, n, a| w.vma_find(n, a)),
    b("vma_next", &[MM, VMA], VMA, |w, _, n, a| w.vma_step(n, a)),
    b("vma_prev", &[MM, VMA], VMA, |w, _, n, a| w.vma_step(n, a)),
    b("find_vma", &[MM, Int], VMA, |w, _, n, a| w.vma_find(n, a)),
    b("vma_lookup", &[MM, Int], VMA, |w, _, n, a| w.vma_find(n, a)),
    b("vma_is_anonymous", &[VMA], Bool, |w, _, n, a| {
        let v = w.vma_arg(a[0], n)?;
        Ok(Value::Bool(w.vmas[v as usize].is_anonymous()))
    }),
    b("vma_set_anonymous", &[VMA], Void, |w, _, n, a| {
        let v = w.vma_arg(a[0], n)?;
        w.vmas[v as usize].has_vm_ops = false;
        Ok(Value::Void)
    }),
    b("call_mmap", &[FILE, VMA], Void, |w, _, n, a| {
        w.call_mmap(n, a)
    }),
    b("mmap_action_complete", &[VMA], Void, |w, _, n, a| {
        w.mmap_action_complete(n, a)
    }),
    b("vma_pages", &[VMA], Int, |w, _, n, a| {
        vma_int(w, n, a, |v| v.pages())
    }),
    b("vma_start_pgoff", &[VMA], Int, |w, _, n, a| {
        vma_int(w, n, a, |v| v.start_pgoff())
    }),
    b("vma_last_pgoff", &[VMA], Int, |w, _, n, a| {
        vma_int(w, n, a, |v| v.last_pgoff())
    }),
    b("vma_start_anon_pgoff", &[VMA], Int, |w, _, n, a| {
        vma_int(w, n, a, |v| v.start_anon_pgoff())
    }),
    b("vma_last_anon_pgoff", &[VMA], Int, |w, _, n, a| {
        vma_int(w, n, a, |v| v.last_anon_pgoff())
    }),
    b("anon_vma_alloc", &[], AV, |w, _, _, _| {
        Ok(Value::Obj(ObjKind::AnonVma, w.alloc_anon_vma()))
    }),
    b("get_anon_vma", &[AV], Void, |w, _, n, a| {
        w.anon_vma_ref(n, a)
    }),
    b("put_anon_vma", &[AV], Void, |w, _, n, a| {
        w.anon_vma_ref(n, a)
    }),
    b("anon_vma_chain_alloc", &[], AVC, |w, _, _, _| {
        Ok(Value::Obj(ObjKind::Avc, w.alloc_avc()))
    }),
    b("anon_vma_chain_free", &[AVC], Void, |w, _, n, a| {
        let c = w.obj(a[0], ObjKind::Avc, n)?;
        w.avcs[c as usize].freed = true;
        Ok(Value::Void)
    }),
    b(
        "anon_vma_chain_list_add",
        &[AVC, VMA],
        Void,
        |w, _, n, a| w.avc_list_add(n, a),
    ),
    b("anon_vma_chain_list_del", &[AVC], Void, |w, _, n, a| {
        w.avc_list_del(n, a)
    }),
    b("anon_vma_chain_is_singular", &[VMA], Bool, |w, _, n, a| {
        let v = w.vma_arg(a[0], n)?;
        Ok(Value::Bool(w.vmas[v as usize].anon_vma_chain.len() == 1))
    }),
];
