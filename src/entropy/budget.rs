//! The work budget of a block decoder: one type, used by the movetext and the PGN decoders
//! alike, that bounds what damaged or crafted data can make a decoder do by what the block
//! really holds.
//!
//! A block's checksums only say that its bytes are the ones written; a forger recomputes them.
//! What a forger cannot change is arithmetic: a range-coded stream of `b` bytes carries a
//! bounded amount of information, and a block's text is at most [`MAX_BLOCK_TEXT`] bytes.
//! [`WorkBudget`] enforces both while decoding:
//!
//! - **Information** (from the stream's real size): the range coder narrows its 64-bit range by
//!   at least a symbol's information content per symbol and widens it by 32 bits per word
//!   emitted, so the symbols of a stream of `w` words carry at most `32 w + 32` bits. Past the
//!   end of its data the decoder reads zeros, and a game whose end flag never comes up has no
//!   natural end; decoding stops beyond `8 b + 128` bits (plus slack for floating-point sums).
//!   Every symbol the model codes has a probability below one (the game-end flag of every ply
//!   at most `1 - 2^-13`, see `OUTCOME_FLOOR` in [`crate::model::predictor`]), so this bounds
//!   the number of symbols, and of model steps, by a multiple of the stream's size.
//! - **Text** (from the block header's length, at most [`MAX_BLOCK_TEXT`]): every decoded
//!   string, item and ply ends up in the block's text, and each is charged ([`WorkBudget::spend`])
//!   no more bytes than it takes there; a block may not charge more than its recorded length.
//!   This bounds the memory of the decoded game structures by the text, whatever the stream.
//! - **Symbols** (optional, per span): the movetext decoder caps the symbols of each line by
//!   what the rest of the block's text allows ([`WorkBudget::limit_symbols`]).
//!
//! The side streams (zstd) are inflated by [`inflate_side`], which caps both their output (the
//! block's text length) and the decoder's window.
//!
//! Every limit holds for any archive an encoder wrote (the proofs are above and at each
//! charge), so valid archives never meet them: exceeding one is [`Error::LimitExceeded`].

use std::io::Read as _;

use super::cdf::Cdf;
use super::coder::SymbolCoder;
use super::info::Information;
use super::range::Decoder;
use crate::error::Error;

/// Largest expanded text of one block, in bytes (blocks are cut before this; the container
/// re-exports it as the format's limit).
pub const MAX_BLOCK_TEXT: usize = 16 << 20;

/// Largest zstd window a side stream may ask for, as a power of two: a side stream never holds
/// more than [`MAX_BLOCK_TEXT`] bytes, so a frame asking for more is damaged (and must not make
/// the decoder allocate a larger window).
pub const SIDE_WINDOW_LOG_MAX: u32 = MAX_BLOCK_TEXT.ilog2();

/// The limits of one block's decoding; see the module documentation.
#[derive(Clone, Copy, Debug)]
pub struct WorkBudget {
    info: Information,
    max_bits: f64,
    text_left: usize,
    symbols_left: u64,
}

impl WorkBudget {
    /// The budget of a block whose range-coded stream has `stream_bytes` bytes (as read from
    /// the archive, not as claimed) and whose text may have `text_len` bytes (clamped to
    /// [`MAX_BLOCK_TEXT`]). Symbols are not capped until [`WorkBudget::limit_symbols`].
    pub fn new(stream_bytes: usize, text_len: usize) -> Self {
        let max_bits = 8.0 * stream_bytes as f64 + 128.0;
        WorkBudget {
            info: Information::default(),
            max_bits: max_bits * (1.0 + 1e-9),
            text_left: text_len.min(MAX_BLOCK_TEXT),
            symbols_left: u64::MAX,
        }
    }

    /// Caps the symbols decoded from now on at `symbols` (replacing any earlier cap).
    pub fn limit_symbols(&mut self, symbols: u64) {
        self.symbols_left = symbols;
    }

