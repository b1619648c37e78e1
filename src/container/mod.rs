//! The archive file format (version 1): header, blocks with checksums, block index, footer.
//!
//! ```text
//! file header    magic(8) version(1) format(1) level(1) flags(1) model_id(8, LE) crc32(4)
//! block*         block header, then `range_len` bytes of range-coded stream, then
//!                `raw_len` bytes of zstd-compressed raw lines
//!   block header "BLK\0" lines(4) text_len(4) range_len(4) raw_len(4) text_crc32(4) plies(4) crc32(4)
//! index          "IDX\0" count(4) count x [offset(8) lines(4) text_len(4) plies(4)] crc32(4)
//! footer         index_offset(8) "\x89CHZEND\0"
//! ```
//! All integers are little-endian; every CRC-32 (IEEE, via crc32fast) covers the bytes of its
//! structure before it, and `text_crc32` covers the block's expanded text. Every length read
//! from a file is checked against a fixed limit before anything is allocated.

pub mod format;
pub mod reader;
pub mod writer;

pub use format::{BlockHeader, FileHeader, Footer, IndexEntry, InputFormat, MAX_BLOCK_TEXT};
pub use reader::Reader;
pub use writer::Writer;
