//! Augmented red-black tree (as the kernel's lib/rbtree.c with rbtree_augmented.h) and the
//! interval tree built on it (as interval_tree_generic.h and mm/interval_tree.c), with
//! validators, a text renderer, a small op-list runner for the CLI and a benchmark.
//!
//! Nodes live in an arena indexed by the id of the object that embeds them (a VMA id or an AVC
//! id). The tree stores links, colour and the augmented value per id, never a copy of the key:
//! START and LAST are read through [`IntervalKeys`] at the moment of use, exactly as the kernel
//! reads `vm_pgoff` from the VMA, so a key changed while the node sits in a tree is stale.
//!
//! It names nothing but std and itself.

pub mod bench;
pub mod interval;
pub mod ops;
pub mod rbtree;
mod record;
pub mod render;
pub mod types;
pub mod validate;

pub use render::render;
pub use types::{
    Color, IntervalKeys, NodeId, RbNode, RbRoot, StaleDescent, TreeError, TreeObs, TreeStats,
};
pub use validate::{validate, TreeViolation};
