//! Augmented red-black tree (as the kernel's lib/rbtree.c with rbtree_augmented.h) and the
//! interval tree built on it (as interval_tree_generic.h), with validators.
