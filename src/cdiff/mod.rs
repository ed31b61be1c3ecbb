//! `rmapcheck cdiff`: the kernel's own C in the loop. A harness built from a kernel tree's
//! `tools/testing/vma` with the real rmap code (file and anon interval trees, the anon_vma
//! paths of mm/rmap.c) runs the same call sequences as the model, and the two worlds are
//! compared after every call, tree by tree and node by node. See docs/CDIFF.md.
//!
//! - [`build`]: the harness's build from a tree, cached by a hash of its inputs;
//! - [`csource`]: the build-time text surgery on copies of the tree's files;
//! - [`harness`]: the harness process and its line protocol;
//! - [`calls`]: which model entry points are compared and the request each becomes;
//! - [`canon`], [`cdump`], [`model`], [`pages`]: both worlds in one canonical text form, ghost
//!   pages included;
//! - [`run`], [`known`], [`render`]: the comparison, its known findings and its report.

pub mod build;
pub mod calls;
pub mod canon;
pub mod cdump;
pub mod csource;
pub mod harness;
pub mod helpers;
pub mod known;
pub mod model;
pub mod pages;
pub mod precedence;
pub mod render;
pub mod replaced;
pub mod run;
