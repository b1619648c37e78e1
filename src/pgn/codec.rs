//! Coding one block of PGN: the walk over its games, written once for both directions.
//!
//! A block is split into games ([`split_games`]); each is either parsed ([`parse`]) and coded
//! structurally, or kept raw in the side stream. A structured game is coded in this order,
//! each step using what the earlier ones decoded:
//!
//! 1. line break style, tag names, and the values of the tags that set up the position;
//! 2. the main line's moves and the result with the engine-guided model ([`GameCoder`]),
//!    from that position;
//! 3. the other tag values, knowing the result and the final position (`Result` and
//!    `PlyCount` then cost almost nothing);
//! 4. the move text items (move numbers, moves, comments with clocks and evaluations, NAGs,
//!    variations, whose moves go through a second [`GameCoder`], result tokens);
//! 5. the whitespace between all tokens.

use shakmaty::{Chess, Color, Position, Square};

use super::clock::{ClockModel, time_control};
use super::clock_model::{PlyFacts, ending_class};
use super::comment::CommentModel;
use super::game::Tag;
use super::game::{Game, Item, parse, render, render_tokens, start_position};
use super::layout::{ItemContext, LayoutModel, uses_crlf};
use super::lexer::{BOM, split_games};
use super::side::Side;
use super::stream::{Metered, Stream};
use super::tags::{GameInfo, TagModel, canonical_int};
use crate::chess::GameResult;
use crate::chess::play_ply;
use crate::container::{BlockStats, Coding, EncodedBlock};
use crate::entropy::binary::{Bit, NumberModel};
use crate::entropy::budget::{BudgetedDecoder, inflate_side};
use crate::entropy::{Cdf, Encoder, SymbolCoder};
use crate::error::Error;
use crate::format::game_coder::{GameCoder, MoveView};
use crate::format::ladder::notation_ladder;
use crate::format::move_text::MoveText;
use crate::format::notation_coder::{NOTATIONS_FLAG, Notations};
use crate::model::elo::{DEFAULT_ELO, Ratings};
use crate::model::{GameState, Model};
use crate::text::notation::Written;

/// The coding PGN blocks are written in.
const PGN_CODING: Coding = Coding::PgnPredicted;

/// zstd level of the side stream.
const SIDE_ZSTD_LEVEL: i32 = 19;

/// Sizes of a block's parts, for the breakdown by stream.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct PgnStats {
    /// Information content of the range-coded symbols per [`Stream`], in bits.
    pub bits: [f64; Stream::COUNT],
    /// Bytes of the range-coded stream.
    pub range_bytes: u64,
    /// Bytes of the side stream before compression: raw games.
    pub raw_bytes: u64,
    /// Bytes of the side stream before compression: free text.
    pub text_bytes: u64,
    /// Bytes of the compressed side stream.
    pub side_bytes: u64,
    /// Games coded structurally.
    pub games: u64,
    /// Pieces kept raw.
    pub raw_games: u64,
    /// Bits of tag values per tag name (the rest of [`Stream::Tags`] is names and counts).
    pub tag_bits: Vec<(Vec<u8>, f64)>,
    /// Bits of the move choices alone (as [`BlockStats::move_bits`] counts them in the movetext
    /// format); the rest of [`Stream::Moves`] is game ends, results and spellings.
    pub move_choice_bits: f64,
}

impl std::ops::AddAssign for PgnStats {
    fn add_assign(&mut self, o: PgnStats) {
        for (a, b) in self.bits.iter_mut().zip(o.bits) {
            *a += b;
        }
        self.range_bytes += o.range_bytes;
        self.raw_bytes += o.raw_bytes;
        self.text_bytes += o.text_bytes;
        self.side_bytes += o.side_bytes;
        self.games += o.games;
        self.raw_games += o.raw_games;
        self.move_choice_bits += o.move_choice_bits;
        for (name, bits) in o.tag_bits {
            match self.tag_bits.iter_mut().find(|(n, _)| *n == name) {
                Some(entry) => entry.1 += bits,
                None => self.tag_bits.push((name, bits)),
            }
        }
    }
}

/// A piece of a block as the coder sees it.
enum Piece {
    Game(Box<Game>),
    Raw(Vec<u8>),
}

/// The models of a block's *heads*: whether another piece follows, whether it is a game, its
/// tags, and a raw piece's length. In coding 5 the heads of all the block's pieces come first
/// in its range stream, so that a reader can decode them and stop; codings 1-4 code each
/// piece's head just before the rest of the piece.
struct HeadCoder {
    more: Bit,
    structured: Bit,
    tags: TagModel,
    raw_len: NumberModel,
}

/// Models shared by the games of a block.
struct PgnCoder<'m> {
    model: &'m Model,
    coding: Coding,
    /// Whether the block's games may use other notations.
    notations: bool,
    games: GameCoder<'m>,
    variations: Option<GameCoder<'m>>,
    head: HeadCoder,
    /// Coding 5: the main line has as many plies as the `PlyCount` tag says.
    ply_hit: Bit,
    /// Coding 5: the game's result is the one its `Result` tag says.
    result_hit: Bit,
    layout: LayoutModel,
    comments: CommentModel,
    /// The `[White, Black]` Elo inputs of the game being coded (level 10 from model version
    /// 10, coding 5 on: from its rating tags; else 1500 for both).
    elos: [i32; 2],
    /// The ratings of the game being coded (a network with rating inputs, coding 5 on: from its
    /// rating tags; else none).
    ratings: Ratings,
}

/// A line being walked: its index in [`Game::lines`], moves done, position, and the position
/// before its last move.
struct Frame {
    line: usize,
    done: usize,
    pos: Chess,
    before: Option<Chess>,
    /// Where the line's last move went.
    last_to: Option<Square>,
}

