//! What the block formats (movetext, PGN) share: their one interface ([`BlockFormat`]: how
//! input is cut into blocks, and how a block's text is coded and decoded with the model), the
//! coder of a game's moves ([`game_coder`]) and of how they are written ([`notation_coder`],
//! over [`MoveText`]), and the encode -> verify -> fall-back ladder of a block
//! ([`ladder`]). The pipeline ([`crate::archive`]) picks the format once per archive, from its
//! header's [`InputFormat`], and calls it for every block; each format implements it in its own
//! module ([`crate::movetext`], [`crate::pgn`]), side by side above this one.

pub mod game_coder;
pub mod ladder;
pub mod move_text;
pub mod notation_coder;

use std::io::BufRead;

pub use game_coder::GameCoder;
pub use move_text::MoveText;

use crate::container::{BlockStats, Coding, EncodedBlock, InputFormat};
use crate::error::Error;
use crate::model::Model;

/// A block format.
pub trait BlockFormat: Sync {
    /// Which format this is, as the archive header records it.
    fn input_format(&self) -> InputFormat;

    /// A cutter of input into blocks, at the start of input.
    fn splitter(&self) -> Box<dyn BlockSplitter>;

    /// Codes one block's text (as cut by [`BlockFormat::splitter`]) with `model`, in the
    /// newest coding ([`Coding::NEWEST`]).
    fn encode(&self, model: &Model, text: &[u8]) -> (EncodedBlock, BlockStats);

    /// Codes one block's text as [`BlockFormat::encode`] does, but with every line (or game)
    /// stored raw, no move coded: the fallback of a block that does not decode to its text
    /// (see [`crate::archive`]), decodable by [`BlockFormat::decode`] in the same coding.
    fn encode_stored(&self, model: &Model, text: &[u8]) -> (EncodedBlock, BlockStats);

    /// Decodes `block`, whose header records `lines` lines and `max_len` bytes of text, with
    /// `model` in `coding` (the archive's) into `out`; returns the counts of what was decoded.
    ///
    /// # Errors
    /// [`Error::Corrupt`] or [`Error::LimitExceeded`] on a block no encoder made.
    fn decode(
        &self,
        model: &Model,
        coding: Coding,
        block: &EncodedBlock,
        lines: u64,
        max_len: usize,
        out: &mut Vec<u8>,
    ) -> Result<BlockStats, Error>;
}

/// Cuts input into blocks: reads the next block into `out` (empty at the end of input).
pub trait BlockSplitter {
    /// Reads at most `units` units (lines, or games for PGN) and about `max_bytes` bytes
    /// (1..=[`crate::container::MAX_BLOCK_TEXT`]) from `input` into `out`.
    ///
    /// # Errors
    /// [`Error::Io`] when reading fails.
    fn read(&mut self, input: &mut dyn BufRead, units: u32, max_bytes: usize, out: &mut Vec<u8>) -> Result<(), Error>;
}
