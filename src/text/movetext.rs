//! Parsing and rendering one game line of the movetext format.

use shakmaty::{Chess, Move, Position};

use super::notation::{self, Written};
use super::spelling::{Spelling, parse_token_fast, parse_token_with};
use crate::chess::GameResult;
use crate::chess::movegen::{Packed, legal_moves_sorted_into};
use crate::chess::{move_key, play_ply};

/// A game from the standard initial position, with everything needed to write it back.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Game {
    /// The moves, each legal in the position reached by the ones before.
    pub moves: Vec<Move>,
    /// How each move is written; same length as `moves`.
    pub spellings: Vec<Spelling>,
    /// How each ply is written beyond its spelling ([`notation`]): empty when every move is
    /// canonical SAN, else the same length as `moves` (which may then hold
    /// [`crate::chess::NULL_MOVE`]).
    pub written: Vec<Written>,
    /// The result token.
    pub result: GameResult,
}

impl Default for Game {
    fn default() -> Self {
        Game { moves: Vec::new(), spellings: Vec::new(), written: Vec::new(), result: GameResult::Unknown }
    }
}

/// Parses a line (without terminator) as a game: moves separated by single spaces, then a
/// result token; the moves in canonical SAN ([`parse_game_into`]) or any notation of
/// [`notation`] ([`parse_lenient_into`]). Returns `None` unless [`render_game`] of the result
/// gives back exactly `line`.
pub fn parse_game(line: &[u8]) -> Option<Game> {
    let mut game = Game::default();
    let mut plies = PlyMoves::default();
    (parse_game_into(line, &mut game, &mut plies) || parse_lenient_into(line, &mut game)).then_some(game)
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

/// [`parse_game`] for canonical SAN only, into `game` (whose buffers are reused), recording
/// the legal moves of each ply in `plies`. Returns whether the line is a game; `game` and
/// `plies` hold garbage if not.
pub fn parse_game_into(line: &[u8], game: &mut Game, plies: &mut PlyMoves) -> bool {
    game.moves.clear();
    game.spellings.clear();
    game.written.clear();
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

/// [`parse_game`] for any notation of [`notation`] (slower than [`parse_game_into`], which
/// reads canonical SAN), into `game`. Returns whether the line is a game; `game` holds garbage
/// if not. A token `e.p.` after an en passant capture is that move's mark.
pub fn parse_lenient_into(line: &[u8], game: &mut Game) -> bool {
    game.moves.clear();
    game.spellings.clear();
    game.written.clear();
    let tokens: Vec<&[u8]> = line.split(|&b| b == b' ').collect();
    let Some((result, moves)) = tokens.split_last() else { return false };
    let Some(result) = GameResult::from_token(result) else { return false };
    game.result = result;
    // Lowercase piece letters make `bxc3` a pawn's or a bishop's move: the pawn is tried
    // first, the bishop if the rest of the line does not read; a few such retries per line.
    let mut retries = 16;
    if !parse_lenient_from(moves, Chess::default(), game, &mut retries) {
        return false;
    }
    let mut out = Vec::with_capacity(line.len());
    render_game(game, &mut out);
    out == line
}

/// Reads the move tokens `tokens` from `pos` into `game` (after the plies it holds); whether
/// they all read.
fn parse_lenient_from(tokens: &[&[u8]], mut pos: Chess, game: &mut Game, retries: &mut u32) -> bool {
    let (mut legal, mut buf) = (Vec::new(), Vec::new());
    let mut k = 0;
    while k < tokens.len() {
        let spaced_ep = tokens.get(k + 1) == Some(&&b"e.p."[..]);
        let (token, next) = (tokens[k], k + 1 + spaced_ep as usize);
        legal.clear();
        legal_moves_sorted_into(&pos, &mut legal);
        let Some(mut ply) = notation::parse_as(&pos, &legal, token, spaced_ep, false, &mut buf) else {
            return match notation::parse_as(&pos, &legal, token, spaced_ep, true, &mut buf) {
                Some(ply) => {
                    push_ply(&mut pos, game, ply);
                    parse_lenient_from(&tokens[next..], pos, game, retries)
                }
                None => false,
            };
        };
        if token.first() == Some(&b'b')
            && *retries > 0
            && let Some(bishop) = notation::parse_as(&pos, &legal, token, spaced_ep, true, &mut buf)
        {
            let (mark, mut after) = (game.moves.len(), pos.clone());
            push_ply(&mut after, game, ply);
            if parse_lenient_from(&tokens[next..], after, game, retries) {
                return true;
            }
            *retries = retries.saturating_sub(1);
            game.moves.truncate(mark);
            game.spellings.truncate(mark);
            game.written.truncate(mark);
            ply = bishop;
        }
        push_ply(&mut pos, game, ply);
        k = next;
    }
    true
}

/// Appends a read ply to `game` and plays it.
fn push_ply(pos: &mut Chess, game: &mut Game, (m, spelling, written): (Move, Spelling, Written)) {
    play_ply(pos, m);
    game.moves.push(m);
    game.spellings.push(spelling);
    game.written.push(written);
}

/// Writes `game` as a movetext line (without terminator) to `out`.
pub fn render_game(game: &Game, out: &mut Vec<u8>) {
    if game.written.is_empty() {
        for (m, spelling) in game.moves.iter().zip(&game.spellings) {
            spelling.write(m, out);
            out.push(b' ');
        }
    } else {
        let mut mover = shakmaty::Color::White;
        for ((m, spelling), written) in game.moves.iter().zip(&game.spellings).zip(&game.written) {
            notation::write(m, mover, *spelling, *written, out);
            out.push(b' ');
            mover = !mover;
        }
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
    fn other_notations_parse_and_render() {
        for line in [
            &b"e2-e4 e7-e5 Ng1-f3 Nb8-c6 Bf1-b5 a7-a6 1-0"[..],
            b"e4 e5 nf3 nc6 bb5 a6 bxc6 dxc6 0-0 *",
            b"e4!? e5 \xe2\x99\x98f3 -- \xe2\x99\x98c3 Nc6?! Z0 1/2-1/2",
            b"e4 d5 e5 f5 exf6 e.p. Nc6 0-1",
            b"e4 d5 e5 f5 exf6e.p.+ Kf7 0-1",
        ] {
            let line = line.to_vec();
            let game = parse_game(&line).unwrap_or_else(|| panic!("{}", String::from_utf8_lossy(&line)));
            assert!(!game.written.is_empty());
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