impl<'m> PgnCoder<'m> {
    /// A coder for a block of `coding` whose games are all canonical SAN, or (`notations`)
    /// not.
    fn new(model: &'m Model, coding: Coding, notations: bool) -> Self {
        let mut comments = CommentModel::new();
        if coding >= Coding::PgnPredicted {
            comments.clocks = ClockModel::with_pace();
        } else if coding >= Coding::PgnStreams {
            comments.clocks = ClockModel::with_views();
        } else if coding >= Coding::PgnFacts {
            comments.clocks = ClockModel::mixed();
        }
        PgnCoder {
            model,
            coding,
            notations,
            games: if notations { GameCoder::with_notations(model) } else { GameCoder::new(model) },
            variations: None,
            head: HeadCoder::new(coding),
            ply_hit: Bit::default(),
            result_hit: Bit::default(),
            layout: LayoutModel::new(),
            comments,
            elos: [DEFAULT_ELO; 2],
            ratings: Ratings::default(),
        }
    }

    /// Codes one piece (decoding: fills it); in coding 5 after its head ([`HeadCoder::code_heads`]).
    fn code_piece<C: SymbolCoder>(&mut self, c: &mut Metered<'_, C>, piece: &mut Piece, side: &mut Side<'_>) -> Result<(), Error> {
        if self.coding < Coding::PgnTagStream {
            c.set(Stream::Layout);
            let is_game = self.head.structured.code_value(c, matches!(piece, Piece::Game(_)))?;
            if c.decoding() {
                *piece = if is_game { Piece::Game(Box::default()) } else { Piece::Raw(Vec::new()) };
            }
            if let Piece::Raw(bytes) = piece {
                return side.code(c, &mut self.head.raw_len, bytes);
            }
        }
        match piece {
            Piece::Raw(_) => Ok(()),
            Piece::Game(game) => self.code_game(c, game, side),
        }
    }

    fn code_game<C: SymbolCoder>(&mut self, c: &mut Metered<'_, C>, game: &mut Game, side: &mut Side<'_>) -> Result<(), Error> {
        let decoding = c.decoding();
        let stream = self.coding >= Coding::PgnTagStream;
        // 1. Line breaks and tags (coding 5: the tags are in the game's head).
        let mut crlf = !decoding && game.gaps.iter().find(|g| g.contains(&b'\n')).is_some_and(|g| uses_crlf(g));
        self.layout.code_crlf(c, &mut crlf)?;
        if !stream {
            c.set(Stream::Tags);
            self.head.code_tags(c, &mut game.tags, false)?;
        } else if let Some(n) = game.tag(b"PlyCount").and_then(canonical_int).and_then(|n| usize::try_from(n).ok()) {
            // Coding 5: the moves know the main line's length from `PlyCount` (a hit bit).
            c.set(Stream::Moves);
            if self.ply_hit.code_value(c, game.lines.first().is_some_and(|l| l.moves.len() == n))? {
                self.games.known_plies = Some(n);
            }
        }

        // Level 10 from model version 10, coding 5 on: the rating tags, decoded with the game's
        // head, give the transformer's Elo inputs (both directions know them here; in codings
        // 1-4 the decoder has only the tags that set up the position until the moves are done).
        // A network with rating inputs (no release has one yet), coding 5 on: the same tags give its
        // rating inputs.
        let rule = &self.model.transformer_elo;
        let reads_ratings = self.model.reads_ratings();
        if stream && (rule.tags || reads_ratings) {
            let control = game.tag(b"TimeControl").and_then(time_control);
            let ratings = Ratings::from_tags(game.tag(b"WhiteElo"), game.tag(b"BlackElo"), control);
            if rule.tags {
                self.elos = rule.elos_of(&ratings);
                self.games.set_elos(self.elos);
            }
            if reads_ratings {
                self.ratings = ratings;
                self.games.set_ratings(ratings);
            }
        }

        // 2. Main line and result.
        let start = start_position(&game.tags).ok_or_else(|| Error::Corrupt("PGN game with an impossible start position".into()))?;
        c.set(Stream::Moves);
        if decoding {
            game.lines = vec![MoveText::default()];
        }
        if self.coding >= Coding::PgnStreams {
            self.games.views = Some(Vec::new());
        }
        let end = self.games.code_moves(c, GameState::from_position(start.clone()), &mut game.lines[0]);
        let views = self.games.views.take().unwrap_or_default();
        let end = end?;
        self.games.known_plies = None;
        // Coding 5: the result is usually the one the `Result` tag says (a hit bit).
        let said = if stream { game.tag(b"Result").and_then(GameResult::from_token) } else { None };
        let hit = match said {
            Some(r) => self.result_hit.code_value(c, game.result == r)?,
            None => false,
        };
        match said {
            Some(r) if hit => game.result = r,
            _ => self.games.code_result(c, &end, &mut game.result)?,
        }

        // 3. The other tag values, knowing what the moves say (codings 1-4; coding 6: `ECO`,
        // `Opening` and `UTCTime`).
        if self.coding >= Coding::PgnPredicted {
            c.set(Stream::Tags);
            let openings = opening_hashes(&start, &game.lines[0].moves);
            self.head.tags.code_openings(c, &mut game.tags, &openings, game.lines[0].moves.len())?;
        } else if !stream {
            c.set(Stream::Tags);
            let openings = if self.coding >= Coding::PgnFacts { opening_hashes(&start, &game.lines[0].moves) } else { Vec::new() };
            let info = GameInfo { plies: game.lines[0].moves.len(), result: game.result, openings };
            self.head.tags.code_values(c, &mut game.tags, &info)?;
        }

        // 4. Items.
        let control = game.tag(b"TimeControl").and_then(time_control);
        if self.coding >= Coding::PgnFacts {
            let hash = |name: &[u8]| game.tag(name).map_or(0, name_hash);
            self.comments.clocks.players = [hash(b"White"), hash(b"Black")];
        }
        self.comments.start_game(control);
        // Coding 6: how the game ended, for the clocks.
        let ending = if self.coding >= Coding::PgnPredicted {
            let forfeit = game.tag(b"Termination") == Some(&b"Time forfeit"[..]);
            let won = |color: usize| match game.result {
                GameResult::WhiteWins => Some(Some(color == 0)),
                GameResult::BlackWins => Some(Some(color == 1)),
                GameResult::Draw => Some(None),
                GameResult::Unknown => None,
            };
            Some([ending_class(forfeit, won(0)), ending_class(forfeit, won(1))])
        } else {
            None
        };
        self.code_items(c, game, start, &views, ending, side)?;

        // 5. Gaps.
        c.set(Stream::Layout);
        let mut tokens = Vec::new();
        let mut ends = Vec::new();
        render_tokens(game, &mut tokens, &mut ends)?;
        let classes: Vec<Option<usize>> = game.tags.iter().map(|_| None).chain(game.items.iter().map(|i| Some(i.kind()))).collect();
        if decoding {
            game.gaps.clear();
        }
        self.layout.code_gaps(c, crlf, &tokens, &ends, &classes, &mut game.gaps)?;
        Ok(())
    }

