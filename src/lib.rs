//! rmapcheck: a bounded model checker for the Linux kernel's reverse-map (rmap) tree updates.
//!
//! Data flows one way through the core: a model file is parsed, type-checked and compiled by
//! [`lang`] to a flat step program whose constants are [`value`]s; [`exec`] runs it as resumable
//! threads against its `Host` trait, which [`world`] implements with kernel objects whose rmap
//! trees are the kernel-exact trees of [`tree`]. [`check`] judges the invariants on the world.
//! [`scope`] (the bounds of a search) and [`trace`] (counterexamples as data: the struct, its
//! JSON form, its text and DOT renderings) sit on those; [`explore`] searches call sequences and
//! builds, replays and minimises traces by re-running calls; [`report`], [`oracle`], [`fuzzing`]
//! and [`cmd`] build on all of them.
//!
//! At the bottom, [`value`] names nothing else of the crate, [`tree`] nothing but std and itself,
//! and [`lang`] nothing of [`exec`] or the layers above it; [`world`], [`check`] and [`exec`]
//! name nothing of the searches or above; [`trace`] and [`scope`] name nothing of [`explore`],
//! [`fuzzing`], [`oracle`], [`report`] or [`cmd`]; only [`cmd`] names [`cmd`].
//! tests/cli/layering.rs checks these rules on the sources. One pair still refers both ways:
//! [`world`] and [`check`] (the builtins raise violations, the invariants read the world).

pub mod check;
pub mod cmd;
pub mod exec;
pub mod explore;
pub mod fuzzing;
pub mod lang;
pub mod models;
pub mod oracle;
pub mod report;
pub mod scope;
pub mod textbuf;
pub mod toml_diag;
pub mod trace;
pub mod tree;
pub mod value;
pub mod world;
