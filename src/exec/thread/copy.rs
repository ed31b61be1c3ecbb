//! Copying and hashing threads. `clone` copies a thread as it is; `clone_from` overwrites an
//! old thread in place, keeping its vectors' allocations (frames' locals and operand stacks,
//! local struct fields) and handing those of frames and structs it no longer needs to the
//! interpreter's spare vectors (`exec::spare`): the interleaving explorer copies the thread it
//! steps at every step of every interleaving, into a thread it is done with.
//! [`Thread::state_hash`] is the hash that explorer keeps beside each thread.

use super::{Frame, Instance, Thread};
use crate::exec::host::Value;
use crate::exec::spare::{recycle, spare_values};
use std::cell::RefCell;
use xxhash_rust::xxh3::xxh3_64;

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

thread_local! {
    /// The byte buffer of the last [`Thread::state_hash`] on this OS thread.
    static BYTES: RefCell<Vec<u8>> = const { RefCell::new(Vec::new()) };
}

/// Append `x`, little-endian.
fn put(out: &mut Vec<u8>, x: u64) {
    out.extend_from_slice(&x.to_le_bytes());
}

/// Append `v` as nine bytes: a tag (the variant, and an object's kind) and a payload.
fn put_value(out: &mut Vec<u8>, v: Value) {
    let (tag, x) = match v {
        Value::Void => (0, 0),
        Value::Int(i) => (1, i as u64),
        Value::Bool(b) => (2, b as u64),
        Value::Null => (3, 0),
        Value::Local(n) => (4, n as u64),
        Value::Obj(k, n) => (5 + k as u8, n as u64),
    };
    let mut b = [0u8; 9];
    b[0] = tag;
    b[1..].copy_from_slice(&x.to_le_bytes());
    out.extend_from_slice(&b);
}

/// Append the length of `vs`, then each value.
fn put_values(out: &mut Vec<u8>, vs: &[Value]) {
    put(out, vs.len() as u64);
    for &v in vs {
        put_value(out, v);
    }
}

impl Thread {
    /// A 64-bit hash of the whole thread: XXH3-64 of an encoding that writes every field
    /// (lengths first, nine bytes a value), so equal threads hash alike and unequal ones
    /// collide as rarely as XXH3 outputs do. Cheaper than the thread's `Hash` through a
    /// general hasher, which writes each value's variant and payload separately.
    pub(crate) fn state_hash(&self) -> u64 {
        BYTES.with(|b| {
            let mut out = b.borrow_mut();
            out.clear();
            out.push(self.describe as u8);
            put(&mut out, self.frames.len() as u64);
            for fr in &self.frames {
                put(&mut out, u64::from(fr.func.0) | u64::from(fr.pc) << 32);
                put(&mut out, u64::from(fr.heap_base));
                put_values(&mut out, &fr.locals);
                put_values(&mut out, &fr.stack);
            }
            put(&mut out, self.heap.len() as u64);
            for inst in &self.heap {
                put(&mut out, u64::from(inst.layout));
                put_values(&mut out, &inst.fields);
            }
            match &self.outcome {
                None => out.push(0),
                Some(super::Outcome::Finished(v)) => {
                    out.push(1);
                    put_value(&mut out, *v);
                }
                Some(super::Outcome::Failed(f)) => {
                    // a failed thread is a final one: its fault's text, in full
                    out.push(2);
                    let text = format!("{f:?}");
                    put(&mut out, text.len() as u64);
                    out.extend_from_slice(text.as_bytes());
                }
            }
            xxh3_64(&out)
        })
    }
}
