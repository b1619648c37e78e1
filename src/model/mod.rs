//! The probability model: for each ply, a frequency table over the legal moves; for each game,
//! when it ends and its result.
//!
//! A [`Model`] is one set of tuned parameters (one file in `models/`, one per level; the
//! releases in [`registry`]); a [`Predictor`] applies it to the games of one block, with
//! per-block state (the online book).

pub mod book;
pub mod elo;
pub mod features;
pub mod game;
pub mod level;
pub mod network;
pub mod params;
pub mod predictor;
pub mod registry;
pub mod softmax;
pub mod trace;
pub mod transformer;
pub mod tuned;

pub use game::GameState;
pub use level::{DEFAULT_LEVEL, Level, LevelOutOfRange, MAX_EMBEDDED_LEVEL, MAX_LEVEL, MIN_LEVEL};
pub use predictor::Predictor;
pub use registry::{RELEASES, Release};
pub use tuned::{Member, Model};
