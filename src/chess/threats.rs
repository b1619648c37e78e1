//! Cheap attack summary of a position for the move model's features.

use shakmaty::{Bitboard, Board, Chess, Color, Position, Role, Square, attacks};

use super::pst::PIECE_VALUE;
use super::rays::{BISHOP_RAYS, ROOK_RAYS};

/// Which of the side to move's pieces the opponent attacks, and which are defended, computed
/// once per position from plain attack sets (shakmaty's attack tables, full occupancy: pins,
/// checks and x-rays through other pieces are ignored).
///
/// All fields are bitboards (shakmaty square numbering, a1 = 0). "Our" = the side to move.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Threats {
    /// Every square the opponent attacks (including its king's attacks).
    pub their_attacks: Bitboard,
    /// Every square we attack.
    pub our_attacks: Bitboard,
    /// Our pieces that the opponent attacks (includes our king when in check).
    pub attacked: Bitboard,
    /// Our pieces that another of our pieces defends (attacks).
    pub defended: Bitboard,
    /// Our pieces attacked by an enemy piece of lower material value (Sunfish's
    /// [`PIECE_VALUE`]), e.g. a rook attacked by a knight or a knight attacked by a pawn:
    /// threatened even if defended.
    pub attacked_by_lesser: Bitboard,
    /// Every square the opponent's pawns attack.
    pub their_pawn_attacks: Bitboard,
    /// The opponent's pieces that another of its pieces defends.
    pub their_defended: Bitboard,
    /// Every square the opponent's bishops and queens attack.
    pub their_diagonal_attacks: Bitboard,
    /// Every square the opponent's rooks and queens attack.
    pub their_orthogonal_attacks: Bitboard,
}

impl Threats {
    /// Computes the summary for `pos`'s side to move.
    pub fn new(pos: &Chess) -> Threats {
        let board = pos.board();
        let us = pos.turn();
        let them = !us;
        let ours = board.by_color(us);
        let their_by_role = attacks_by_role(board, them);
        let our_by_role = attacks_by_role(board, us);
        let their_attacks = their_by_role.iter().fold(Bitboard::EMPTY, |a, &b| a | b);
        let our_attacks = our_by_role.iter().fold(Bitboard::EMPTY, |a, &b| a | b);

        let mut attacked_by_lesser = Bitboard::EMPTY;
        for role in Role::ALL {
            let value = PIECE_VALUE[role as usize - 1];
            let lesser = Role::ALL
                .into_iter()
                .filter(|r| PIECE_VALUE[*r as usize - 1] < value)
                .fold(Bitboard::EMPTY, |a, r| a | their_by_role[r as usize - 1]);
            attacked_by_lesser |= lesser & board.by_role(role) & ours;
        }

        Threats {
            their_attacks,
            our_attacks,
            attacked: their_attacks & ours,
            defended: our_attacks & ours,
            attacked_by_lesser,
            their_pawn_attacks: their_by_role[0],
            their_defended: their_attacks & board.by_color(them),
            their_diagonal_attacks: their_by_role[2] | their_by_role[4],
            their_orthogonal_attacks: their_by_role[3] | their_by_role[4],
        }
    }

    /// Whether a normal move (not en passant, not castling) from `from` to `to` of the side to
    /// move meets no recapture: the opponent does not attack the destination, and no
    /// opponent's slider of the line through both squares (a bishop or queen for a diagonal, a
    /// rook or queen for a rank or file) attacks the origin. Then the move's static exchange
    /// ([`super::see()`]) is [`super::see_unopposed`].
    ///
    /// Why: non-sliders attack the destination whatever the occupancy, so they are in
    /// `their_attacks` already. A slider that attacks the destination only once the origin is
    /// vacated has the origin as the one piece between them, on a line of its kind through both
    /// squares, so it attacks the origin. A knight's move, or any move whose squares share no
    /// line, therefore meets no recapture when its destination is not attacked. (En passant also
    /// vacates the captured pawn's square, so it is not covered.)
    #[inline]
    pub fn unopposed(&self, from: Square, to: Square) -> bool {
        if self.their_attacks.contains(to) {
            return false;
        }
        let through = if BISHOP_RAYS[to as usize] & (1 << from as u32) != 0 {
            self.their_diagonal_attacks
        } else if ROOK_RAYS[to as usize] & (1 << from as u32) != 0 {
            self.their_orthogonal_attacks
        } else {
            Bitboard::EMPTY
        };
        !through.contains(from)
    }

    /// Our pieces that are attacked and not defended.
    pub fn hanging(&self) -> Bitboard {
        self.attacked & !self.defended
    }
}

/// Squares attacked by `color`'s pieces of each role, indexed by `Role as usize - 1`.
fn attacks_by_role(board: &Board, color: Color) -> [Bitboard; 6] {
    let occupied = board.occupied();
    let mut out = [Bitboard::EMPTY; 6];
    for role in Role::ALL {
        let mut acc = Bitboard::EMPTY;
        for sq in board.by_role(role) & board.by_color(color) {
            acc |= match role {
                Role::Pawn => attacks::pawn_attacks(color, sq),
                Role::Knight => attacks::knight_attacks(sq),
                Role::Bishop => attacks::bishop_attacks(sq, occupied),
                Role::Rook => attacks::rook_attacks(sq, occupied),
                Role::Queen => attacks::queen_attacks(sq, occupied),
                Role::King => attacks::king_attacks(sq),
            };
        }
        out[role as usize - 1] = acc;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use shakmaty::{CastlingMode, Square, fen::Fen};

    fn position(fen: &str) -> Chess {
        fen.parse::<Fen>().unwrap().into_position(CastlingMode::Standard).unwrap()
    }

    #[test]
    fn threats_basic() {
        // White: Kg1, Qd1, Nc3, Rf1, pawn b2. Black: Kg8, Rd8, Bb4 and pawn d4 (both attack c3;
        // the pawn also blocks the rook's d-file).
        let pos = position("3r2k1/8/8/8/1b1p4/2N5/1P6/3Q1RK1 w - - 0 1");
        let t = Threats::new(&pos);
        // The knight on c3 is attacked by the pawn and the bishop, defended by b2 and the queen.
        assert!(t.attacked.contains(Square::C3));
        assert!(t.defended.contains(Square::C3));
        assert!(t.attacked_by_lesser.contains(Square::C3));
        // The queen on d1 is not attacked (d4 pawn blocks the rook), but defended by the rook.
        assert!(!t.attacked.contains(Square::D1));
        assert!(t.defended.contains(Square::D1));
        // Nothing hangs.
        assert_eq!(t.hanging(), Bitboard::EMPTY);
        // The rook on f1 is defended by the king and the queen; g1 (king) not attacked.
        assert!(t.defended.contains(Square::F1));
        assert!(!t.attacked.contains(Square::G1));
        // Black to move: the bishop on b4 is attacked by the queen on d2 and undefended.
        let pos = position("4k3/8/8/8/1b6/8/3Q4/4K3 b - - 0 1");
        let t = Threats::new(&pos);
        assert!(t.attacked.contains(Square::B4));
        assert!(t.hanging().contains(Square::B4));
        assert!(!t.attacked_by_lesser.contains(Square::B4));
    }
}
