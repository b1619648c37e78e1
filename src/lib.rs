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
//! `expand` runs the same chain backwards and calls the very same model.

pub mod codec;
pub mod engine;
pub mod error;
pub mod text;

pub use error::{Error, Result};
