//! Parsing and rendering one game line of the movetext format.

use shakmaty::{Chess, Move, Position};

use super::spelling::{Spelling, parse_token_fast, parse_token_with};
use crate::chess::GameResult;
use crate::chess::move_key;
use crate::chess::movegen::{Packed, legal_moves_sorted_into};

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
    let mut game = Game { moves: Vec::new(), spellings: Vec::new(), result: GameResult::Unknown };
    parse_game_into(line, &mut game, &mut PlyMoves::default()).then_some(game)
}

/// The legal moves of every position of a parsed game before its last move, in canonical
/// order, as [`parse_game_into`] generated them to read the moves: the encoder codes each ply
/// against them instead of generating them again.
#[derive(Clone, Debug, Default)]
pub struct PlyMoves {
    all: Vec<Packed>,
    /// Ply `k`'s moves are `all[bounds[k]..bounds[k + 1]]`.
    bounds: Vec<u32>,
    /// Whether the side to move is in check, per ply.
    check: Vec<bool>,
    /// Index of the played move among its ply's moves.
    played: Vec<u16>,
}

impl PlyMoves {
    /// Number of plies recorded.
    pub fn plies(&self) -> usize {
        self.played.len()
    }

    /// The legal moves of ply `k`, whether the side to move is in check, and the index of the
    /// move played.
    #[inline]
    pub fn ply(&self, k: usize) -> (&[Packed], bool, usize) {
        let range = self.bounds[k] as usize..self.bounds[k + 1] as usize;
        (&self.all[range], self.check[k], self.played[k] as usize)
    }

    fn clear(&mut self) {
        self.all.clear();
        self.bounds.clear();
        self.bounds.push(0);
        self.check.clear();
        self.played.clear();
    }
}

/// [`parse_game`] into `game` (whose buffers are reused), recording the legal moves of each
/// ply in `plies`. Returns whether the line is a game; `game` and `plies` hold garbage if not.
pub fn parse_game_into(line: &[u8], game: &mut Game, plies: &mut PlyMoves) -> bool {
    game.moves.clear();
    game.spellings.clear();
    plies.clear();
    let mut tokens = line.split(|&b| b == b' ');
    let Some(result) = tokens.next_back().and_then(GameResult::from_token) else { return false };
    game.result = result;
    let mut pos = Chess::default();
    let mut buf = Vec::new();
    for token in tokens {
        let start = plies.all.len();
        let checkers = legal_moves_sorted_into(&pos, &mut plies.all);
        let legal = &plies.all[start..];
        let (index, spelling) = match parse_token_fast(token, legal) {
            Some(found) => {
                debug_assert_eq!(
                    parse_token_with(&pos, token, &mut buf),
                    Some((legal[found.0].to_move(), found.1)),
                    "fast SAN path: {}",
                    String::from_utf8_lossy(token)
                );
                found
            }
            None => {
                let Some((m, spelling)) = parse_token_with(&pos, token, &mut buf) else { return false };
                let key = move_key(&m);
                let index = legal.binary_search_by_key(&key, |p| p.key()).expect("a legal move is in the list");
                (index, spelling)
            }
        };
        let m = legal[index].to_move();
        plies.bounds.push(plies.all.len() as u32);
        plies.check.push(checkers.any());
        plies.played.push(index as u16);
        pos.play_unchecked(m);
        game.moves.push(m);
        game.spellings.push(spelling);
    }
    true
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
        for line in [&b"e4 e5 Nf3 Nc6 Bb5 a6 1-0"[..], b"1/2-1/2", b"d4 d5 c4 dxc4 e3 b5 a4 c6 axb5 cxb5 Qf3 *", b"f3 e5 g4 Qh4# 0-1"] {
            let game = parse_game(line).expect("parses");
            let mut out = Vec::new();
            render_game(&game, &mut out);
            assert_eq!(out, line);
        }
    }

    #[test]
    fn lines_that_would_not_round_trip_are_refused() {
        for line in [&b""[..], b"e4 e5", b"e4  e5 1-0", b" e4 1-0", b"e4 1-0 ", b"1. e4 1-0", b"e4 e4 1-0", b"e4 e5 1-0 Nf3", b"e4 E5 1-0"]
        {
            assert!(parse_game(line).is_none(), "{}", String::from_utf8_lossy(line));
        }
    }
}
