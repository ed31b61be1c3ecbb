//! Steps on a VMA no other thread can reach. A footprint names classes, not objects: a write
//! of `new->vm_start` on the VMA `__split_vma()` has just duplicated conflicts with every
//! walker that will read some VMA's bounds, though no walker can see that VMA yet. Such a step
//! is independent of every step the other threads can take before its thread moves again, so
//! the reduction may take it alone.
//!
//! The step must be one field read, or a write of a field other than `vm_mm` (which the
//! lock-order edges of any thread read for every VMA), the instruction's object recorded by the
//! world as `Scratch::last_field`, of a VMA that, before the step (a field access changes
//! none of this):
//! - is in no mm's VMA list, was never in a file rmap tree, has no anon_vma_chain that was ever
//!   in an anon_vma tree, is not detached-but-not-freed (`mas_detach_first` looks those up by
//!   their mm), and is in no walk or per-VMA read section record (`World::vma_published`): no
//!   thread can look it up, and no per-step check reads it;
//! - is not held by any other thread, directly or through an anon_vma_chain of it (the values in
//!   its frames and struct instances): no thread can reach it through what it holds.
//!
//! Then only the stepping thread can reach the VMA, and only by moving: the other threads'
//! steps neither read nor write its fields, and their checks do not look at it. What the
//! stepping thread's footprint says of the field (`Bounds`, `VmFlags`, `VmaLinks`,
//! `AnonChain`, and the reads of the locks and the mm list that a write of a VMA in its mm
//! asserts) concerns only that VMA, so the step's footprint is empty. The independence audit
//! (`independence`) takes each such step in both orders against the other threads' steps.

use super::IState;
use crate::exec::host::Value;
use crate::lang::program::{Field, Op};
use crate::lang::Program;
use crate::value::ObjKind;

/// Whether thread `t`'s step from `s` to `n` was a field access of a VMA only `t` can reach.
pub(super) fn on_private_vma(prog: &Program, s: &IState, n: &IState, t: usize) -> bool {
    let Some((f, pc)) = n.threads[t].last_pc(prog) else {
        return false;
    };
    match prog.func(f).code[pc].op {
        Op::ReadField(Field::Kernel(_)) => {}
        // another thread's lock-order edges read every VMA's `vm_mm` (`World::held_classes`:
        // the per-VMA write locks an mmap write lock holder holds)
        Op::WriteField(Field::Kernel(id)) if prog.field_name(id) != "vm_mm" => {}
        _ => return false,
    }
    let Some((ObjKind::Vma, v)) = n.world.scratch.last_field else {
        return false;
    };
    // (a field access does not change what `vma_published` looks at: mm lists, ghost flags,
    // records; so the state before the step answers for after it too)
    if s.world.vma_published(v) {
        return false;
    }
    let reaches = |x: Value| match x {
        Value::Obj(ObjKind::Vma, id) => id == v,
        Value::Obj(ObjKind::Avc, c) => s
            .world
            .avcs
            .get(c as usize)
            .is_none_or(|a| a.vma == Some(v)),
        _ => false,
    };
    (s.threads.iter().enumerate())
        .filter(|&(u, _)| u != t)
        .all(|(_, th)| !th.holds_any(reaches))
}
