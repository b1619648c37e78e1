//! Entropy coding: constriction's range coder driven by integer frequency tables.
//!
//! Every symbol the format stores (a move, a game-end flag, a result, a spelling) is coded with
//! a [`Cdf`]: cumulative integer frequencies that sum to [`TOTAL`] = 2^[`PRECISION`]. The
//! tables come from the model (above this module) on both sides, so the encoder and decoder agree
//! exactly as long as the model is deterministic.

pub mod adaptive;
pub mod binary;
pub mod budget;
pub mod cdf;
pub mod coder;
pub mod info;
pub mod metered;
pub mod range;
pub mod text;

pub use adaptive::AdaptiveModel;
pub use budget::WorkBudget;
pub use cdf::{Cdf, CdfBuf, PRECISION, TOTAL};
pub use coder::SymbolCoder;
pub use info::Information;
pub use range::{Decoder, Encoder};
