//! Sunfish's material values and piece-square tables (PSTs).
//!
//! Source: Thomas Ahle's Sunfish (`sunfish.py`, <https://github.com/thomasahle/sunfish>,
//! GPL-3.0), the `piece` and `pst` tables. Values are integer centipawns. Sunfish lists each
//! table rank 8 first, from White's point of view; [`PST`] stores them indexed by shakmaty's
//! square numbering (a1 = 0 .. h8 = 63) for the side that owns the piece, with the piece value
//! already added, as Sunfish does when it pads its tables. Black's pieces read the table at the
//! vertically mirrored square (`sq ^ 56`).

use shakmaty::{Color, Role, Square};

/// Material value of each role in centipawns, indexed by `Role as usize - 1`
/// (pawn, knight, bishop, rook, queen, king). Sunfish's `piece` table.
pub const PIECE_VALUE: [i32; 6] = [100, 280, 320, 479, 929, 60000];

/// Sunfish's PSTs as printed in `sunfish.py`: per role, 64 entries, rank 8 first, file a first.
const SUNFISH_PST: [[i32; 64]; 6] = [
    // Pawn
    [
        0, 0, 0, 0, 0, 0, 0, 0, //
        78, 83, 86, 73, 102, 82, 85, 90, //
        7, 29, 21, 44, 40, 31, 44, 7, //
        -17, 16, -2, 15, 14, 0, 15, -13, //
        -26, 3, 10, 9, 6, 1, 0, -23, //
        -22, 9, 5, -11, -10, -2, 3, -19, //
        -31, 8, -7, -37, -36, -14, 3, -31, //
        0, 0, 0, 0, 0, 0, 0, 0, //
    ],
    // Knight
    [
        -66, -53, -75, -75, -10, -55, -58, -70, //
        -3, -6, 100, -36, 4, 62, -4, -14, //
        10, 67, 1, 74, 73, 27, 62, -2, //
        24, 24, 45, 37, 33, 41, 25, 17, //
        -1, 5, 31, 21, 22, 35, 2, 0, //
        -18, 10, 13, 22, 18, 15, 11, -14, //
        -23, -15, 2, 0, 2, 0, -23, -20, //
        -74, -23, -26, -24, -19, -35, -22, -69, //
    ],
    // Bishop
    [
        -59, -78, -82, -76, -23, -107, -37, -50, //
        -11, 20, 35, -42, -39, 31, 2, -22, //
        -9, 39, -32, 41, 52, -10, 28, -14, //
        25, 17, 20, 34, 26, 25, 15, 10, //
        13, 10, 17, 23, 17, 16, 0, 7, //
        14, 25, 24, 15, 8, 25, 20, 15, //
        19, 20, 11, 6, 7, 6, 20, 16, //
        -7, 2, -15, -12, -14, -15, -10, -10, //
    ],
    // Rook
    [
        35, 29, 33, 4, 37, 33, 56, 50, //
        55, 29, 56, 67, 55, 62, 34, 60, //
        19, 35, 28, 33, 45, 27, 25, 15, //
        0, 5, 16, 13, 18, -4, -9, -6, //
        -28, -35, -16, -21, -13, -29, -46, -30, //
        -42, -28, -42, -25, -25, -35, -26, -46, //
        -53, -38, -31, -26, -29, -43, -44, -53, //
        -30, -24, -18, 5, -2, -18, -31, -32, //
    ],
    // Queen
    [
        6, 1, -8, -104, 69, 24, 88, 26, //
        14, 32, 60, -10, 20, 76, 57, 24, //
        -2, 43, 32, 60, 72, 63, 43, 2, //
        1, -16, 22, 17, 25, 20, -13, -6, //
        -14, -15, -2, -5, -1, -10, -20, -22, //
        -30, -6, -13, -11, -16, -11, -16, -27, //
        -36, -18, 0, -19, -15, -15, -21, -38, //
        -39, -30, -31, -13, -31, -36, -34, -42, //
    ],
    // King
    [
        4, 54, 47, -99, -99, 60, 83, -62, //
        -32, 10, 55, 56, 56, 55, 10, 3, //
        -62, 12, -57, 44, -67, 28, 37, -31, //
        -55, 50, 11, -4, -19, 13, 0, -49, //
        -55, -43, -52, -28, -51, -47, -8, -50, //
        -47, -42, -43, -79, -64, -32, -29, -32, //
        -4, 3, -14, -50, -57, -18, 13, 4, //
        17, 30, -3, -14, 6, -1, 40, 18, //
    ],
];

/// Material + PST in centipawns, `[role index][square]` for the owner's point of view with
/// White's orientation (a1 = 0); see [`pst`] for the lookup that handles colour.
pub const PST: [[i32; 64]; 6] = build_pst();

const fn build_pst() -> [[i32; 64]; 6] {
    let mut out = [[0; 64]; 6];
    let mut r = 0;
    while r < 6 {
        let mut sq = 0;
        while sq < 64 {
            // Sunfish row 0 is rank 8: shakmaty square `sq` (rank = sq / 8) sits at row 7 - rank.
            let row = 7 - sq / 8;
            let file = sq % 8;
            out[r][sq] = SUNFISH_PST[r][row * 8 + file] + PIECE_VALUE[r];
            sq += 1;
        }
        r += 1;
    }
    out
}

/// Material + PST value in centipawns of a `color` `role` standing on `sq`, from the point of
/// view of its owner.
#[inline]
pub fn pst(color: Color, role: Role, sq: Square) -> i32 {
    let idx = match color {
        Color::White => sq as usize,
        Color::Black => sq as usize ^ 56,
    };
    PST[role as usize - 1][idx]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn white_and_black_tables_mirror() {
        // Sunfish's pawn table: e4 for White is row 4 (rank 4), file e: 6 + 100.
        assert_eq!(pst(Color::White, Role::Pawn, Square::E4), 106);
        assert_eq!(pst(Color::Black, Role::Pawn, Square::E5), 106);
        // Knight on g1 (Sunfish's last row, file g): -22 + 280.
        assert_eq!(pst(Color::White, Role::Knight, Square::G1), 258);
        assert_eq!(pst(Color::Black, Role::Knight, Square::G8), 258);
    }
}
