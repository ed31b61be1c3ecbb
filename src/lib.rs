//! rmapcheck: a bounded model checker for the Linux kernel's reverse-map (rmap) tree updates.
//!
//! Data flows one way through the core: a model file is parsed, type-checked and compiled by
//! [`lang`] to a flat step program whose constants are [`value`]s; [`exec`] runs it as resumable
//! threads against its `Host` trait, which [`world`] implements with kernel objects whose rmap
//! trees are the kernel-exact trees of [`tree`]. [`check`] judges the invariants on the world,
//! [`entry`] holds the one table of entry points (arguments, offers, fuzzer picks,
//! preconditions), [`explore`] searches call sequences, and [`trace`], [`report`], [`oracle`],
//! [`fuzzing`] and [`cmd`] build on those.
//!
//! At the bottom, [`value`] names nothing else of the crate, [`tree`] nothing but std and itself,
//! and [`lang`] nothing of [`exec`] or the layers above it; [`entry`] names nothing above
//! [`world`], [`check`] and [`exec`]; tests/cli/layering.rs checks these rules on the sources.
//! Above them the modules are not strictly layered: some refer to each other both ways.

pub mod check;
pub mod cmd;
pub mod entry;
pub mod exec;
pub mod explore;
pub mod fuzzing;
pub mod lang;
pub mod models;
pub mod oracle;
pub mod report;
pub mod toml_diag;
pub mod trace;
pub mod tree;
pub mod value;
pub mod world;
