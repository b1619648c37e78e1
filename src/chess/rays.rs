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

/// The eight line directions `(file step, rank step)`: the first four raise the square index
/// (a1 = 0, b1 = 1, a2 = 8), the last four lower it; those with both steps non-zero
/// (`dir & 2 != 0`) are diagonals.
const DIRECTIONS: [(i32, i32); 8] = [(1, 0), (0, 1), (1, 1), (-1, 1), (-1, 0), (0, -1), (-1, -1), (1, -1)];

/// `LINE_RAYS[dir][sq]`: the squares from `sq` (not included) to the board's edge in direction
/// `dir` of [`DIRECTIONS`] (4 KiB).
static LINE_RAYS: [[u64; 64]; 8] = {
    let mut out = [[0u64; 64]; 8];
    let mut dir = 0;
    while dir < 8 {
        out[dir] = table(&[DIRECTIONS[dir]], true);
        dir += 1;
    }
    out
};

/// `DIRECTION_TO[a][b]`: the direction of [`DIRECTIONS`] in which `b` lies from `a`, or 8 where
/// the two squares share no rank, file or diagonal (or are the same square) (4 KiB).
static DIRECTION_TO: [[u8; 64]; 64] = {
    let mut out = [[8u8; 64]; 64];
    let mut a = 0;
    while a < 64 {
        let mut dir = 0;
        while dir < 8 {
            let ray = LINE_RAYS[dir][a];
            let mut b = 0;
            while b < 64 {
                if ray & (1u64 << b) != 0 {
                    out[a][b] = dir as u8;
                }
                b += 1;
            }
            dir += 1;
        }
        a += 1;
    }
    out
};

/// The piece that attacks `sq` through `through` once `through` is vacated: the first piece of
/// `occupied` beyond `through` on the line from `sq` through `through`, if it is one of
/// `diagonal` (on a diagonal) or of `orthogonal` (on a rank or file); empty where the squares
/// share no line. With the pieces attacking `sq` before `through` was vacated, this gives every
/// piece of `diagonal` and `orthogonal` that attacks it after (no other line through `sq`
/// changed), with two table reads instead of magic lookups.
#[inline]
pub(crate) fn xray_through(sq: Square, through: Square, occupied: Bitboard, diagonal: Bitboard, orthogonal: Bitboard) -> Bitboard {
    let dir = DIRECTION_TO[sq as usize][through as usize] as usize;
    if dir >= 8 {
        return Bitboard::EMPTY;
    }
    let beyond = Bitboard(LINE_RAYS[dir][through as usize]) & occupied;
    let nearest = if dir < 4 { beyond.first() } else { beyond.last() };
    let kind = if dir & 2 != 0 { diagonal } else { orthogonal };
    nearest.map_or(Bitboard::EMPTY, |s| Bitboard::from_square(s) & kind)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn xray_through_finds_the_slider_magic_lookups_find() {
        // Every pair of squares, with pseudo-random occupancies and slider sets: what opens
        // when `through` is vacated is what `slider_attacks` gives after and not before.
        let mut x: u64 = 0x9e37_79b9_7f4a_7c15;
        let mut next = move || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x
        };
        let mut found = 0;
        for _ in 0..40 {
            let occupied = Bitboard(next() & next());
            let diagonal = occupied & Bitboard(next());
            let orthogonal = occupied & Bitboard(next());
            for sq in Square::ALL {
                // The squares SEE vacates: pieces first on their line from `sq` (attackers).
                for through in slider_attacks(sq, occupied, occupied, occupied) {
                    let after = occupied.without(through);
                    let before = slider_attacks(sq, occupied, diagonal, orthogonal);
                    let expected = slider_attacks(sq, after, diagonal, orthogonal) & !before;
                    assert_eq!(xray_through(sq, through, after, diagonal, orthogonal), expected, "{sq:?} {through:?}");
                    found += expected.count();
                }
                // A knight's square shares no line with `sq`: nothing opens.
                for knight in Bitboard(KNIGHT_ATTACKS[sq as usize]) {
                    assert_eq!(xray_through(sq, knight, occupied.without(knight), Bitboard::FULL, Bitboard::FULL), Bitboard::EMPTY);
                }
            }
        }
        assert!(found > 1000, "{found}");
    }
}
