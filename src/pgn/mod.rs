//! The PGN format: real PGN files, compressed byte for byte.
//!
//! ```text
//! block text -> games (lexer: byte-exact tokens; game: tags, items, moves, gaps)
//!            -> per game: tags (tags), moves and result (the engine-guided GameCoder),
//!               move text items and whitespace (layout), comments (comment, clock)
//!            -> one range-coded stream + a zstd side stream (raw games, free text)
//! ```
//!
//! Every game either parses into a [`game::Game`] that renders back to exactly its bytes, or
//! is kept raw in the side stream: variants other than standard chess and Chess960, illegal
//! or unusual move spellings, non-canonical tag pairs, null moves, and anything the lexer does
//! not know. [`codec`] has the block walk, [`blocks`] cuts input into blocks of whole games
//! and detects the format, [`convert`] rewrites games as movetext.

pub mod blocks;
pub mod clock;
pub mod codec;
pub mod comment;
pub mod convert;
pub mod game;
pub mod layout;
pub mod lexer;
pub mod metered;
pub mod models;
pub mod side;
pub mod tags;
pub mod text;

pub use blocks::{BlockReader, detect};
pub use codec::{PgnStats, decode_block, encode_block, encode_block_detailed};
pub use convert::{ConvertSummary, convert, to_movetext};
pub use metered::Stream;
