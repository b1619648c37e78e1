//! Coding one block of input lines: the walk over lines, games and plies, written once for
//! both directions (see [`SymbolCoder`]).

use crate::chess::GameResult;
use crate::container::{BlockStats, Coding, EncodedBlock};
use crate::entropy::budget::{BudgetedDecoder, inflate_side};
use crate::entropy::{AdaptiveModel, Cdf, Encoder, Information, SymbolCoder};
use crate::error::Error;
use crate::format::GameCoder;
use crate::format::ladder::notation_ladder;
use crate::format::move_text::MoveText;
use crate::format::notation_coder::{NOTATIONS_FLAG, Notations};
use crate::model::trace::Trace;
use crate::model::{GameState, Model};
use crate::text::notation::Written;
use crate::text::parse_lenient_into;
use crate::text::{Game, PlyMoves, Terminator, parse_game_into, render_game, split_lines};

/// zstd level for the raw-line side stream.
const RAW_ZSTD_LEVEL: i32 = 19;

/// The encoder, summing the information content of the symbols it codes (for
/// [`BlockStats`]).
struct Measured {
    inner: Encoder,
    info: Information,
}

impl SymbolCoder for Measured {
    #[inline]
    fn code(&mut self, cdf: Cdf<'_>, symbol: &mut usize) -> Result<(), Error> {
        self.info.add(cdf.frequency(*symbol));
        self.inner.encode(cdf, *symbol);
        Ok(())
    }

    fn decoding(&self) -> bool {
        false
    }
}

/// Adaptive models and the predictor shared by the lines of a block.
struct BlockCoder<'m> {
    games: GameCoder<'m>,
    kind: AdaptiveModel,
    terminator: AdaptiveModel,
}

impl<'m> BlockCoder<'m> {
    /// A coder for a block whose games are all canonical SAN, or (`notations`) not.
    fn new(model: &'m Model, notations: bool) -> Self {
        BlockCoder {
            games: if notations { GameCoder::with_notations(model) } else { GameCoder::new(model) },
            kind: AdaptiveModel::new(2, 32),
            terminator: AdaptiveModel::new(Terminator::ALL.len(), 32),
        }
    }

    /// Codes the kind (`is_game`) and terminator of a line, and `game` if it is one. When
    /// encoding, `known` may hold the legal moves of the game's plies (see
    /// [`GameCoder::code_moves_known`]).
    fn code_line<C: SymbolCoder>(
        &mut self,
        c: &mut C,
        is_game: &mut bool,
        game: &mut Game,
        terminator: &mut Terminator,
        known: Option<&PlyMoves>,
    ) -> Result<(), Error> {
        let mut k = *is_game as usize;
        self.kind.code(c, &mut k)?;
        let mut t = *terminator as usize;
        self.terminator.code(c, &mut t)?;
        *terminator = Terminator::ALL[t];
        *is_game = k == 1;
        if *is_game {
            if c.decoding() {
                game.moves.clear();
                game.spellings.clear();
                game.written.clear();
                game.result = GameResult::Unknown;
            }
            let mut text = MoveText {
                moves: std::mem::take(&mut game.moves),
                spellings: std::mem::take(&mut game.spellings),
                written: std::mem::take(&mut game.written),
            };
            let end = self.games.code_moves_known(c, GameState::new(), &mut text, known)?;
            self.games.code_result(c, &end, &mut game.result)?;
            game.moves = text.moves;
            game.spellings = text.spellings;
            game.written = text.written;
        }
        Ok(())
    }
}

/// Whether every move of `game` but castling shows its origin's file and rank (compact long
/// algebraic, which no canonical game does).
fn shows_every_origin(game: &Game) -> bool {
    let mut shown = game.moves.iter().zip(&game.spellings).filter(|(m, _)| !m.is_castle()).map(|(_, s)| s.file() && s.rank());
    shown.next().unwrap_or(false) && shown.all(|b| b)
}

/// Compresses the lines of `text` (a whole number of lines) with `model`, in the newest
/// coding ([`Coding::NEWEST`]).
pub fn encode_block(model: &Model, text: &[u8]) -> (EncodedBlock, BlockStats) {
    let (block, stats, _) = encode_block_traced(model, text, false);
    (block, stats)
}

/// [`encode_block`], also returning prediction statistics when `trace` is set.
pub fn encode_block_traced(model: &Model, text: &[u8], trace: bool) -> (EncodedBlock, BlockStats, Option<Trace>) {
    encode_analysed(model, text, trace, None)
}

