//! Material + piece-square evaluation (Sunfish's `score`) and a move's incremental value
//! (Sunfish's `value(move)`), in centipawns: the searcher's evaluation and move features.

use shakmaty::{Chess, Color, Move, Position, Role};

use super::pst;

/// Static evaluation of `pos` in centipawns from the side to move's point of view:
/// material + PST of its pieces minus those of the opponent's (Sunfish's `score`).
pub fn static_eval(pos: &Chess) -> i32 {
    let board = pos.board();
    let mut white = 0;
    for sq in board.occupied() {
        let piece = board.piece_at(sq).expect("occupied square has a piece");
        let v = pst::pst(piece.color, piece.role, sq);
        white += if piece.color == Color::White { v } else { -v };
    }
    if pos.turn() == Color::White { white } else { -white }
}

/// Incremental value of `m` in centipawns for the side to move of `pos`: how much
/// [`static_eval`] from the mover's point of view changes by playing `m` (PST delta of the moved
/// piece, plus the captured piece's value, plus the rook's PST delta when castling, plus the
/// promotion gain). Sunfish's `Position.value(move)`. `m` must be legal in `pos`.
pub fn move_value(pos: &Chess, m: &Move) -> i32 {
    let us = pos.turn();
    match *m {
        Move::Normal { role, from, capture, to, promotion } => {
            let mut v = -pst::pst(us, role, from);
            v += pst::pst(us, promotion.unwrap_or(role), to);
            if let Some(victim) = capture {
                v += pst::pst(!us, victim, to);
            }
            v
        }
        Move::EnPassant { from, to } => {
            let victim_sq = shakmaty::Square::from_coords(to.file(), from.rank());
            pst::pst(us, Role::Pawn, to) - pst::pst(us, Role::Pawn, from) + pst::pst(!us, Role::Pawn, victim_sq)
        }
        Move::Castle { king, rook } => {
            let side = m.castling_side().expect("castle has a side");
            let king_to = shakmaty::Square::from_coords(side.king_to_file(), king.rank());
            let rook_to = shakmaty::Square::from_coords(side.rook_to_file(), king.rank());
            pst::pst(us, Role::King, king_to) - pst::pst(us, Role::King, king) + pst::pst(us, Role::Rook, rook_to)
                - pst::pst(us, Role::Rook, rook)
        }
        Move::Put { .. } => 0,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use shakmaty::{CastlingMode, fen::Fen};

    fn position(fen: &str) -> Chess {
        fen.parse::<Fen>().unwrap().into_position(CastlingMode::Standard).unwrap()
    }

    #[test]
    fn move_value_matches_eval_difference() {
        // Every legal move of a few busy positions: value(m) == eval(after, from mover) - eval(before).
        for fen in [
            "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
            "rnbq1k1r/pp1Pbppp/2p5/8/2B5/8/PPP1NnPP/RNBQK2R w KQ - 1 8",
            "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",
            "rnbqkbnr/ppp1p1pp/8/3pPp2/8/8/PPPP1PPP/RNBQKBNR w KQkq f6 0 3",
        ] {
            let pos = position(fen);
            let before = static_eval(&pos);
            for m in pos.legal_moves() {
                let mut after = pos.clone();
                after.play_unchecked(m);
                assert_eq!(move_value(&pos, &m), -static_eval(&after) - before, "{fen} {m:?}");
            }
        }
    }
}
