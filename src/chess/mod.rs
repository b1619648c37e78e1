//! The chess core, at the bottom of the crate: the rules facts every layer above shares.
//!
//! shakmaty is the rules reference (positions, legality, SAN); this module adds what the model
//! and the searcher need on top of it, each in one place: legal moves generated straight into
//! the canonical order ([`movegen`], [`move_key`], the compact move [`Packed`]), check
//! detection ([`check`]), empty-board ray tables ([`rays`]), Sunfish's piece-square tables
//! ([`pst`]) with the evaluation and a move's value ([`static_eval`], [`move_value`]), the
//! static exchange evaluator ([`see()`]), a cheap attack summary ([`Threats`]), and the game
//! result ([`GameResult`]). It imports nothing else of the crate.
//!
//! Every function here is a pure, integer function of its arguments: the encoder, the decoder
//! and the tuner must get identical answers for the same position.

pub mod check;
pub mod movegen;
pub mod pst;
pub mod rays;
mod result;
mod see;
mod threats;
mod value;

pub use movegen::{Packed, legal_moves_sorted_into, move_key};
pub use result::GameResult;
pub use see::{SwapList, see, see_unopposed};
pub use threats::Threats;
pub use value::{move_value, static_eval};

use shakmaty::{Chess, Move, Position, Role, Square};

/// The null move (the side to move passes), as games written by GUIs and databases hold it
/// (`--`, `Z0`). shakmaty has no null move; this crazyhouse drop, never legal in standard
/// chess or Chess960, stands for it wherever a ply is a [`Move`]. Play it with [`play_null`].
pub const NULL_MOVE: Move = Move::Put { role: Role::King, to: Square::A1 };

/// The position after a null move in `pos`: the other side to move, no en passant square.
/// `None` where passing is impossible: the side to move is in check, or shakmaty refuses the
/// position with the turn swapped.
pub fn play_null(pos: &Chess) -> Option<Chess> {
    if pos.is_check() {
        return None;
    }
    pos.clone().swap_turn().ok()
}

/// Plays ply `m` (a legal move or [`NULL_MOVE`]) in `pos`.
///
/// # Panics
/// On a null move where [`play_null`] refuses one (the caller checked that it may pass).
pub(crate) fn play_ply(pos: &mut Chess, m: Move) {
    if m == NULL_MOVE {
        *pos = play_null(pos).expect("a null move only where passing is possible");
    } else {
        pos.play_unchecked(m);
    }
}

/// Games of the benchmark for the tests of this module, read with shakmaty's SAN parser (the
/// rules reference) so that the chess core's tests need nothing above it.
#[cfg(test)]
pub(crate) mod testing {
    use shakmaty::san::SanPlus;
    use shakmaty::{Chess, Move, Position};

    /// The moves of one game.
    pub(crate) struct TestGame {
        /// Each legal in the position reached by the ones before.
        pub moves: Vec<Move>,
    }

    /// Parses a movetext line (SAN moves, then a result token); `None` when a token is not a
    /// legal move.
    pub(crate) fn parse_game(line: &[u8]) -> Option<TestGame> {
        let mut pos = Chess::default();
        let mut moves = Vec::new();
        for token in line.split(|&b| b == b' ').filter(|t| !t.is_empty()) {
            if matches!(token, b"1-0" | b"0-1" | b"1/2-1/2" | b"*") {
                break;
            }
            let m = SanPlus::from_ascii(token).ok()?.san.to_move(&pos).ok()?;
            pos.play_unchecked(m);
            moves.push(m);
        }
        Some(TestGame { moves })
    }
}
