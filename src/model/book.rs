//! Opening books: move counts per position, mixed into the move model.
//!
//! Lichess games repeat openings; a move seen from the same position before is much more likely
//! than the engine alone thinks. Two sources of counts are combined:
//! - the prior book ([`PriorBook`], `models/book.txt`): counts from the training games, fitted
//!   data embedded in the binary;
//! - the online book ([`Book`]): counts of the moves of the games already coded in the same
//!   block. The encoder and decoder both fill it as they go, so it costs nothing to transmit.
//!
//! `models/book.txt` is the source of truth, but parsing it (legal moves, SAN, hashes) takes
//! about 20 ms, too much for every start-up. The binary embeds instead `models/book.bin`, the
//! same counts already keyed by position hash ([`Book::to_bytes`]), derived from the text by
//! `cargo run --release --bin tune -- book-bin` (also written by `tune fit --book-out`). A unit
//! test checks that the two agree.

use std::collections::HashMap;
use std::fmt::Write as _;
use std::sync::LazyLock;

use shakmaty::{Chess, Move, Position, san::San};

use super::game::{GameState, play_hashed};
use crate::chess::move_key;
use crate::chess::movegen::{Packed, legal_moves_sorted_into};
use crate::error::Error;
use crate::text::spelling::parse_token_fast;

/// Largest slot table kept for reuse (16 MiB): an unusually large block's book is freed rather
/// than held for the rest of the thread's life.
const MAX_SPARE_SLOTS: usize = 1 << 20;

thread_local! {
    /// The tables of the last book recycled on this thread ([`Book::recycle`]).
    static SPARE: std::cell::Cell<Option<Book>> = const { std::cell::Cell::new(None) };
}

/// Move counts per position hash (canonical move keys, see [`move_key`]).
///
/// An open-addressing table over the position hashes (Zobrist hashes are uniformly random, so
/// their low bits index it directly), each slot heading a list of `(key, count)` entries in one
/// arena: no allocation per position, and a lookup is one probe in the common case. Nothing
/// depends on the table's order: it is only ever searched by hash and by key.
#[derive(Clone, Debug)]
pub struct Book {
    /// `(hash, first entry + 1)`; 0 marks an empty slot. A power of two long.
    slots: Vec<(u64, u32)>,
    /// `(key, count, next entry of the same position + 1 or 0)`.
    entries: Vec<(u16, u32, u32)>,
    /// Positions in the book.
    positions: usize,
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
    pub(super) const fn unallocated() -> Self {
        Book { slots: Vec::new(), entries: Vec::new(), positions: 0 }
    }

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

