//! The C harness: a kernel tree's own rmap code (mm/vma.c, the file and anon interval trees,
//! the anon_vma paths of mm/rmap.c) built in user space from its `tools/testing/vma` with the
//! glue of cglue/, run as a child process, and both worlds (the model's and the C's) written
//! as one canonical text. `cdiff` (the model against the C, call sequence by call sequence)
//! and `ccheck` (the C searched) both sit on it; it knows nothing of either. See docs/CDIFF.md.
//!
//! The API, in the order a user needs it:
//! - [`build()`] (and [`build::build_salted`], [`build::build_covered`] for a patched copy):
//!   the harness binary of a tree, cached by a hash of its inputs ([`csource`],
//!   [`precedence`], [`replaced`], [`lock_wrappers`] are the build-time surgery; [`generation`] the
//!   table of the kernel trees it builds from and their names for what the glue calls; [`layout`]
//!   the anchors of the v7.x layout a refused tree is told it differs at);
//! - [`Harness`]: the process and its line protocol: [`Harness::reset`], [`Harness::call`],
//!   [`Harness::dump`] (read by [`cdump::parse`]; a dump whose notes overflowed
//!   the glue's table is a harness error), and their pipelined forms for a replay
//!   ([`Harness::send`], [`Harness::reset_reply`], [`Harness::call_reply`],
//!   [`Harness::dump_reply`]);
//! - [`calls`]: which model entry points the harness reaches and the request each becomes;
//! - [`canon`], [`cdump`], [`model`], [`pages`]: both worlds in one canonical form, ghost
//!   pages included ([`model_lines`], [`initial_world`]); [`worlds_text`]: two worlds side by
//!   side.

pub mod build;
pub mod calls;
pub mod canon;
pub mod cdump;
pub mod csource;
pub mod edges;
pub mod generation;
pub mod harness;
pub mod layout;
pub mod lock_wrappers;
pub mod model;
pub mod pages;
pub mod precedence;
pub mod replaced;
pub mod worlds_text;

pub use build::{build, Built};
pub use harness::{Died, Harness};

use crate::scope::Scope;
use crate::world::World;

/// The canonical lines of a model world.
pub fn model_lines(w: &World) -> Vec<String> {
    model::raw(w).canonical()
}

/// The scope's initial world, which must hold no VMA (the harness starts from empty mms).
pub fn initial_world(scope: &Scope) -> Result<World, String> {
    let w0 = scope
        .initial_scenario()
        .build()
        .map_err(|e| e.to_string())?
        .canonical();
    if !w0.vmas.is_empty() || w0.mms.len() != 1 {
        return Err("the C harness needs an initial world of one empty mm".into());
    }
    Ok(w0)
}
