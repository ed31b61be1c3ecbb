//! One sequence after which the model's world and the C's differ: what the comparison
//! ([`super::run`]) reports, the known findings ([`super::known`]) match and
//! [`super::render`] writes.

use crate::charness::canon::Raw;
use crate::world::scenario::Call;

/// One sequence whose worlds differ.
#[derive(Clone, Debug)]
pub struct Mismatch {
    pub calls: Vec<Call>,
    /// Index of the call after which the worlds differ.
    pub at: usize,
    pub what: String,
    /// The canonical lines of both worlds (the C's empty when it died).
    pub model: Vec<String>,
    pub c: Vec<String>,
    /// Both worlds before naming (the C's None when it died), for the known findings.
    pub model_raw: Raw,
    pub c_raw: Option<Raw>,
    /// The known finding that explains it, if one does.
    pub known: Option<&'static str>,
}
