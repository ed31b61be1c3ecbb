//! Value vectors kept per OS thread for reuse by the interpreter's frames: a call pushes and
//! pops frames by the dozen (locals, operand stack, local struct fields), and each would
//! otherwise allocate its vectors and free them again. Only allocations are reused; a reused
//! vector is empty, so no value crosses from one frame to another.

use super::host::Value;
use std::cell::RefCell;

/// Most value vectors kept for reuse per OS thread.
const SPARE_MAX: usize = 64;

thread_local! {
    /// Value vectors (locals, operand stacks, struct fields) of frames that returned, emptied,
    /// for the next frames this OS thread pushes: a call pushes and pops frames by the dozen,
    /// and each would otherwise allocate and free them again.
    static SPARE: RefCell<Vec<Vec<Value>>> = const { RefCell::new(Vec::new()) };
}

/// An empty value vector, reused when one is spare.
pub(super) fn spare_values() -> Vec<Value> {
    SPARE
        .try_with(|s| s.try_borrow_mut().ok().and_then(|mut s| s.pop()))
        .ok()
        .flatten()
        .unwrap_or_default()
}

/// Keep `v`'s allocation for a later [`spare_values`].
pub(super) fn recycle(mut v: Vec<Value>) {
    if v.capacity() == 0 {
        return;
    }
    v.clear();
    let _ = SPARE.try_with(|s| {
        if let Ok(mut s) = s.try_borrow_mut() {
            if s.len() < SPARE_MAX {
                s.push(v);
            }
        }
    });
}
