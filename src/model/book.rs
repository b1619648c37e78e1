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
use std::hash::{BuildHasherDefault, Hasher};
use std::sync::LazyLock;

use shakmaty::{Chess, Move, Position, san::San};

use super::game::{GameState, move_key};
use crate::Error;

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

type CountMap = HashMap<u64, Vec<(u16, u32)>, BuildHasherDefault<ZobristHasher>>;

/// Move counts per position hash (canonical move keys, see [`move_key`]).
#[derive(Default, Clone, Debug)]
pub struct Book {
    entries: CountMap,
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

    /// Adds `count` plays of move `key` from position `hash`.
    pub fn add(&mut self, hash: u64, key: u16, count: u32) {
        let entry = self.entries.entry(hash).or_default();
        match entry.iter_mut().find(|(k, _)| *k == key) {
            Some((_, c)) => *c += count,
            None => entry.push((key, count)),
        }
    }

    /// Counts one play of move `key` from position `hash`.
    pub fn observe(&mut self, hash: u64, key: u16) {
        self.add(hash, key, 1);
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
        let mut states: Vec<GameState> = Vec::new();
        let mut book = Book::new();
        for (i, raw) in text.lines().enumerate() {
            let line = raw.split('#').next().unwrap_or("").trim();
            if line.is_empty() {
                continue;
            }
            let (path, counts) = line.split_once(':').ok_or_else(|| err(i + 1, "missing `:`".into()))?;
            let mut parts = path.split_whitespace();
            let (parent, mv) = (parts.next(), parts.next());
            let state = match (parent, mv) {
                (Some("-"), Some("-")) => GameState::new(),
                (Some(p), Some(m)) => {
                    let p: usize = p.parse().map_err(|_| err(i + 1, format!("bad parent `{p}`")))?;
                    let parent = states.get(p).ok_or_else(|| err(i + 1, format!("unknown parent {p}")))?;
                    let mv = parse_san(&parent.pos, m).ok_or_else(|| err(i + 1, format!("illegal move `{m}`")))?;
                    let mut st = parent.clone();
                    st.play(mv);
                    st
                }
                _ => return Err(err(i + 1, "expected `<parent> <move> :`".into())),
            };
            for item in counts.split_whitespace() {
                let (m, c) = item.split_once('=').ok_or_else(|| err(i + 1, format!("bad count `{item}`")))?;
                let mv = parse_san(&state.pos, m).ok_or_else(|| err(i + 1, format!("illegal move `{m}`")))?;
                let c: u32 = c.parse().map_err(|_| err(i + 1, format!("bad count `{item}`")))?;
                book.add(state.hash, move_key(&mv), c);
            }
            states.push(state);
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
            let pos = if k == 0 { root.pos.clone() } else {
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

/// Text of the prior book embedded in this binary (`models/book.txt`).
pub const BOOK_TEXT: &str = include_str!("../../models/book.txt");

/// The prior book embedded in this binary.
pub static PRIOR: LazyLock<PriorBook> =
    LazyLock::new(|| PriorBook::parse("book.txt", BOOK_TEXT).unwrap_or_else(|e| panic!("embedded book: {e}")));
