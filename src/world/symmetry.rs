//! Symmetry reduction over mms (off by default; the scope's `symmetry` field, `check
//! --symmetry`): the canonical form of a world up to a renumbering of its mms. Two worlds that
//! differ only in which mm is called 0 and which 1 (a fork's parent and child swapped, say) get
//! the same form, so the explorer sees them as one state.
//!
//! The form: for every ordering of the mms, the world with its mms in that order (each VMA's
//! `vm_mm` renamed to match) brought to the plain canonical form ([`World::canonical`]), and of
//! those the one with the least stable hash (`world::fingerprint`, the explorer's fingerprint). The set of candidates is the same for every
//! renumbering of the same world, so the choice is too (two different candidates with the same
//! 64-bit hash would make it depend on the order tried: the same odds as a fingerprint
//! collision, which the search already accepts). It costs `n!` plain canonicalisations for `n`
//! mms (2 at every built-in scope).
//!
//! Why no verdict changes:
//! - An mm's id is only a name. It is the index into `World::mms` and the value of each VMA's
//!   `vm_mm`; nothing orders, compares or does arithmetic on it. The page tables live inside
//!   their mm, the interval and anon trees hold VMAs and AVCs and break ties by insertion order
//!   (never by id), anon_vmas and folios refer to no mm, and the lock ghost state and walk
//!   records are empty between calls (the plain canonical form drops them).
//! - The invariants (`src/check`, the builtins' step checks) quantify over all mms, all VMAs,
//!   all trees: a renamed world violates exactly the invariants the original does.
//! - The alphabet (`explore::alphabet`) offers, for every live mm, the calls its VMAs and free
//!   ranges allow, and `fork` while there are fewer mms than `max_mms`: the calls of a renamed
//!   world are the renamed calls, so its successors are the renamed successors, and the set of
//!   reachable states up to renaming, at each depth, is unchanged. A failure reachable in `d`
//!   calls is still reached in `d` calls, by the renamed sequence.
//! - The search's order of successors can differ (the representative lists mm 1's calls first
//!   where the original listed mm 0's), so the first failure found may be another of the same
//!   depth; a counterexample's calls are re-mapped onto the unreduced worlds before the trace
//!   is built (`explore::search`), so traces replay without the reduction.
//!
//! Files are not permuted: every scope's files differ in name or in being /dev/zero.

use super::fingerprint::stable_hash;
use super::World;

/// Every ordering of `0..n`, in lexicographic order.
fn orderings(n: usize) -> Vec<Vec<u32>> {
    let mut out = Vec::new();
    let mut cur: Vec<u32> = (0..n as u32).collect();
    loop {
        out.push(cur.clone());
        // next permutation (lexicographic)
        let Some(i) = (1..cur.len()).rev().find(|&i| cur[i - 1] < cur[i]) else {
            return out;
        };
        let j = (i..cur.len())
            .rev()
            .find(|&j| cur[j] > cur[i - 1])
            .expect("a larger element after the pivot");
        cur.swap(i - 1, j);
        cur[i..].reverse();
    }
}

impl World {
    /// This world with its mms in the order `order` (new mm `k` is old mm `order[k]`).
    fn with_mm_order(&self, order: &[u32]) -> World {
        let mut new_id = vec![0u32; order.len()];
        for (k, &old) in order.iter().enumerate() {
            new_id[old as usize] = k as u32;
        }
        let mut w = self.clone();
        w.mms = order
            .iter()
            .map(|&o| self.mms[o as usize].clone())
            .collect();
        for v in &mut w.vmas {
            v.vm_mm = v.vm_mm.map(|m| new_id[m as usize]);
        }
        w
    }

    /// The canonical form up to a renumbering of the mms (see the module documentation).
    pub(crate) fn canonical_symmetric(&self) -> World {
        if self.mms.len() < 2 {
            return self.canonical();
        }
        let mut best: Option<(u64, World)> = None;
        for order in orderings(self.mms.len()) {
            let c = self.with_mm_order(&order).canonical();
            let h = stable_hash(&c);
            if best.as_ref().is_none_or(|(b, _)| h < *b) {
                best = Some((h, c));
            }
        }
        best.expect("at least one ordering").1
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn orderings_are_all_permutations() {
        assert_eq!(orderings(1), vec![vec![0]]);
        assert_eq!(orderings(2), vec![vec![0, 1], vec![1, 0]]);
        let three = orderings(3);
        assert_eq!(three.len(), 6);
        let mut sorted = three.clone();
        sorted.sort();
        sorted.dedup();
        assert_eq!(sorted.len(), 6);
    }
}
