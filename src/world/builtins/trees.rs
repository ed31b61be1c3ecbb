//! The rmap interval-tree builtins: `mapping_rmap_tree_*` on an address_space's `i_mmap` (nodes
//! are VMAs) and `anon_rmap_tree_*` on an anon_vma's tree (nodes are anon_vma_chains).
//!
//! The two trees are twins: the same kernel interval tree, keyed through [`IntervalKeys`] from
//! the live VMA (`FileKeys`, `AnonKeys`), changed under a write lock and queried under a read
//! lock. [`RmapTree`] says what differs (node and owner objects, how a node names its tree,
//! which lock guards it, what an insert records) and one generic change and one generic query
//! serve both. Every descent runs with the stale-descent check on.

use super::{fault, World, R};
use crate::exec::host::{ObjKind, ThreadId, Value};
use crate::invariant::Invariant;
use crate::tree::{interval, IntervalKeys, RbRoot, TreeError, TreeObs};
use crate::world::keys::{AnonKeys, FileKeys};

/// One kind of rmap tree, for the builtins the file and anon trees share.
pub(super) trait RmapTree {
    /// The objects that are its nodes (VMAs, AVCs).
    const NODE: ObjKind;
    /// The object that holds the tree (address_space, anon_vma).
    const OWNER: ObjKind;
    /// What a node that names no tree lacks, in messages (`vma#2 has no file`).
    const LACKS: &'static str;
    /// Whether this is the file tree (critical-section work is counted per kind).
    const FILE: bool;

    type Keys<'a>: IntervalKeys;

