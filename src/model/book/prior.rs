//! The prior book ([`PriorBook`]): counts from the training games, read from and written as the
//! reviewable text of `models/book.txt`.

use std::collections::HashMap;
use std::fmt::Write as _;

use shakmaty::{Chess, Move, Position, san::San};

use super::table::Book;
use crate::chess::move_key;
use crate::chess::movegen::{Packed, legal_moves_sorted_into};
use crate::error::Error;
use crate::model::game::{GameState, play_hashed};
use crate::text::spelling::parse_token_fast;

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
    pub(crate) fn build_text(games: &[Vec<Move>], max_ply: usize, min_count: u32) -> String {
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
