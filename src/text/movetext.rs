//! Parsing and rendering one game line of the movetext format.

use shakmaty::{Chess, Move, Position};

use super::spelling::{Spelling, parse_token_with};

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
    pub const ALL: [GameResult; 4] =
        [GameResult::WhiteWins, GameResult::BlackWins, GameResult::Draw, GameResult::Unknown];

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
    pub fn from_token(token: &[u8]) -> Option<GameResult> {
        GameResult::ALL.into_iter().find(|r| r.token() == token)
    }
}

/// A game from the standard initial position, with everything needed to write it back.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Game {
    /// The moves, each legal in the position reached by the ones before.
    pub moves: Vec<Move>,
    /// How each move is written; same length as `moves`.
    pub spellings: Vec<Spelling>,
    /// The result token.
    pub result: GameResult,
}

/// Parses a line (without terminator) as a game: SAN tokens separated by single spaces, then a
/// result token. Returns `None` unless [`render_game`] of the result gives back exactly `line`.
pub fn parse_game(line: &[u8]) -> Option<Game> {
    let mut tokens = line.split(|&b| b == b' ');
    let last = tokens.next_back()?;
    let result = GameResult::from_token(last)?;
    let mut pos = Chess::default();
    let mut moves = Vec::new();
    let mut spellings = Vec::new();
    let mut buf = Vec::with_capacity(16);
    for token in tokens {
        let (m, spelling) = parse_token_with(&pos, token, &mut buf)?;
        pos.play_unchecked(m);
        moves.push(m);
        spellings.push(spelling);
    }
    Some(Game { moves, spellings, result })
}

/// Writes `game` as a movetext line (without terminator) to `out`.
pub fn render_game(game: &Game, out: &mut Vec<u8>) {
    for (m, spelling) in game.moves.iter().zip(&game.spellings) {
        spelling.write(m, out);
        out.push(b' ');
    }
    out.extend_from_slice(game.result.token());
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn benchmark_style_lines_parse_and_render() {
        for line in [
            &b"e4 e5 Nf3 Nc6 Bb5 a6 1-0"[..],
            b"1/2-1/2",
            b"d4 d5 c4 dxc4 e3 b5 a4 c6 axb5 cxb5 Qf3 *",
            b"f3 e5 g4 Qh4# 0-1",
        ] {
            let game = parse_game(line).expect("parses");
            let mut out = Vec::new();
            render_game(&game, &mut out);
            assert_eq!(out, line);
        }
    }

    #[test]
    fn lines_that_would_not_round_trip_are_refused() {
        for line in [
            &b""[..],
            b"e4 e5",
            b"e4  e5 1-0",
            b" e4 1-0",
            b"e4 1-0 ",
            b"1. e4 1-0",
            b"e4 e4 1-0",
            b"e4 e5 1-0 Nf3",
            b"e4 E5 1-0",
        ] {
            assert!(parse_game(line).is_none(), "{}", String::from_utf8_lossy(line));
        }
    }
}
