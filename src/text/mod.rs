//! The movetext format: one game per line, moves separated by single spaces (SAN, or another
//! notation of [`notation`]), then the result. Lossless by construction: a line becomes a [`Game`] only when rendering the parsed
//! game gives back exactly its bytes; anything else is kept as raw bytes.

pub mod encoding;
pub mod lines;
pub mod movetext;
pub mod notation;
pub mod spelling;

pub(crate) use lines::split_lines;
pub use lines::{Line, Terminator};
pub use movetext::{Game, PlyMoves, parse_game, parse_game_into, parse_lenient_into, render_game};
pub use spelling::Spelling;
