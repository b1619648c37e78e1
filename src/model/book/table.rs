//! The table of move counts per position ([`Book`]): an open-addressing hash table over position
//! hashes whose slots head lists of `(key, count)` entries in one arena; and the moves of one
//! position ([`BookMoves`]).

/// Move counts per position hash (canonical move keys, see [`move_key`](crate::chess::move_key)).
///
/// An open-addressing table over the position hashes (Zobrist hashes are uniformly random, so
/// their low bits index it directly), each slot heading a list of `(key, count)` entries in one
/// arena: no allocation per position, and a lookup is one probe in the common case. Nothing
/// depends on the table's order: it is only ever searched by hash and by key.
#[derive(Clone, Debug)]
pub struct Book {
    /// `(hash, first entry + 1)`; 0 marks an empty slot. A power of two long.
    pub(super) slots: Vec<(u64, u32)>,
    /// `(key, count, next entry of the same position + 1 or 0)`.
    pub(super) entries: Vec<(u16, u32, u32)>,
    /// Positions in the book.
    pub(super) positions: usize,
}

impl Default for Book {
    fn default() -> Self {
        Self::new()
    }
}

impl Book {
    /// An empty book.
    pub fn new() -> Self {
        Book { slots: vec![(0, 0); 1 << 10], entries: Vec::new(), positions: 0 }
    }

    /// A placeholder without tables, only to be dropped or overwritten: any lookup panics.
    pub(crate) const fn unallocated() -> Self {
        Book { slots: Vec::new(), entries: Vec::new(), positions: 0 }
    }

    /// The slot of `hash`: its own, or the empty one where it would go.
    #[inline]
    pub(super) fn slot(&self, hash: u64) -> usize {
        let mask = self.slots.len() - 1;
        let mut i = hash as usize & mask;
        loop {
            let (h, head) = self.slots[i];
            if head == 0 || h == hash {
                return i;
            }
            i = (i + 1) & mask;
        }
    }

    /// Moves seen from the position with hash `hash`: (canonical move key, count), in no
    /// particular order; empty if the position is not in the book.
    #[inline]
    pub fn get(&self, hash: u64) -> BookMoves<'_> {
        BookMoves { entries: &self.entries, next: self.slots[self.slot(hash)].1 }
    }

    /// Asks the processor to start loading the slot of `hash` into the cache: a lookup soon
    /// after ([`Book::get`], [`Book::observe`]) then does not wait for memory. The online book
    /// of a block holds tens of thousands of positions (megabytes of slots), so without this
    /// nearly every lookup of a new position is a cache miss (about 7% of level 1's time).
    #[inline]
    pub(crate) fn prefetch(&self, hash: u64) {
        let slot = &self.slots[hash as usize & (self.slots.len() - 1)];
        #[cfg(target_arch = "x86_64")]
        // SAFETY: `_mm_prefetch` needs SSE, part of the x86_64 baseline; a prefetch only hints
        // the cache and never faults, and the pointer comes from a live reference anyway.
        unsafe {
            use std::arch::x86_64::{_MM_HINT_T0, _mm_prefetch};
            _mm_prefetch::<_MM_HINT_T0>(std::ptr::from_ref(slot).cast());
        }
        #[cfg(not(target_arch = "x86_64"))]
        let _ = slot;
    }

    /// Whether the position with hash `hash` is in the book (has counts, possibly zero).
    #[inline]
    pub fn contains(&self, hash: u64) -> bool {
        self.slots[self.slot(hash)].1 != 0
    }

    /// Adds `count` plays of move `key` from position `hash`.
    pub fn add(&mut self, hash: u64, key: u16, count: u32) {
        let mut i = self.slot(hash);
        let mut e = self.slots[i].1;
        while e != 0 {
            let entry = &mut self.entries[e as usize - 1];
            if entry.0 == key {
                entry.1 += count;
                return;
            }
            e = entry.2;
        }
        if self.slots[i].1 == 0 {
            if 2 * (self.positions + 1) > self.slots.len() {
                self.grow();
                i = self.slot(hash);
            }
            self.slots[i].0 = hash;
            self.positions += 1;
        }
        self.entries.push((key, count, self.slots[i].1));
        self.slots[i].1 = self.entries.len() as u32;
    }

    /// Doubles the table.
    fn grow(&mut self) {
        let len = self.slots.len() * 2;
        let old = std::mem::replace(&mut self.slots, vec![(0, 0); len]);
        for (hash, head) in old {
            if head != 0 {
                let i = self.slot(hash);
                self.slots[i] = (hash, head);
            }
        }
    }

    /// Counts one play of move `key` from position `hash`.
    #[inline]
    pub fn observe(&mut self, hash: u64, key: u16) {
        self.add(hash, key, 1);
    }

    /// Number of positions in the book.
    pub fn len(&self) -> usize {
        self.positions
    }

    /// Whether the book is empty.
    pub fn is_empty(&self) -> bool {
        self.positions == 0
    }

    /// An empty book whose table holds `positions` positions without growing.
    pub(super) fn with_capacity(positions: usize) -> Self {
        let slots = (2 * positions).next_power_of_two().max(1 << 10);
        Book { slots: vec![(0, 0); slots], entries: Vec::new(), positions: 0 }
    }

    /// The book's positions, ascending by hash, each with its `(key, count)` entries ascending
    /// by key.
    pub(super) fn sorted(&self) -> Vec<(u64, Vec<(u16, u32)>)> {
        let mut out: Vec<(u64, Vec<(u16, u32)>)> = self
            .slots
            .iter()
            .filter(|&&(_, head)| head != 0)
            .map(|&(hash, head)| {
                let mut moves: Vec<(u16, u32)> = BookMoves { entries: &self.entries, next: head }.collect();
                moves.sort_unstable();
                (hash, moves)
            })
            .collect();
        out.sort_unstable_by_key(|&(hash, _)| hash);
        out
    }
}

/// The moves of one position of a [`Book`]: `(key, count)` pairs.
#[derive(Clone, Debug, Default)]
pub struct BookMoves<'a> {
    entries: &'a [(u16, u32, u32)],
    next: u32,
}

impl BookMoves<'_> {
    /// Whether the position has no counts (is not in the book).
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.next == 0
    }

    /// The count of move `key` (0 if never played).
    pub fn count(&self, key: u16) -> u32 {
        self.clone().find(|&(k, _)| k == key).map_or(0, |(_, c)| c)
    }
}

impl Iterator for BookMoves<'_> {
    type Item = (u16, u32);

    #[inline]
    fn next(&mut self) -> Option<(u16, u32)> {
        if self.next == 0 {
            return None;
        }
        let (key, count, next) = self.entries[self.next as usize - 1];
        self.next = next;
        Some((key, count))
    }
}
