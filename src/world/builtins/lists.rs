//! The list builtins: an mm's VMA list (the maple tree: `vma_iter_store`, `vma_iter_clear`,
//! `vma_first`, `find_vma`, `vma_lookup`, `vma_next`, `vma_prev`) and a VMA's anon_vma_chain
//! list (`anon_vma_chain_list_add/del`, `anon_vma_chain_is_singular`, and the
//! `list_for_each_entry` walks the interpreter makes through `Host::list_*`).

use super::fields::{field_name, ANON_VMA_CHAIN};
use super::{fault, World, R};
use crate::exec::host::{FieldId, ObjKind, Value};

impl World {
    /// `vma_iter_store(mm, vma)`: store the VMA at its range, over what the range covers.
    pub(super) fn vma_iter_store(&mut self, name: &str, a: &[Value]) -> R<Value> {
        let mm = self.obj(a[0], ObjKind::Mm, name)?;
        let v = self.vma_arg(a[1], name)?;
        let vma = &self.vmas[v as usize];
        if vma.vm_start >= vma.vm_end {
            return fault(format!(
                "{name}: vma#{v} has an empty range [{}, {})",
                vma.vm_start, vma.vm_end
            ));
        }
        self.mm_store(mm, v);
        Ok(Value::Void)
    }

    /// `vma_iter_clear(mm, start, end)`.
    pub(super) fn vma_iter_clear(&mut self, name: &str, a: &[Value]) -> R<Value> {
        let mm = self.obj(a[0], ObjKind::Mm, name)?;
        let s = Self::int_arg(a[1], name)? as u64;
        let e = Self::int_arg(a[2], name)? as u64;
        self.mm_clear(mm, s, e);
        Ok(Value::Void)
    }

    /// `mas_detach_first(mm, start, end)` and `mas_detach_next(mm, vma, end)`: the VMAs a munmap
    /// gathered into its side tree (`mas_detach` in vms_gather_munmap_vmas()), in address order.
    /// The side tree is the set of detached, unfreed VMAs of mm below `end`: only the holder of
    /// the mmap write lock detaches, and every other path frees a VMA right after detaching it,
    /// so between the gather and remove_vma() no other VMA of the mm is detached and unfreed.
    pub(super) fn mas_detach_find(&self, name: &str, a: &[Value]) -> R<Value> {
        let mm = self.obj(a[0], ObjKind::Mm, name)?;
        let (from, end) = if name == "mas_detach_first" {
            (
                Self::int_arg(a[1], name)? as u64,
                Self::int_arg(a[2], name)? as u64,
            )
        } else {
            let v = self.obj(a[1], ObjKind::Vma, name)?;
            (
                self.vmas[v as usize].vm_end,
                Self::int_arg(a[2], name)? as u64,
            )
        };
        let hit = (0..self.vmas.len() as u32)
            .filter(|&v| {
                let x = &self.vmas[v as usize];
                x.vm_mm == Some(mm) && x.detached && !x.freed
            })
            .filter(|&v| {
                let x = &self.vmas[v as usize];
                x.vm_start >= from && x.vm_start < end
            })
            .min_by_key(|&v| self.vmas[v as usize].vm_start);
        Ok(Self::opt(ObjKind::Vma, hit))
    }

    /// `vma_first(mm)`, `find_vma(mm, addr)` (the first VMA ending above addr) and
    /// `vma_lookup(mm, addr)` (the VMA containing addr).
    pub(super) fn vma_find(&self, name: &str, a: &[Value]) -> R<Value> {
        let mm = self.obj(a[0], ObjKind::Mm, name)?;
        let addr = if name == "vma_first" {
            0
        } else {
            Self::int_arg(a[1], name)? as u64
        };
        let map = &self.mms[mm as usize].vmas;
        let hit = map
            .iter()
            .find(|(_, &(e, _))| e > addr)
            .filter(|(&s, _)| name != "vma_lookup" || s <= addr)
            .map(|(_, &(_, v))| v);
        Ok(Self::opt(ObjKind::Vma, hit))
    }

    /// `vma_next(mm, vma)`, `vma_prev(mm, vma)`.
    pub(super) fn vma_step(&self, name: &str, a: &[Value]) -> R<Value> {
        let mm = self.obj(a[0], ObjKind::Mm, name)?;
        let v = self.obj(a[1], ObjKind::Vma, name)?;
        let map = &self.mms[mm as usize].vmas;
        let list: Vec<u32> = map.values().map(|&(_, v)| v).collect();
        let Some(pos) = list.iter().position(|&x| x == v) else {
            return fault(format!("{name}: vma#{v} is not in mm#{mm}"));
        };
        let hit = if name == "vma_next" {
            list.get(pos + 1).copied()
        } else {
            pos.checked_sub(1).map(|p| list[p])
        };
        Ok(Self::opt(ObjKind::Vma, hit))
    }

    /// `anon_vma_chain_list_add(avc, vma)`: at the head of the VMA's list.
    pub(super) fn avc_list_add(&mut self, name: &str, a: &[Value]) -> R<Value> {
        let c = self.obj(a[0], ObjKind::Avc, name)?;
        let v = self.vma_arg(a[1], name)?;
        let chain = &mut self.vmas[v as usize].anon_vma_chain;
        if chain.contains(&c) {
            return fault(format!("{name}: avc#{c} already on vma#{v}'s list"));
        }
        chain.insert(0, c);
        Ok(Value::Void)
    }

    /// `anon_vma_chain_list_del(avc)`: off the list of the VMA it names.
    pub(super) fn avc_list_del(&mut self, name: &str, a: &[Value]) -> R<Value> {
        let c = self.obj(a[0], ObjKind::Avc, name)?;
        let Some(v) = self.avcs[c as usize].vma else {
            return fault(format!("{name}: avc#{c} has no vma"));
        };
        let chain = &mut self.vmas[v as usize].anon_vma_chain;
        let Some(p) = chain.iter().position(|&x| x == c) else {
            return fault(format!("{name}: avc#{c} is not on vma#{v}'s list"));
        };
        chain.remove(p);
        Ok(Value::Void)
    }

    /// The kernel list `list` headed at `head` (only a VMA's anon_vma_chain is modelled).
    pub(super) fn list_vec(&self, head: Value, list: FieldId) -> R<&[u32]> {
        if list != ANON_VMA_CHAIN {
            return fault(format!("unknown kernel list {}", field_name(list)));
        }
        let v = self.obj(head, ObjKind::Vma, "list walk")?;
        Ok(&self.vmas[v as usize].anon_vma_chain)
    }

    /// The list and the position of the walk's cursor `cur` on it.
    pub(super) fn list_position(
        &self,
        head: Value,
        list: FieldId,
        cur: Value,
    ) -> R<(&[u32], usize)> {
        let l = self.list_vec(head, list)?;
        let c = self.obj(cur, ObjKind::Avc, "list walk")?;
        let Some(p) = l.iter().position(|&x| x == c) else {
            return fault(format!("list walk: avc#{c} is no longer on the list"));
        };
        Ok((l, p))
    }
}
