//! chesszip: lossless compression of chess games with an engine-guided move model.
//!
//! Data flow (one module per stage):
//!
//! ```text
//! input bytes
//!   -> text       lines -> games (SAN moves + spelling + result) or raw lines
//!   -> model      per ply: position -> legal moves -> engine scores + features -> frequencies
//!   -> codec      constriction range coder over one block's symbols
//!   -> container  header, blocks with checksums, index
//! output bytes
//! ```
//!
//! `expand` runs the same chain backwards and calls the very same model. [`archive`] ties the
//! stages together (blocks in parallel with rayon) and is the API the command line uses;
//! [`inspect`] reads an archive's statistics, and chosen games or lines, through its index;
//! [`games`] reads its games one at a time, in order or by number. [`form`] chooses between the
//! block container and the whole-input raw form (for what is not chess, and tiny files).

pub mod archive;
pub mod codec;
pub mod container;
pub mod engine;
pub mod error;
pub mod form;
pub mod games;
pub mod inspect;
pub mod model;
pub mod pgn;
pub mod text;
pub mod tune;

pub use archive::{CompressOptions, ExpandOptions, Summary, compress, compress_bytes, expand, expand_bytes};
pub use error::{Error, Result};
pub use games::{Blocks, Games};
pub use inspect::{ArchiveInfo, count_games, extract_games, extract_lines, info};
