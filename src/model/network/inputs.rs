//! The network's inputs: the board tower's (pieces, castling, en passant, last moves, skill,
//! [`board_inputs`]), the move tower's square rows ([`move_rows`]) and the most hand features one
//! move has ([`MAX_HAND`]).

use shakmaty::{Color, EnPassantMode, Position, Role};

use crate::chess::movegen::Packed;
use crate::model::game::GameState;

/// Inputs of the board tower: 768 piece-square (own pieces pawn..king, then the opponent's,
/// 64 squares each), 4 castling rights (own king side, own queen side, opponent's king side,
/// queen side), 8 en-passant files, 64 destinations and 64 origins of the opponent's last move,
/// 64 destinations of the mover's own last move, 5 skill classes
/// ([`GameState::skill`]).
pub const BOARD_INPUTS: usize = 977;
/// First castling input.
const CASTLING: usize = 768;
/// First en-passant input.
const EP_FILE: usize = 772;
/// First input of the opponent's last destination.
const LAST_TO: usize = 780;
/// First input of the opponent's last origin.
const LAST_FROM: usize = 844;
/// First input of the mover's own last destination.
const OWN_LAST_TO: usize = 908;
/// First skill input.
const SKILL: usize = 972;
/// Rows of the move tower's square embeddings: `role * 64 + square`.
pub const SQUARE_INPUTS: usize = 384;

/// `sq ^ flip(turn)` mirrors Black's squares vertically.
#[inline]
fn flip(turn: Color) -> usize {
    if turn.is_white() { 0 } else { 56 }
}

/// Piece-square input of a piece of colour `piece` and role `role` on `sq`, seen by
/// `perspective`.
#[inline]
pub(crate) fn piece_input(perspective: Color, piece: Color, role: Role, sq: usize) -> usize {
    let side = if piece == perspective { 0 } else { 6 };
    (side + role as usize - 1) * 64 + (sq ^ flip(perspective))
}

/// The inputs of `st` other than its pieces (castling, en passant, last moves, skill), seen by
/// the side to move, in increasing order.
pub fn state_inputs(st: &GameState, mut out: impl FnMut(usize)) {
    let pos = &st.pos;
    let us = pos.turn();
    let f = flip(us);
    let castles = pos.castles();
    for (k, (color, side)) in [
        (us, shakmaty::CastlingSide::KingSide),
        (us, shakmaty::CastlingSide::QueenSide),
        (!us, shakmaty::CastlingSide::KingSide),
        (!us, shakmaty::CastlingSide::QueenSide),
    ]
    .into_iter()
    .enumerate()
    {
        if castles.has(color, side) {
            out(CASTLING + k);
        }
    }
    if let Some(sq) = pos.ep_square(EnPassantMode::Legal) {
        out(EP_FILE + sq.file() as usize);
    }
    if let Some(m) = st.last {
        let p = Packed::of(&m);
        out(LAST_TO + (p.to() ^ f));
        out(LAST_FROM + (p.from() ^ f));
    }
    if let Some(m) = st.own_last {
        out(OWN_LAST_TO + (Packed::of(&m).to() ^ f));
    }
    out(SKILL + st.skill());
}

/// All board inputs of `st` (pieces, then [`state_inputs`]), seen by the side to move.
pub fn board_inputs(st: &GameState, mut out: impl FnMut(usize)) {
    let us = st.pos.turn();
    for (sq, piece) in st.pos.board().clone().into_iter() {
        out(piece_input(us, piece.color, piece.role, sq as usize));
    }
    state_inputs(st, out);
}

/// The move tower's square rows of move `p` for a mover of colour `turn`: `(from, to)`.
#[inline]
pub fn move_rows(p: Packed, turn: Color) -> (usize, usize) {
    let f = flip(turn);
    let role_to = if p.promotion() != 0 { p.promotion() - 1 } else { p.role() };
    (p.role() * 64 + (p.from() ^ f), role_to * 64 + (p.to() ^ f))
}

/// At most this many hand features are active for one move: in
/// [`crate::model::features::MoveContext::features`], the two loss features and 8 others (origin,
/// destination, capture, recapture, promotion, check, same piece, distance), then 10 tactical
/// ones. [`Network::check_bounds`](super::Network::check_bounds) relies on it; `Collect` checks it in debug builds (the
/// tests), since were it exceeded, the features dropped would depend on the move tower's
/// folding.
pub const MAX_HAND: usize = 20;
