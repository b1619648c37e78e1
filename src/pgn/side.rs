//! The side stream of a PGN block: raw games and free text (comment text, other commands'
//! arguments, unusual whitespace), concatenated in coding order and compressed with zstd as a
//! whole. The range-coded stream carries each piece's length.

use crate::entropy::SymbolCoder;
use crate::entropy::binary::NumberModel;
use crate::error::Error;

/// The side stream being written (encoder) or read (decoder).
#[derive(Debug, Default)]
pub struct Side<'a> {
    /// Bytes written so far (encoder).
    pub written: Vec<u8>,
    input: &'a [u8],
    at: usize,
}

impl<'a> Side<'a> {
    /// An empty stream to write to.
    pub fn writer() -> Self {
        Self::default()
    }

    /// A stream to read `input` from.
    pub fn reader(input: &'a [u8]) -> Self {
        Side { written: Vec::new(), input, at: 0 }
    }

    /// Codes a piece: its length with `len` in the range-coded stream, its bytes here. When
    /// decoding, `bytes` is replaced.
    ///
    /// # Errors
    /// [`Error::Corrupt`] if the side stream is shorter than the decoded length.
    pub fn code<C: SymbolCoder>(&mut self, c: &mut C, len: &mut NumberModel, bytes: &mut Vec<u8>) -> Result<(), Error> {
        let n = len.code_value(c, bytes.len() as u64)?;
        if c.decoding() {
            let end = (self.at as u64).checked_add(n).filter(|&e| e <= self.input.len() as u64);
            let end = end.ok_or_else(|| Error::Corrupt("side stream is too short".into()))? as usize;
            bytes.clear();
            bytes.extend_from_slice(&self.input[self.at..end]);
            self.at = end;
        } else {
            self.written.extend_from_slice(bytes);
        }
        Ok(())
    }

    /// Whether a reader consumed all its input.
    pub fn finished(&self) -> bool {
        self.at == self.input.len()
    }
}
