//! A [`SymbolCoder`] wrapper that attributes the information content of every symbol the
//! encoder codes to one of the PGN streams, for statistics; decoding passes straight through.

use crate::entropy::{Cdf, SymbolCoder};
use crate::error::Error;

/// The kinds of information in a PGN block, for the size breakdown.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Stream {
    /// Moves, game ends and results (the move model, including variations).
    Moves = 0,
    /// Tag names and values.
    Tags = 1,
    /// `[%clk]` values.
    Clocks = 2,
    /// `[%eval]` values.
    Evals = 3,
    /// The rest of comments: shapes, lengths of free text (the text is in the side stream).
    Comments = 4,
    /// Layout: item kinds, move numbers, glyphs, NAGs, whitespace, raw-game flags and lengths.
    Layout = 5,
}

impl Stream {
    /// Number of streams.
    pub const COUNT: usize = 6;
    /// Names, indexed by value.
    pub const NAMES: [&'static str; Self::COUNT] = ["moves", "tags", "clocks", "evals", "comments", "layout"];
}

/// Wraps a coder; see the module documentation.
pub struct Metered<'a, C: SymbolCoder> {
    inner: &'a mut C,
    /// Where the next symbols are attributed.
    pub stream: Stream,
    /// Information content coded per stream, in bits (encoder only).
    pub bits: [f64; Stream::COUNT],
    decoding: bool,
}

impl<'a, C: SymbolCoder> Metered<'a, C> {
    /// Wraps `inner`.
    pub fn new(inner: &'a mut C) -> Self {
        let decoding = inner.decoding();
        Metered { inner, stream: Stream::Layout, bits: [0.0; Stream::COUNT], decoding }
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
    pub fn set(&mut self, stream: Stream) -> Stream {
        std::mem::replace(&mut self.stream, stream)
    }
}

impl<C: SymbolCoder> SymbolCoder for Metered<'_, C> {
    #[inline]
    fn code(&mut self, cdf: Cdf<'_>, symbol: &mut usize) -> Result<(), Error> {
        if !self.decoding {
            self.bits[self.stream as usize] += cdf.bits(*symbol);
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
}
