//! Random access to an archive through its index: read the footer and index with `Seek`, then
//! any block on its own.

use std::io::{Read, Seek, SeekFrom};

use super::block::EncodedBlock;
use super::format::{BlockHeader, FileHeader, Footer, IndexEntry, index_count, index_len, parse_index};
use super::reader::{check_streams, read_exact_or, read_vec};
use crate::error::Error;

/// An archive opened for random access. Opening reads and checks the header, footer and
/// index; [`IndexedReader::read_block`] then reads and checks one block.
pub struct IndexedReader<R: Read + Seek> {
    input: R,
    header: FileHeader,
    entries: Vec<IndexEntry>,
    index_offset: u64,
    file_len: u64,
}

impl<R: Read + Seek> IndexedReader<R> {
    /// Opens an archive: checks its header, finds the index through the footer, checks the
    /// index against the file's size and every block header against its index entry (one
    /// small read per block), so that the index's counts are those of the headers. Nothing is
    /// allocated beyond what the file holds.
    ///
    /// # Errors
    /// [`Error::Corrupt`] for a damaged or truncated archive, [`Error::Unsupported`] for
    /// another format version, [`Error::Io`] from the input.
    pub fn open(input: R) -> Result<Self, Error> {
        let mut reader = Self::open_index(input)?;
        for n in 0..reader.entries.len() {
            reader.read_header(n)?;
        }
        Ok(reader)
    }

    /// As [`IndexedReader::open`], without reading the block headers: a damaged block is
    /// found when [`IndexedReader::read_block`] reads it (which checks its header against the
    /// index), so that the other blocks stay readable (salvage, [`crate::archive::expand_salvage`]).
    ///
    /// # Errors
    /// As [`IndexedReader::open`], for the file header, footer and index.
    pub(crate) fn open_index(mut input: R) -> Result<Self, Error> {
        let file_len = input.seek(SeekFrom::End(0))?;
        input.seek(SeekFrom::Start(0))?;
        if file_len < FileHeader::LEN as u64 {
            return Err(Error::Corrupt(format!("not a chesszip archive (only {file_len} bytes)")));
        }
        let mut h = [0u8; FileHeader::LEN];
        read_exact_or(&mut input, &mut h, "file header")?;
        let header = FileHeader::read_from(&mut input, &h)?;
        let smallest = (header.encoded_len() + index_len(0) + Footer::LEN) as u64;
        if file_len < smallest {
            return Err(Error::Corrupt("truncated archive: index and footer are cut off".into()));
        }
        input.seek(SeekFrom::Start(file_len - Footer::LEN as u64))?;
        let mut f = [0u8; Footer::LEN];
        read_exact_or(&mut input, &mut f, "footer")?;
        let index_offset = Footer::parse(&f)?.index_offset;
        let index_room = file_len - Footer::LEN as u64;
        if index_offset < header.encoded_len() as u64 || index_offset > index_room - index_len(0) as u64 {
            return Err(Error::Corrupt("footer points outside the file".into()));
        }
        input.seek(SeekFrom::Start(index_offset))?;
        let mut head = [0u8; 8];
        read_exact_or(&mut input, &mut head, "index")?;
        let count = index_count(&head)?;
        if index_offset + index_len(count) as u64 != index_room {
            return Err(Error::Corrupt(format!("index of {count} blocks does not fit the file size (truncated or damaged archive)")));
        }
        let mut index = head.to_vec();
        index.extend(read_vec(&mut input, index_len(count) - 8, "index")?);
        let entries = parse_index(&index)?;
        let mut expected = header.encoded_len() as u64;
        for (i, e) in entries.iter().enumerate() {
            let end = entries.get(i + 1).map_or(index_offset, |n| n.offset);
            if e.offset != expected || end < e.offset + BlockHeader::LEN as u64 {
                return Err(Error::Corrupt(format!("index: block {i} has an impossible offset")));
            }
            expected = end;
        }
        if expected != index_offset {
            return Err(Error::Corrupt("index: blocks do not reach the index".into()));
        }
        Ok(IndexedReader { input, header, entries, index_offset, file_len })
    }

    /// Reads block `n`'s header and checks it against the index entry and the room the index
    /// leaves the block.
    fn read_header(&mut self, n: usize) -> Result<BlockHeader, Error> {
        let e = self.entries[n];
        let end = self.entries.get(n + 1).map_or(self.index_offset, |next| next.offset);
        self.input.seek(SeekFrom::Start(e.offset))?;
        let mut b = [0u8; BlockHeader::LEN];
        read_exact_or(&mut self.input, &mut b, &format!("block {n} header"))?;
        let h = BlockHeader::parse(&b, n as u64)?;
        if IndexEntry::new(e.offset, &h) != e || BlockHeader::LEN as u64 + h.range_len as u64 + h.raw_len as u64 != end - e.offset {
            return Err(Error::Corrupt(format!("block {n}: header does not match the index")));
        }
        Ok(h)
    }

    /// The file header.
    pub fn header(&self) -> &FileHeader {
        &self.header
    }

    /// The index: one entry per block, in order.
    pub fn entries(&self) -> &[IndexEntry] {
        &self.entries
    }

    /// Offset of the index: where the last block ends.
    pub fn index_offset(&self) -> u64 {
        self.index_offset
    }

    /// The archive bytes of block `n`: from its header to the next block (or the index).
    ///
    /// # Panics
    /// If `n` is not below the number of blocks.
    pub fn block_range(&self, n: usize) -> std::ops::Range<u64> {
        self.entries[n].offset..self.entries.get(n + 1).map_or(self.index_offset, |next| next.offset)
    }

    /// Size of the archive in bytes.
    pub fn file_len(&self) -> u64 {
        self.file_len
    }

    /// Reads block `n` and checks it against the index and its checksums (the text is checked
    /// when it is decoded).
    ///
    /// # Errors
    /// [`Error::Corrupt`] naming the block for any damage; [`Error::Io`] from the input.
    ///
    /// # Panics
    /// If `n` is not below the number of blocks.
    pub fn read_block(&mut self, n: usize) -> Result<(BlockHeader, EncodedBlock), Error> {
        let h = self.read_header(n)?;
        let range = read_vec(&mut self.input, h.range_len as usize, &format!("block {n}"))?;
        let raw = read_vec(&mut self.input, h.raw_len as usize, &format!("block {n}"))?;
        check_streams(&h, &range, &raw, n as u64)?;
        Ok((h, EncodedBlock { range, raw }))
    }
}
