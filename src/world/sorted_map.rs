//! An ordered map kept as a vector of entries sorted by key: the stand-in for the maple tree
//! (`Mm::vmas`). It answers the `BTreeMap` calls the models' builtins and checks make (lookup,
//! ranges, in-order iteration, insert and remove) with the same results in the same order,
//! and hashes, compares and prints as a `BTreeMap` does; a world is cloned and
//! canonicalised once per call the search tries, and a clone of a few entries in one
//! vector, into a spare world's vector, allocates nothing (a `BTreeMap` allocates its nodes).

use std::fmt;
use std::hash::{Hash, Hasher};
use std::ops::{Bound, RangeBounds};

/// Entries in strictly increasing key order.
#[derive(PartialEq, Eq)]
pub struct SortedMap<K, V> {
    entries: Vec<(K, V)>,
}

impl<K, V> Default for SortedMap<K, V> {
    fn default() -> Self {
        SortedMap {
            entries: Vec::new(),
        }
    }
}

impl<K: Clone, V: Clone> Clone for SortedMap<K, V> {
    fn clone(&self) -> Self {
        SortedMap {
            entries: self.entries.clone(),
        }
    }
    fn clone_from(&mut self, src: &Self) {
        self.entries.clone_from(&src.entries);
    }
}

impl<K: Ord, V> SortedMap<K, V> {
    pub fn new() -> Self {
        Self::default()
    }

    pub fn len(&self) -> usize {
        self.entries.len()
    }

    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// Where `key` is, or where it would go.
    fn find(&self, key: &K) -> Result<usize, usize> {
        self.entries.binary_search_by(|(k, _)| k.cmp(key))
    }

    pub fn get(&self, key: &K) -> Option<&V> {
        self.find(key).ok().map(|i| &self.entries[i].1)
    }

    pub fn contains_key(&self, key: &K) -> bool {
        self.find(key).is_ok()
    }

    /// Insert or overwrite; the old value.
    pub fn insert(&mut self, key: K, value: V) -> Option<V> {
        match self.find(&key) {
            Ok(i) => Some(std::mem::replace(&mut self.entries[i].1, value)),
            Err(i) => {
                self.entries.insert(i, (key, value));
                None
            }
        }
    }

    pub fn remove(&mut self, key: &K) -> Option<V> {
        self.find(key).ok().map(|i| self.entries.remove(i).1)
    }

    pub fn clear(&mut self) {
        self.entries.clear();
    }

    /// The entries in key order.
    pub fn iter(&self) -> impl DoubleEndedIterator<Item = (&K, &V)> + ExactSizeIterator {
        self.entries.iter().map(|(k, v)| (k, v))
    }

    pub fn keys(&self) -> impl DoubleEndedIterator<Item = &K> + ExactSizeIterator {
        self.entries.iter().map(|(k, _)| k)
    }

    pub fn values(&self) -> impl DoubleEndedIterator<Item = &V> + ExactSizeIterator {
        self.entries.iter().map(|(_, v)| v)
    }

    pub fn values_mut(&mut self) -> impl DoubleEndedIterator<Item = &mut V> + ExactSizeIterator {
        self.entries.iter_mut().map(|(_, v)| v)
    }

    pub fn iter_mut(
        &mut self,
    ) -> impl DoubleEndedIterator<Item = (&K, &mut V)> + ExactSizeIterator {
        self.entries.iter_mut().map(|(k, v)| (&*k, v))
    }

    /// Keep the entries for which `keep` holds, in order.
    pub fn retain(&mut self, mut keep: impl FnMut(&K, &mut V) -> bool) {
        self.entries.retain_mut(|(k, v)| keep(k, v));
    }

    /// The entries whose keys lie in `range`, in key order (none when the range starts after
    /// it ends, where `BTreeMap::range` would panic).
    pub fn range<R: RangeBounds<K>>(
        &self,
        range: R,
    ) -> impl DoubleEndedIterator<Item = (&K, &V)> + ExactSizeIterator {
        let lo = match range.start_bound() {
            Bound::Included(s) => self.entries.partition_point(|(k, _)| k < s),
            Bound::Excluded(s) => self.entries.partition_point(|(k, _)| k <= s),
            Bound::Unbounded => 0,
        };
        let hi = match range.end_bound() {
            Bound::Included(e) => self.entries.partition_point(|(k, _)| k <= e),
            Bound::Excluded(e) => self.entries.partition_point(|(k, _)| k < e),
            Bound::Unbounded => self.entries.len(),
        };
        self.entries[lo..hi.max(lo)].iter().map(|(k, v)| (k, v))
    }
}

