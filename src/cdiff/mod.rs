//! `rmapcheck cdiff`: the kernel's own C in the loop. The C harness ([`crate::charness`]) runs
//! the same call sequences as the model, and the two worlds are compared after every call,
//! tree by tree and node by node. See docs/CDIFF.md. It sits on `charness` and `oracle`'s
//! sequences and names nothing of the C search (`ccheck`).
//!
//! - [`run`]: the comparison, sequence by sequence;
//! - [`mismatch`]: one sequence after which the worlds differ;
//! - [`known`]: the known findings that explain a mismatch;
//! - [`render`]: a mismatch as text.

pub mod known;
pub mod mismatch;
pub mod render;
pub mod run;
