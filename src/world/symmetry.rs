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
//! Most worlds take a faster path to a representative of the same orbit: when the files stay
//! in place and no two mms have the same signature (a hash of what each holds that no
//! renumbering changes), the mms are sorted by signature and the world canonicalised once
//! ([`World::canonical_up_to_into`] says why that is orbit-invariant too).
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

    /// Whether the file symmetry has files to exchange: at least two regular files, each with
    /// the address_space of its own index.
    fn files_exchangeable(&self) -> bool {
        self.files.iter().filter(|f| !f.dev_zero).count() >= 2
            && self.mappings.len() == self.files.len()
            && self
                .files
                .iter()
                .enumerate()
                .all(|(i, f)| f.f_mapping == i as u32)
    }

    /// Every order of the files that exchanges regular files only (the /dev/zero ones stay in
    /// place); only the identity when [`World::files_exchangeable`] says there is nothing to
    /// exchange.
    fn file_orders(&self) -> Vec<Vec<u32>> {
        let identity: Vec<u32> = (0..self.files.len() as u32).collect();
        if !self.files_exchangeable() {
            return vec![identity];
        }
        let regular: Vec<u32> = identity
            .iter()
            .copied()
            .filter(|&f| !self.files[f as usize].dev_zero)
            .collect();
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
    ///
    /// The fast path: when the files are not permuted (one regular file, or no file symmetry)
    /// and every mm has its own [`World::mm_signature`], the representative is the world with
    /// its mms sorted by signature, one plain canonicalisation. The signature reads no object
    /// id but file ids (which only file symmetry renumbers), so renumbering the mms permutes
    /// the signatures with them: the sorted order, and so the representative, is the same for
    /// every world of the orbit. Mms with equal signatures take the slow path, the least hash
    /// over every ordering, as before: both paths pick from orbit-invariant candidates, but
    /// they are different choices, so a world takes the fast path exactly when no two
    /// signatures are equal, which is itself orbit-invariant.
    pub(crate) fn canonical_up_to_into(&self, mms: bool, files: bool, out: &mut World) {
        if files && self.files_exchangeable() {
            *out = self.canonical_by_least_hash(mms, files);
            return;
        }
        if !(mms && self.mms.len() >= 2) {
            self.canonical_into(out);
            return;
        }
        match self.signature_order(files) {
            Some(order) if order.iter().enumerate().all(|(i, &o)| o == i as u32) => {
                self.canonical_into(out)
            }
            Some(order) => self.with_mm_order(&order).canonical_into(out),
            None => *out = self.canonical_by_least_hash(mms, files),
        }
    }

    /// The mms in the order of their signatures, or `None` when two signatures are equal.
    fn signature_order(&self, files: bool) -> Option<Vec<u32>> {
        let mut sigs: Vec<(u64, u32)> = (0..self.mms.len() as u32)
            .map(|m| (self.mm_signature(m, files), m))
            .collect();
        sigs.sort_unstable();
        if sigs.windows(2).any(|p| p[0].0 == p[1].0) {
            return None;
        }
        Some(sigs.into_iter().map(|(_, m)| m).collect())
    }

    /// A hash of what an mm holds that no renumbering of objects changes: whether it is freed,
    /// its map count, each VMA's range, offsets, flags, file (its id unless `files`, then only
    /// whether it is /dev/zero), `vm_ops`, whether it has an anon_vma and how long its chain
    /// is, and each pte's address and folio (a file folio's index and mapping id unless
    /// `files`; an anonymous folio's index).
    fn mm_signature(&self, m: u32, files: bool) -> u64 {
        let mm = &self.mms[m as usize];
        let mut h = xxhash_rust::xxh3::Xxh3::new();
        let mut put = |x: u64| h.update(&x.to_le_bytes());
        put(u64::from(mm.freed));
        put(mm.map_count as u64);
        for (&start, &(end, v)) in mm.vmas.iter() {
            let vma = &self.vmas[v as usize];
            let file = match vma.vm_file {
                None => 0,
                Some(f) if files => 1 + u64::from(self.files[f as usize].dev_zero),
                Some(f) => 3 + u64::from(f),
            };
            for x in [
                start,
                end,
                vma.vm_pgoff,
                vma.vm_anon_pgoff,
                vma.vm_flags as u64,
                file,
                u64::from(vma.has_vm_ops),
                u64::from(vma.anon_vma.is_some()) | (vma.anon_vma_chain.len() as u64) << 1,
            ] {
                put(x);
            }
        }
        for (&addr, folio) in mm.ptes.iter() {
            let (kind, index) = match *folio {
                super::Folio::File { mapping, index } => {
                    (if files { 1 } else { 2 + u64::from(mapping) }, index)
                }
                super::Folio::Anon(a) => (0, self.anon_folios[a as usize].index),
            };
            for x in [addr, kind, index] {
                put(x);
            }
        }
        h.digest()
    }

    /// The canonical form up to a renumbering of the mms (`mms`) and of the regular files
    /// (`files`); the plain canonical form when neither is asked for (see the module
    /// documentation).
    pub(crate) fn canonical_up_to(&self, mms: bool, files: bool) -> World {
        let mut out = World::default();
        self.canonical_up_to_into(mms, files, &mut out);
        out
    }

    /// The representative among every ordering of the mms (and of the regular files): the
    /// canonical form with the least stable hash.
    fn canonical_by_least_hash(&self, mms: bool, files: bool) -> World {
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

    /// Two mms given in both orders: `a` and `b` are each one mm's VMAs (start, end, file).
    fn two_mms(a: &[(u64, u64, &str)], b: &[(u64, u64, &str)]) -> World {
        let mm = |vs: &[(u64, u64, &str)]| {
            let mut t = String::from("[[mm]]\n");
            for (s, e, f) in vs {
                t += &format!("[[mm.vma]]\nstart = {s}\nend = {e}\n");
                if !f.is_empty() {
                    t += &format!("file = \"{f}\"\n");
                }
            }
            t
        };
        let text = format!("[[file]]\nname = \"f0\"\n{}{}", mm(a), mm(b));
        crate::world::scenario::Scenario::parse(&text)
            .expect("scenario")
            .build()
            .expect("world")
    }

    #[test]
    fn mms_with_their_own_signatures_take_the_fast_path_to_one_representative() {
        let a = [(0, 2, "f0"), (3, 4, "")];
        let b = [(1, 3, "")];
        let (x, y) = (two_mms(&a, &b), two_mms(&b, &a));
        assert_ne!(x.canonical(), y.canonical());
        assert!(x.signature_order(false).is_some(), "distinct signatures");
        assert_eq!(
            x.canonical_up_to(true, false),
            y.canonical_up_to(true, false)
        );
        // the fast path's representative is the least-hash one's orbit: both are renamings
        let slow = x.canonical_by_least_hash(true, false);
        let fast = x.canonical_up_to(true, false);
        assert!(
            [fast.clone(), fast.with_mm_order(&[1, 0]).canonical()].contains(&slow),
            "the same orbit"
        );
    }

    #[test]
    fn mms_with_equal_signatures_take_the_least_hash() {
        let a = [(0, 2, "f0")];
        let x = two_mms(&a, &a);
        assert!(x.signature_order(false).is_none(), "equal signatures");
        assert_eq!(
            x.canonical_up_to(true, false),
            x.canonical_by_least_hash(true, false)
        );
    }

    #[test]
    fn a_signature_reads_no_mm_id() {
        // the same mm content under either id has the same signature
        let a = [(0, 2, "f0"), (3, 4, "")];
        let b = [(1, 3, "")];
        let (x, y) = (two_mms(&a, &b), two_mms(&b, &a));
        assert_eq!(x.mm_signature(0, false), y.mm_signature(1, false));
        assert_eq!(x.mm_signature(1, false), y.mm_signature(0, false));
        assert_ne!(x.mm_signature(0, false), x.mm_signature(1, false));
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
