//! Copying threads. `clone` copies a thread as it is; `clone_from` overwrites an old thread
//! in place, keeping its vectors' allocations (frames' locals and operand stacks, local struct
//! fields) and handing those of frames and structs it no longer needs to the interpreter's
//! spare vectors (`exec::spare`): the interleaving explorer copies a state at every step of
//! every interleaving, into a state it is done with.

use super::{Frame, Instance, Thread};
use crate::exec::host::Value;
use crate::exec::spare::{recycle, spare_values};

/// A copy of `src` in a spare value vector.
fn spare_copy(src: &[Value]) -> Vec<Value> {
    let mut v = spare_values();
    v.extend_from_slice(src);
    v
}

impl Clone for Frame {
    fn clone(&self) -> Self {
        Frame {
            func: self.func,
            pc: self.pc,
            locals: self.locals.clone(),
            stack: self.stack.clone(),
            heap_base: self.heap_base,
        }
    }

    fn clone_from(&mut self, src: &Self) {
        self.func = src.func;
        self.pc = src.pc;
        self.locals.clone_from(&src.locals);
        self.stack.clone_from(&src.stack);
        self.heap_base = src.heap_base;
    }
}

impl Clone for Instance {
    fn clone(&self) -> Self {
        Instance {
            layout: self.layout,
            fields: self.fields.clone(),
        }
    }

    fn clone_from(&mut self, src: &Self) {
        self.layout = src.layout;
        self.fields.clone_from(&src.fields);
    }
}

impl Clone for Thread {
    fn clone(&self) -> Self {
        Thread {
            frames: self.frames.clone(),
            heap: self.heap.clone(),
            outcome: self.outcome.clone(),
            describe: self.describe,
        }
    }

    fn clone_from(&mut self, src: &Self) {
        // frames past `src`'s give their vectors back; the rest are overwritten in place
        for fr in self.frames.drain(src.frames.len().min(self.frames.len())..) {
            recycle(fr.locals);
            recycle(fr.stack);
        }
        let kept = self.frames.len();
        for (fr, s) in self.frames.iter_mut().zip(&src.frames) {
            fr.clone_from(s);
        }
        self.frames.extend(src.frames[kept..].iter().map(|s| Frame {
            func: s.func,
            pc: s.pc,
            locals: spare_copy(&s.locals),
            stack: spare_copy(&s.stack),
            heap_base: s.heap_base,
        }));
        for inst in self.heap.drain(src.heap.len().min(self.heap.len())..) {
            recycle(inst.fields);
        }
        let kept = self.heap.len();
        for (inst, s) in self.heap.iter_mut().zip(&src.heap) {
            inst.clone_from(s);
        }
        self.heap.extend(src.heap[kept..].iter().map(|s| Instance {
            layout: s.layout,
            fields: spare_copy(&s.fields),
        }));
        self.outcome.clone_from(&src.outcome);
        self.describe = src.describe;
    }
}
