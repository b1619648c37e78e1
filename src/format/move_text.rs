//! The moves of a game and how each is written: what the game coder codes, and what the
//! movetext and PGN formats read and write.

use shakmaty::Move;

use crate::text::notation::Written;
use crate::text::spelling::Spelling;

/// The moves of a game and how each is written.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct MoveText {
    /// Legal moves from the start position.
    pub moves: Vec<Move>,
    /// Spelling of each move; same length.
    pub spellings: Vec<Spelling>,
    /// How each ply is written beyond its spelling: empty when every move is canonical SAN,
    /// else the same length as `moves` (which may then hold [`crate::chess::NULL_MOVE`]).
    pub written: Vec<Written>,
}
