//! Symmetry reductions (off by default): the canonical form of a world up to a renumbering of
//! its mms (the scope's `symmetry` field, `check --symmetry`), of its interchangeable regular
//! files (`file_symmetry`, `check --file-symmetry`), or both. Two worlds that differ only in
//! which mm is called 0 and which 1 (a fork's parent and child swapped, say), or in which of two
//! regular files a VMA maps, get the same form, so the explorer sees them as one state.
//!
//! The form: for every ordering of the mms (and of the regular files), the world with its mms
//! (files) in that order, each reference renamed to match, brought to the plain canonical form
//! ([`World::canonical`]), and of those the one with the least stable hash. The set of
//! candidates is the same for every renumbering of the same world, so the choice is too (two
//! different candidates with the same 64-bit hash would make it depend on the order tried: the
//! same odds as a fingerprint collision, which the search already accepts). It costs `m! * f!`
//! plain canonicalisations for `m` mms and `f` regular files (2 mms at every built-in scope).
//!
//! Why no verdict changes:
//! - An mm's id is only a name. It is the index into `World::mms` and the value of each VMA's
//!   `vm_mm`; nothing orders, compares or does arithmetic on it. The page tables live inside
//!   their mm, the interval and anon trees hold VMAs and AVCs and break ties by insertion order
//!   (never by id), anon_vmas and folios refer to no mm, and the lock ghost state and walk
//!   records are empty between calls (the plain canonical form drops them).
//! - So is a regular file's. A file is its name, its address_space and whether it is /dev/zero;
//!   regular files differ only in their names, which no model code, check or offer reads (the
//!   names stay in place: file 0 is called `f0` whichever file it is). The file's id is the
//!   value of `vm_file`, its address_space's id (each file's address_space has its file's index
//!   in every world the scopes build; a world where that fails is not permuted) the value of
//!   `f_mapping` and of the page-cache folios' `mapping`; models compare them only for
//!   equality. The /dev/zero file is never exchanged with a regular one.
//! - The invariants (`src/check`, the builtins' step checks) quantify over all mms, all files,
//!   all VMAs, all trees: a renamed world violates exactly the invariants the original does.
//! - The alphabet (`explore::alphabet`) offers, for every live mm, the calls its VMAs and free
//!   ranges allow, with every regular file and every /dev/zero file, and `fork` while there are
//!   fewer mms than `max_mms`: the calls of a renamed world are the renamed calls, so its
//!   successors are the renamed successors, and the set of reachable states up to renaming, at
//!   each depth, is unchanged. A failure reachable in `d` calls is still reached in `d` calls,
//!   by the renamed sequence.
//! - The search's order of successors can differ (the representative lists mm 1's calls first
//!   where the original listed mm 0's), so the first failure found may be another of the same
//!   depth; a counterexample's calls are re-mapped onto the unreduced worlds before the trace
//!   is built (`explore::search`), so traces replay without the reduction.

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

    /// This world with its files in the order `order` (new file `k` is old file `order[k]`),
    /// each file's address_space moving with it and the names staying in place. Only for a
    /// world whose file `i` has address_space `i`.
    fn with_file_order(&self, order: &[u32]) -> World {
        let mut new_id = vec![0u32; order.len()];
        for (k, &old) in order.iter().enumerate() {
            new_id[old as usize] = k as u32;
        }
        let mut w = self.clone();
        w.mappings = order
            .iter()
            .map(|&o| self.mappings[o as usize].clone())
            .collect();
        for (k, &o) in order.iter().enumerate() {
            w.files[k].dev_zero = self.files[o as usize].dev_zero;
        }
        for v in &mut w.vmas {
            v.vm_file = v.vm_file.map(|f| new_id[f as usize]);
        }
        for mm in &mut w.mms {
            for f in mm.ptes.values_mut() {
                if let super::Folio::File { mapping, .. } = f {
                    *mapping = new_id[*mapping as usize];
                }
            }
        }
        w
    }

    /// Every order of the files that exchanges regular files only (the /dev/zero ones stay in
    /// place); only the identity when fewer than two are regular, or when some file's
    /// address_space is not the one of its own index.
    fn file_orders(&self) -> Vec<Vec<u32>> {
        let identity: Vec<u32> = (0..self.files.len() as u32).collect();
        let regular: Vec<u32> = identity
            .iter()
            .copied()
            .filter(|&f| !self.files[f as usize].dev_zero)
            .collect();
        let own = self.mappings.len() == self.files.len()
            && self
                .files
                .iter()
                .enumerate()
                .all(|(i, f)| f.f_mapping == i as u32);
        if regular.len() < 2 || !own {
            return vec![identity];
        }
        orderings(regular.len())
            .into_iter()
            .map(|perm| {
                let mut order = identity.clone();
                for (slot, &p) in regular.iter().zip(&perm) {
                    order[*slot as usize] = regular[p as usize];
                }
                order
            })
            .collect()
    }

    /// [`World::canonical_up_to`] written into `out`; without a reduction to make, `out`'s
    /// allocations are reused ([`World::canonical_into`]).
    pub(crate) fn canonical_up_to_into(&self, mms: bool, files: bool, out: &mut World) {
        if (mms && self.mms.len() >= 2) || files {
            *out = self.canonical_up_to(mms, files);
        } else {
            self.canonical_into(out);
        }
    }

    /// The canonical form up to a renumbering of the mms (`mms`) and of the regular files
    /// (`files`); the plain canonical form when neither is asked for (see the module
    /// documentation).
    pub(crate) fn canonical_up_to(&self, mms: bool, files: bool) -> World {
        let mm_orders = if mms && self.mms.len() >= 2 {
            orderings(self.mms.len())
        } else {
            vec![(0..self.mms.len() as u32).collect()]
        };
        let file_orders = if files {
            self.file_orders()
        } else {
            vec![(0..self.files.len() as u32).collect()]
        };
        if mm_orders.len() * file_orders.len() == 1 {
            return self.canonical();
        }
        let mut best: Option<(u64, World)> = None;
        for fo in &file_orders {
            let moved;
            let by_file = if fo.iter().enumerate().all(|(i, &f)| f == i as u32) {
                self
            } else {
                moved = self.with_file_order(fo);
                &moved
            };
            for mo in &mm_orders {
                let c = by_file.with_mm_order(mo).canonical();
                let h = stable_hash(&c);
                if best.as_ref().is_none_or(|(b, _)| h < *b) {
                    best = Some((h, c));
                }
            }
        }
        best.expect("at least one ordering").1
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn two_worlds_that_swap_their_regular_files_are_one_state() {
        let text = |a: &str, b: &str| {
            format!(
                "[[file]]\nname = \"f0\"\n[[file]]\nname = \"f1\"\n[[file]]\nname = \"zero\"\n\
                 dev_zero = true\n[[mm]]\n[[mm.vma]]\nstart = 0\nend = 2\nfile = \"{a}\"\n\
                 [[mm.vma]]\nstart = 2\nend = 3\nfile = \"{b}\"\n"
            )
        };
        let build = |a: &str, b: &str| {
            crate::world::scenario::Scenario::parse(&text(a, b))
                .expect("scenario")
                .build()
                .expect("world")
        };
        let (x, y) = (build("f0", "f1"), build("f1", "f0"));
        assert_ne!(x.canonical(), y.canonical());
        assert_eq!(
            x.canonical_up_to(false, true),
            y.canonical_up_to(false, true)
        );
        // /dev/zero is not a regular file: swapping it in makes another state
        let z = build("zero", "f1");
        assert_ne!(
            x.canonical_up_to(false, true),
            z.canonical_up_to(false, true)
        );
    }

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