    fn code_items<C: SymbolCoder>(
        &mut self,
        c: &mut Metered<'_, C>,
        game: &mut Game,
        start: Chess,
        views: &[MoveView],
        ending: Option<[u32; 2]>,
        side: &mut Side<'_>,
    ) -> Result<(), Error> {
        let decoding = c.decoding();
        let corrupt = |m: &str| Error::Corrupt(format!("PGN move text: {m}"));
        let mut frames = vec![Frame { line: 0, done: 0, pos: start, before: None, last_to: None }];
        let facts = self.coding >= Coding::PgnFacts;
        let mut prev = None;
        let mut next_line = 1;
        for i in 0.. {
            c.set(Stream::Layout);
            let f = frames.last().expect("the main line is never closed");
            let white = f.pos.turn() == Color::White;
            let ctx = ItemContext { prev, moves_left: game.lines[f.line].moves.len() > f.done, in_variation: frames.len() > 1, white };
            let mut kind = if decoding { 0 } else { game.items.get(i).map_or(Item::END, Item::kind) };
            self.layout.code_kind(c, ctx, &mut kind)?;
            if kind == Item::END {
                break;
            }
            if decoding {
                c.spend(1)?;
                game.items.push(match kind {
                    0 => Item::MoveNo { number: 0, dots: 0 },
                    1 => Item::Move,
                    2 => Item::Glyph(0),
                    3 => Item::Nag(0),
                    4 => Item::Comment(Vec::new()),
                    5 => Item::LineComment(Vec::new()),
                    6 => Item::VarStart,
                    7 => Item::VarEnd,
                    _ => Item::Result(game.result),
                });
            }
            let f = frames.last_mut().expect("the main line is never closed");
            match &mut game.items[i] {
                Item::MoveNo { number, dots } => self.layout.code_move_number(c, f.pos.fullmoves().get(), white, number, dots)?,
                Item::Move => {
                    let m = *game.lines[f.line].moves.get(f.done).ok_or_else(|| corrupt("more moves than the line has"))?;
                    if facts {
                        self.comments.clocks.facts = ply_facts(&f.pos, m, f.last_to);
                        // The move model's view of main-line moves (coding 4).
                        self.comments.clocks.facts.view = if f.line == 0 { views.get(f.done).copied() } else { None };
                        // Coding 6: the mover's moves left in the main line, and the ending.
                        if let Some(ending) = ending {
                            let plies = game.lines[0].moves.len();
                            self.comments.clocks.facts.own_left = (f.line == 0).then(|| ((plies - f.done).div_ceil(2)) as u32);
                            self.comments.clocks.facts.ending = ending[!white as usize];
                        }
                    }
                    f.last_to = (m != crate::chess::NULL_MOVE).then(|| m.to());
                    f.before = Some(f.pos.clone());
                    play_ply(&mut f.pos, m);
                    f.done += 1;
                }
                Item::Glyph(g) => self.layout.code_glyph(c, g)?,
                Item::Nag(n) => self.layout.code_nag(c, n)?,
                Item::Comment(content) => {
                    let mover = if white { 1 } else { 0 };
                    self.comments.code(c, mover, content, side)?;
                }
                Item::LineComment(text) => {
                    c.set(Stream::Comments);
                    side.code(c, &mut self.layout.line_comment_len, text)?;
                }
                Item::VarStart => {
                    let before = f.before.clone().ok_or_else(|| corrupt("variation before any move"))?;
                    if decoding {
                        game.lines.push(MoveText::default());
                    }
                    let line = next_line;
                    next_line += 1;
                    let text = game.lines.get_mut(line).ok_or_else(|| corrupt("missing variation"))?;
                    c.set(Stream::Moves);
                    let (model, notations) = (self.model, self.notations);
                    let coder = self
                        .variations
                        .get_or_insert_with(|| if notations { GameCoder::with_notations(model) } else { GameCoder::new(model) });
                    coder.set_elos(self.elos);
                    coder.set_ratings(self.ratings);
                    coder.code_moves(c, GameState::from_position(before.clone()), text)?;
                    frames.push(Frame { line, done: 0, pos: before, before: None, last_to: None });
                }
                Item::VarEnd => {
                    if frames.len() < 2 {
                        return Err(corrupt("variation end outside a variation"));
                    }
                    frames.pop();
                }
                Item::Result(r) => self.layout.code_result(c, game.result, frames.len() > 1, r)?,
            }
            prev = Some(kind);
        }
        Ok(())
    }
}

impl HeadCoder {
    /// The head models of a block of `coding` (its tag model is the coding's).
    fn new(coding: Coding) -> Self {
        let tags = if coding >= Coding::PgnPredicted {
            TagModel::with_openings_after()
        } else if coding >= Coding::PgnTagStream {
            TagModel::with_tag_stream()
        } else if coding >= Coding::PgnFacts {
            TagModel::with_facts()
        } else {
            TagModel::new(coding >= Coding::Notations)
        };
        HeadCoder { more: Bit::default(), structured: Bit::default(), tags, raw_len: NumberModel::new() }
    }

    /// Codes a game's tag names and the values of the tags that set up the position; in
    /// coding 5 (`all`) every value.
    fn code_tags<C: SymbolCoder>(&mut self, c: &mut Metered<'_, C>, tags: &mut Vec<Tag>, all: bool) -> Result<(), Error> {
        self.tags.code_tags(c, tags)?;
        if all {
            self.tags.code_header_values(c, tags)?;
        }
        Ok(())
    }

