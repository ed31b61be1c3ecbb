//! Known findings: differences between the model and the kernel's C that are understood and
//! named, with the kernel text that explains them. Each recognises only its own mismatches.
//! A finding is fixed in the model when it can be; what stays here is a deliberate
//! difference of the harness or the model, documented in docs/CDIFF.md.

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
