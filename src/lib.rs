//! chesszip: lossless compression of chess games with an engine-guided move model.
//!
//! Each ply the model gives every legal move a probability and a range coder codes the move
//! played; the decoder runs the same model. Data flow of `compress` (`expand` runs the same
//! chain backwards and calls the very same model):
//!
//! ```text
//! input bytes
//!   -> compressed gzip, bzip2, xz or zstd input decoded on the fly (the archive holds the text)
//!   -> format     movetext or PGN: cut into blocks; lines or games -> moves, spellings, results
//!   -> model      per ply: position -> legal moves -> engine scores + features -> frequencies
//!   -> entropy    constriction's range coder over one block's symbols
//!   -> container  header, blocks with checksums, index
//! output bytes
//! ```
//!
//! The modules are layers, bottom to top (docs/architecture.md, "Layers"; `tests/it/layers.rs` checks that
//! no module imports one above it): [`error`]; [`chess`], [`entropy`], [`compressed`] and [`simd`]; [`text`];
//! [`engine`]; [`model`]; [`container`]; [`format`](mod@format); [`movetext`]; [`pgn`]; [`archive`] (the
//! pipeline, blocks in parallel with rayon); [`games`]; [`convert`] and [`inspect`]; [`tune`].
//!
//! The public API is re-exported here: [`compress`] / [`expand`] (streams),
//! [`compress_bytes`] / [`expand_bytes`] (memory), [`info`], [`extract_lines`],
//! [`extract_games`], [`count_games`] and [`Games`] (random access through the index), with
//! [`Error`] for everything that can fail.
//!
//! An archive has one of two forms: the block container ([`container`]) or, for input that is
//! not chess and for tiny files, the whole-input raw form ([`container::raw`], one zstd or LZMA2
//! stream); [`compress`] writes the smaller and every reader takes both.
//!
//! ```
//! use chesszip::{CompressOptions, ExpandOptions, Level, compress_bytes, expand_bytes};
//!
//! let games = b"e4 e5 Nf3 Nc6 Bb5 a6 1-0\nd4 d5 c4 1/2-1/2\nnot a game\n";
//! let archive = compress_bytes(games, &CompressOptions { level: Level::MIN, ..CompressOptions::default() });
//! assert_eq!(expand_bytes(&archive, &ExpandOptions::default())?, games);
//! # Ok::<(), chesszip::Error>(())
//! ```

#![deny(missing_docs)]
// The library never prints: the binary decides what reaches the standard streams.
#![deny(clippy::print_stdout, clippy::print_stderr)]

pub mod archive;
pub mod chess;
pub mod compressed;
pub mod container;
pub mod convert;
pub mod engine;
pub mod entropy;
pub mod error;
pub mod format;
pub mod games;
pub mod inspect;
pub mod model;
pub mod movetext;
pub mod pgn;
pub mod simd;
pub mod text;
pub mod tune;

pub use archive::{
    CompressOptions, DamagedBlock, DecodeLimits, ExpandOptions, Salvage, Summary, compress, compress_bytes, expand, expand_bytes,
    expand_salvage, expand_salvage_stream,
};
pub use container::InputFormat;
pub use error::{Error, Limit, Result};
pub use games::{Blocks, GameTags, Games, TagPairs};
pub use inspect::{ArchiveInfo, count_games, count_games_with, extract_games, extract_games_with, extract_lines, extract_lines_with, info};
pub use model::{DEFAULT_LEVEL, Level, MAX_LEVEL, MIN_LEVEL};