    /// Coding 5: the heads of all the block's pieces, first in its range stream: per piece
    /// "one more", "a game", and a game's tags or a raw piece's bytes (its length here, the
    /// bytes at the front of the side stream); then "no more". When decoding, `pieces` is
    /// filled with raw pieces and games that have only their tags.
    ///
    /// Every head charges the text (so that the heads alone are bounded by it): a raw piece one
    /// byte (its bytes come from the side stream, uncharged), a game its tags (at least 5 bytes
    /// each), a game without tags one byte, which [`decode_pieces`] gives back before its body
    /// (that charges the game's whole text: a lone BOM line is one gap of 3 bytes, charged 3).
    fn code_heads<C: SymbolCoder>(&mut self, c: &mut Metered<'_, C>, pieces: &mut Vec<Piece>, side: &mut Side<'_>) -> Result<(), Error> {
        for i in 0.. {
            if !self.code_kind(c, pieces, i)? {
                break;
            }
            match &mut pieces[i] {
                Piece::Raw(bytes) => self.code_raw_head(c, bytes, side)?,
                Piece::Game(game) => self.code_game_head(c, game)?,
            }
        }
        Ok(())
    }

    /// The start of head `i` (coding 5): "one more" (`false`, returned, past the last piece) and
    /// "a game". When decoding, the piece is pushed onto `pieces`: raw and empty, or a game
    /// without tags yet.
    fn code_kind<C: SymbolCoder>(&mut self, c: &mut Metered<'_, C>, pieces: &mut Vec<Piece>, i: usize) -> Result<bool, Error> {
        let decoding = c.decoding();
        c.set(Stream::Layout);
        if !self.more.code_value(c, i < pieces.len())? {
            return Ok(false);
        }
        if decoding {
            pieces.push(Piece::Raw(Vec::new()));
        }
        let is_game = self.structured.code_value(c, matches!(pieces[i], Piece::Game(_)))?;
        if decoding && is_game {
            pieces[i] = Piece::Game(Box::default());
        }
        Ok(true)
    }

    /// The rest of a raw piece's head (coding 5): its length, its bytes from the side stream.
    fn code_raw_head<C: SymbolCoder>(&mut self, c: &mut Metered<'_, C>, bytes: &mut Vec<u8>, side: &mut Side<'_>) -> Result<(), Error> {
        c.spend(1)?;
        side.code(c, &mut self.raw_len, bytes)
    }

    /// The rest of a game's head (coding 5): its tags, names and values.
    fn code_game_head<C: SymbolCoder>(&mut self, c: &mut Metered<'_, C>, game: &mut Game) -> Result<(), Error> {
        c.set(Stream::Tags);
        self.code_tags(c, &mut game.tags, true)?;
        if game.tags.is_empty() {
            c.spend(1)?;
        }
        Ok(())
    }
}

/// Plies of a game's opening whose positions predict its `ECO` and `Opening` (coding 3).
const OPENING_PLIES: usize = 40;

/// Zobrist hashes of the positions after each of the first [`OPENING_PLIES`] plies of `moves`
/// from `start`.
fn opening_hashes(start: &Chess, moves: &[shakmaty::Move]) -> Vec<u64> {
    use shakmaty::EnPassantMode;
    use shakmaty::zobrist::Zobrist64;
    let mut pos = start.clone();
    let mut out = Vec::new();
    for &m in moves.iter().take(OPENING_PLIES) {
        play_ply(&mut pos, m);
        out.push(pos.zobrist_hash::<Zobrist64>(EnPassantMode::Legal).0);
    }
    out
}

/// A 32-bit FNV-1a hash of a name, never 0.
fn name_hash(v: &[u8]) -> u32 {
    v.iter().fold(0x811c_9dc5u32, |h, &b| (h ^ b as u32).wrapping_mul(0x0100_0193)) | 1
}

/// What the position says about move `m` (see [`PlyFacts`]); `last_to` is where the
/// opponent's last move went.
fn ply_facts(pos: &Chess, m: shakmaty::Move, last_to: Option<Square>) -> PlyFacts {
    let real = m != crate::chess::NULL_MOVE;
    PlyFacts {
        fullmove: pos.fullmoves().get(),
        legal: pos.legal_moves().len() as u32,
        capture: real && m.is_capture(),
        recapture: real && m.is_capture() && last_to == Some(m.to()),
        in_check: pos.is_check(),
        view: None,
        own_left: None,
        ending: 0,
    }
}

/// Compresses a block of PGN text with `model`.
pub fn encode_block(model: &Model, text: &[u8]) -> (EncodedBlock, BlockStats) {
    let (block, stats, _) = encode_block_detailed(model, text);
    (block, stats)
}

/// [`encode_block`] with the breakdown of the block's size by stream.
pub fn encode_block_detailed(model: &Model, text: &[u8]) -> (EncodedBlock, BlockStats, PgnStats) {
    encode_block_in(model, PGN_CODING, text)
}

/// [`encode_block_detailed`] in an earlier `coding` (1 or later; coding 2 codes PGN as coding
/// 1), to measure what a coding changes. Archives are always written in the newest coding.
///
/// # Panics
/// For [`Coding::First`], which this build decodes only.
pub fn encode_block_in(model: &Model, coding: Coding, text: &[u8]) -> (EncodedBlock, BlockStats, PgnStats) {
    assert!(coding >= Coding::Notations, "coding 0 is decoded only");
    // Canonical SAN; else other notations coded and checked by decoding; else those raw.
    notation_ladder(
        text,
        |mode| encode_with(model, coding, text, mode),
        |coded, back| decode_block(model, coding, &coded.0, text.len(), back),
    )
}

/// [`encode_block`] with every game stored raw ([`Notations::Stored`]): the fallback of a
/// block that does not decode to its text (see [`crate::archive`]).
pub fn encode_block_stored(model: &Model, text: &[u8]) -> (EncodedBlock, BlockStats) {
    let (block, stats, _) = encode_with(model, PGN_CODING, text, Notations::Stored).expect("stored games allowed");
    (block, stats)
}

