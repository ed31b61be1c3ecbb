//! One sequence after which the running kernel's layout differs from the model's: what kdiff
//! ([`super::kdiff`]) reports and the known model findings ([`super::known`]) match.

use super::layout::LVma;
use crate::world::scenario::Call;

/// One sequence the kernel ran differently.
#[derive(Clone, Debug)]
pub struct Mismatch {
    pub calls: Vec<Call>,
    /// Index of the call after which the layouts differ.
    pub at: usize,
    pub mm: usize,
    pub what: String,
    pub model: Vec<LVma>,
    pub kernel: Vec<LVma>,
    /// Starts of the VMAs that differ.
    pub bad: Vec<u64>,
    /// The known model finding (see `known`) that explains it, if one does.
    pub known: Option<&'static str>,
}
