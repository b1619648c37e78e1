//! The result of a game, as its ending token.

/// The result token that ends a game line.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum GameResult {
    /// `1-0`.
    WhiteWins = 0,
    /// `0-1`.
    BlackWins = 1,
    /// `1/2-1/2`.
    Draw = 2,
    /// `*`: unknown or ongoing.
    Unknown = 3,
}

impl GameResult {
    /// All results, indexed by their symbol value.
    pub const ALL: [GameResult; 4] = [GameResult::WhiteWins, GameResult::BlackWins, GameResult::Draw, GameResult::Unknown];

    /// The token as written in movetext and PGN.
    pub fn token(self) -> &'static [u8] {
        match self {
            GameResult::WhiteWins => b"1-0",
            GameResult::BlackWins => b"0-1",
            GameResult::Draw => b"1/2-1/2",
            GameResult::Unknown => b"*",
        }
    }

    /// Parses a result token; `None` for anything else.
    pub(crate) fn from_token(token: &[u8]) -> Option<GameResult> {
        GameResult::ALL.into_iter().find(|r| r.token() == token)
    }
}