/// [`encode_block_detailed`] with games in other notations handled as `mode` says; `None` if
/// `mode` refuses them and a game needs them.
fn encode_with(model: &Model, coding: Coding, text: &[u8], mode: Notations) -> Option<(EncodedBlock, BlockStats, PgnStats)> {
    let notations = mode == Notations::Coded;
    let mut coder = PgnCoder::new(model, coding, notations);
    let mut enc = Encoder::new();
    let mut side = Side::writer();
    let mut stats = BlockStats { lines: count_lines(text), ..BlockStats::default() };
    let mut pgn = PgnStats::default();
    let mut c = Metered::new(&mut enc);
    let heads_first = coding >= Coding::PgnTagStream;
    let mut pieces = Vec::new();
    c.set(Stream::Layout);
    let mut flag = notations as usize;
    c.code(Cdf::new(&NOTATIONS_FLAG), &mut flag).expect("encoding cannot fail");
    for piece in split_games(text) {
        let mut parsed = if mode == Notations::Stored { None } else { parse(piece) };
        if parsed.as_ref().is_some_and(|g| g.lines.iter().any(|l| !l.written.is_empty())) {
            match mode {
                Notations::Refused => return None,
                Notations::Coded => {}
                Notations::Raw | Notations::Stored => parsed = None,
            }
        }
        let mut p = match parsed {
            Some(mut game) => {
                if notations {
                    // In a block with other notations every line codes its notation (SAN
                    // here), so that "does it use another notation?" stays predictable.
                    for line in &mut game.lines {
                        line.written.resize(line.moves.len(), Written::default());
                    }
                }
                stats.games += 1;
                stats.plies += game.lines[0].moves.len() as u64;
                pgn.games += 1;
                Piece::Game(Box::new(game))
            }
            None => {
                stats.raw_lines += count_lines(piece);
                pgn.raw_games += 1;
                pgn.raw_bytes += piece.len() as u64;
                Piece::Raw(piece.to_vec())
            }
        };
        if heads_first {
            pieces.push(p);
            continue;
        }
        c.set(Stream::Layout);
        coder.head.more.code_value(&mut c, true).expect("encoding cannot fail");
        coder.code_piece(&mut c, &mut p, &mut side).expect("encoding cannot fail");
    }
    if heads_first {
        coder.head.code_heads(&mut c, &mut pieces, &mut side).expect("encoding cannot fail");
        for p in &mut pieces {
            coder.code_piece(&mut c, p, &mut side).expect("encoding cannot fail");
        }
    } else {
        c.set(Stream::Layout);
        coder.head.more.code_value(&mut c, false).expect("encoding cannot fail");
    }
    pgn.bits = c.bits;
    pgn.tag_bits = coder.head.tags.costs().map(|(n, b)| (n.to_vec(), b)).collect();
    pgn.move_choice_bits = coder.games.move_info.bits() + coder.variations.as_ref().map_or(0.0, |v| v.move_info.bits());
    stats.move_bits = pgn.bits[Stream::Moves as usize];
    stats.other_bits = pgn.bits.iter().sum::<f64>() - stats.move_bits;
    pgn.text_bytes = side.written.len() as u64 - pgn.raw_bytes;
    let raw = if side.written.is_empty() {
        Vec::new()
    } else {
        zstd::bulk::compress(&side.written, SIDE_ZSTD_LEVEL).expect("in-memory zstd compression cannot fail")
    };
    let range = enc.finish();
    pgn.range_bytes = range.len() as u64;
    pgn.side_bytes = raw.len() as u64;
    Some((EncodedBlock { range, raw }, stats, pgn))
}

/// Lines of `text`: line breaks, plus one for a last line without one.
pub fn count_lines(text: &[u8]) -> u64 {
    let breaks = memchr::memchr_iter(b'\n', text).count() as u64;
    breaks + (!text.is_empty() && !text.ends_with(b"\n")) as u64
}

/// Expands a PGN block, appending its text to `out`. `max_len` bounds the text length (from
/// the block header) so that damaged data cannot make the decoder allocate without limit; the
/// work is bounded by the stream's size (see [`crate::entropy::budget`]).
///
/// # Errors
/// [`Error::Corrupt`] when the streams are inconsistent (the caller's checksum catches the
/// rest), [`Error::LimitExceeded`] when they would decode to more than the block's size allows.
///
/// Returns the counts of what was decoded, as [`encode_block`] counts them (lines of the text,
/// structured games, their main lines' plies, lines of raw pieces; no bits), for the caller to
/// check against the block header.
pub fn decode_block(model: &Model, coding: Coding, block: &EncodedBlock, max_len: usize, out: &mut Vec<u8>) -> Result<BlockStats, Error> {
    decode_pieces(model, coding, block, max_len, usize::MAX, out)
}

/// The text of a PGN block's first piece of [`split_games`] (empty for a block without
/// pieces), decoding no piece after it: for a game-numbering question that only the start of a
/// block decides (whether it starts with a UTF-8 BOM, see
/// [`super::lexer::GameSplitter::reading`]), at the cost of one game instead of the whole block
/// (in coding 5 and later the heads of all pieces come first and are decoded too: tags only,
/// no move). Nothing checks the text against the block's checksum, which covers the whole
/// block: a caller that needs the text verified decodes the block with [`decode_block`].
///
/// # Errors
/// As [`decode_block`], for the part decoded.
pub fn decode_first_piece(model: &Model, coding: Coding, block: &EncodedBlock, max_len: usize) -> Result<Vec<u8>, Error> {
    let mut out = Vec::new();
    decode_pieces(model, coding, block, max_len, 1, &mut out)?;
    Ok(out)
}

/// Whether the text of a PGN block may start with a UTF-8 BOM (bytes EF BB BF), read from its
/// first piece alone ([`decode_first_piece`]): where it does not, the game views cut the block
/// as the compressor did ([`super::lexer::GameSplitter::reading`] is then
/// [`super::lexer::GameSplitter::new`]), and the counts of its header and index hold for them.
/// Also `true` for a first piece shorter than a BOM that could be the start of one (the rest
/// in the next block), and so for a block without pieces.
///
/// # Errors
/// As [`decode_first_piece`].
pub fn may_start_with_bom(model: &Model, coding: Coding, block: &EncodedBlock, max_len: usize) -> Result<bool, Error> {
    let first = decode_first_piece(model, coding, block, max_len)?;
    Ok(first.starts_with(BOM) || (first.len() < BOM.len() && BOM.starts_with(&first)))
}

