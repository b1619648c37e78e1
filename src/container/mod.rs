//! The archive file format (version 1): header, blocks with checksums, block index, footer.
//!
//! ```text
//! file header    magic(8) version(1) format(1) level(1) coding(1) model_id(8, LE) crc32(4)
//! block*         block header, then `range_len` bytes of range-coded stream, then
//!                `raw_len` bytes of zstd-compressed raw lines
//!   block header "BLK\0" lines(4) text_len(4) range_len(4) raw_len(4) text_crc32(4) plies(4)
//!                raw_lines(4) flags(4) stream_crc32(4) games(4) crc32(4)
//! index          "IDX\0" count(4) count x [offset(8) lines(4) text_len(4) plies(4)
//!                raw_lines(4) flags(4) games(4)] crc32(4)
//! footer         index_offset(8) "\x89CHZEND\0"
//! ```
//! `coding` names how the blocks are coded ([`Coding`]: 0 for archives written before
//! coding 1, which adds other move notations). All integers are little-endian; every CRC-32 (IEEE, via crc32fast) covers the bytes of its
//! structure before it, `text_crc32` covers the block's expanded text and `stream_crc32` the
//! block's two streams (range-coded, then raw). `lines` counts the block's lines: pieces of
//! text ended by a line feed, plus a last piece without one if flags bit 0 is set (the block
//! ends inside a line that the next block continues, or the input ends without a line feed).
//! `raw_lines` of them are stored raw; `games` counts the games coded with the move model (in
//! the movetext format one per line that is not raw, in PGN several lines each) and `plies`
//! their moves.
//! Flag bits other than bit 0 must be zero. An index entry repeats its block header's fields
//! and gives the offset of the block header from the start of the file; blocks follow each
//! other without gaps, from the end of the file header to the index. Every length read from a
//! file is checked against a fixed limit or the file's size before anything is allocated.
//!
//! An archive may instead have the whole-input raw form ([`raw`]), told apart by its magic.
//! Archives concatenate: a file of several archives one after the other is an archive of
//! several members ([`members`]).

pub mod block;
pub mod format;
pub mod indexed;
pub mod members;
pub mod raw;
pub mod reader;
pub mod spool;
pub mod writer;

pub use block::{BlockStats, EncodedBlock};
pub use format::{BlockHeader, Coding, FileHeader, Footer, IndexEntry, InputFormat, MAX_BLOCK_TEXT};
pub use indexed::IndexedReader;
pub use reader::Reader;
pub use writer::Writer;
