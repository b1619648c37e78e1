//! Reading an archive block by block, checking every structure on the way.

use std::io::{self, Read};

use super::block::EncodedBlock;
use super::format::{BlockHeader, FileHeader, Footer, IndexEntry, index_count, index_len, parse_index};
use crate::error::Error;

/// Reads exactly `buf.len()` bytes, turning a premature end into a clear corruption error.
pub(crate) fn read_exact_or<R: Read>(r: &mut R, buf: &mut [u8], what: &str) -> Result<(), Error> {
    r.read_exact(buf).map_err(|e| match e.kind() {
        io::ErrorKind::UnexpectedEof => Error::Corrupt(format!("truncated archive: {what} is cut off")),
        _ => Error::Io(e),
    })
}

/// Reads `len` bytes without allocating more than what actually arrives.
pub(crate) fn read_vec<R: Read>(r: &mut R, len: usize, what: &str) -> Result<Vec<u8>, Error> {
    let mut v = Vec::new();
    r.take(len as u64).read_to_end(&mut v)?;
    if v.len() != len {
        return Err(Error::Corrupt(format!("truncated archive: {what} is cut off")));
    }
    Ok(v)
}

/// Checks a block's streams against the checksum in its header.
///
/// # Errors
/// [`Error::Corrupt`] naming block `n` on a mismatch.
pub(crate) fn check_streams(h: &BlockHeader, range: &[u8], raw: &[u8], n: u64) -> Result<(), Error> {
    if BlockHeader::streams_crc(range, raw) != h.stream_crc {
        return Err(Error::Corrupt(format!("block {n}: data checksum mismatch, the block is damaged")));
    }
    Ok(())
}

/// Sequential archive reader: the header at creation, then blocks until the index.
pub struct Reader<R: Read> {
    input: R,
    header: FileHeader,
    offset: u64,
    seen: Vec<IndexEntry>,
    done: bool,
    /// A member of a concatenation ([`Reader::member`]): what follows is not checked.
    member: bool,
}

impl<R: Read> Reader<R> {
    /// Reads and checks the file header.
    ///
    /// # Errors
    /// As [`FileHeader::parse`]; a file shorter than a header is reported as not an archive.
    pub fn new(mut input: R) -> Result<Self, Error> {
        let mut b = [0u8; FileHeader::LEN];
        let mut got = 0;
        while got < b.len() {
            let n = input.read(&mut b[got..])?;
            if n == 0 {
                break;
            }
            got += n;
        }
        if got < b.len() {
            return Err(Error::Corrupt(format!("not a chesszip archive (only {got} bytes)")));
        }
        let header = FileHeader::read_from(&mut input, &b)?;
        Ok(Reader { input, header, offset: header.encoded_len() as u64, seen: Vec::new(), done: false, member: false })
    }

    /// As [`Reader::new`], for an archive that may be followed by more data (the next member
    /// of a concatenation, [`crate::container::members`]): after the footer nothing more is
    /// read, so that `input` is left right after the archive.
    ///
    /// # Errors
    /// As [`Reader::new`].
    pub fn member(input: R) -> Result<Self, Error> {
        Ok(Reader { member: true, ..Self::new(input)? })
    }

    /// Bytes of archive read so far (all of it once [`Reader::next_block`] has returned `None`).
    pub fn archive_bytes(&self) -> u64 {
        self.offset + if self.done { (index_len(self.seen.len() as u32) + Footer::LEN) as u64 } else { 0 }
    }

    /// The file header.
    pub fn header(&self) -> &FileHeader {
        &self.header
    }

    /// Number of blocks read so far.
    pub(crate) fn blocks_read(&self) -> u64 {
        self.seen.len() as u64
    }

    /// The next block, or `None` after the last one once the index and footer are checked.
    ///
    /// # Errors
    /// [`Error::Corrupt`] naming the block for any damage found; [`Error::Io`] from the input.
    pub fn next_block(&mut self) -> Result<Option<(BlockHeader, EncodedBlock)>, Error> {
        self.next_block_admitted(|_, _| Ok(()))
    }

    /// [`Reader::next_block`], the block first admitted by `admit` from its header and the
    /// archive's bytes up to its end, before its streams are read: a block refused (by a
    /// decoding limit) is never held, and is refused with `admit`'s error even when it is cut
    /// off or damaged.
    ///
    /// # Errors
    /// As [`Reader::next_block`], and `admit`'s.
    pub fn next_block_admitted(
        &mut self,
        admit: impl FnOnce(&BlockHeader, u64) -> Result<(), Error>,
    ) -> Result<Option<(BlockHeader, EncodedBlock)>, Error> {
        if self.done {
            return Ok(None);
        }
        let n = self.seen.len() as u64;
        let mut head = [0u8; 8];
        read_exact_or(&mut self.input, &mut head, &format!("block {n} header or index"))?;
        if !BlockHeader::is_block(&head) {
            self.finish_index(head)?;
            self.done = true;
            return Ok(None);
        }
        let mut b = [0u8; BlockHeader::LEN];
        b[..8].copy_from_slice(&head);
        read_exact_or(&mut self.input, &mut b[8..], &format!("block {n} header"))?;
        let h = BlockHeader::parse(&b, n)?;
        admit(&h, self.offset + (BlockHeader::LEN as u64) + h.range_len as u64 + h.raw_len as u64)?;
        let range = read_vec(&mut self.input, h.range_len as usize, &format!("block {n}"))?;
        let raw = read_vec(&mut self.input, h.raw_len as usize, &format!("block {n}"))?;
        check_streams(&h, &range, &raw, n)?;
        self.seen.push(IndexEntry::new(self.offset, &h));
        self.offset += (BlockHeader::LEN + range.len() + raw.len()) as u64;
        Ok(Some((h, EncodedBlock { range, raw })))
    }

    /// Reads the index and footer and checks them against the blocks seen, and that nothing
    /// follows.
    fn finish_index(&mut self, head: [u8; 8]) -> Result<(), Error> {
        let count = index_count(&head)?;
        if count as usize != self.seen.len() {
            return Err(Error::Corrupt(format!(
                "index lists {count} blocks but {} were found (truncated or damaged archive)",
                self.seen.len()
            )));
        }
        let mut index = head.to_vec();
        index.extend(read_vec(&mut self.input, index_len(count) - 8, "index")?);
        let entries = parse_index(&index)?;
        if entries != self.seen {
            return Err(Error::Corrupt("index does not match the blocks".into()));
        }
        let mut f = [0u8; Footer::LEN];
        read_exact_or(&mut self.input, &mut f, "footer")?;
        let footer = Footer::parse(&f)?;
        if footer.index_offset != self.offset {
            return Err(Error::Corrupt("footer points to the wrong index offset".into()));
        }
        let mut extra = [0u8; 1];
        if !self.member && self.input.read(&mut extra)? != 0 {
            return Err(Error::Corrupt("unexpected data after the end of the archive".into()));
        }
        Ok(())
    }
}
