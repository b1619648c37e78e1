//! Opening books: move counts per position, mixed into the move model.
//!
//! Lichess games repeat openings; a move seen from the same position before is much more likely
//! than the engine alone thinks. Two sources of counts are combined:
//! - the prior book ([`PriorBook`], `models/book.txt`): counts from the training games, fitted
//!   data embedded in the binary;
//! - the online book ([`Book`]): counts of the moves of the games already coded in the same
//!   block. The encoder and decoder both fill it as they go, so it costs nothing to transmit.

use std::collections::HashMap;
use std::fmt::Write as _;
use std::sync::LazyLock;

use shakmaty::{Chess, Move, Position, san::San};

use super::game::{GameState, move_key, play_hashed};
use super::movegen::{Packed, legal_moves_sorted_into};
use crate::Error;
use crate::text::spelling::parse_token_fast;

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

/// The prior book: move counts from the training games, keyed by position.
///
/// File format (`models/book.txt`): one line per position, in an order where every position
/// comes after its parent. Line `k` (0-based, counting only data lines) reads
/// `<parent line> <SAN move from the parent> : <SAN>=<count> ...`; the first data line is the
/// initial position and reads `- - : ...`. Keying by move paths rather than by hashes keeps the
/// file independent of the hash function; hashes are computed when the file is loaded.
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

/// Text of the prior book embedded in this binary (`models/book.txt`).
pub const BOOK_TEXT: &str = include_str!("../../models/book.txt");

/// The prior book embedded in this binary.
pub static PRIOR: LazyLock<PriorBook> =
    LazyLock::new(|| PriorBook::parse("book.txt", BOOK_TEXT).unwrap_or_else(|e| panic!("embedded book: {e}")));
