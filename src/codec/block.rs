//! Coding one block of input lines: the walk over lines, games and plies, written once for
//! both directions (see [`SymbolCoder`]).

use std::io::Read as _;

use shakmaty::{Color, Position};

use super::{AdaptiveModel, Decoder, Encoder, SymbolCoder};
use crate::model::{GameState, Model, Predictor};
use crate::text::spelling::{self, Convention, Spelling};
use crate::text::{Game, GameResult, Terminator, parse_game, render_game, split_lines};
use crate::Error;

/// zstd level for the raw-line side stream.
const RAW_ZSTD_LEVEL: i32 = 19;

/// Statistics of an encoded block.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct BlockStats {
    /// Lines in the block.
    pub lines: u64,
    /// Lines coded as games.
    pub games: u64,
    /// Plies of those games.
    pub plies: u64,
    /// Lines stored raw.
    pub raw_lines: u64,
    /// Model cost of the moves, in bits (only when measured).
    pub move_bits: f64,
    /// Model cost of everything else in the range-coded stream, in bits (only when measured).
    pub other_bits: f64,
}

impl std::ops::AddAssign for BlockStats {
    fn add_assign(&mut self, o: BlockStats) {
        self.lines += o.lines;
        self.games += o.games;
        self.plies += o.plies;
        self.raw_lines += o.raw_lines;
        self.move_bits += o.move_bits;
        self.other_bits += o.other_bits;
    }
}

/// A compressed block: the range-coded stream and the compressed raw-line side stream.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct EncodedBlock {
    /// Range coder output (a multiple of 4 bytes).
    pub range: Vec<u8>,
    /// zstd frame of the raw lines joined by `\n` (empty when there are none).
    pub raw: Vec<u8>,
}

/// One line as the coder sees it.
enum LineKind {
    Game(Game),
    Raw,
}

/// Adaptive models and the predictor shared by the lines of a block.
struct BlockCoder<'m> {
    predictor: Predictor<'m>,
    kind: AdaptiveModel,
    terminator: AdaptiveModel,
    convention: AdaptiveModel,
    spelling_hit: AdaptiveModel,
    spelling: AdaptiveModel,
    /// Per-symbol cost accounting (encoder with measuring on).
    move_bits: f64,
}

impl<'m> BlockCoder<'m> {
    fn new(model: &'m Model) -> Self {
        BlockCoder {
            predictor: Predictor::new(model),
            kind: AdaptiveModel::new(2, 32),
            terminator: AdaptiveModel::new(Terminator::ALL.len(), 32),
            convention: AdaptiveModel::new(Convention::ALL.len(), 32),
            spelling_hit: AdaptiveModel::new(2, 32),
            spelling: AdaptiveModel::new(Spelling::COUNT, 32),
            move_bits: 0.0,
        }
    }

    /// Codes the kind and terminator of a line, and the game if it is one.
    fn code_line<C: SymbolCoder>(&mut self, c: &mut C, kind: &mut LineKind, terminator: &mut Terminator) -> Result<(), Error> {
        let mut k = matches!(kind, LineKind::Game(_)) as usize;
        self.kind.code(c, &mut k)?;
        let mut t = *terminator as usize;
        self.terminator.code(c, &mut t)?;
        *terminator = Terminator::ALL[t];
        if c.decoding() {
            *kind = if k == 1 {
                LineKind::Game(Game { moves: Vec::new(), spellings: Vec::new(), result: GameResult::Unknown })
            } else {
                LineKind::Raw
            };
        }
        if let LineKind::Game(game) = kind {
            self.code_game(c, game)?;
        }
        Ok(())
    }

    /// Codes a game: its spelling convention, then per ply "ends here?" and the move with its
    /// spelling, then the result.
    fn code_game<C: SymbolCoder>(&mut self, c: &mut C, game: &mut Game) -> Result<(), Error> {
        let decoding = c.decoding();
        let mut conv = if decoding { 0 } else { choose_convention(game).index() };
        self.convention.code(c, &mut conv)?;
        let convention = Convention::ALL[conv];
        let mut st = GameState::new();
        loop {
            self.predictor.prepare(&st);
            let ply = st.ply as usize;
            if self.predictor.moves().is_empty() {
                break;
            }
            let mut end = (!decoding && ply == game.moves.len()) as usize;
            c.code(self.predictor.end_table(&st), &mut end)?;
            if end == 1 {
                break;
            }
            let mut index = if decoding {
                0
            } else {
                let played = game.moves[ply];
                self.predictor.moves().iter().position(|m| *m == played).expect("parsed moves are legal")
            };
            let table = self.predictor.move_table(&st);
            if !decoding {
                self.move_bits += table.bits(index);
            }
            c.code(table, &mut index)?;
            self.predictor.observe(&st, index);
            let m = self.predictor.moves()[index];

            let mut after = st.pos.clone();
            after.play_unchecked(m);
            let expected = spelling::expected(&st.pos, &m, self.predictor.moves(), &after, convention);
            let mut hit = (!decoding && game.spellings[ply] == expected) as usize;
            self.spelling_hit.code(c, &mut hit)?;
            let spelled = if hit == 1 {
                expected
            } else {
                let mut s = if decoding { 0 } else { game.spellings[ply].0 as usize };
                self.spelling.code(c, &mut s)?;
                Spelling(s as u8)
            };
            if decoding {
                game.moves.push(m);
                game.spellings.push(spelled);
            }
            st.play(m);
        }
        let mut class = if decoding { 0 } else { result_class(game.result, st.pos.turn()) };
        c.code(self.predictor.result_table(&st), &mut class)?;
        if decoding {
            game.result = class_result(class, st.pos.turn());
        }
        Ok(())
    }
}