    /// Whether node `n` was freed.
    fn freed(w: &World, n: u32) -> bool;
    /// The tree node `n` belongs in, as the node itself says (`vm_file`, `avc->anon_vma`).
    fn owner_of(w: &World, n: u32) -> Option<u32>;
    /// The tree of `owner` and the keys its nodes sort by.
    fn tree(w: &World, owner: u32) -> (&RbRoot, Self::Keys<'_>);
    fn tree_mut(w: &mut World, owner: u32) -> (&mut RbRoot, Self::Keys<'_>);
    /// Whether thread `t` holds the lock a change (`write`) or a query of the tree needs;
    /// records `lock-discipline` if not.
    fn check_lock(w: &mut World, t: ThreadId, owner: u32, op: &str, write: bool);
    /// What a successful insert of `n` records on the node.
    fn inserted(w: &mut World, n: u32);
}

/// The file rmap tree, `mapping->i_mmap`.
pub(super) struct FileTree;

impl RmapTree for FileTree {
    const NODE: ObjKind = ObjKind::Vma;
    const OWNER: ObjKind = ObjKind::Mapping;
    const LACKS: &'static str = "file";
    const FILE: bool = true;

    type Keys<'a> = FileKeys<'a>;

    fn freed(w: &World, n: u32) -> bool {
        w.vmas[n as usize].freed
    }

    fn owner_of(w: &World, n: u32) -> Option<u32> {
        w.vma_mapping(n)
    }

    fn tree(w: &World, owner: u32) -> (&RbRoot, FileKeys<'_>) {
        (
            &w.mappings[owner as usize].i_mmap,
            FileKeys { vmas: &w.vmas },
        )
    }

    fn tree_mut(w: &mut World, owner: u32) -> (&mut RbRoot, FileKeys<'_>) {
        (
            &mut w.mappings[owner as usize].i_mmap,
            FileKeys { vmas: &w.vmas },
        )
    }

    /// A change needs i_mmap_rwsem for write and the flush_dcache lock; a query either
    /// i_mmap_rwsem or the flush_dcache lock.
    fn check_lock(w: &mut World, t: ThreadId, mapping: u32, op: &str, write: bool) {
        let m = &w.mappings[mapping as usize];
        let (rw, ro, fl) = (
            m.i_mmap_rwsem.held_write_by(t),
            m.i_mmap_rwsem.held_read_by(t),
            m.flush_dcache.held_by(t),
        );
        if !write {
            if !(ro || rw || fl) {
                w.violate(
                    Invariant::LockDiscipline,
                    format!(
                        "{op} on mapping#{mapping} without i_mmap_rwsem or the flush_dcache lock"
                    ),
                );
            }
            return;
        }
        if !rw {
            w.violate(
                Invariant::LockDiscipline,
                format!("{op} on mapping#{mapping} without i_mmap_rwsem held for write"),
            );
        }
        if !fl {
            w.violate(
                Invariant::LockDiscipline,
                format!("{op} on mapping#{mapping} without the flush_dcache lock"),
            );
        }
    }

    fn inserted(w: &mut World, n: u32) {
        w.vmas[n as usize].file_linked = true;
    }
}

/// The tree of an anon_vma, `anon_vma->rb_root`.
pub(super) struct AnonTree;

impl RmapTree for AnonTree {
    const NODE: ObjKind = ObjKind::Avc;
    const OWNER: ObjKind = ObjKind::AnonVma;
    const LACKS: &'static str = "anon_vma";
    const FILE: bool = false;

    type Keys<'a> = AnonKeys<'a>;

    fn freed(w: &World, n: u32) -> bool {
        w.avcs[n as usize].freed
    }

    fn owner_of(w: &World, n: u32) -> Option<u32> {
        w.avcs[n as usize].anon_vma
    }

    fn tree(w: &World, owner: u32) -> (&RbRoot, AnonKeys<'_>) {
        let keys = AnonKeys {
            vmas: &w.vmas,
            avcs: &w.avcs,
        };
        (&w.anon_vmas[owner as usize].rb_root, keys)
    }

    fn tree_mut(w: &mut World, owner: u32) -> (&mut RbRoot, AnonKeys<'_>) {
        let keys = AnonKeys {
            vmas: &w.vmas,
            avcs: &w.avcs,
        };
        (&mut w.anon_vmas[owner as usize].rb_root, keys)
    }

    /// The root anon_vma's rwsem: for write to change the tree, either way to query it.
    fn check_lock(w: &mut World, t: ThreadId, av: u32, op: &str, write: bool) {
        let root = w.anon_vmas[av as usize].root;
        let sem = &w.anon_vmas[root as usize].rwsem;
        let ok = sem.held_write_by(t) || (!write && sem.held_read_by(t));
        if !ok {
            let need = if write { "for write" } else { "" };
            w.violate(
                Invariant::LockDiscipline,
                format!("{op} on anon_vma#{av} without its root anon_vma#{root} lock {need}")
                    .trim_end()
                    .to_string(),
            );
        }
    }

    /// DEBUG_VM_RB: the insert records the key it sorted by.
    fn inserted(w: &mut World, n: u32) {
        let keys = AnonKeys {
            vmas: &w.vmas,
            avcs: &w.avcs,
        };
        let (start, last) = (keys.start(n), keys.last(n));
        let a = &mut w.avcs[n as usize];
        a.cached_vma_start = start;
        a.cached_vma_last = last;
        a.linked = true;
    }
}

/// A tree change.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum Change {
    Insert,
    /// `vma_interval_tree_insert_after(node, prev, root)` (fork; the file tree only).
    InsertAfter,
    Remove,
    /// Recompute subtree_last up from the node after its key changed in place.
    Propagate,
}

impl World {
    /// A node argument of a tree builtin: a live node object.
    fn tree_node<K: RmapTree>(&self, v: Value, op: &str) -> R<u32> {
        let n = self.obj(v, K::NODE, op)?;
        if K::freed(self, n) {
            return fault(format!("{op}: use of freed {}#{n}", K::NODE.short()));
        }
        Ok(n)
    }

    /// The tree node `n` names itself, or the fault of a node in none.
    fn tree_owner<K: RmapTree>(&self, n: u32, op: &str) -> R<u32> {
        match K::owner_of(self, n) {
            Some(o) => Ok(o),
            None => fault(format!("{op}: {}#{n} has no {}", K::NODE.short(), K::LACKS)),
        }
    }

