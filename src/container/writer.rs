//! Writing an archive block by block.

use std::io::Write;

use super::block::EncodedBlock;
use super::format::{BlockHeader, FileHeader, Footer, IndexEntry, index_to_bytes};
use crate::error::Error;

/// Streams an archive to `W`: the header at creation, blocks as they come, the index and
/// footer at [`Writer::finish`].
pub struct Writer<W: Write> {
    out: W,
    offset: u64,
    index: Vec<IndexEntry>,
}

impl<W: Write> Writer<W> {
    /// Writes the file header.
    ///
    /// # Errors
    /// [`Error::Io`] from the underlying writer.
    pub fn new(mut out: W, header: &FileHeader) -> Result<Self, Error> {
        let bytes = header.to_vec();
        out.write_all(&bytes)?;
        Ok(Writer { out, offset: bytes.len() as u64, index: Vec::new() })
    }

    /// Appends a block. The writer fills in the header's stream lengths and stream checksum
    /// from `block`; the other fields describe the block's text and are the caller's.
    ///
    /// # Errors
    /// [`Error::Io`] from the underlying writer.
    pub fn write_block(&mut self, header: &BlockHeader, block: &EncodedBlock) -> Result<(), Error> {
        let header = BlockHeader {
            range_len: block.range.len() as u32,
            raw_len: block.raw.len() as u32,
            stream_crc: BlockHeader::streams_crc(&block.range, &block.raw),
            ..*header
        };
        self.index.push(IndexEntry::new(self.offset, &header));
        self.out.write_all(&header.to_bytes())?;
        self.out.write_all(&block.range)?;
        self.out.write_all(&block.raw)?;
        self.offset += (BlockHeader::LEN + block.range.len() + block.raw.len()) as u64;
        Ok(())
    }

    /// Writes the index and footer, flushes, and returns the writer and the archive size.
    ///
    /// # Errors
    /// [`Error::Io`] from the underlying writer.
    pub fn finish(mut self) -> Result<(W, u64), Error> {
        let index = index_to_bytes(&self.index);
        self.out.write_all(&index)?;
        self.out.write_all(&Footer { index_offset: self.offset }.to_bytes())?;
        self.out.flush()?;
        let size = self.offset + index.len() as u64 + Footer::LEN as u64;
        Ok((self.out, size))
    }
}
