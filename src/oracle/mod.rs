//! The running kernel as an oracle for the model (`rmapcheck kdiff`) and C reproducers of
//! callers-mode counterexamples (`rmapcheck repro`). Model page `p` is the 4 KiB page at
//! `BASE + p * 4096` of a process standing for the model mm; see README.md, "Checking the model
//! against your kernel".
//!
//! It names nothing of the fuzzing harness, the report, the C harness or the commands.

pub mod compare;
pub(crate) mod driver;
pub mod expected;
pub mod files;
pub mod ghost;
pub mod kdiff;
pub mod known;
pub mod layout;
pub mod mismatch;
pub mod ops;
pub(crate) mod procmaps;
pub mod repro;
pub mod sequences;

/// Address of model page 0. On x86-64 (47-bit user space) the top-down mmap base is the stack
/// top less at most 1 TiB of randomisation, so never below about 0x7eff_0000_0000: this address
/// lies under every place the kernel picks for a mapping, far above the program and its heap.
pub const BASE: u64 = 0x7e00_0000_0000;

/// Bytes in one model page.
pub(crate) const PAGE: u64 = 4096;
