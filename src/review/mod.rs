//! `rmapcheck review SERIES --kernel DIR`: a posted series checked as C, patch by patch, and
//! answered as a bot answers linux-mm, one reply per patch. [`mail`] reads the series (an mbox,
//! a directory of `git format-patch` files, or one diff) and orders it by `[PATCH vN k/n]`;
//! the command (`cmd::kernel::review`) applies the patches cumulatively to one copy of the tree and
//! runs every C pass of `check --kernel` after each patch that touches a file the harness
//! builds; [`reply`] writes the replies, in the plain text of [`text`]. See docs/REVIEW.md.
//!
//! It names nothing of the commands.

pub mod mail;
pub mod reply;
pub mod text;
