//! The network's inputs: the board tower's (pieces, castling, en passant, last moves, skill,
//! [`board_inputs`]), the move tower's square rows ([`move_rows`]) and the most hand features one
//! move has ([`MAX_HAND`]).

use shakmaty::{Color, EnPassantMode, Position, Role};

use crate::chess::movegen::Packed;
use crate::model::elo::{Ratings, SPEEDS};
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
/// Rating buckets per side: a rating `r` is bucket `(clamp(r, 800, 2799) - 800) / 100`.
pub const RATING_BUCKETS: usize = 20;
/// Lowest rating with a bucket of its own (below: bucket 0).
const RATING_MIN: i32 = 800;
/// Width of a rating bucket (Elo points).
const RATING_STEP: i32 = 100;
/// Rating inputs ([`rating_inputs`]): the mover's bucket, the opponent's, the time-control
/// class ([`crate::model::elo::Speed`]).
pub const RATING_INPUTS: usize = 2 * RATING_BUCKETS + SPEEDS;
/// Inputs of a board tower that also reads the players' ratings (no release has one yet: docs/notes-ratings.md):
/// [`BOARD_INPUTS`] and then the [`RATING_INPUTS`].
pub const RATED_BOARD_INPUTS: usize = BOARD_INPUTS + RATING_INPUTS;
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
/// the side to move, in increasing order. Inlined, so that the caller's vector extensions
/// (AVX2) add the rows `out` adds.
#[inline(always)]
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

/// The rating inputs of a game with `ratings` for the side `turn` to move, in increasing order:
/// [`BOARD_INPUTS`] + the mover's bucket, [`BOARD_INPUTS`] + [`RATING_BUCKETS`] + the
/// opponent's bucket, [`BOARD_INPUTS`] + 2 [`RATING_BUCKETS`] + the speed class. A side without a
/// rating has no input; a game with neither has none at all (not even its speed), so that a
/// network with rating inputs computes, without ratings, what it computes without those rows.
#[inline(always)]
pub fn rating_inputs(ratings: &Ratings, turn: Color, mut out: impl FnMut(usize)) {
    if !ratings.any() {
        return;
    }
    let bucket = |r: i32| ((r.clamp(RATING_MIN, RATING_MIN + RATING_STEP * RATING_BUCKETS as i32 - 1) - RATING_MIN) / RATING_STEP) as usize;
    let (mover, opponent) = if turn.is_white() { (ratings.white, ratings.black) } else { (ratings.black, ratings.white) };
    if let Some(r) = mover {
        out(BOARD_INPUTS + bucket(r));
    }
    if let Some(r) = opponent {
        out(BOARD_INPUTS + RATING_BUCKETS + bucket(r));
    }
    out(BOARD_INPUTS + 2 * RATING_BUCKETS + ratings.speed as usize);
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::elo::Speed;

    #[test]
    fn rating_inputs_follow_the_mover_and_clamp() {
        let r = Ratings { white: Some(2038), black: Some(700), speed: Speed::Blitz };
        let inputs = |r: &Ratings, turn| {
            let mut v = Vec::new();
            rating_inputs(r, turn, |i| v.push(i));
            v
        };
        // 2038 -> bucket 12; 700 -> 0 (clamped); blitz is class 2.
        assert_eq!(inputs(&r, Color::White), [977 + 12, 997, 1017 + 2]);
        assert_eq!(inputs(&r, Color::Black), [977, 997 + 12, 1019]);
        let top = Ratings { white: Some(3500), black: None, speed: Speed::Unknown };
        assert_eq!(inputs(&top, Color::White), [977 + 19, 1017]);
        assert_eq!(inputs(&top, Color::Black), [997 + 19, 1017]);
        assert!(inputs(&Ratings::default(), Color::White).is_empty(), "no ratings, no inputs");
        assert_eq!(RATED_BOARD_INPUTS, 1022);
    }
}