impl<'a, K: Ord, V> IntoIterator for &'a SortedMap<K, V> {
    type Item = (&'a K, &'a V);
    type IntoIter = std::iter::Map<std::slice::Iter<'a, (K, V)>, fn(&'a (K, V)) -> (&'a K, &'a V)>;
    fn into_iter(self) -> Self::IntoIter {
        self.entries.iter().map(|(k, v)| (k, v))
    }
}

impl<K: Ord, V> FromIterator<(K, V)> for SortedMap<K, V> {
    /// As `BTreeMap` collects: a later entry for a key overwrites an earlier one.
    fn from_iter<I: IntoIterator<Item = (K, V)>>(iter: I) -> Self {
        let mut m = SortedMap::new();
        for (k, v) in iter {
            m.insert(k, v);
        }
        m
    }
}

impl<K: Ord, V> Extend<(K, V)> for SortedMap<K, V> {
    /// As `BTreeMap` extends: each entry inserted in turn, overwriting.
    fn extend<I: IntoIterator<Item = (K, V)>>(&mut self, iter: I) {
        for (k, v) in iter {
            self.insert(k, v);
        }
    }
}

impl<K: Ord, V> std::ops::Index<&K> for SortedMap<K, V> {
    type Output = V;
    /// The value at `key`; panics when there is none, as `BTreeMap` indexing does.
    fn index(&self, key: &K) -> &V {
        self.get(key).expect("no entry found for key")
    }
}

/// The stream `BTreeMap` hashes: the length, then each key and value in order.
impl<K: Hash, V: Hash> Hash for SortedMap<K, V> {
    fn hash<H: Hasher>(&self, state: &mut H) {
        state.write_usize(self.entries.len());
        for (k, v) in &self.entries {
            k.hash(state);
            v.hash(state);
        }
    }
}

/// Printed as `BTreeMap` prints: `{k: v, ...}`.
impl<K: fmt::Debug, V: fmt::Debug> fmt::Debug for SortedMap<K, V> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_map()
            .entries(self.entries.iter().map(|(k, v)| (k, v)))
            .finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeMap;

    /// An mm's VMA list: start to (end, VMA).
    type Entry = (u64, u32);

    /// A few inserts, overwrites and removes, in the same order on both maps.
    fn both() -> (SortedMap<u64, Entry>, BTreeMap<u64, Entry>) {
        let mut s = SortedMap::new();
        let mut b = BTreeMap::new();
        for (k, v) in [
            (5, (7, 1)),
            (1, (3, 0)),
            (9, (12, 2)),
            (5, (8, 3)),
            (3, (4, 4)),
        ] {
            assert_eq!(s.insert(k, v), b.insert(k, v));
        }
        assert_eq!(s.remove(&1), b.remove(&1));
        assert_eq!(s.remove(&2), b.remove(&2));
        (s, b)
    }

    #[test]
    fn answers_as_a_btreemap_does() {
        let (s, b) = both();
        assert!(s.iter().eq(b.iter()));
        assert!(s.values().eq(b.values()));
        assert_eq!(s.get(&5), b.get(&5));
        assert_eq!(s.get(&4), b.get(&4));
        assert!(s.range(..9).eq(b.range(..9)));
        assert!(s.range(..=9).rev().eq(b.range(..=9).rev()));
        assert!(s.range(4..).eq(b.range(4..)));
        use std::ops::Bound::{Excluded, Unbounded};
        assert!(s
            .range((Excluded(3), Excluded(9)))
            .eq(b.range((Excluded(3), Excluded(9)))));
        assert!(s.range((Unbounded, Excluded(0))).eq(b.range(..0)));
        assert_eq!(format!("{s:?}"), format!("{b:?}"));
    }

    #[test]
    fn edits_as_a_btreemap_does() {
        let (mut s, mut b) = both();
        s.extend([(4, (6, 5)), (5, (9, 6))]);
        b.extend([(4, (6, 5)), (5, (9, 6))]);
        s.retain(|&k, v| {
            v.1 += 1;
            k != 4
        });
        b.retain(|&k, v| {
            v.1 += 1;
            k != 4
        });
        for (_, v) in s.iter_mut() {
            v.0 *= 2;
        }
        for (_, v) in b.iter_mut() {
            v.0 *= 2;
        }
        assert!(s.iter().eq(b.iter()));
        assert_eq!(s[&9], b[&9]);
    }

    #[test]
    fn hashes_the_stream_a_btreemap_hashes() {
        let (s, b) = both();
        use crate::world::fingerprint::stable_hash as h;
        assert_eq!(h(&s), h(&b));
        assert_eq!(
            h(&SortedMap::<u64, u32>::new()),
            h(&BTreeMap::<u64, u32>::new())
        );
    }
}
