//! Which moves give check, answered cheaply for all moves of a position.

use shakmaty::{Bitboard, Chess, Move, Position, Role, Square, attacks};

use super::movegen::Packed;
use super::rays::{BISHOP_RAYS, ROOK_RAYS};

/// Precomputed data to answer "does this move give check?" for every move of a position.
#[derive(Clone, Copy, Debug)]
pub struct CheckInfo {
    king: Option<Square>,
    /// Squares from which a piece of each role (index `role - 1`) of the mover attacks the king
    /// (two empty entries more, so that any 3-bit index reads without a bounds check).
    check_squares: [Bitboard; 8],
    /// The mover's pieces that block one of its own sliders' lines to the enemy king.
    discoverers: Bitboard,
}

impl CheckInfo {
    /// Check data for the side to move of `pos`.
    pub fn new(pos: &Chess) -> CheckInfo {
        let us = pos.turn();
        let board = pos.board();
        let occupied = board.occupied();
        let Some(king) = board.king_of(!us) else {
            return CheckInfo { king: None, check_squares: [Bitboard::EMPTY; 8], discoverers: Bitboard::EMPTY };
        };
        let bishop = attacks::bishop_attacks(king, occupied);
        let rook = attacks::rook_attacks(king, occupied);
        let check_squares = [
            attacks::pawn_attacks(!us, king),
            attacks::knight_attacks(king),
            bishop,
            rook,
            bishop | rook,
            Bitboard::EMPTY,
            Bitboard::EMPTY,
            Bitboard::EMPTY,
        ];
        let mut discoverers = Bitboard::EMPTY;
        let snipers = (Bitboard(ROOK_RAYS[king as usize]) & board.rooks_and_queens()
            | Bitboard(BISHOP_RAYS[king as usize]) & board.bishops_and_queens())
            & board.by_color(us);
        for sniper in snipers {
            let between = attacks::between(king, sniper) & occupied;
            if between.count() == 1 {
                discoverers |= between & board.by_color(us);
            }
        }
        CheckInfo { king: Some(king), check_squares, discoverers }
    }

    /// Whether legal move `m` of `pos` (the position this was built for) gives check.
    #[inline]
    pub fn gives_check(&self, pos: &Chess, m: &Move) -> bool {
        let Some(king) = self.king else { return false };
        match *m {
            Move::Normal { role, from, to, promotion: None, .. } => {
                self.check_squares[role as usize - 1].contains(to) || (self.discoverers.contains(from) && !attacks::aligned(from, to, king))
            }
            _ => {
                // Promotions, castling and en passant change lines in unusual ways: play it.
                let mut after = pos.clone();
                after.play_unchecked(*m);
                after.is_check()
            }
        }
    }
}

impl CheckInfo {
    /// [`CheckInfo::gives_check`] for a packed move (the common case without matching on a
    /// [`Move`]).
    #[inline]
    pub(crate) fn gives_check_packed(&self, pos: &Chess, p: Packed) -> bool {
        let Some(king) = self.king else { return false };
        if p.is_plain() {
            let (from, to) = (Square::new(p.from() as u32), Square::new(p.to() as u32));
            self.check_squares[p.role()].contains(to) || (self.discoverers.contains(from) && !attacks::aligned(from, to, king))
        } else {
            self.gives_check_special(pos, p)
        }
    }

    /// [`CheckInfo::gives_check`] of a promotion, castling or en passant: rare, kept out of the
    /// callers' loops.
    #[cold]
    #[inline(never)]
    fn gives_check_special(&self, pos: &Chess, p: Packed) -> bool {
        self.gives_check(pos, &p.to_move())
    }
}

/// Role index in `0..6` (pawn = 0 .. king = 5).
#[inline]
pub fn role_index(role: Role) -> usize {
    role as usize - 1
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::chess::testing::parse_game;

    #[test]
    fn gives_check_agrees_with_playing_the_move() {
        let text = include_str!("../../data/Chess_Games.txt");
        let mut checked = 0;
        for line in text.lines().take(200) {
            let game = parse_game(line.as_bytes()).expect("benchmark lines parse");
            let mut pos = Chess::default();
            for m in &game.moves {
                let info = CheckInfo::new(&pos);
                for cand in pos.legal_moves() {
                    let mut after = pos.clone();
                    after.play_unchecked(cand);
                    assert_eq!(info.gives_check(&pos, &cand), after.is_check(), "{cand:?}");
                    checked += 1;
                }
                pos.play_unchecked(*m);
            }
        }
        assert!(checked > 100_000);
    }
}
