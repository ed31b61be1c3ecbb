//! rmapcheck: a bounded model checker for the Linux kernel's reverse-map (rmap) tree updates.
//!
//! Data flows one way through the core: a model file is parsed, type-checked and compiled by
//! [`lang`] to a flat step program whose constants are [`value`]s; [`exec`] runs it as resumable
//! threads against its `Host` trait, which [`world`] implements with kernel objects whose rmap
//! trees are the kernel-exact trees of [`tree`], and which records what its builtins find as
//! [`invariant`] violations. [`check`] judges the invariants on the world. [`entry`] holds the
//! one table of entry points (arguments, offers, fuzzer picks, preconditions). [`scope`] (the
//! bounds of a search) and [`trace`] (counterexamples as data: the struct, its JSON form, its
//! text and DOT renderings) sit on those; [`explore`] searches call sequences and builds,
//! replays and minimises traces by re-running calls; [`report`], [`oracle`], [`fuzzing`] and
//! [`cmd`] build on all of them (and [`review`], a series answered patch by patch, under [`cmd`]), [`cdiff`] (the model against a kernel tree's own C) on
//! [`oracle`]'s call sequences, and [`ccheck`] (the C searched, a patch applied) on [`cdiff`].
//!
//! Every import points down one table of layers (tests/cli/layering.rs, `LAYERS`): at the
//! bottom, [`value`] names nothing else of the crate, [`tree`] nothing but std and itself,
//! [`lang`] nothing of [`exec`] or the layers above it, and [`invariant`] nothing but [`tree`];
//! the world and the interpreter name the invariant type but never the checks; [`entry`] names
//! nothing above [`world`], [`check`] and [`exec`]; [`trace`] and [`scope`] name nothing of
//! [`explore`], [`fuzzing`], [`oracle`], [`report`] or [`cmd`]; only [`cmd`] names [`cmd`]. No
//! two modules refer to each other.

pub mod ccheck;
pub mod cdiff;
pub mod check;
pub mod cmd;
pub mod cover;
pub mod entry;
pub mod exec;
pub mod explore;
pub mod fuzzing;
pub mod invariant;
pub mod lang;
pub mod models;
pub mod oracle;
pub mod report;
pub mod review;
pub mod scope;
pub mod textbuf;
pub mod toml_diag;
pub mod trace;
pub mod tree;
pub mod value;
pub mod world;
