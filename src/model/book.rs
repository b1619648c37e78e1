//! Online opening book: counts of the moves played from each position earlier in the block.
//!
//! Lichess games repeat openings; a move seen from the same position before is much more likely
//! than the engine alone thinks. The encoder and decoder both fill the book with the moves of
//! the games already coded in the block, so it costs nothing to transmit.

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

/// Hasher for keys that are already uniformly random (Zobrist hashes).
#[derive(Default)]
pub struct ZobristHasher(u64);

impl Hasher for ZobristHasher {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = self.0.rotate_left(8) ^ b as u64;
        }
    }
    fn write_u64(&mut self, v: u64) {
        self.0 = v;
    }
}

/// Move counts per position hash.
#[derive(Default, Clone, Debug)]
pub struct Book {
    entries: HashMap<u64, Vec<(u16, u32)>, BuildHasherDefault<ZobristHasher>>,
}

impl Book {
    /// An empty book.
    pub fn new() -> Self {
        Self::default()
    }

    /// Moves seen from the position with hash `hash`: (canonical move key, count).
    pub fn get(&self, hash: u64) -> &[(u16, u32)] {
        self.entries.get(&hash).map_or(&[], |v| v.as_slice())
    }

    /// Counts move `key` played from position `hash`.
    pub fn observe(&mut self, hash: u64, key: u16) {
        let entry = self.entries.entry(hash).or_default();
        match entry.iter_mut().find(|(k, _)| *k == key) {
            Some((_, c)) => *c += 1,
            None => entry.push((key, 1)),
        }
    }

    /// Number of positions in the book.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// Whether the book is empty.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }
}
