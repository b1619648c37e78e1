//! The movetext format: one game per line, SAN moves separated by single spaces, then the
//! result. Lossless by construction: a line becomes a [`Game`] only when rendering the parsed
//! game gives back exactly its bytes; anything else is kept as raw bytes.

pub mod lines;
pub mod movetext;
pub mod spelling;

pub use lines::{Line, Terminator, split_lines};
pub use movetext::{Game, PlyMoves, parse_game, parse_game_into, render_game};
pub use spelling::Spelling;