    /// Insert, insert_after, remove or propagate: `(node, owner)`, `(node, prev, owner)` or
    /// `(node)` (propagate finds the tree from the node).
    pub(super) fn tree_change<K: RmapTree>(
        &mut self,
        t: ThreadId,
        op: &str,
        change: Change,
        args: &[Value],
    ) -> R<Value> {
        self.scratch.trees_dirty = true;
        let node = self.tree_node::<K>(args[0], op)?;
        let (prev, owner) = match change {
            Change::InsertAfter => (
                Some(self.tree_node::<K>(args[1], op)?),
                self.obj(args[2], K::OWNER, op)?,
            ),
            Change::Propagate => (None, self.tree_owner::<K>(node, op)?),
            _ => (None, self.obj(args[1], K::OWNER, op)?),
        };
        self.mark_tree(K::FILE, owner);
        K::check_lock(self, t, owner, op, true);
        if change == Change::Remove {
            self.check_unlink_reachable::<K>(t, node, op);
        }
        if let Some(p) = prev {
            self.check_insert_after(op, node, p);
        }
        let mut obs = TreeObs {
            check_stale: true,
            ..Default::default()
        };
        let res = {
            let (tree, keys) = K::tree_mut(self, owner);
            match change {
                Change::Insert => interval::insert(tree, &keys, node, &mut obs),
                Change::InsertAfter => {
                    interval::insert_after(tree, &keys, node, prev.unwrap_or(0), &mut obs)
                }
                Change::Remove => interval::remove(tree, &keys, node, &mut obs),
                Change::Propagate => interval::propagate(tree, &keys, node, &mut obs),
            }
        };
        if K::FILE {
            self.scratch.work.file_ops += 1;
        } else {
            self.scratch.work.anon_ops += 1;
        }
        self.absorb(obs, K::FILE, op);
        match res {
            Err(e) => {
                let tree = format!("{}#{owner}'s tree", K::OWNER.short());
                self.tree_err(op, e, K::NODE.short(), &tree);
            }
            Ok(()) if matches!(change, Change::Insert | Change::InsertAfter) => {
                K::inserted(self, node)
            }
            Ok(()) => {}
        }
        Ok(Value::Void)
    }

    /// `lock-discipline`, the rule for taking a VMA out of the rmap: the holder of its mm's mmap
    /// lock for write may (nobody can reach the VMA through the mm meanwhile), and so may a
    /// reader once the VMA is gone from the mm's maple tree (munmap after vma_iter_clear() and
    /// the downgrade, v7.3). A reader removing a VMA still listed in its mm lets a fault or a
    /// MADV_DONTNEED under the same read lock find a VMA the rmap no longer knows.
    fn check_unlink_reachable<K: RmapTree>(&mut self, t: ThreadId, node: u32, op: &str) {
        let vma = if K::FILE {
            Some(node)
        } else {
            self.avcs[node as usize].vma
        };
        let Some(v) = vma else { return };
        let Some(mm) = self.vmas[v as usize].vm_mm else {
            return;
        };
        let Some(m) = self.mms.get(mm as usize) else {
            return;
        };
        if m.mmap_lock.held_write_by(t) || !self.in_mm_list(v) {
            return;
        }
        self.violate(
            Invariant::LockDiscipline,
            format!(
                "{op}: vma#{v} leaves the rmap while mm#{mm} still lists it and thread {t} does \
                 not hold its mmap_lock for write"
            ),
        );
    }

    /// VM_BUG_ON_VMA in the kernel: a fork copy sorts at its parent's position only if both
    /// start at the same pgoff (insert_after exists for the file tree only: VMAs).
    fn check_insert_after(&mut self, op: &str, vma: u32, prev: u32) {
        let (a, b) = (
            self.vmas[vma as usize].vm_pgoff,
            self.vmas[prev as usize].vm_pgoff,
        );
        if a != b {
            self.violate(
                Invariant::TreePrecondition,
                format!("{op}: vma#{vma} starts at pgoff {a} but prev vma#{prev} at {b}"),
            );
        }
    }

