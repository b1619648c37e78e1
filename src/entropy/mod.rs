//! Entropy coding: constriction's range coder driven by integer frequency tables.
//!
//! Every symbol the format stores (a move, a game-end flag, a result, a spelling) is coded with
//! a [`Cdf`]: cumulative integer frequencies that sum to [`TOTAL`] = 2^[`PRECISION`]. The
//! tables come from the model (above this module) on both sides, so the encoder and decoder agree
//! exactly as long as the model is deterministic.

pub mod adaptive;
pub mod budget;
pub mod cdf;
pub mod info;
pub mod range;

pub use adaptive::AdaptiveModel;
pub use budget::{BudgetedDecoder, WorkBudget};
pub use cdf::{Cdf, CdfBuf};
pub use info::Information;
pub use range::{Decoder, Encoder};

/// Bits of precision of every frequency table: probabilities are multiples of 2^-24.
pub const PRECISION: usize = 24;

/// Sum of the frequencies of every table, 2^[`PRECISION`].
pub const TOTAL: u32 = 1 << PRECISION;

/// Something that can code symbols in both directions: the encoder consumes a known symbol,
/// the decoder produces it. Writing the format's walk once, generic over `SymbolCoder`, keeps
/// encoder and decoder in lockstep by construction.
pub trait SymbolCoder {
    /// Encodes `*symbol` (encoder) or decodes into `*symbol` (decoder) under `cdf`.
    ///
    /// # Errors
    /// The decoder fails with [`crate::error::Error::Corrupt`] on data no encoder produced.
    fn code(&mut self, cdf: Cdf<'_>, symbol: &mut usize) -> Result<(), crate::error::Error>;

    /// Whether this coder decodes (its symbols are outputs).
    fn decoding(&self) -> bool;

    /// Charges `bytes` of decoded text against the decoder's [`WorkBudget`]: a decoder calls it
    /// for every piece of text it decodes, with no more bytes than the piece takes in the
    /// block's text. Encoders and decoders without a budget accept everything.
    ///
    /// # Errors
    /// [`crate::error::Error::LimitExceeded`] when the block's text length is exhausted.
    fn spend(&mut self, bytes: usize) -> Result<(), crate::error::Error> {
        let _ = bytes;
        Ok(())
    }

    /// Bytes of text the decoder may still charge ([`usize::MAX`] without a budget).
    fn text_left(&self) -> usize {
        usize::MAX
    }
}
