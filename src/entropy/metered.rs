//! A [`SymbolCoder`] wrapper that attributes the information content of every symbol the
//! encoder codes to one of `N` streams (a format's kinds of information, e.g. the PGN format's
//! moves, tags, clocks), for statistics; decoding passes straight through.

use super::cdf::Cdf;
use super::coder::SymbolCoder;
use crate::error::Error;

/// Wraps a coder; see the module documentation. `S` names the streams (`Into<usize>` gives
/// its index below `N`; `S::default()` is where the first symbols go).
pub struct Metered<'a, C: SymbolCoder, S, const N: usize> {
    inner: &'a mut C,
    /// Where the next symbols are attributed.
    pub stream: S,
    /// Information content coded per stream, in bits (encoder only).
    pub bits: [f64; N],
    decoding: bool,
}

impl<'a, C: SymbolCoder, S: Copy + Default + Into<usize>, const N: usize> Metered<'a, C, S, N> {
    /// Wraps `inner`.
    pub fn new(inner: &'a mut C) -> Self {
        let decoding = inner.decoding();
        Metered { inner, stream: S::default(), bits: [0.0; N], decoding }
    }

    /// Bytes the decoder may still produce: the inner coder's [`SymbolCoder::text_left`].
    pub fn budget(&self) -> usize {
        self.inner.text_left()
    }

    /// Accounts for `bytes` of decoded text with the inner coder's [`SymbolCoder::spend`]
    /// (every decoded string and item ends up in the block's text, so damaged data cannot
    /// make the decoder allocate more than the block's recorded length).
    ///
    /// # Errors
    /// [`Error::LimitExceeded`] when the budget is exhausted.
    pub fn spend(&mut self, bytes: usize) -> Result<(), Error> {
        self.inner.spend(bytes)
    }

    /// Sets the stream of the next symbols and returns the previous one.
    pub fn set(&mut self, stream: S) -> S {
        std::mem::replace(&mut self.stream, stream)
    }
}

impl<C: SymbolCoder, S: Copy + Into<usize>, const N: usize> SymbolCoder for Metered<'_, C, S, N> {
    #[inline]
    fn code(&mut self, cdf: Cdf<'_>, symbol: &mut usize) -> Result<(), Error> {
        if !self.decoding {
            self.bits[self.stream.into()] += cdf.bits(*symbol);
        }
        self.inner.code(cdf, symbol)
    }

    fn decoding(&self) -> bool {
        self.decoding
    }

    fn spend(&mut self, bytes: usize) -> Result<(), Error> {
        self.inner.spend(bytes)
    }

    fn text_left(&self) -> usize {
        self.inner.text_left()
    }

    fn refund(&mut self, bytes: usize) {
        self.inner.refund(bytes);
    }
}