    /// Bytes of text the block may still charge.
    pub fn text_left(&self) -> usize {
        self.text_left
    }

    /// Charges `bytes` of decoded text.
    ///
    /// # Errors
    /// [`Error::LimitExceeded`] when the block's text length is exhausted.
    pub fn spend(&mut self, bytes: usize) -> Result<(), Error> {
        self.text_left = self
            .text_left
            .checked_sub(bytes)
            .ok_or_else(|| Error::LimitExceeded("block decodes to more text than its recorded length".into()))?;
        Ok(())
    }

    /// Gives back `bytes` charged by [`Self::spend`] for text that later charges cover again
    /// (the total given back never exceeds what was charged, so every bound above still holds
    /// with the charges that remain).
    pub fn refund(&mut self, bytes: usize) {
        self.text_left = self.text_left.saturating_add(bytes);
    }

    /// Checks that one more symbol may be decoded (before decoding it).
    ///
    /// # Errors
    /// [`Error::LimitExceeded`] when the symbol cap is reached.
    #[inline]
    pub(crate) fn before_symbol(&mut self) -> Result<(), Error> {
        if self.symbols_left == 0 {
            return Err(Error::LimitExceeded("block decodes to more symbols than its recorded length allows".into()));
        }
        self.symbols_left -= 1;
        Ok(())
    }

    /// Charges the information of a decoded symbol of `frequency` (out of [`super::cdf::TOTAL`]).
    ///
    /// # Errors
    /// [`Error::LimitExceeded`] when the symbols so far carry more information than the
    /// stream can hold.
    #[inline]
    pub(crate) fn after_symbol(&mut self, frequency: u32) -> Result<(), Error> {
        self.info.add(frequency);
        if self.info.exceeds(self.max_bits) {
            return Err(Error::LimitExceeded("block decodes to more symbols than its stream holds".into()));
        }
        Ok(())
    }

    /// Information decoded so far, in bits.
    pub fn bits(&self) -> f64 {
        self.info.bits()
    }
}

/// The range decoder of a block under its [`WorkBudget`]: what every block decoder reads
/// symbols through.
pub(crate) struct BudgetedDecoder {
    inner: Decoder,
    /// The limits, charged by every symbol and by [`SymbolCoder::spend`].
    pub budget: WorkBudget,
}

impl BudgetedDecoder {
    /// Starts decoding the range-coded `stream` of a block whose text may have `text_len`
    /// bytes.
    ///
    /// # Errors
    /// As [`Decoder::new`].
    pub fn new(stream: &[u8], text_len: usize) -> Result<Self, Error> {
        Ok(BudgetedDecoder { inner: Decoder::new(stream)?, budget: WorkBudget::new(stream.len(), text_len) })
    }
}

impl SymbolCoder for BudgetedDecoder {
    #[inline]
    fn code(&mut self, cdf: Cdf<'_>, symbol: &mut usize) -> Result<(), Error> {
        self.budget.before_symbol()?;
        self.inner.code(cdf, symbol)?;
        self.budget.after_symbol(cdf.frequency(*symbol))
    }

    fn decoding(&self) -> bool {
        true
    }

    fn spend(&mut self, bytes: usize) -> Result<(), Error> {
        self.budget.spend(bytes)
    }

    fn text_left(&self) -> usize {
        self.budget.text_left()
    }

    fn refund(&mut self, bytes: usize) {
        self.budget.refund(bytes);
    }
}

