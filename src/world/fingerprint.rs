//! The stable 64-bit hash behind the explorer's state fingerprints and the symmetry reduction's
//! choice of representative: XXH3-64 (the `xxhash-rust` crate, default secret, seed 0) over
//! the bytes a value's `Hash` implementation writes, with every integer written little-endian
//! and every `usize`/`isize` widened to 64 bits, so a value hashes the same on every run,
//! machine and word size.
//!
//! Why the search's collision estimate may treat it as a uniform 64-bit hash: the bound it
//! reports (`n^2 / 2^65` for `n` states, the birthday bound TLC also prints) assumes that two
//! distinct states get equal fingerprints with probability `2^-64`. XXH3 passes the SMHasher
//! test suite (avalanche, bit independence, differential and sparse-key tests) with its 64-bit
//! output, which is what that assumption needs for inputs that nobody chose to collide; our
//! inputs are worlds the model reaches, not adversarial data. It replaced SipHash-2-4 (zero
//! keys) here for speed only: neither is a keyed secret in this use, and both are equally
//! good for the estimate.

use std::cell::Cell;
use std::hash::{Hash, Hasher};
use xxhash_rust::xxh3::xxh3_64;

/// A [`Hasher`] collecting a platform-independent byte stream, hashed at [`Hasher::finish`]
/// by one-shot XXH3-64 (cheaper than feeding the few bytes of each field to a streaming hash).
#[derive(Default)]
pub struct StableHasher {
    bytes: Vec<u8>,
}

impl StableHasher {
    pub fn new() -> Self {
        Self::default()
    }
}

impl Hasher for StableHasher {
    fn finish(&self) -> u64 {
        xxh3_64(&self.bytes)
    }
    fn write(&mut self, bytes: &[u8]) {
        self.bytes.extend_from_slice(bytes);
    }
    fn write_u8(&mut self, i: u8) {
        self.bytes.push(i);
    }
    fn write_u16(&mut self, i: u16) {
        self.write(&i.to_le_bytes());
    }
    fn write_u32(&mut self, i: u32) {
        self.write(&i.to_le_bytes());
    }
    fn write_u64(&mut self, i: u64) {
        self.write(&i.to_le_bytes());
    }
    fn write_u128(&mut self, i: u128) {
        self.write(&i.to_le_bytes());
    }
    fn write_usize(&mut self, i: usize) {
        self.write_u64(i as u64);
    }
    fn write_i8(&mut self, i: i8) {
        self.write_u8(i as u8);
    }
    fn write_i16(&mut self, i: i16) {
        self.write_u16(i as u16);
    }
    fn write_i32(&mut self, i: i32) {
        self.write_u32(i as u32);
    }
    fn write_i64(&mut self, i: i64) {
        self.write_u64(i as u64);
    }
    fn write_i128(&mut self, i: i128) {
        self.write_u128(i as u128);
    }
    fn write_isize(&mut self, i: isize) {
        self.write_u64(i as i64 as u64);
    }
}

thread_local! {
    /// The byte buffer of the last [`stable_hash`] on this thread, kept for the next one.
    static BYTES: Cell<Vec<u8>> = const { Cell::new(Vec::new()) };
}

/// The stable hash of `v` (see the module documentation).
pub fn stable_hash<T: Hash + ?Sized>(v: &T) -> u64 {
    let mut bytes = BYTES.take();
    bytes.clear();
    let mut h = StableHasher { bytes };
    v.hash(&mut h);
    let out = h.finish();
    BYTES.set(h.bytes);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn integers_hash_as_their_little_endian_bytes() {
        // the same value through the integer writers and as raw bytes: one stream
        let mut a = StableHasher::new();
        a.write_u32(0x0102_0304);
        a.write_usize(5);
        let mut b = StableHasher::new();
        b.write(&[4, 3, 2, 1]);
        b.write(&5u64.to_le_bytes());
        assert_eq!(a.finish(), b.finish());
    }

    #[test]
    fn the_stream_is_xxh3_of_its_bytes() {
        // split writes hash as the one-shot XXH3 of their concatenation
        let mut h = StableHasher::new();
        h.write(b"rmap");
        h.write(b"check");
        assert_eq!(h.finish(), xxhash_rust::xxh3::xxh3_64(b"rmapcheck"));
        assert_ne!(stable_hash(&1u64), stable_hash(&2u64));
    }

    #[test]
    fn the_empty_stream_has_xxh3s_published_value() {
        // XXH3-64 of no bytes with seed 0, from the xxHash reference implementation
        assert_eq!(StableHasher::new().finish(), 0x2D06_8005_38D3_94C2);
    }
}
