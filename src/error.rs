//! The library's error type.

use std::io;

/// Everything that can go wrong in the library.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// Reading input or writing output failed.
    #[error("I/O error: {0}")]
    Io(#[from] io::Error),
    /// The archive is damaged or not a chesszip archive; the message says what and where.
    #[error("corrupt archive: {0}")]
    Corrupt(String),
    /// Decoding a block would take more work or memory than the block's real size allows: its
    /// symbols would carry more information than its range-coded stream can hold, or make more
    /// text than its header records. The archive is damaged or crafted; decoding stopped before
    /// the work or the memory could grow (see [`crate::entropy::budget`]).
    #[error("corrupt archive: {0} (decoding stopped by the work budget of the block's size)")]
    LimitExceeded(String),
    /// Decoding would exceed a ceiling the caller set ([`crate::DecodeLimits`]): the archive
    /// may be sound, but it asks for more plies, text or memory than allowed. The message
    /// names the limit, its value, and the flag and keyword that raise it.
    #[error("{detail}: beyond the {} limit of {value} {} (raise it with {} or lift all limits with --no-limits; in Python, {}=)", limit.name(), limit.unit(), limit.flag(), limit.kwarg())]
    DecodeLimit {
        /// Which limit.
        limit: Limit,
        /// Its value.
        value: u64,
        /// What would have exceeded it.
        detail: String,
    },
    /// The archive is valid but this build cannot expand it (newer format version, or a model
    /// this binary does not embed).
    #[error("unsupported archive: {0}")]
    Unsupported(String),
    /// An archive being written failed its own check: it did not decode to its input, and
    /// no fallback form did either. Nothing should be kept of it (the command line removes
    /// the output); this is a bug of chesszip, never of the input.
    #[error("internal error, please report it: {0} (the archive would not expand to its input, so it was not kept)")]
    SelfCheck(String),
    /// Level 10's transformer weights are missing, or are not the ones an archive names.
    #[error("{0}")]
    Weights(String),
    /// A model parameter file could not be parsed.
    #[error("model file {name}{}: {message}", if *line > 0 { format!(", line {line}") } else { String::new() })]
    Model {
        /// The model file's name.
        name: String,
        /// 1-based line number (0 when the error is not on one line, or the file is binary: the
        /// message then names no line).
        line: usize,
        /// What is wrong.
        message: String,
    },
}

/// Shorthand for results of this library.
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// One of the ceilings of [`crate::DecodeLimits`], as [`Error::DecodeLimit`] names it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Limit {
    /// [`crate::DecodeLimits::max_plies`].
    Plies,
    /// [`crate::DecodeLimits::max_plies_per_byte`].
    Work,
    /// [`crate::DecodeLimits::max_game_bytes`].
    GameBytes,
    /// [`crate::DecodeLimits::max_output`].
    Output,
    /// [`crate::DecodeLimits::memlimit`].
    Memory,
}

impl Limit {
    /// The limit's name in messages.
    pub fn name(self) -> &'static str {
        match self {
            Limit::Plies => "plies",
            Limit::Work => "work",
            Limit::GameBytes => "game size",
            Limit::Output => "output size",
            Limit::Memory => "memory",
        }
    }

    /// The unit of its value.
    pub fn unit(self) -> &'static str {
        match self {
            Limit::Plies => "plies",
            Limit::Work => "plies per archive byte",
            Limit::GameBytes | Limit::Output | Limit::Memory => "bytes",
        }
    }

    /// The command-line flag that sets it.
    pub fn flag(self) -> &'static str {
        match self {
            Limit::Plies => "--max-plies",
            Limit::Work => "--max-work",
            Limit::GameBytes => "--max-game-bytes",
            Limit::Output => "--max-output",
            Limit::Memory => "--memlimit",
        }
    }

    /// The Python keyword argument that sets it.
    pub(crate) fn kwarg(self) -> &'static str {
        match self {
            Limit::Plies => "max_plies",
            Limit::Work => "max_plies_per_byte",
            Limit::GameBytes => "max_game_bytes",
            Limit::Output => "max_output",
            Limit::Memory => "memlimit",
        }
    }
}
