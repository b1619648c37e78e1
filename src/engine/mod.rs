//! Sunfish-style evaluation and search on top of shakmaty positions.
//!
//! The engine's job is to give every legal move of a position a score in centipawns, from the
//! point of view of the side to move, that the [`crate::model`] turns into probabilities. The
//! evaluation is material + Sunfish's piece-square tables ([`crate::chess::pst`]); a move's score is its
//! incremental value ([`crate::chess::move_value`], Sunfish's `value(move)`) minus the score of the best reply
//! found by alpha-beta search with quiescence ([`Searcher::score_moves`]).
//!
//! The static exchange evaluator ([`crate::chess::see()`]) is also the search's estimate of the
//! last capture ply at [`SearchConfig::qdepth`].
//!
//! Every function here is a pure function of its arguments: the encoder and decoder, and the
//! tuner, must get identical scores for the same position whatever else they scored before.
//! All arithmetic is integer.

mod board;
pub mod search;
#[cfg(test)]
mod search_tests;

pub use search::{MATE, SearchConfig, Searcher};
