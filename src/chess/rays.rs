//! Empty-board attack tables and the slider-attack test built on them, shared by the move
//! generator, check detection, SEE and the searcher's board.

use shakmaty::{Bitboard, Square, attacks};

/// Empty-board attack tables.
const fn slide(sq: usize, deltas: &[(i32, i32)], repeat: bool) -> u64 {
    let mut out = 0u64;
    let (f0, r0) = ((sq % 8) as i32, (sq / 8) as i32);
    let mut i = 0;
    while i < deltas.len() {
        let (df, dr) = deltas[i];
        let (mut f, mut r) = (f0 + df, r0 + dr);
        while f >= 0 && f < 8 && r >= 0 && r < 8 {
            out |= 1u64 << (r * 8 + f);
            if !repeat {
                break;
            }
            f += df;
            r += dr;
        }
        i += 1;
    }
    out
}

const fn table(deltas: &[(i32, i32)], repeat: bool) -> [u64; 64] {
    let mut out = [0u64; 64];
    let mut sq = 0;
    while sq < 64 {
        out[sq] = slide(sq, deltas, repeat);
        sq += 1;
    }
    out
}

/// The squares a knight on each square attacks.
pub(crate) static KNIGHT_ATTACKS: [u64; 64] = table(&[(1, 2), (2, 1), (2, -1), (1, -2), (-1, -2), (-2, -1), (-2, 1), (-1, 2)], false);
/// The squares a king on each square attacks.
pub(crate) static KING_ATTACKS: [u64; 64] = table(&[(1, 0), (1, 1), (0, 1), (-1, 1), (-1, 0), (-1, -1), (0, -1), (1, -1)], false);
/// The squares a bishop on each square attacks on an empty board (1 KiB together with
/// [`ROOK_RAYS`], always in cache, unlike the magic tables): a cheap test of whether a
/// slider can attack a square at all before looking its attacks up.
pub(crate) static BISHOP_RAYS: [u64; 64] = table(&[(1, 1), (-1, 1), (-1, -1), (1, -1)], true);
/// [`BISHOP_RAYS`] for a rook.
pub(crate) static ROOK_RAYS: [u64; 64] = table(&[(1, 0), (0, 1), (-1, 0), (0, -1)], true);

/// The pieces of `diagonal` that attack `sq` like a bishop and those of `orthogonal` that
/// attack it like a rook, with occupancy `occupied`: `bishop_attacks(sq, occupied) & diagonal
/// | rook_attacks(sq, occupied) & orthogonal`, reading the magic tables (large, often a cache
/// miss) only when one of the pieces stands on an empty-board ray of `sq` ([`BISHOP_RAYS`],
/// [`ROOK_RAYS`]). Also what a bishop, rook or queen on `sq` attacks among those pieces.
#[inline]
pub(crate) fn slider_attacks(sq: Square, occupied: Bitboard, diagonal: Bitboard, orthogonal: Bitboard) -> Bitboard {
    let mut found = Bitboard::EMPTY;
    if (Bitboard(BISHOP_RAYS[sq as usize]) & diagonal).any() {
        found |= attacks::bishop_attacks(sq, occupied) & diagonal;
    }
    if (Bitboard(ROOK_RAYS[sq as usize]) & orthogonal).any() {
        found |= attacks::rook_attacks(sq, occupied) & orthogonal;
    }
    found
}
