//! The settings of a run ([`CompressOptions`], [`ExpandOptions`]) with their defaults, and
//! what a run did ([`Summary`], [`Progress`]).

use super::limits::DecodeLimits;
use crate::container::{BlockHeader, BlockStats, InputFormat, MAX_BLOCK_TEXT};
use crate::model::Level;
use crate::model::transformer::Weights;

/// Default number of lines (games) per block at levels 1-3: large enough for the online book
/// to learn, small enough for parallelism and random access.
pub const DEFAULT_BLOCK_LINES: u32 = 1000;

/// Default number of lines (games) per block at levels 4-9, where compression comes before
/// speed: the online book learns from five times as many games. Chosen on the 2016 training
/// games and the heldout games (6,673 games, level 5): 105,560 bytes in blocks of 1,000 lines,
/// 104,332 of 2,500, 103,564 of 5,000, 103,656 of 10,000 (one block).
pub const STRONG_BLOCK_LINES: u32 = 5000;

/// The first level that codes blocks of [`STRONG_BLOCK_LINES`] by default.
pub const STRONG_BLOCK_LEVEL: u8 = 4;

/// Lines (games) per block when [`CompressOptions::block_lines`] is 0: [`DEFAULT_BLOCK_LINES`]
/// below [`STRONG_BLOCK_LEVEL`], [`STRONG_BLOCK_LINES`] from it on.
pub fn default_block_lines(level: Level) -> u32 {
    if level.get() >= STRONG_BLOCK_LEVEL { STRONG_BLOCK_LINES } else { DEFAULT_BLOCK_LINES }
}

/// Settings of [`compress`](super::compress).
#[derive(Clone, Copy, Debug)]
pub struct CompressOptions {
    /// Compression level ([`Level::DEFAULT`] by default).
    pub level: Level,
    /// Lines per block; for PGN, games per block; 0 (the default) means the level's default,
    /// [`default_block_lines`].
    pub block_lines: u32,
    /// Worker threads; 0 means one per core; at most [`MAX_THREADS`](super::MAX_THREADS).
    pub threads: usize,
    /// Input format; `None` detects it from the first bytes ([`crate::pgn::detect`]).
    pub format: Option<InputFormat>,
    /// Most bytes of text per block, 1..=[`MAX_BLOCK_TEXT`] (larger values are clamped). A
    /// line longer than this is cut across blocks; the cut is invisible after expansion.
    pub block_bytes: usize,
    /// Whether the archive may take the whole-input raw form when that is smaller (see
    /// [`form`](super::form)); `false` always writes the block container.
    pub raw_form: bool,
    /// Whether every block and raw form is decoded and compared with its input before it is
    /// written (see [`compress`](super::compress)); `true` by default. Turning it off saves about the time of
    /// an `expand` and trusts the encoder.
    pub verify: bool,
    /// Level 10's transformer weights ([`Weights::load`]); `None` reads the file
    /// `CHESSZIP_WEIGHTS` names. Unused at levels 1-9.
    pub weights: Option<&'static Weights>,
}

impl CompressOptions {
    /// [`CompressOptions::block_lines`], or the level's default when it is 0.
    pub(crate) fn block_lines_or_default(&self) -> u32 {
        if self.block_lines == 0 { default_block_lines(self.level) } else { self.block_lines }
    }
}

impl Default for CompressOptions {
    fn default() -> Self {
        CompressOptions {
            level: Level::DEFAULT,
            block_lines: 0,
            threads: 0,
            format: None,
            block_bytes: MAX_BLOCK_TEXT,
            raw_form: true,
            verify: true,
            weights: None,
        }
    }
}

/// Settings of [`expand`](super::expand).
#[derive(Clone, Copy, Debug, Default)]
pub struct ExpandOptions {
    /// Worker threads; 0 means one per core; at most [`MAX_THREADS`](super::MAX_THREADS).
    pub threads: usize,
    /// Ceilings for untrusted archives (the default refuses none chesszip writes).
    pub limits: DecodeLimits,
}

/// What a run did.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Summary {
    /// Bytes of text (compress input, expand output).
    pub text_bytes: u64,
    /// Bytes of archive (compress output, expand input).
    pub archive_bytes: u64,
    /// Blocks in the archive.
    pub blocks: u64,
    /// Lines, games, plies, raw lines and model costs.
    pub stats: BlockStats,
}

impl Summary {
    /// Counts one expanded block of header `h` and `text_len` bytes of text.
    pub(crate) fn add_block(&mut self, h: &BlockHeader, text_len: usize) {
        self.text_bytes += text_len as u64;
        self.blocks += 1;
        self.stats.lines += h.lines as u64;
        self.stats.plies += h.plies as u64;
        self.stats.raw_lines += h.raw_lines as u64;
        self.stats.games += h.games as u64;
    }

    /// Adds the summary of another member of the same archive.
    pub(crate) fn add_member(&mut self, o: &Summary) {
        self.text_bytes += o.text_bytes;
        self.archive_bytes += o.archive_bytes;
        self.blocks += o.blocks;
        self.stats += o.stats;
    }

    /// Archive bits per ply, all overhead included.
    pub fn bits_per_ply(&self) -> f64 {
        8.0 * self.archive_bytes as f64 / self.stats.plies.max(1) as f64
    }
}

/// Progress callback: total text bytes processed so far.
pub type Progress<'a> = &'a (dyn Fn(u64) + Sync);