    /// iter_first `(owner, first, last)` or iter_next `(node, first, last)`: the next node
    /// whose interval meets `[first, last]`, or NULL.
    pub(super) fn tree_query<K: RmapTree>(
        &mut self,
        t: ThreadId,
        op: &str,
        first_query: bool,
        args: &[Value],
    ) -> R<Value> {
        let first = Self::int_arg(args[1], op)? as u64;
        let last = Self::int_arg(args[2], op)? as u64;
        let mut obs = TreeObs {
            check_stale: true,
            ..Default::default()
        };
        let (owner, found) = if first_query {
            let o = self.obj(args[0], K::OWNER, op)?;
            let (tree, keys) = K::tree(self, o);
            (o, interval::iter_first(tree, &keys, first, last, &mut obs))
        } else {
            let n = self.obj(args[0], K::NODE, op)?;
            let o = self.tree_owner::<K>(n, op)?;
            let next = {
                let (tree, keys) = K::tree(self, o);
                tree.contains(n)
                    .then(|| interval::iter_next(tree, &keys, n, first, last, &mut obs))
            };
            let Some(next) = next else {
                // only a walk racing with a writer gets here: its cursor left the tree
                let (node, owner) = (K::NODE.short(), K::OWNER.short());
                self.violate(
                    Invariant::WalkerComplete,
                    format!(
                        "{op}: the walk's cursor {node}#{n} was removed from {owner}#{o}'s \
                         tree under it"
                    ),
                );
                return Ok(Value::Null);
            };
            (o, next)
        };
        K::check_lock(self, t, owner, op, false);
        if let Some(n) = obs.null_descent {
            let (node, kind) = (K::NODE.short(), K::OWNER.short());
            self.violate(
                Invariant::ModelFault,
                format!(
                    "{op}: the search at {node}#{n} of {kind}#{owner}'s tree went right to a \
                     missing child (a stale subtree_last): the kernel's _subtree_search \
                     dereferences NULL there"
                ),
            );
        }
        self.absorb(obs, K::FILE, op);
        Ok(Self::opt(K::NODE, found))
    }

    /// Move a tree operation's observations into the scratch record.
    fn absorb(&mut self, obs: TreeObs, file: bool, op: &str) {
        let w = &mut self.scratch.work;
        let s = if file { &mut w.file } else { &mut w.anon };
        s.visits += obs.stats.visits;
        s.rotations += obs.stats.rotations;
        s.augment_computes += obs.stats.augment_computes;
        for st in obs.stale {
            let kind = if file { "vma" } else { "avc" };
            let mut msg = format!(
                "{op}: descent passed {kind}#{} whose start {} is out of order",
                st.node, st.start
            );
            if let Some((p, ps)) = st.pred {
                msg += &format!(" (predecessor {kind}#{p} starts at {ps})");
            }
            if let Some((s, ss)) = st.succ {
                msg += &format!(" (successor {kind}#{s} starts at {ss})");
            }
            self.violate(Invariant::StaleDescent, msg);
        }
    }

    /// Report a refused tree operation, naming objects as traces do (`vma#3`, `avc#1`).
    fn tree_err(&mut self, op: &str, e: TreeError, kind: &str, tree: &str) {
        let msg = match e {
            TreeError::AlreadyInTree(n) => format!("{kind}#{n} is already in {tree}"),
            TreeError::NotInTree(n) => format!("{kind}#{n} is not in {tree}"),
            TreeError::PrevNotInTree(n) => format!("prev {kind}#{n} is not in {tree}"),
        };
        self.violate(Invariant::TreePrecondition, format!("{op}: {msg}"));
    }
}
