//! The commands that run the kernel's own code: its C built from a tree (`check --kernel`,
//! `cdiff`, `cpatch`, `review`, on `crate::charness` and `crate::ccheck`), the running kernel
//! (`kdiff`, on `crate::oracle`), and the C reproducers of counterexamples (`repro`).

mod cargs;
pub mod ccheck;
pub mod cdiff;
mod cpass;
pub mod cpatch;
mod cplan;
pub mod creplay;
pub mod kdiff;
pub mod repro;
pub mod review;
