//! Object builtins: allocation and freeing of mms, VMAs, anon_vmas and anon_vma_chains, anon_vma
//! reference counts, and the small VMA helpers (`vma_is_anonymous`, `call_mmap`, `vma_pages`,
//! ...). Freeing marks the object; the arenas never shrink within a call.

use super::{fault, World, R, VM_SHARED};
use crate::exec::host::{ObjKind, Value};
use crate::invariant::Invariant;

impl World {
    /// `vm_area_dup(vma)`: a copy in no list, tree or chain, unlocked.
    pub(super) fn vm_area_dup(&mut self, name: &str, a: &[Value]) -> R<Value> {
        let src = self.vma_arg(a[0], name)?;
        let mut copy = self.vmas[src as usize].clone();
        copy.anon_vma_chain.clear();
        copy.vm_lock_seq = None;
        copy.vm_lock_readers = 0;
        copy.detached = false;
        copy.file_linked = false;
        copy.zapped = false;
        self.vmas.push(copy);
        Ok(Value::Obj(ObjKind::Vma, (self.vmas.len() - 1) as u32))
    }

    /// `call_mmap(file, vma)`: the file's mmap method sets the VMA's operations.
    pub(super) fn call_mmap(&mut self, name: &str, a: &[Value]) -> R<Value> {
        let f = self.obj(a[0], ObjKind::File, name)?;
        let v = self.vma_arg(a[1], name)?;
        let shared = self.vmas[v as usize].vm_flags & VM_SHARED != 0;
        if self.files[f as usize].dev_zero {
            if shared {
                return fault("call_mmap: shared /dev/zero (shmem_zero_setup) is not modelled");
            }
            // v7.3-rc4's mmap_zero_prepare(): a private /dev/zero mapping gets the dummy vm_ops
            // here, so it is not yet anonymous when __mmap_region links it into /dev/zero's
            // i_mmap; mmap_action_complete() makes it anonymous (keeping vm_file) afterwards.
            self.vmas[v as usize].has_vm_ops = true;
        } else {
            self.vmas[v as usize].has_vm_ops = true;
        }
        Ok(Value::Void)
    }

    /// `mmap_action_complete()` for a newly allocated VMA: the success hook of a private
    /// /dev/zero mapping (`mmap_zero_private_success`) calls `vma_set_anonymous()`, after the
    /// VMA was linked into the file tree. Nothing for other files.
    pub(super) fn mmap_action_complete(&mut self, name: &str, a: &[Value]) -> R<Value> {
        let v = self.vma_arg(a[0], name)?;
        let vma = &self.vmas[v as usize];
        let private_zero = vma.vm_flags & VM_SHARED == 0
            && vma
                .vm_file
                .is_some_and(|f| self.files.get(f as usize).is_some_and(|f| f.dev_zero));
        if private_zero {
            self.vmas[v as usize].has_vm_ops = false;
        }
        Ok(Value::Void)
    }

    /// `get_anon_vma`, `put_anon_vma`: the last put frees it.
    pub(super) fn anon_vma_ref(&mut self, name: &str, a: &[Value]) -> R<Value> {
        let av = self.obj(a[0], ObjKind::AnonVma, name)?;
        let x = &mut self.anon_vmas[av as usize];
        if name == "get_anon_vma" {
            x.refcount += 1;
        } else {
            x.refcount -= 1;
            if x.refcount == 0 {
                self.free_anon_vma(av);
            }
        }
        Ok(Value::Void)
    }

    /// Free an anon_vma whose last reference went; a non-root one drops its root reference.
    fn free_anon_vma(&mut self, av: u32) {
        self.mark_tree(false, av);
        let x = &mut self.anon_vmas[av as usize];
        x.freed = true;
        let root = x.root;
        if !x.rb_root.is_empty() {
            self.violate(
                Invariant::Membership,
                format!("anon_vma#{av} freed with AVCs still in its tree"),
            );
        }
        if root != av {
            let r = &mut self.anon_vmas[root as usize];
            r.refcount -= 1;
            if r.refcount == 0 {
                self.free_anon_vma(root);
            }
        }
    }
}
