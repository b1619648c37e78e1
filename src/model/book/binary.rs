//! The binary form of a book (`models/book.bin`): [`Book::to_bytes`] and [`Book::from_bytes`].

use super::table::Book;
use crate::error::Error;

impl Book {
    /// The book in its binary form (`models/book.bin`), all integers little-endian:
    /// - header, 16 bytes: magic [`BIN_MAGIC`], format version [`BIN_VERSION`] (u32), number of
    ///   positions (u32), total number of entries (u32);
    /// - per position, ascending by hash: hash (u64), number of entries `n` (u32, at least 1),
    ///   then `n` entries ascending by move key: key (u16), count (u32).
    ///
    /// The bytes depend only on the book's content (not on the order it was filled in), so a
    /// file generated twice from the same text is identical. 16 + 12 bytes per position + 6
    /// per entry long.
    ///
    /// # Panics
    /// If the book has 2^32 or more positions or entries (the table's own limit is lower).
    pub fn to_bytes(&self) -> Vec<u8> {
        let sorted = self.sorted();
        let total: usize = sorted.iter().map(|(_, m)| m.len()).sum();
        let mut out = Vec::with_capacity(BIN_HEADER + BIN_POSITION * sorted.len() + BIN_ENTRY * total);
        out.extend_from_slice(&BIN_MAGIC);
        out.extend_from_slice(&BIN_VERSION.to_le_bytes());
        out.extend_from_slice(&u32::try_from(sorted.len()).expect("fewer than 2^32 positions").to_le_bytes());
        out.extend_from_slice(&u32::try_from(total).expect("fewer than 2^32 entries").to_le_bytes());
        for (hash, moves) in &sorted {
            out.extend_from_slice(&hash.to_le_bytes());
            out.extend_from_slice(&(moves.len() as u32).to_le_bytes());
            for &(key, count) in moves {
                out.extend_from_slice(&key.to_le_bytes());
                out.extend_from_slice(&count.to_le_bytes());
            }
        }
        out
    }

    /// Reads a book written by [`Book::to_bytes`]; `name` is used in errors. The table is sized
    /// once from the header, and entries go straight into the arena: no per-position
    /// allocation and no key search.
    ///
    /// # Errors
    /// [`Error::Model`] (line 0, the message giving the byte offset) on a wrong magic or
    /// version, a length that does not match the header (truncated or trailing bytes), a
    /// position without entries, or hashes or keys that are not strictly ascending (which
    /// would also let duplicates in).
    pub fn from_bytes(name: &str, bytes: &[u8]) -> Result<Book, Error> {
        let err =
            |offset: usize, message: String| Error::Model { name: name.into(), line: 0, message: format!("byte {offset}: {message}") };
        let u32_at = |at: usize| u32::from_le_bytes(bytes[at..at + 4].try_into().expect("4 bytes"));
        if bytes.len() < BIN_HEADER {
            return Err(err(0, format!("{} bytes, shorter than the {BIN_HEADER}-byte header", bytes.len())));
        }
        if bytes[..4] != BIN_MAGIC {
            return Err(err(0, "not a chesszip binary book (bad magic)".into()));
        }
        let version = u32_at(4);
        if version != BIN_VERSION {
            return Err(err(4, format!("format version {version}, this build reads {BIN_VERSION}")));
        }
        let (positions, total) = (u32_at(8) as usize, u32_at(12) as usize);
        // In u64: the header's counts could overflow usize arithmetic on 32-bit targets.
        let expected = BIN_HEADER as u64 + BIN_POSITION as u64 * positions as u64 + BIN_ENTRY as u64 * total as u64;
        if bytes.len() as u64 != expected {
            return Err(err(bytes.len(), format!("{} bytes, but {positions} positions and {total} entries take {expected}", bytes.len())));
        }
        let mut book = Book::with_capacity(positions);
        book.entries.reserve_exact(total);
        let mut at = BIN_HEADER;
        let mut last_hash = None;
        for _ in 0..positions {
            // In bounds: the length matches the header, and the entries read so far stay
            // within its total (checked before reading them).
            let hash = u64::from_le_bytes(bytes[at..at + 8].try_into().expect("8 bytes"));
            let n = u32_at(at + 8) as usize;
            if last_hash.is_some_and(|h| h >= hash) {
                return Err(err(at, "position hashes not strictly ascending".into()));
            }
            last_hash = Some(hash);
            if n == 0 {
                return Err(err(at + 8, "position without entries".into()));
            }
            if n > total - book.entries.len() {
                return Err(err(at + 8, format!("more entries than the header's {total}")));
            }
            at += BIN_POSITION;
            // Entries of a position are consecutive in the arena, each linking to the next.
            let first = book.entries.len();
            let mut last_key = None;
            for j in 0..n {
                let key = u16::from_le_bytes([bytes[at], bytes[at + 1]]);
                let count = u32_at(at + 2);
                if last_key.is_some_and(|k| k >= key) {
                    return Err(err(at, "move keys not strictly ascending".into()));
                }
                last_key = Some(key);
                let next = if j + 1 < n { (first + j + 2) as u32 } else { 0 };
                book.entries.push((key, count, next));
                at += BIN_ENTRY;
            }
            let i = book.slot(hash);
            book.slots[i] = (hash, first as u32 + 1);
            book.positions += 1;
        }
        if book.entries.len() != total {
            return Err(err(at, format!("{} entries, the header says {total}", book.entries.len())));
        }
        Ok(book)
    }
}

