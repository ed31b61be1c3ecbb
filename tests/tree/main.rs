//! The interval tree and the rbtree on their own: kernel-exact shapes, properties against a
//! brute-force oracle, exhaustive small trees, corrupted trees, and the `rmapcheck tree` op lists.
//!
//! One test binary for the area (each file below is a module), so the suite links a few
//! binaries instead of one per file.
mod tree_corrupt;
mod tree_exhaustive;
mod tree_ops;
mod tree_props;
mod tree_shapes;
mod tree_stale;
