//! The first layer's piece-square sums, kept up to date incrementally along the games of a block
//! ([`Accumulator`]).

use shakmaty::{Bitboard, Color, Role};

use super::inputs::piece_input;
use super::kernels::{add_row, sub_row};
use super::weights::Network;

/// More changed squares than this since the last position: recompute the accumulator.
const MAX_INCREMENTAL: u32 = 8;

/// The first layer's piece-square sums of the current position, for both perspectives, and the
/// pieces they were computed for, so that the next position only adds and removes what changed.
#[derive(Clone)]
pub struct Accumulator {
    /// `[white's view, black's view]`, `h1` sums each, piece-square part of `W1` only.
    sums: [Vec<i32>; 2],
    /// The pieces summed: by colour (white, black) and role (pawn .. king).
    pieces: [[Bitboard; 6]; 2],
    valid: bool,
}

impl Accumulator {
    /// An empty accumulator for `net` (filled by the first [`Accumulator::update`]).
    pub fn new(net: &Network) -> Self {
        Accumulator { sums: [vec![0; net.h1], vec![0; net.h1]], pieces: [[Bitboard::EMPTY; 6]; 2], valid: false }
    }

    /// Brings the sums to the pieces of `board`: incrementally when few squares changed, else
    /// recomputed. Inlined, so that the caller's vector extensions (AVX2) add the rows.
    #[inline(always)]
    pub fn update(&mut self, net: &Network, board: &shakmaty::Board) {
        let now: [[Bitboard; 6]; 2] = [Color::White, Color::Black].map(|c| Role::ALL.map(|r| board.by_piece(r.of(c))));
        let changed: u32 =
            (0..2).flat_map(|c| (0..6).map(move |r| (c, r))).map(|(c, r)| (now[c][r] ^ self.pieces[c][r]).count() as u32).sum();
        if !self.valid || changed > MAX_INCREMENTAL {
            for s in &mut self.sums {
                s.fill(0);
            }
            self.pieces = [[Bitboard::EMPTY; 6]; 2];
            self.valid = true;
        }
        for (c, color) in [Color::White, Color::Black].into_iter().enumerate() {
            for (r, role) in Role::ALL.into_iter().enumerate() {
                let (old, new) = (self.pieces[c][r], now[c][r]);
                for sq in old & !new {
                    for (view, s) in [Color::White, Color::Black].into_iter().zip(self.sums.iter_mut()) {
                        sub_row(s, &net.w1[piece_input(view, color, role, sq as usize) * net.h1..][..net.h1]);
                    }
                }
                for sq in new & !old {
                    for (view, s) in [Color::White, Color::Black].into_iter().zip(self.sums.iter_mut()) {
                        add_row(s, &net.w1[piece_input(view, color, role, sq as usize) * net.h1..][..net.h1]);
                    }
                }
            }
        }
        self.pieces = now;
    }

    /// The sums seen by `perspective`.
    pub fn sums(&self, perspective: Color) -> &[i32] {
        // Not `perspective as usize`: shakmaty numbers Black 0 and White 1.
        &self.sums[if perspective.is_white() { 0 } else { 1 }]
    }
}
