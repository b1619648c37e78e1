//! The range coder: constriction's `DefaultRangeEncoder`/`DefaultRangeDecoder` (32-bit words,
//! 64-bit state) behind the [`SymbolCoder`] interface.

use constriction::stream::{
    Decode, Encode,
    queue::{DefaultRangeDecoder, DefaultRangeEncoder},
};

use super::cdf::Cdf;
use super::coder::SymbolCoder;
use crate::error::Error;

/// Range encoder collecting a block's symbols.
#[derive(Default)]
pub struct Encoder {
    inner: DefaultRangeEncoder,
    /// Sum of the information content of the coded symbols, in bits (for statistics).
    pub bits: f64,
    /// Whether to accumulate [`Encoder::bits`] (costs a logarithm per symbol).
    pub measure: bool,
}

impl Encoder {
    /// A fresh encoder.
    pub fn new() -> Self {
        Self::default()
    }

    /// Encodes `symbol` under `cdf`.
    #[inline]
    pub fn encode(&mut self, cdf: Cdf<'_>, symbol: usize) {
        if self.measure {
            self.bits += cdf.bits(symbol);
        }
        self.inner.encode_symbol(symbol, cdf).expect("every symbol of a Cdf has non-zero probability");
    }

    /// Finishes the stream and returns it as little-endian bytes (a multiple of 4).
    pub fn finish(self) -> Vec<u8> {
        let words = self.inner.into_compressed().expect("Vec backend cannot fail");
        words.iter().flat_map(|w| w.to_le_bytes()).collect()
    }
}

impl SymbolCoder for Encoder {
    #[inline]
    fn code(&mut self, cdf: Cdf<'_>, symbol: &mut usize) -> Result<(), Error> {
        self.encode(cdf, *symbol);
        Ok(())
    }

    fn decoding(&self) -> bool {
        false
    }
}

/// Range decoder over one block's stream.
pub struct Decoder {
    inner: DefaultRangeDecoder,
}

impl Decoder {
    /// Starts decoding `bytes` as written by [`Encoder::finish`].
    ///
    /// # Errors
    /// [`Error::Corrupt`] if the length is not a multiple of 4.
    pub fn new(bytes: &[u8]) -> Result<Self, Error> {
        if !bytes.len().is_multiple_of(4) {
            return Err(Error::Corrupt("range-coded stream length is not a multiple of 4".into()));
        }
        let words: Vec<u32> = bytes.chunks_exact(4).map(|c| u32::from_le_bytes(c.try_into().expect("chunk of 4"))).collect();
        let inner = DefaultRangeDecoder::from_compressed(words).map_err(|_| Error::Corrupt("range-coded stream is unreadable".into()))?;
        Ok(Decoder { inner })
    }

    /// Decodes one symbol under `cdf`.
    ///
    /// # Errors
    /// [`Error::Corrupt`] on data that no encoder produced.
    #[inline]
    pub fn decode(&mut self, cdf: Cdf<'_>) -> Result<usize, Error> {
        self.inner.decode_symbol(cdf).map_err(|_| Error::Corrupt("range-coded stream is invalid".into()))
    }
}

impl SymbolCoder for Decoder {
    #[inline]
    fn code(&mut self, cdf: Cdf<'_>, symbol: &mut usize) -> Result<(), Error> {
        *symbol = self.decode(cdf)?;
        Ok(())
    }

    fn decoding(&self) -> bool {
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::entropy::CdfBuf;

    #[test]
    fn symbols_round_trip() {
        let tables: Vec<CdfBuf> = [&[1u64, 2, 3][..], &[100, 1], &[0, 0, 0, 0, 9]].iter().map(|w| CdfBuf::from_weights(w)).collect();
        let symbols: Vec<(usize, usize)> = (0..1000).map(|i| (i % 3, (i * 7) % tables[i % 3].cdf().len())).collect();
        let mut enc = Encoder::new();
        for &(t, s) in &symbols {
            enc.encode(tables[t].cdf(), s);
        }
        let bytes = enc.finish();
        let mut dec = Decoder::new(&bytes).unwrap();
        for &(t, s) in &symbols {
            assert_eq!(dec.decode(tables[t].cdf()).unwrap(), s);
        }
    }
}
