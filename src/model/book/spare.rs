//! Spare tables: a block's online book gives its grown tables back ([`Book::recycle`]) for the
//! next block on the same thread ([`Book::reused`]).

use super::table::Book;

/// Largest slot table kept for reuse (16 MiB): an unusually large block's book is freed rather
/// than held for the rest of the thread's life.
const MAX_SPARE_SLOTS: usize = 1 << 20;

thread_local! {
    /// The tables of the last book recycled on this thread ([`Book::recycle`]).
    static SPARE: std::cell::Cell<Option<Book>> = const { std::cell::Cell::new(None) };
}

impl Book {
    /// An empty book that reuses the tables of the last book this thread gave back with
    /// [`Book::recycle`] (cleared, at the size they had grown to), or a new one.
    ///
    /// A block's online book grows to megabytes; allocating it afresh for every block costs a
    /// page fault per 4 KiB page touched and a rehash per doubling (about 1,100 page faults
    /// per 1,000-game block at level 1). Nothing depends on the table's size: lookups go by
    /// hash and key, and the order of each position's moves depends only on the order they
    /// were added in.
    pub fn reused() -> Self {
        match SPARE.take() {
            Some(mut book) => {
                book.slots.fill((0, 0));
                book.entries.clear();
                book.positions = 0;
                book
            }
            None => Book::new(),
        }
    }

    /// Gives the book's tables to the next [`Book::reused`] on this thread; tables over
    /// `MAX_SPARE_SLOTS` (2^20) slots (and any book while the thread is shutting down) are freed.
    pub fn recycle(self) {
        if self.slots.len() <= MAX_SPARE_SLOTS {
            let _ = SPARE.try_with(|spare| spare.set(Some(self)));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reused_book_starts_empty_and_keeps_its_tables() {
        let mut grown = Book::new();
        for h in 0..5000u64 {
            grown.observe(h.wrapping_mul(0x9E37_79B9_7F4A_7C15), (h % 5) as u16);
        }
        let slots = grown.slots.len();
        grown.recycle();
        let mut b = Book::reused();
        assert_eq!(b.slots.len(), slots, "the grown table is reused");
        assert!(b.is_empty());
        assert!(!b.contains(0) && b.get(0x9E37_79B9_7F4A_7C15).is_empty());
        // Filled again, it holds exactly what a new book holds.
        let mut fresh = Book::new();
        for (hash, key, count) in [(7, 3, 2), (7, 1, 5), (0, 0, 1), (7, 3, 1)] {
            b.add(hash, key, count);
            fresh.add(hash, key, count);
        }
        assert_eq!(b.sorted(), fresh.sorted());
        assert_eq!(b.get(7).collect::<Vec<_>>(), fresh.get(7).collect::<Vec<_>>());
        // Nothing left to reuse: a new book.
        assert_eq!(Book::reused().slots.len(), 1 << 10);
    }
}
