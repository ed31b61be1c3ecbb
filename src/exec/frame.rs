//! One call frame of a model thread: the function, its program counter, its locals and operand
//! stack, and where its struct instances start on the thread's heap. The thread
//! (`super::thread`) owns the frames; the local instructions (`super::local`) run on one.

use super::host::Value;
use crate::lang::program::FuncId;

#[derive(Debug, PartialEq, Eq, Hash)]
pub(super) struct Frame {
    pub(super) func: FuncId,
    pub(super) pc: u32,
    pub(super) locals: Vec<Value>,
    pub(super) stack: Vec<Value>,
    /// Heap length when the frame started; its struct instances live above it.
    pub(super) heap_base: u32,
}