/// The prediction statistics of coding `text` with every player's skill class fixed at
/// `fixed_skill` (`0..SKILLS`) instead of inferred ([`GameState::fix_skill`]; `None`: as
/// [`encode_block_traced`]): an ablation for analysis. No block is returned, since a decoder
/// would infer the classes. Meant for canonical SAN: a block with other notations is checked by
/// decoding it, which fails with a fixed class, and is then measured as raw text.
///
/// # Panics
/// If `fixed_skill` is `SKILLS` or more.
pub fn trace_block(model: &Model, text: &[u8], fixed_skill: Option<usize>) -> Trace {
    if let Some(class) = fixed_skill {
        assert!(class < crate::model::features::SKILLS, "skill class {class} out of range");
    }
    encode_analysed(model, text, true, fixed_skill).2.expect("tracing was requested")
}

/// [`encode_block_traced`], with the skill classes fixed when `fixed_skill` is set.
fn encode_analysed(model: &Model, text: &[u8], trace: bool, fixed_skill: Option<usize>) -> (EncodedBlock, BlockStats, Option<Trace>) {
    let analysis = Analysis { trace, fixed_skill };
    // Canonical SAN; else other notations coded and checked by decoding; else those raw.
    notation_ladder(
        text,
        |mode| encode_with(model, text, analysis, mode),
        |coded, back| decode_block(model, Coding::NEWEST, &coded.0, coded.1.lines, text.len(), back),
    )
}

/// [`encode_block`] with every line stored raw ([`Notations::Stored`]): the fallback of a
/// block that does not decode to its text (see [`crate::archive`]). Any decoder of coding
/// [`Coding::Notations`] expands it.
pub fn encode_block_stored(model: &Model, text: &[u8]) -> (EncodedBlock, BlockStats) {
    let (block, stats, _) = encode_with(model, text, Analysis::default(), Notations::Stored).expect("stored lines allowed");
    (block, stats)
}

/// What an encoding records and changes for analysis: prediction statistics, and a fixed skill
/// class. The default codes as archives are coded.
#[derive(Clone, Copy, Default)]
struct Analysis {
    trace: bool,
    fixed_skill: Option<usize>,
}

/// [`encode_block_traced`] with lines in other notations handled as `mode` says; `None` if
/// `mode` refuses them and a line needs them.
fn encode_with(model: &Model, text: &[u8], analysis: Analysis, mode: Notations) -> Option<(EncodedBlock, BlockStats, Option<Trace>)> {
    let notations = mode == Notations::Coded;
    let mut coder = BlockCoder::new(model, notations);
    coder.games.trace = analysis.trace.then(Trace::default);
    coder.games.fixed_skill = analysis.fixed_skill;
    let mut enc = Measured { inner: Encoder::new(), info: Information::default() };
    let mut flag = notations as usize;
    enc.code(Cdf::new(&NOTATIONS_FLAG), &mut flag).expect("encoding cannot fail");
    let mut raw = Vec::new();
    let mut stats = BlockStats::default();
    let mut game = Game::default();
    let mut plies = PlyMoves::default();
    for line in split_lines(text) {
        // Compact long algebraic (`e2e4 e7e5`) reads as SAN showing every origin, which the
        // spelling model would pay for move by move: the notation models code it for free.
        let canonical = mode != Notations::Stored && parse_game_into(line.content, &mut game, &mut plies) && !shows_every_origin(&game);
        let mut is_game = canonical || (mode != Notations::Stored && parse_lenient_into(line.content, &mut game));
        if is_game && !canonical {
            match mode {
                Notations::Refused => return None,
                Notations::Coded => {}
                Notations::Raw | Notations::Stored => is_game = false,
            }
        }
        if canonical && notations {
            // In a block with other notations every game codes its notation (SAN here), so
            // that "does this game use another notation?" never needs to be coded.
            game.written.resize(game.moves.len(), Written::default());
        }
        let mut terminator = line.terminator;
        stats.lines += 1;
        if is_game {
            stats.games += 1;
            stats.plies += game.moves.len() as u64;
        } else {
            if stats.raw_lines > 0 {
                raw.push(b'\n');
            }
            raw.extend_from_slice(line.content);
            stats.raw_lines += 1;
        }
        let known = canonical.then_some(&plies);
        coder.code_line(&mut enc, &mut is_game, &mut game, &mut terminator, known).expect("encoding cannot fail");
    }
    stats.move_bits = coder.games.move_info.bits();
    stats.other_bits = enc.info.bits() - stats.move_bits;
    let raw = if stats.raw_lines == 0 {
        Vec::new()
    } else {
        zstd::bulk::compress(&raw, RAW_ZSTD_LEVEL).expect("in-memory zstd compression cannot fail")
    };
    Some((EncodedBlock { range: enc.inner.finish(), raw }, stats, coder.games.trace.take()))
}

