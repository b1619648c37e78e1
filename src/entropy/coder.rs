//! The one interface of both directions of coding ([`SymbolCoder`]), so that a format's walk is
//! written once for the encoder and the decoder.

use super::cdf::Cdf;

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

    /// Charges `bytes` of decoded text against the decoder's [`super::WorkBudget`]: a decoder calls it
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

    /// Gives back `bytes` charged earlier ([`Self::spend`]) for text that a later charge covers
    /// again in full, so that no byte of the block's text is charged twice. Encoders and
    /// decoders without a budget ignore it.
    fn refund(&mut self, bytes: usize) {
        let _ = bytes;
    }
}