/// [`decode_block`] of the block's first `pieces` pieces; the check that the side stream is
/// used up only when every piece is decoded.
fn decode_pieces(
    model: &Model,
    coding: Coding,
    block: &EncodedBlock,
    max_len: usize,
    pieces: usize,
    out: &mut Vec<u8>,
) -> Result<BlockStats, Error> {
    let mut dec = BudgetedDecoder::new(&block.range, max_len)?;
    let side_bytes = inflate_side(&block.raw, max_len, "side stream")?;
    let mut side = Side::reader(&side_bytes);
    let mut c = Metered::new(&mut dec);
    let mut notations = 0;
    if coding >= Coding::Notations {
        c.set(Stream::Layout);
        c.code(Cdf::new(&NOTATIONS_FLAG), &mut notations)?;
    }
    let mut coder = PgnCoder::new(model, coding, notations == 1);
    let start = out.len();
    let mut stats = BlockStats::default();
    // Coding 5: the heads of all pieces first.
    let mut heads = Vec::new();
    if coding >= Coding::PgnTagStream {
        coder.head.code_heads(&mut c, &mut heads, &mut side)?;
    }
    let mut heads = heads.into_iter();
    // Whether every piece was decoded (not only the first `pieces`).
    let mut all = false;
    for _ in 0..pieces {
        let mut piece = if coding >= Coding::PgnTagStream {
            match heads.next() {
                Some(p) => {
                    // The byte a game without tags was charged in its head (see
                    // [`HeadCoder::code_heads`]): its body charges its whole text.
                    if matches!(&p, Piece::Game(g) if g.tags.is_empty()) {
                        c.refund(1);
                    }
                    p
                }
                None => {
                    all = true;
                    break;
                }
            }
        } else {
            c.set(Stream::Layout);
            if !coder.head.more.code_value(&mut c, false)? {
                all = true;
                break;
            }
            Piece::Raw(Vec::new())
        };
        coder.code_piece(&mut c, &mut piece, &mut side)?;
        let before = out.len();
        match &piece {
            Piece::Raw(bytes) => {
                out.extend_from_slice(bytes);
                stats.raw_lines += count_lines(bytes);
            }
            Piece::Game(game) => {
                render(game, out)?;
                stats.games += 1;
                stats.plies += game.lines[0].moves.len() as u64;
            }
        }
        if out.len() == before || out.len() - start > max_len {
            return Err(Error::Corrupt("PGN block expands to the wrong length".into()));
        }
    }
    if all && !side.finished() {
        return Err(Error::Corrupt("side stream has unused bytes".into()));
    }
    stats.lines = count_lines(&out[start..]);
    Ok(stats)
}

/// What [`decode_tags`] reads: the tags of a block's pieces (a list per piece, in order) and
/// the number of its pieces coded as games.
pub type BlockTags = (Vec<Vec<Tag>>, u64);

/// The tags of a block's games (one list per piece of [`split_games`], in order) read from
/// the heads of a coding-5 block alone, without decoding any move: a game's tags as a full
/// decode gives them ([`decode_block`], then [`super::game::parse`]), a piece kept raw's as
/// [`scan_tags`] reads them. `max_len` bounds the work as in [`decode_block`].
///
/// Returns `None` for a block of an earlier coding, whose heads are between its moves, and for
/// a coding-6 block with a game that has an `ECO`, `Opening` or `UTCTime` tag (coded after its
/// moves); else
/// the tags and the number of games coded structurally (what the block header counts as
/// games).
///
/// # Errors
/// [`Error::Corrupt`] when the stream is inconsistent, [`Error::LimitExceeded`] when it
/// would decode to more than the block's size allows.
pub fn decode_tags(coding: Coding, block: &EncodedBlock, max_len: usize) -> Result<Option<BlockTags>, Error> {
    if coding < Coding::PgnTagStream {
        return Ok(None);
    }
    let mut dec = BudgetedDecoder::new(&block.range, max_len)?;
    let mut c = Metered::new(&mut dec);
    c.set(Stream::Layout);
    let mut notations = 0;
    c.code(Cdf::new(&NOTATIONS_FLAG), &mut notations)?;
    // Raw pieces' bytes are at the front of the side stream (usually empty without comments).
    let side_bytes = if block.raw.is_empty() { Vec::new() } else { inflate_side(&block.raw, max_len, "side stream")? };
    let mut side = Side::reader(&side_bytes);
    let mut head = HeadCoder::new(coding);
    let mut pieces = Vec::new();
    head.code_heads(&mut c, &mut pieces, &mut side)?;
    // Coding 6 codes `ECO`, `Opening` and `UTCTime` after the moves: such blocks are decoded
    // whole.
    if pieces.iter().any(|p| matches!(p, Piece::Game(g) if g.tags.iter().any(|t| head.tags.after_moves(&t.name)))) {
        return Ok(None);
    }
    let games = pieces.iter().filter(|p| matches!(p, Piece::Game(_))).count() as u64;
    let tags = pieces
        .into_iter()
        .map(|p| match p {
            Piece::Game(game) => game.tags,
            Piece::Raw(bytes) => scan_tags(&bytes),
        })
        .collect();
    Ok(Some((tags, games)))
}

/// What the head of a block's first piece says, read without the move model
/// ([`first_head`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum FirstHead {
    /// The block has no piece.
    None,
    /// The first piece is kept raw: its bytes.
    Raw(Vec<u8>),
    /// The first piece is a game with this many tags.
    Game {
        /// Its tags.
        tags: usize,
    },
}

/// The head of a PGN block's first piece, from the start of a coding-5 (or later) block's
/// range stream alone: no move decoded, no model needed. A game's tags are read (the count is
/// what [`crate::inspect`] needs), and the side stream is inflated only for a raw piece, whose
/// bytes are at its front. `None` for a block of an earlier coding, whose heads are between
/// its moves.
///
/// Reads the first head with the reader of every head (`HeadCoder::code_heads`): "one more",
/// "a game", then a game's tags or a raw piece's length and bytes.
///
/// # Errors
/// As [`decode_tags`].
pub fn first_head(coding: Coding, block: &EncodedBlock, max_len: usize) -> Result<Option<FirstHead>, Error> {
    if coding < Coding::PgnTagStream {
        return Ok(None);
    }
    let mut dec = BudgetedDecoder::new(&block.range, max_len)?;
    let mut c = Metered::new(&mut dec);
    c.set(Stream::Layout);
    let mut notations = 0;
    c.code(Cdf::new(&NOTATIONS_FLAG), &mut notations)?;
    let mut head = HeadCoder::new(coding);
    let mut pieces = Vec::new();
    if !head.code_kind(&mut c, &mut pieces, 0)? {
        return Ok(Some(FirstHead::None));
    }
    Ok(Some(match &mut pieces[0] {
        Piece::Game(game) => {
            head.code_game_head(&mut c, game)?;
            FirstHead::Game { tags: game.tags.len() }
        }
        Piece::Raw(bytes) => {
            let side_bytes = inflate_side(&block.raw, max_len, "side stream")?;
            head.code_raw_head(&mut c, bytes, &mut Side::reader(&side_bytes))?;
            FirstHead::Raw(std::mem::take(bytes))
        }
    }))
}

