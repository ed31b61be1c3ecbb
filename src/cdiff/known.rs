//! Known findings: differences between the model and the kernel's C that are understood and
//! named, with the kernel text that explains them. Each recognises only its own mismatches;
//! anything else is reported as unexplained.
//!
//! There are none today, and a plain `cdiff` fails on any mismatch. The last two were fixed
//! where they were wrong: `mprotect-drops-vm-account` (the model had no VM_ACCOUNT; it has it
//! now, set and cleared as mmap and mprotect_fixup() do, and compared on every VMA line) and
//! `shift-down-unfaulted-warns` (the model offered exec's stack move on a stack that was never
//! faulted, which exec never does: copying the argument strings faults it first; the offer now
//! requires an anon_vma). Both sequences are regression tests in tests/cli/cdiff.rs.

use super::run::Mismatch;

/// A named finding.
pub struct Known {
    pub name: &'static str,
    /// What the C does that the model does not, with the kernel evidence.
    pub why: &'static str,
    recognise: fn(&Mismatch) -> bool,
}

/// Every known finding.
pub const ALL: &[Known] = &[];

/// The known finding that explains `m`, if one does.
pub fn explain(m: &Mismatch) -> Option<&'static str> {
    ALL.iter().find(|k| (k.recognise)(m)).map(|k| k.name)
}
