//! How the rmap trees read their keys: straight from the live VMA, at the moment of use, so a VMA
//! whose pgoff or size changes while it sits in a tree gives a stale key exactly as in the kernel.

use super::objects::{Avc, Vma};
use crate::tree::{IntervalKeys, NodeId};

/// Keys of the file tree (`i_mmap`): a node is a VMA; START = `vma_start_pgoff`,
/// LAST = `vma_last_pgoff`.
pub struct FileKeys<'a> {
    pub vmas: &'a [Vma],
}

impl IntervalKeys for FileKeys<'_> {
    fn start(&self, n: NodeId) -> u64 {
        self.vmas[n as usize].start_pgoff()
    }
    fn last(&self, n: NodeId) -> u64 {
        self.vmas[n as usize].last_pgoff()
    }
}

/// Keys of an anon_vma tree: a node is an anon_vma_chain; its key is its VMA's anonymous pgoff
/// range (`vma_start_anon_pgoff` .. `vma_last_anon_pgoff`, v7.3-rc4).
pub struct AnonKeys<'a> {
    pub vmas: &'a [Vma],
    pub avcs: &'a [Avc],
}

impl AnonKeys<'_> {
    fn vma(&self, n: NodeId) -> Option<&Vma> {
        self.avcs[n as usize].vma.map(|v| &self.vmas[v as usize])
    }
}

impl IntervalKeys for AnonKeys<'_> {
    fn start(&self, n: NodeId) -> u64 {
        self.vma(n).map_or(0, Vma::start_anon_pgoff)
    }
    fn last(&self, n: NodeId) -> u64 {
        self.vma(n).map_or(0, Vma::last_anon_pgoff)
    }
}