/// Expands a block of `lines` lines, appending the text to `out`. `max_len` bounds the text
/// length (from the trusted-after-checking block header) so that damaged data cannot make the
/// decoder allocate without limit; the work is bounded by the stream's size (see
/// [`crate::entropy::budget`]). Returns the counts of what was decoded (lines, games, plies, raw lines;
/// no bits), for the caller to check against the block header.
///
/// # Errors
/// [`Error::Corrupt`] when the streams are inconsistent (the caller's checksum catches the
/// rest), [`Error::LimitExceeded`] when they would decode to more than the block's size allows.
pub fn decode_block(
    model: &Model,
    coding: Coding,
    block: &EncodedBlock,
    lines: u64,
    max_len: usize,
    out: &mut Vec<u8>,
) -> Result<BlockStats, Error> {
    let mut stats = BlockStats::default();
    let mut dec = BudgetedDecoder::new(&block.range, max_len)?;
    let mut notations = 0;
    if coding >= Coding::Notations {
        dec.code(Cdf::new(&NOTATIONS_FLAG), &mut notations)?;
    }
    let mut coder = BlockCoder::new(model, notations == 1);
    let raw = inflate_side(&block.raw, max_len, "raw-line stream")?;
    let mut raw_lines = raw.split(|&b| b == b'\n');
    let start = out.len();
    let mut game = Game::default();
    for line in 0..lines {
        let mut is_game = false;
        let mut terminator = Terminator::Lf;
        // A line of `n` bytes needs fewer than `5 + 2 n` symbols (two per line, three per game,
        // at most four per ply of three bytes or more), so a line may use that of the text the
        // block may still produce. With other notations, fewer than `16 + 5 n` (a game's
        // notation takes 12 more, a ply at most 14 in all).
        let room = max_len.saturating_sub(out.len() - start) as u64;
        dec.budget.limit_symbols(if notations == 1 { 16 + 5 * room } else { 5 + 2 * room });
        coder.code_line(&mut dec, &mut is_game, &mut game, &mut terminator, None)?;
        if terminator == Terminator::Eof && line + 1 != lines {
            return Err(Error::Corrupt("a line without line feed before the end of the block".into()));
        }
        stats.lines += 1;
        if is_game {
            render_game(&game, out);
            stats.games += 1;
            stats.plies += game.moves.len() as u64;
        } else {
            let content = raw_lines.next().ok_or_else(|| Error::Corrupt("raw-line stream has too few lines".into()))?;
            out.extend_from_slice(content);
            stats.raw_lines += 1;
        }
        out.extend_from_slice(terminator.bytes());
        if out.len() - start > max_len {
            return Err(Error::Corrupt("block expands beyond its recorded length".into()));
        }
    }
    if raw_lines.next().is_some() && !raw.is_empty() {
        return Err(Error::Corrupt("raw-line stream has too many lines".into()));
    }
    Ok(stats)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The fallback of a block whose notations would not decode: its lines in other notations
    /// are stored raw, the others coded as games, and the block decodes to its text.
    #[test]
    fn the_raw_fallback_keeps_lines_in_other_notations_raw() {
        let model = crate::model::Model::builtin(crate::model::Level::MIN);
        let text = b"e4 e5 Nf3 1-0\ne2-e4 e7-e5 0-1\nd4 d5 *\n";
        for (mode, raw_lines) in [(Notations::Coded, 0), (Notations::Raw, 1)] {
            let (block, stats, _) = encode_with(model, text, Analysis::default(), mode).expect("the mode accepts the block");
            assert_eq!((stats.games, stats.raw_lines), (3 - raw_lines, raw_lines));
            let mut out = Vec::new();
            decode_block(model, Coding::NEWEST, &block, 3, text.len(), &mut out).expect("decodes");
            assert_eq!(out, text);
        }
        assert!(encode_with(model, text, Analysis::default(), Notations::Refused).is_none());
    }

    /// A model with a (random) move network codes and decodes a block of the benchmark.
    #[test]
    fn a_model_with_a_network_codes_and_decodes_a_block() {
        let net = std::sync::Arc::new(crate::model::network::Network::random(32, 16, 32, 11));
        let model = crate::model::Model::builtin(crate::model::Level::new(2).unwrap()).clone().with_network(net);
        assert_ne!(model.id(), crate::model::Model::builtin(crate::model::Level::new(2).unwrap()).id());
        let text: String = include_str!("../../data/Chess_Games.txt").lines().take(30).map(|l| format!("{l}\n")).collect();
        let (encoded, ..) = encode_block_traced(&model, text.as_bytes(), false);
        let mut decoded = Vec::new();
        decode_block(&model, Coding::NEWEST, &encoded, 30, text.len(), &mut decoded).expect("decodes");
        assert_eq!(decoded, text.as_bytes());
    }
}