/// The tags of a piece of PGN text: those of [`super::game::parse`] if it parses, else the
/// tag pairs `[Name "value"]` at its start, one per line (after blank lines and a byte order
/// mark), up to the first line that is not one; the value is what lies between the first and
/// the last `"` of the line.
pub fn scan_tags(piece: &[u8]) -> Vec<Tag> {
    if let Some(game) = super::game::parse(piece) {
        return game.tags;
    }
    let piece = piece.strip_prefix(b"\xef\xbb\xbf").unwrap_or(piece);
    let mut tags = Vec::new();
    for line in piece.split(|&b| b == b'\n') {
        let line = line.trim_ascii();
        if line.is_empty() && tags.is_empty() {
            continue;
        }
        let Some(inner) = line.strip_prefix(b"[").and_then(|l| l.strip_suffix(b"]")) else { break };
        let name_len = inner.iter().position(|b| b.is_ascii_whitespace()).unwrap_or(inner.len());
        let (first, last) = (inner.iter().position(|&b| b == b'"'), inner.iter().rposition(|&b| b == b'"'));
        match (first, last) {
            (Some(f), Some(l)) if f < l && name_len > 0 && name_len < f => {
                tags.push(Tag { name: inner[..name_len].to_vec(), value: inner[f + 1..l].to_vec() });
            }
            _ => break,
        }
    }
    tags
}

#[cfg(test)]
mod tests {
    use super::*;

    fn round_trip(text: &[u8]) -> PgnStats {
        let model = Model::builtin(crate::model::Level::MIN);
        let (block, counts, stats) = encode_block_detailed(model, text);
        let mut out = Vec::new();
        let decoded = decode_block(model, PGN_CODING, &block, text.len(), &mut out).unwrap();
        assert_eq!(
            (decoded.lines, decoded.games, decoded.plies, decoded.raw_lines),
            (counts.lines, counts.games, counts.plies, counts.raw_lines)
        );
        assert_eq!(String::from_utf8_lossy(&out), String::from_utf8_lossy(text));
        assert_eq!(out, text);
        stats
    }

    #[test]
    fn blocks_round_trip() {
        round_trip(b"");
        round_trip(b"\n");
        round_trip(b"garbage \xff\n");
        let s = round_trip(
            b"[Event \"Rated\"]\n[Site \"https://lichess.org/abcdefgh\"]\n[Result \"1-0\"]\n[WhiteElo \"1500\"]\n[TimeControl \"60+1\"]\n\n\
              1. e4 { [%eval 0.17] [%clk 0:01:00] } 1... e5 { [%clk 0:01:00] } 2. Nf3 $1 (2. f4 exf4 (2... d5)) 2... Nc6?! { Hm. } 1-0\n\n\
              [Event \"Rated\"]\n[Site \"https://lichess.org/abcdefgx\"]\n[Result \"0-1\"]\n[WhiteElo \"1510\"]\n\n1.d4 d5 ; x\r\n 0-1\n",
        );
        assert_eq!((s.games, s.raw_games), (2, 0));
        let s = round_trip(b"[Variant \"Antichess\"]\n\n1. e3 b5 *\n\n[Event \"x\"]\n\n1. e4 *\n");
        assert_eq!((s.games, s.raw_games), (1, 1));
    }

    /// The first piece of a block, decoded alone in every coding that writes PGN, is the first
    /// piece the compressor cut (a raw piece or a game), and tells whether the text starts
    /// with a BOM.
    #[test]
    fn the_first_piece_decodes_alone() {
        let model = Model::builtin(crate::model::Level::MIN);
        let game = "[Event \"x\"]\n[Site \"y\"]\n\n1. e4 { [%clk 0:01:00] } e5 1-0\n\n[Event \"z\"]\n\n1. d4 *\n";
        let texts = [
            format!("\u{feff}{game}"),
            game.to_string(),
            format!("garbage \u{feff}\n{game}"),
            format!("\u{feff}garbage \u{ff}\n{game}"),
            format!("\u{feff} \n\n{game}"),
        ];
        for coding in [Coding::Notations, Coding::PgnTagStream, Coding::PgnPredicted] {
            for text in &texts {
                let text = text.as_bytes();
                let (block, _, _) = encode_block_in(model, coding, text);
                let mut all = Vec::new();
                decode_block(model, coding, &block, text.len(), &mut all).unwrap();
                assert_eq!(all, text);
                let first = decode_first_piece(model, coding, &block, text.len()).unwrap();
                assert_eq!(first, split_games(text)[0], "{coding:?}: {:?}", String::from_utf8_lossy(text));
                assert_eq!(may_start_with_bom(model, coding, &block, text.len()).unwrap(), text.starts_with(BOM));
            }
        }
        let (block, _, _) = encode_block_in(model, PGN_CODING, b"");
        assert!(decode_first_piece(model, PGN_CODING, &block, 0).unwrap().is_empty());
        assert!(may_start_with_bom(model, PGN_CODING, &block, 0).unwrap(), "no piece: the next block may hold the BOM");
    }

