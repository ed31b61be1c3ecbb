//! rmapcheck: a bounded model checker for the Linux kernel's reverse-map (rmap) tree updates.
//!
//! Data flows one way through the core: a model file is parsed, type-checked and compiled by
//! [`lang`] to a flat step program whose constants are [`value`]s; [`exec`] runs it as resumable
//! threads against its `Host` trait, which [`world`] implements with kernel objects whose rmap
//! trees are the kernel-exact trees of [`tree`], and which records what its builtins find as
//! [`invariant`] violations. [`check`] judges the invariants on the world. [`entry`] holds the
//! one table of entry points (arguments, offers, fuzzer picks, preconditions). [`scope`] (the
//! bounds of a search) and [`trace`] (counterexamples as data: the struct, its JSON form, its
//! text and DOT renderings) sit on those; [`checker`] is the one search core (a transition
//! system, its breadth-first search and random walks, the budget) under every search of the
//! model and of the C; [`explore`] searches call sequences and builds,
//! replays and minimises traces by re-running calls; [`report`], [`oracle`], [`fuzzing`] and
//! [`cmd`] build on all of them (and [`review`], a series answered patch by patch, under
//! [`cmd`]). [`charness`] (a kernel tree's own C built and run as a harness, both worlds in one
//! canonical form) sits on [`oracle`]'s call sequences; [`cdiff`] (the model against the C) and
//! [`ccheck`] (the C searched, a patch applied) both sit on [`charness`] and neither names the
//! other. [`known`] is the one type of a known finding (a difference between the model and the
//! kernel that is understood and named), used by kdiff's and cdiff's registries.
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
pub mod charness;
pub mod check;
pub mod checker;
pub mod cmd;
pub mod cover;
pub mod entry;
pub mod exec;
pub mod explore;
pub mod fuzzing;
pub mod invariant;
pub mod known;
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