/// Magic bytes opening a binary book ([`Book::to_bytes`]).
pub const BIN_MAGIC: [u8; 4] = *b"CZBK";
/// Version of the binary book format ([`Book::to_bytes`]).
pub const BIN_VERSION: u32 = 1;
/// Bytes of a binary book's header.
const BIN_HEADER: usize = 16;
/// Bytes of a position's hash and entry count in a binary book.
const BIN_POSITION: usize = 12;
/// Bytes of one `(key, count)` entry in a binary book.
const BIN_ENTRY: usize = 6;

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::book::embedded::BOOK_BIN;
    use crate::model::book::table::BookMoves;

    /// A small book with a zero count, a key-0 move and a hash-0 position.
    fn small() -> Book {
        let mut b = Book::new();
        for (hash, key, count) in [(7, 3, 2), (7, 1, 5), (u64::MAX, 9, 0), (0, 0, 1), (1 << 40, 12, 3), (7, 3, 1)] {
            b.add(hash, key, count);
        }
        b
    }

    #[test]
    fn round_trip() {
        for book in [Book::new(), small()] {
            let bytes = book.to_bytes();
            let back = Book::from_bytes("test", &bytes).unwrap();
            assert_eq!(back.sorted(), book.sorted());
            assert_eq!(back.len(), book.len());
            assert_eq!(back.to_bytes(), bytes);
            for (hash, moves) in book.sorted() {
                assert!(back.contains(hash));
                for (key, count) in moves {
                    assert_eq!(BookMoves::count(&back.get(hash), key), count);
                }
            }
            assert!(!back.contains(12345) || book.contains(12345));
        }
        let b = Book::from_bytes("test", &small().to_bytes()).unwrap();
        assert_eq!(b.get(7).collect::<Vec<_>>(), [(1, 5), (3, 3)]);
        assert_eq!(b.get(0).collect::<Vec<_>>(), [(0, 1)]);
        assert!(b.get(8).is_empty());
        // Still a working book: adding to a loaded one grows it as usual.
        let mut b = b;
        for h in 100..5000 {
            b.observe(h, 1);
        }
        assert_eq!(BookMoves::count(&b.get(7), 1), 5);
        assert_eq!(b.len(), 4 + 4900);
    }

    #[test]
    fn order_independent() {
        let mut a = Book::new();
        let mut b = Book::new();
        let items: Vec<(u64, u16, u32)> = (0..3000u64).map(|i| (i.wrapping_mul(0x9E37_79B9_7F4A_7C15), (i % 7) as u16, i as u32)).collect();
        items.iter().for_each(|&(h, k, c)| a.add(h, k, c));
        items.iter().rev().for_each(|&(h, k, c)| b.add(h, k, c));
        assert_eq!(a.to_bytes(), b.to_bytes());
    }

    #[test]
    fn corrupt_bytes_give_errors() {
        let good = small().to_bytes();
        for len in 0..good.len() {
            assert!(Book::from_bytes("test", &good[..len]).is_err(), "truncated to {len}");
        }
        let real_cuts = [0, 3, 15, 16, 27, 28, 33, BOOK_BIN.len() / 2, BOOK_BIN.len() - 1];
        for len in real_cuts.into_iter().filter(|&len| len < BOOK_BIN.len()) {
            assert!(Book::from_bytes("test", &BOOK_BIN[..len]).is_err(), "embedded book truncated to {len}");
        }
        let patched = |at: usize, bytes: &[u8]| {
            let mut b = good.clone();
            b[at..at + bytes.len()].copy_from_slice(bytes);
            Book::from_bytes("test", &b)
        };
        let msg = |r: Result<Book, Error>| r.unwrap_err().to_string();
        assert!(msg(patched(0, b"XZBK")).contains("magic"));
        assert!(msg(patched(4, &2u32.to_le_bytes())).contains("version"));
        assert!(msg(patched(8, &5u32.to_le_bytes())).contains("bytes"));
        assert!(msg(patched(12, &u32::MAX.to_le_bytes())).contains("bytes"));
        let mut longer = good.clone();
        longer.push(0);
        assert!(Book::from_bytes("test", &longer).is_err());
        // Positions: hash 0 (1 entry) at 16, hash 7 (2 entries) at 34, 2^40 at 58, MAX at 76.
        assert!(msg(patched(16, &8u64.to_le_bytes())).contains("ascending"));
        assert!(msg(patched(24, &0u32.to_le_bytes())).contains("without entries"));
        assert!(msg(patched(24, &9u32.to_le_bytes())).contains("entries"));
        assert!(msg(patched(46, &3u16.to_le_bytes())).contains("ascending"));
        // A count moved from one position to another keeps the total but not the layout.
        let mut b = good.clone();
        b[24..28].copy_from_slice(&2u32.to_le_bytes());
        b[42..46].copy_from_slice(&1u32.to_le_bytes());
        assert!(Book::from_bytes("test", &b).is_err());
        // Any single damaged byte: an error or a book, never a panic.
        for at in 0..good.len() {
            for x in [0x01, 0x80, 0xFF] {
                let mut b = good.clone();
                b[at] ^= x;
                let _ = Book::from_bytes("test", &b);
            }
        }
    }
}