    /// The slot of `hash`: its own, or the empty one where it would go.
    #[inline]
    fn slot(&self, hash: u64) -> usize {
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
    pub fn prefetch(&self, hash: u64) {
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
    fn with_capacity(positions: usize) -> Self {
        let slots = (2 * positions).next_power_of_two().max(1 << 10);
        Book { slots: vec![(0, 0); slots], entries: Vec::new(), positions: 0 }
    }

    /// The book's positions, ascending by hash, each with its `(key, count)` entries ascending
    /// by key.
    fn sorted(&self) -> Vec<(u64, Vec<(u16, u32)>)> {
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

/// The prior book: move counts from the training games, keyed by position.
///
/// File format (`models/book.txt`): one line per position, in an order where every position
/// comes after its parent. Line `k` (0-based, counting only data lines) reads
/// `<parent line> <SAN move from the parent> : <SAN>=<count> ...`; the first data line is the
/// initial position and reads `- - : ...`. Keying by move paths rather than by hashes keeps the
/// reviewable text independent of the hash function. What the binary loads is its derived
/// form, `models/book.bin` ([`Book::to_bytes`]), keyed by shakmaty's Zobrist hashes: after a
/// change of the text, the hashes or the move keys, regenerate it with
/// `cargo run --release --bin tune -- book-bin` (a unit test compares both).
#[derive(Clone, Debug, Default)]
pub struct PriorBook {
    /// Counts per position hash.
    pub book: Book,
}

impl PriorBook {
    /// Parses a book file; `name` is used in errors.
    ///
    /// # Errors
    /// [`Error::Model`] on malformed lines, unknown parents or illegal moves.
    pub fn parse(name: &str, text: &str) -> Result<PriorBook, Error> {
        let err = |line: usize, message: String| Error::Model { name: name.into(), line, message };
        // Each data line's position and hash; the legal moves of the last parent seen
        // (`parent_of`: a parent's children come in a row) and of the line's own position.
        let mut states: Vec<(Chess, u64)> = Vec::new();
        let mut parent_legal: Vec<Packed> = Vec::with_capacity(256);
        let mut parent_of = usize::MAX;
        let mut legal: Vec<Packed> = Vec::with_capacity(256);
        let mut book = Book::new();
        for (i, raw) in text.lines().enumerate() {
            let line = raw.split('#').next().unwrap_or("").trim();
            if line.is_empty() {
                continue;
            }
            let (path, counts) = line.split_once(':').ok_or_else(|| err(i + 1, "missing `:`".into()))?;
            let mut parts = path.split_whitespace();
            let (parent, mv) = (parts.next(), parts.next());
            let (pos, hash) = match (parent, mv) {
                (Some("-"), Some("-")) => {
                    let root = GameState::new();
                    (root.pos, root.hash)
                }
                (Some(p), Some(m)) => {
                    let p: usize = p.parse().map_err(|_| err(i + 1, format!("bad parent `{p}`")))?;
                    let (parent, parent_hash) = states.get(p).ok_or_else(|| err(i + 1, format!("unknown parent {p}")))?;
                    if parent_of != p {
                        parent_legal.clear();
                        legal_moves_sorted_into(parent, &mut parent_legal);
                        parent_of = p;
                    }
                    let mv = resolve_san(parent, &parent_legal, m).ok_or_else(|| err(i + 1, format!("illegal move `{m}`")))?;
                    let mut pos = parent.clone();
                    let hash = play_hashed(&mut pos, *parent_hash, mv);
                    (pos, hash)
                }
                _ => return Err(err(i + 1, "expected `<parent> <move> :`".into())),
            };
            states.push((pos, hash));
            let k = states.len() - 1;
            let mut items = counts.split_whitespace().peekable();
            if items.peek().is_some() {
                legal.clear();
                legal_moves_sorted_into(&states[k].0, &mut legal);
            }
            for item in items {
                let (m, c) = item.split_once('=').ok_or_else(|| err(i + 1, format!("bad count `{item}`")))?;
                let mv = resolve_san(&states[k].0, &legal, m).ok_or_else(|| err(i + 1, format!("illegal move `{m}`")))?;
                let c: u32 = c.parse().map_err(|_| err(i + 1, format!("bad count `{item}`")))?;
                book.add(hash, move_key(&mv), c);
            }
        }
        Ok(PriorBook { book })
    }

    /// Builds the book text from games (move lists from the initial position): positions before
    /// ply `max_ply` from which at least `min_count` moves were played.
    pub fn build_text(games: &[Vec<Move>], max_ply: usize, min_count: u32) -> String {
        // Count moves per position, remembering one path (parent hash + move) per position.
        let mut counts: HashMap<u64, Vec<(Move, u32)>> = HashMap::new();
        let mut first_path: HashMap<u64, (u64, Move, Chess)> = HashMap::new();
        let root = GameState::new();
        for moves in games {
            let mut st = root.clone();
            for m in moves.iter().take(max_ply) {
                let entry = counts.entry(st.hash).or_default();
                match entry.iter_mut().find(|(k, _)| k == m) {
                    Some((_, c)) => *c += 1,
                    None => entry.push((*m, 1)),
                }
                let parent = st.hash;
                let parent_pos = st.pos.clone();
                st.play(*m);
                first_path.entry(st.hash).or_insert((parent, *m, parent_pos));
            }
        }
        // Keep positions with enough plays whose ancestors are all kept, in breadth-first order.
        let kept = |h: &u64| counts.get(h).is_some_and(|v| v.iter().map(|&(_, c)| c).sum::<u32>() >= min_count);
        let mut order: Vec<u64> = vec![root.hash];
        let mut line_of: HashMap<u64, usize> = HashMap::from([(root.hash, 0)]);
        let mut out = String::new();
        let mut k = 0;
        while k < order.len() {
            let h = order[k];
            let pos = if k == 0 {
                root.pos.clone()
            } else {
                let (_, m, parent_pos) = &first_path[&h];
                let mut p = parent_pos.clone();
                p.play_unchecked(*m);
                p
            };
            let mut moves = counts[&h].clone();
            moves.sort_by(|a, b| b.1.cmp(&a.1).then(move_key(&a.0).cmp(&move_key(&b.0))));
            if k == 0 {
                out.push_str("- - :");
            } else {
                let (parent, m, parent_pos) = &first_path[&h];
                let _ = write!(out, "{} {} :", line_of[parent], San::from_move(parent_pos, *m));
            }
            for (m, c) in &moves {
                let _ = write!(out, " {}={c}", San::from_move(&pos, *m));
            }
            out.push('\n');
            for (m, _) in &moves {
                let mut child = pos.clone();
                child.play_unchecked(*m);
                let child_hash = GameState::from_position(child).hash;
                if kept(&child_hash) && !line_of.contains_key(&child_hash) && first_path.get(&child_hash).is_some_and(|p| p.0 == h) {
                    line_of.insert(child_hash, order.len());
                    order.push(child_hash);
                }
            }
            k += 1;
        }
        out
    }
}

fn parse_san(pos: &Chess, s: &str) -> Option<Move> {
    San::from_ascii(s.as_bytes()).ok()?.to_move(pos).ok()
}

/// [`parse_san`] with the legal moves of `pos` at hand: canonical SAN is resolved against them
/// ([`parse_token_fast`], which picks the same move as shakmaty whenever it picks one), anything
/// else by shakmaty.
fn resolve_san(pos: &Chess, legal: &[Packed], s: &str) -> Option<Move> {
    match parse_token_fast(s.as_bytes(), legal) {
        Some((i, _)) => {
            debug_assert_eq!(parse_san(pos, s), Some(legal[i].to_move()), "{s}");
            Some(legal[i].to_move())
        }
        None => parse_san(pos, s),
    }
}

/// Text of the prior book embedded in this binary (`models/book.txt`): the source of truth, and
/// part of the model id ([`super::Model::id`]).
pub const BOOK_TEXT: &str = include_str!("../../models/book.txt");

/// The prior book embedded in this binary in its binary form (`models/book.bin`, see
/// [`Book::to_bytes`]), generated from [`BOOK_TEXT`] by `tune book-bin`.
pub const BOOK_BIN: &[u8] = include_bytes!("../../models/book.bin");

/// The prior book embedded in this binary, loaded from [`BOOK_BIN`] on first use.
pub static PRIOR: LazyLock<PriorBook> =
    LazyLock::new(|| PriorBook { book: Book::from_bytes("book.bin", BOOK_BIN).unwrap_or_else(|e| panic!("embedded book: {e}")) });

#[cfg(test)]
mod tests {
    use super::*;

    /// A small book with a zero count, a key-0 move and a hash-0 position.
    fn small() -> Book {
        let mut b = Book::new();
        for (hash, key, count) in [(7, 3, 2), (7, 1, 5), (u64::MAX, 9, 0), (0, 0, 1), (1 << 40, 12, 3), (7, 3, 1)] {
            b.add(hash, key, count);
        }
        b
    }

    /// How to fix a stale `models/book.bin`.
    const REGENERATE: &str = "regenerate it with `cargo run --release --bin tune -- book-bin` and commit it";

    #[test]
    fn embedded_binary_matches_text() {
        let text = PriorBook::parse("book.txt", BOOK_TEXT).expect("models/book.txt parses").book;
        let bin = Book::from_bytes("book.bin", BOOK_BIN).unwrap_or_else(|e| panic!("models/book.bin does not load ({e}): {REGENERATE}"));
        assert!(
            text.sorted() == bin.sorted(),
            "models/book.bin does not hold the counts of models/book.txt (or the position hashes changed): {REGENERATE}"
        );
        assert!(text.to_bytes() == BOOK_BIN, "models/book.bin is not in canonical form: {REGENERATE}");
        assert_eq!(PRIOR.book.len(), text.len());
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
