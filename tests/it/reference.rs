//! Reference implementation of `chesszip::engine::Searcher::score_moves`: the test oracle of
//! the fast searcher (tests/it/search.rs), also compiled into benches/engine.rs.
//!
//! This is the original straightforward searcher (shakmaty positions cloned per node, legal
//! move generation, `Vec` per node, moves sorted by value). The fast searcher must return
//! exactly the same scores. The code is kept as it was, hence the lints allowed below.

#![allow(clippy::unnecessary_sort_by, clippy::only_used_in_recursion, clippy::too_many_arguments)]

use shakmaty::{Chess, Move, Position};

use chesszip::chess::{move_value, see};
use chesszip::engine::{MATE, SearchConfig};

/// The reference searcher.
#[derive(Default)]
pub struct Searcher {
    /// Nodes visited since construction (every position reached by making a move counts
    /// once, as in `chesszip::engine::Searcher`), for benchmarks.
    pub nodes: u64,
}

impl Searcher {
    /// A searcher with empty buffers.
    pub fn new() -> Self {
        Self::default()
    }

    /// Scores each of `moves` (legal in `pos`) in centipawns from the side to move's point of
    /// view, written to `scores` (cleared first, same length and order as `moves`).
    ///
    /// A move's score is its [`move_value`] minus the negamax value of the reply position
    /// searched `cfg.depth` plies deep plus quiescence; the position's own static evaluation is
    /// not included (scores are relative). Scores are clamped from below at
    /// `max(scores) - cfg.margin`.
    pub fn score_moves(&mut self, pos: &Chess, moves: &[Move], cfg: &SearchConfig, scores: &mut Vec<i32>) {
        scores.clear();
        let mut best = -2 * MATE;
        for m in moves {
            let value = move_value(pos, m);
            let s = if cfg.depth == 0 && !cfg.quiescence {
                value
            } else {
                let mut child = pos.clone();
                child.play_unchecked(*m);
                // The reply's search window: we only need exact values above best - margin.
                let alpha = best.saturating_sub(cfg.margin).max(-2 * MATE);
                let qdepth = if cfg.qdepth == 0 { None } else { Some(cfg.qdepth) };
                value - self.negamax(&child, cfg.depth, cfg.quiescence, qdepth, -MATE * 2, value - alpha, 1)
            };
            best = best.max(s);
            scores.push(s);
        }
        let floor = best - cfg.margin;
        for s in scores.iter_mut() {
            *s = (*s).max(floor);
        }
    }

    /// Fail-soft negamax from `pos`'s side to move, scores relative to `pos`'s static value
    /// (every child adds its move value), `depth` full plies then quiescence of at most
    /// `qdepth` capture plies (`None` = unlimited).
    fn negamax(&mut self, pos: &Chess, depth: u8, quiescence: bool, qdepth: Option<u8>, alpha: i32, beta: i32, ply: i32) -> i32 {
        if depth == 0 {
            if !quiescence {
                self.nodes += 1;
            }
            return if quiescence { self.quiesce(pos, alpha, beta, ply, qdepth) } else { 0 };
        }
        self.nodes += 1;
        let moves = pos.legal_moves();
        if moves.is_empty() {
            return if pos.is_check() { -MATE + ply } else { 0 };
        }
        let mut ordered: Vec<(i32, Move)> = moves.iter().map(|m| (move_value(pos, m), *m)).collect();
        ordered.sort_by(|a, b| b.0.cmp(&a.0));
        let mut best = -2 * MATE;
        let mut alpha = alpha;
        for (value, m) in ordered {
            let mut child = pos.clone();
            child.play_unchecked(m);
            let s = value - self.negamax(&child, depth - 1, quiescence, qdepth, value - beta, value - alpha, ply + 1);
            if s > best {
                best = s;
                if s > alpha {
                    alpha = s;
                    if alpha >= beta {
                        break;
                    }
                }
            }
        }
        best
    }

    /// Capture-only search with stand pat at 0 (the static value relative to the node), at
    /// most `left` more capture plies (`None` = unlimited); the last one, at `Some(1)`, is the
    /// best static exchange evaluation of the node's captures and promotions (or 0).
    fn quiesce(&mut self, pos: &Chess, alpha: i32, beta: i32, ply: i32, left: Option<u8>) -> i32 {
        self.nodes += 1;
        let mut best = 0;
        if left == Some(1) {
            return quiescence_moves(pos).iter().map(|m| see(pos, m)).fold(best, i32::max);
        }
        if best >= beta {
            return best;
        }
        let mut alpha = alpha.max(best);
        let mut captures: Vec<(i32, Move)> = quiescence_moves(pos).into_iter().map(|m| (move_value(pos, &m), m)).collect();
        captures.sort_by(|a, b| b.0.cmp(&a.0));
        for (value, m) in captures {
            if value <= alpha {
                break;
            }
            let mut child = pos.clone();
            child.play_unchecked(m);
            let s = value - self.quiesce(&child, value - beta, value - alpha, ply + 1, left.map(|k| k - 1));
            if s > best {
                best = s;
                if s > alpha {
                    alpha = s;
                    if alpha >= beta {
                        break;
                    }
                }
            }
        }
        best
    }
}

/// The moves quiescence looks at: the legal captures (en passant and capture-promotions
/// included) and the non-capture promotions.
fn quiescence_moves(pos: &Chess) -> Vec<Move> {
    pos.capture_moves().iter().chain(pos.promotion_moves().iter().filter(|m| !m.is_capture())).copied().collect()
}