/// The convention that predicts a game's spellings: check marks if any move has a suffix;
/// pseudo-legal disambiguation if some move is disambiguated where legal moves need not be.
fn choose_convention(game: &Game) -> Convention {
    let check_marks = game.spellings.iter().any(|s| s.suffix().is_some());
    let pseudo_legal_disambiguation = {
        let mut pos = shakmaty::Chess::default();
        let mut found = false;
        for (m, s) in game.moves.iter().zip(&game.spellings) {
            if (s.file() || s.rank()) && m.role() != shakmaty::Role::Pawn {
                let legal: Vec<_> = pos.legal_moves().into_iter().collect();
                let plain = Convention { check_marks: false, pseudo_legal_disambiguation: false };
                let mut after = pos.clone();
                after.play_unchecked(*m);
                let canonical = spelling::expected(&pos, m, &legal, &after, plain);
                if (canonical.file(), canonical.rank()) != (s.file(), s.rank()) {
                    found = true;
                    break;
                }
            }
            pos.play_unchecked(*m);
        }
        found
    };
    Convention { check_marks, pseudo_legal_disambiguation }
}

/// Result class from the side to move's point of view: 0 wins, 1 loses, 2 draw, 3 unknown.
fn result_class(result: GameResult, turn: Color) -> usize {
    match (result, turn) {
        (GameResult::WhiteWins, Color::White) | (GameResult::BlackWins, Color::Black) => 0,
        (GameResult::WhiteWins, Color::Black) | (GameResult::BlackWins, Color::White) => 1,
        (GameResult::Draw, _) => 2,
        (GameResult::Unknown, _) => 3,
    }
}

/// Inverse of [`result_class`].
fn class_result(class: usize, turn: Color) -> GameResult {
    match (class, turn) {
        (0, Color::White) | (1, Color::Black) => GameResult::WhiteWins,
        (0, Color::Black) | (1, Color::White) => GameResult::BlackWins,
        (2, _) => GameResult::Draw,
        _ => GameResult::Unknown,
    }
}

/// Compresses the lines of `text` (a whole number of lines) with `model`.
pub fn encode_block(model: &Model, text: &[u8]) -> (EncodedBlock, BlockStats) {
    let mut coder = BlockCoder::new(model);
    let mut enc = Encoder::new();
    enc.measure = true;
    let mut raw = Vec::new();
    let mut stats = BlockStats::default();
    for line in split_lines(text) {
        let mut kind = match parse_game(line.content) {
            Some(game) => LineKind::Game(game),
            None => LineKind::Raw,
        };
        let mut terminator = line.terminator;
        stats.lines += 1;
        match &kind {
            LineKind::Game(g) => {
                stats.games += 1;
                stats.plies += g.moves.len() as u64;
            }
            LineKind::Raw => {
                if stats.raw_lines > 0 {
                    raw.push(b'\n');
                }
                raw.extend_from_slice(line.content);
                stats.raw_lines += 1;
            }
        }
        coder.code_line(&mut enc, &mut kind, &mut terminator).expect("encoding cannot fail");
    }
    stats.move_bits = coder.move_bits;
    stats.other_bits = enc.bits - coder.move_bits;
    let raw = if stats.raw_lines == 0 {
        Vec::new()
    } else {
        zstd::bulk::compress(&raw, RAW_ZSTD_LEVEL).expect("in-memory zstd compression cannot fail")
    };
    (EncodedBlock { range: enc.finish(), raw }, stats)
}

/// Expands a block of `lines` lines, appending the text to `out`. `max_len` bounds the text
/// length (from the trusted-after-checking block header) so that damaged data cannot make the
/// decoder allocate without limit.
///
/// # Errors
/// [`Error::Corrupt`] when the streams are inconsistent (the caller's checksum catches the rest).
pub fn decode_block(model: &Model, block: &EncodedBlock, lines: u64, max_len: usize, out: &mut Vec<u8>) -> Result<(), Error> {
    let mut coder = BlockCoder::new(model);
    let mut dec = Decoder::new(&block.range)?;
    let raw = if block.raw.is_empty() {
        Vec::new()
    } else {
        let mut buf = Vec::new();
        zstd::stream::read::Decoder::new(&block.raw[..])
            .map_err(|e| Error::Corrupt(format!("raw-line stream: {e}")))?
            .take(max_len as u64 + 1)
            .read_to_end(&mut buf)
            .map_err(|e| Error::Corrupt(format!("raw-line stream: {e}")))?;
        buf
    };
    let mut raw_lines = raw.split(|&b| b == b'\n');
    let start = out.len();
    for _ in 0..lines {
        let mut kind = LineKind::Raw;
        let mut terminator = Terminator::Lf;
        coder.code_line(&mut dec, &mut kind, &mut terminator)?;
        match kind {
            LineKind::Game(game) => render_game(&game, out),
            LineKind::Raw => {
                let content = raw_lines.next().ok_or_else(|| Error::Corrupt("raw-line stream has too few lines".into()))?;
                out.extend_from_slice(content);
            }
        }
        out.extend_from_slice(terminator.bytes());
        if out.len() - start > max_len {
            return Err(Error::Corrupt("block expands beyond its recorded length".into()));
        }
    }
    if raw_lines.next().is_some() && !raw.is_empty() {
        return Err(Error::Corrupt("raw-line stream has too many lines".into()));
    }
    Ok(())
}
