//! rmapcheck: a bounded model checker for the Linux kernel's reverse-map (rmap) tree updates.
//!
//! Data flows one way: a model file is parsed by [`lang`], compiled to a flat step program, run by
//! [`exec`] on a [`world`] of kernel objects whose rmap trees are the kernel-exact trees of [`tree`].

pub mod check;
pub mod cmd;
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
pub mod world;
