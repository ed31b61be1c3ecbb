//! Known findings of cdiff: differences between the model and the kernel's C that are
//! understood and named, each a [`Finding`] (the one type of `crate::known`) with the kernel
//! evidence that explains it. Each recognises only its own mismatches; anything else is
//! reported as unexplained.
//!
//! There are none today, and a plain `cdiff` fails on any mismatch. The last two were fixed
//! where they were wrong: `mprotect-drops-vm-account` (the model had no VM_ACCOUNT; it has it
//! now, set and cleared as mmap and mprotect_fixup() do, and compared on every VMA line) and
//! `shift-down-unfaulted-warns` (the model offered exec's stack move on a stack that was never
//! faulted, which exec never does: copying the argument strings faults it first; the offer now
//! requires an anon_vma). Both sequences are regression tests in tests/cli/cdiff.rs.

use super::mismatch::Mismatch;
use crate::known::Finding;

/// Every known finding.
pub const ALL: &[Finding<Mismatch>] = &[];

/// The known finding that explains `m`, if one does.
pub fn explain(m: &Mismatch) -> Option<&'static str> {
    crate::known::explain(ALL, m)
}
