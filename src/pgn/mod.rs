//! The PGN format: real PGN files, compressed byte for byte.
//!
//! ```text
//! block text -> games            blocks (whole games), lexer (byte-exact tokens), game (parse/render)
//!            -> per game         tags, GameCoder (moves, results), layout (items, gaps), comment, clock
//!            -> two streams      one range-coded stream + a zstd side stream (raw games, free text)
//! ```
//!
//! # Games
//! A block is cut into games ([`lexer::split_games`]). A game either parses into a
//! [`game::Game`] that renders back to exactly its bytes, or is kept raw in the side stream:
//! variants other than standard chess and Chess960, illegal moves, spellings that neither
//! the SAN model nor the other notations of [`crate::text::notation`] reproduce (`Pe4`,
//! `e2-e4` in a block of the first coding), `%` escape lines, text the lexer does not know
//! (`+-`, `½-½`), a tag pair not of the form `[Name "value"]`. Parsing uses shakmaty for SAN and
//! FEN, [`crate::text::notation`] for other notations (`0-0`, `e2-e4`, `♘f3`, null moves `--`
//! and `Z0`), and a small lexer of our own for the layout (pgn-reader drops whitespace; see
//! [`lexer`]).
//!
//! # What is coded, and how ([`codec`] has the walk)
//! Everything except the side stream is one range-coded stream of symbols under adaptive
//! integer models; each symbol is attributed to one of these streams ([`Stream`]) for the size
//! breakdown:
//! - **moves**: the main line and each variation with the engine-guided [`crate::format::game_coder::GameCoder`]
//!   exactly as in the movetext format (per-ply end flags, SAN spellings with check marks and
//!   disambiguation predicted from the position), from the position the tags set up (standard,
//!   `FEN`, Chess960), and the result. In coding 1 a block starts with one bit that says
//!   whether some game is written in another notation; if so each game says whether it is,
//!   and which ([`crate::format::notation_coder`]).
//! - **tags** ([`tags`]): names predicted from the previous game; values after the moves, so
//!   `Result` and `PlyCount` are "as the moves say"; ratings as a change from the player's
//!   previous rating in the block, in the context of the player's result; other values as a
//!   rank in a move-to-front list (player names share one), or new: an integer as a difference,
//!   a string as a prefix shared with the last value (`https://lichess.org/`) plus the rest
//!   under a context-mixing text model ([`crate::entropy::text`]).
//! - **clocks** ([`clock`]): `[%clk]` as the time spent, predicted from the same player's last
//!   clock plus the increment (or the base time), in the context of the time control's speed
//!   and the player's previous time spent.
//! - **coding 3** ([`crate::container::Coding::PgnFacts`]): the time spent under a mixing
//!   model of what the decoder knows ([`clock_model`], [`mix`]); rating diffs from the ratings
//!   and the result ([`rating`]); ratings per player and `Event`; `ECO` and `Opening` from the
//!   opening positions shared with earlier games of the block, `UTCTime` as a change from the
//!   block's last one ([`tags`]).
//! - **coding 4** ([`crate::container::Coding::PgnStreams`]): the time spent also in the
//!   context of what the move model thought of the move (how surprising it was, the move's
//!   rank, how sure the model was: [`crate::format::game_coder::MoveView`], recorded while
//!   the main line is coded).
//! - **evals** ([`comment`]): `[%eval]` as the change from the previous evaluation.
//! - **comments** ([`comment`]): each comment's *shape* (whitespace and placeholders for
//!   clocks, evals, other `[%cmd]`s and free text) as a rank among recent shapes; the free text
//!   itself goes to the side stream.
//! - **layout** ([`layout`]): which item comes next (move number, move, comment, NAG, glyph,
//!   variation, result), move numbers against the expected ones, result tokens against the
//!   game's result, the whitespace between tokens as a class (none, space, line break, blank
//!   line, other) in the context of the tokens around it and whether a fixed wrapping width
//!   would be exceeded, CRLF per game, raw-game flags and lengths.
//!
//! The side stream ([`side`]) holds raw games and free text, compressed with zstd.
//!
//! # Other entry points
//! [`blocks`] reads input as blocks of whole games and detects PGN by content; [`crate::convert`]
//! (above the pipeline) writes the games of any archive in the movetext format.

pub mod blocks;
pub mod clock;
pub mod clock_model;
pub mod codec;
pub mod comment;
pub mod game;
pub mod layout;
pub mod lexer;
pub mod mix;
pub mod rating;
pub mod side;
pub mod stream;
pub mod tags;

pub use blocks::{BlockReader, detect};
pub use codec::{PgnStats, decode_block, encode_block, encode_block_detailed, encode_block_in};
pub use stream::Stream;

use std::io::BufRead;

use crate::container::{BlockStats, Coding, EncodedBlock, InputFormat};
use crate::error::Error;
use crate::format::{BlockFormat, BlockSplitter};
use crate::model::Model;

/// The PGN format as a [`BlockFormat`]: blocks of whole games ([`BlockReader`]).
#[derive(Clone, Copy, Debug, Default)]
pub struct Pgn;

impl BlockFormat for Pgn {
    fn input_format(&self) -> InputFormat {
        InputFormat::Pgn
    }

    fn splitter(&self) -> Box<dyn BlockSplitter> {
        Box::new(BlockReader::new())
    }

    fn encode(&self, model: &Model, text: &[u8]) -> (EncodedBlock, BlockStats) {
        encode_block(model, text)
    }

    fn encode_stored(&self, model: &Model, text: &[u8]) -> (EncodedBlock, BlockStats) {
        codec::encode_block_stored(model, text)
    }

    fn decode(
        &self,
        model: &Model,
        coding: Coding,
        block: &EncodedBlock,
        _lines: u64,
        max_len: usize,
        out: &mut Vec<u8>,
    ) -> Result<BlockStats, Error> {
        decode_block(model, coding, block, max_len, out)
    }
}

impl BlockSplitter for BlockReader {
    fn read(&mut self, mut input: &mut dyn BufRead, units: u32, max_bytes: usize, out: &mut Vec<u8>) -> Result<(), Error> {
        self.read_block(&mut input, units, max_bytes, out)
    }
}