/// Inflates a block's zstd side stream `raw` (empty: no side stream) of a block whose text has
/// at most `max_len` bytes: the output may not exceed that, nor the frame's window
/// [`SIDE_WINDOW_LOG_MAX`]. `what` names the stream in messages.
///
/// # Errors
/// [`Error::Corrupt`] for an invalid frame or one asking for a larger window;
/// [`Error::LimitExceeded`] when it inflates to more than `max_len` bytes.
pub fn inflate_side(raw: &[u8], max_len: usize, what: &str) -> Result<Vec<u8>, Error> {
    if raw.is_empty() {
        return Ok(Vec::new());
    }
    let corrupt = |e: std::io::Error| Error::Corrupt(format!("{what}: {e}"));
    let mut decoder = zstd::stream::read::Decoder::new(raw).map_err(corrupt)?;
    decoder.window_log_max(SIDE_WINDOW_LOG_MAX).map_err(corrupt)?;
    let max_len = max_len.min(MAX_BLOCK_TEXT);
    let mut buf = Vec::new();
    decoder.take(max_len as u64 + 1).read_to_end(&mut buf).map_err(corrupt)?;
    if buf.len() > max_len {
        return Err(Error::LimitExceeded(format!("{what} inflates to more than the block's text length")));
    }
    Ok(buf)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::entropy::{CdfBuf, Encoder};

    /// Symbols of the encoder's own stream never exceed the information budget of its size,
    /// even when nearly certain (the cheapest symbols the coder allows).
    #[test]
    fn encoded_streams_fit_their_budget() {
        for (weights, count) in [(&[1u64, 1][..], 10_000usize), (&[1, (1 << 24) - 1][..], 200_000), (&[3, 5, 7, 1000][..], 50_000)] {
            let table = CdfBuf::from_weights(weights);
            let symbols: Vec<usize> = (0..count).map(|i| if weights.len() == 2 { 1 } else { i % 4 }).collect();
            let mut enc = Encoder::new();
            for &s in &symbols {
                enc.encode(table.cdf(), s);
            }
            let bytes = enc.finish();
            let mut dec = BudgetedDecoder::new(&bytes, 0).unwrap();
            for &s in &symbols {
                let mut got = 0;
                dec.code(table.cdf(), &mut got).unwrap();
                assert_eq!(got, s);
            }
        }
    }

    /// A stream decoded past its information (its zero words repeated for ever) stops with
    /// the typed error after about as many symbols as its size allows.
    #[test]
    fn decoding_past_the_stream_stops() {
        let table = CdfBuf::from_weights(&[1, 1]);
        let mut dec = BudgetedDecoder::new(&[0u8; 16], 0).unwrap();
        let mut decoded = 0;
        let err = loop {
            let mut s = 0;
            match dec.code(table.cdf(), &mut s) {
                Ok(()) => decoded += 1,
                Err(e) => break e,
            }
        };
        assert!(matches!(err, Error::LimitExceeded(_)), "{err}");
        // One bit per symbol: 8 * 16 + 128 bits.
        assert_eq!(decoded, 8 * 16 + 128);
    }

    #[test]
    fn text_and_symbols_are_capped() {
        let mut b = WorkBudget::new(4, 10);
        b.spend(10).unwrap();
        assert!(matches!(b.spend(1), Err(Error::LimitExceeded(_))));
        // A refunded byte may be charged again, once.
        b.refund(1);
        assert_eq!(b.text_left(), 1);
        b.spend(1).unwrap();
        assert!(matches!(b.spend(1), Err(Error::LimitExceeded(_))));
        b.limit_symbols(2);
        b.before_symbol().unwrap();
        b.before_symbol().unwrap();
        assert!(matches!(b.before_symbol(), Err(Error::LimitExceeded(_))));
        assert_eq!(WorkBudget::new(0, usize::MAX).text_left(), MAX_BLOCK_TEXT);
    }

    #[test]
    fn side_streams_are_capped() {
        let frame = zstd::bulk::compress(&[0u8; 1000], 3).unwrap();
        assert_eq!(inflate_side(&frame, 1000, "side").unwrap().len(), 1000);
        assert!(matches!(inflate_side(&frame, 999, "side"), Err(Error::LimitExceeded(_))));
        assert!(matches!(inflate_side(b"not zstd", 999, "side"), Err(Error::Corrupt(_))));
        assert!(inflate_side(&[], 0, "side").unwrap().is_empty());
    }
}