    /// A block whose text is all charged to the decoder's budget (a lone UTF-8 BOM line: one
    /// game of one gap; a game of one tag) decodes in every coding: in codings 5 and 6 the
    /// piece's head no longer charges a byte on top of the game's text, so the decoder no
    /// longer refuses what the encoder wrote (the archive stored such a block raw).
    #[test]
    fn a_block_of_a_lone_bom_line_decodes() {
        let model = Model::builtin(crate::model::Level::MIN);
        let texts: [&[u8]; 9] = [
            b"\xef\xbb\xbf",
            b"\xef\xbb\xbf\n",
            b"\xef\xbb\xbf\r\n",
            b"\xef\xbb\xbf\n\n",
            b" \n",
            b"\t*",
            b"[A \"\"]",
            b"[A \"\"][B \"x\"]",
            b"\xef\xbb\xbf\n[Event \"x\"]\n\n1. e4 *\n",
        ];
        for coding in [Coding::Notations, Coding::PgnFacts, Coding::PgnStreams, Coding::PgnTagStream, Coding::PgnPredicted] {
            for text in texts {
                let (block, counts, _) = encode_block_in(model, coding, text);
                assert_eq!((counts.games, counts.raw_lines), (split_games(text).len() as u64, 0), "{coding:?} {text:?}: coded as games");
                let mut back = Vec::new();
                let stats =
                    decode_block(model, coding, &block, text.len(), &mut back).unwrap_or_else(|e| panic!("{coding:?} {text:?}: {e}"));
                assert_eq!(back, text, "{coding:?}");
                assert_eq!((stats.games, stats.lines), (counts.games, counts.lines), "{coding:?} {text:?}");
                assert_eq!(decode_first_piece(model, coding, &block, text.len()).unwrap(), split_games(text)[0]);
                // One byte less of text is still refused.
                let short = decode_block(model, coding, &block, text.len() - 1, &mut Vec::new());
                assert!(short.is_err(), "{coding:?} {text:?}: decodes within {} bytes", text.len() - 1);
            }
        }
    }

    /// The first piece's head read alone ([`first_head`]) is the first piece the compressor cut:
    /// a game and its number of tags, or a raw piece and its bytes; nothing for an empty block
    /// or a coding whose heads are between its moves.
    #[test]
    fn the_first_head_reads_alone() {
        let model = Model::builtin(crate::model::Level::MIN);
        let game = "[Event \"x\"]\n[Site \"y\"]\n\n1. e4 { [%clk 0:01:00] } e5 1-0\n\n[Event \"z\"]\n\n1. d4 *\n";
        let texts = [
            game.to_string(),
            format!("\u{feff}\n{game}"),
            format!("\u{feff}{game}"),
            format!("\u{feff}[A \"1\"][B \"2\"]\n{game}"),
            format!("garbage \u{ff}\n{game}"),
            format!("\u{feff}garbage \u{ff}\n{game}"),
            "[Variant \"Antichess\"]\n\n1. e3 b5 *\n".to_string(),
        ];
        for coding in [Coding::PgnTagStream, Coding::PgnPredicted] {
            for text in &texts {
                let text = text.as_bytes();
                let (block, _, _) = encode_block_in(model, coding, text);
                let first = split_games(text)[0];
                let want = match parse(first) {
                    Some(g) => FirstHead::Game { tags: g.tags.len() },
                    None => FirstHead::Raw(first.to_vec()),
                };
                assert_eq!(first_head(coding, &block, text.len()).unwrap(), Some(want), "{coding:?}: {:?}", String::from_utf8_lossy(text));
            }
            let (block, _, _) = encode_block_in(model, coding, b"");
            assert_eq!(first_head(coding, &block, 0).unwrap(), Some(FirstHead::None));
        }
        let (block, _, _) = encode_block_in(model, Coding::PgnStreams, game.as_bytes());
        assert_eq!(first_head(Coding::PgnStreams, &block, game.len()).unwrap(), None);
    }

    /// A network with rating inputs (as a model release would have) codes PGN games with their
    /// ratings: exact round trips, and the ratings change the move choices' cost; with its rating
    /// rows zeroed it codes byte for byte as the same network without those rows (977 inputs).
    #[test]
    fn a_network_with_rating_inputs_reads_the_rating_tags() {
        use crate::model::network::{BOARD_INPUTS, Network, RATED_BOARD_INPUTS};
        let text = include_bytes!("../../tests/golden/lichess.pgn");
        let base = Model::builtin(crate::model::Level::new(2).unwrap());
        let (h1, h2, d) = (64, 32, 32);
        let rated = Network::random_with_inputs(RATED_BOARD_INPUTS, h1, h2, d, 5);
        assert!(rated.reads_ratings());
        // The same network with its 45 rating rows zeroed (header 8 + 6 x 4 bytes, i16 rows).
        let mut bytes = rated.to_bytes();
        let rows = 32 + BOARD_INPUTS * h1 * 2..32 + RATED_BOARD_INPUTS * h1 * 2;
        bytes[rows.clone()].fill(0);
        let body = bytes.len() - 4;
        let crc = crc32fast::hash(&bytes[..body]);
        bytes[body..].copy_from_slice(&crc.to_le_bytes());
        let zeroed = Network::parse("zeroed", &bytes).expect("a valid network");
        // And the network without those rows: 977 inputs, version 5's kind of file.
        let mut cut = bytes[..rows.start].to_vec();
        cut[8..12].copy_from_slice(&(BOARD_INPUTS as u32).to_le_bytes());
        cut.extend_from_slice(&bytes[rows.end..body]);
        let crc = crc32fast::hash(&cut);
        cut.extend_from_slice(&crc.to_le_bytes());
        let cut = Network::parse("cut", &cut).expect("a valid network");
        assert!(!cut.reads_ratings());
        let code = |net: Network| {
            let model = base.clone().with_network(std::sync::Arc::new(net));
            let (block, _, stats) = encode_block_detailed(&model, text);
            let mut out = Vec::new();
            decode_block(&model, PGN_CODING, &block, text.len(), &mut out).unwrap();
            assert_eq!(out, &text[..], "round trip");
            (block, stats.move_choice_bits, stats.games, model.reads_ratings())
        };
        let (with_block, with, games, reads) = code(rated.clone());
        let (zeroed_block, without, _, _) = code(zeroed);
        let (cut_block, _, _, cut_reads) = code(cut);
        assert!(reads && !cut_reads);
        assert!(games >= 8, "{games} games");
        assert_eq!(zeroed_block.range, cut_block.range, "zero rating rows code as no rating rows");
        assert_ne!(with_block.range, cut_block.range);
        assert!(with != without, "the ratings change the move choices' cost: {with} bits both ways");
    }
}
