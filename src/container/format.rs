//! Byte layouts of the archive's structures and their validation.

use crate::error::Error;

/// First bytes of every archive. The high byte and the CR LF / Ctrl-Z / LF sequence detect
/// transfers that mangle binary files (the same trick as PNG's signature).
pub const MAGIC: [u8; 8] = *b"\x89CHZ\r\n\x1a\n";

/// Format version written by this build.
pub(crate) const VERSION: u8 = 1;

pub use crate::entropy::budget::MAX_BLOCK_TEXT;

/// Largest compressed stream of one block, in bytes: raw data can expand a little under zstd,
/// and the range coder's output is bounded by the symbols of `MAX_BLOCK_TEXT` bytes.
pub(crate) const MAX_BLOCK_STREAM: usize = 2 * MAX_BLOCK_TEXT + (1 << 16);

/// Most blocks an index may list (4 G lines at one line per block; far beyond real files).
pub(crate) const MAX_BLOCKS: u32 = 1 << 28;

const BLOCK_TAG: [u8; 4] = *b"BLK\0";
const INDEX_TAG: [u8; 4] = *b"IDX\0";
const FOOTER_MAGIC: [u8; 8] = *b"\x89CHZEND\0";

/// What kind of text the archive holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum InputFormat {
    /// One game per line (the benchmark format); anything else is kept raw.
    Movetext = 0,
    /// PGN files, kept byte for byte (see [`crate::pgn`]).
    Pgn = 1,
}

impl InputFormat {
    fn from_byte(b: u8) -> Option<InputFormat> {
        match b {
            0 => Some(InputFormat::Movetext),
            1 => Some(InputFormat::Pgn),
            _ => None,
        }
    }
}

fn crc(bytes: &[u8]) -> u32 {
    crc32fast::hash(bytes)
}

fn u32_at(b: &[u8], at: usize) -> u32 {
    u32::from_le_bytes(b[at..at + 4].try_into().expect("4 bytes"))
}

fn u64_at(b: &[u8], at: usize) -> u64 {
    u64::from_le_bytes(b[at..at + 8].try_into().expect("8 bytes"))
}

/// Revision of the block codings: how a block's text becomes symbols, header byte 11. An
/// archive is decoded with the coding its header names; compressing writes
/// [`Coding::newest_for`] its format; [`Coding::NEWEST`] is the newest this build reads.
/// Codings are never changed once released, like models: a new one is a new value.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Coding {
    /// The first coding (byte 0): moves in canonical SAN only.
    First = 0,
    /// Byte 1: a block may also hold moves in other notations ([`crate::text::notation`]),
    /// said by one symbol at the start of the block; a PGN block gives at most 256 tag names
    /// value models of their own (the PGN tag model's `MAX_TAG_STATES`).
    Notations = 1,
    /// Byte 2: a movetext line that occurred earlier in the input is coded as a reference to
    /// its first occurrence (`src/archive/dups.rs`); PGN blocks are coded as in coding 1.
    Duplicates = 2,
    /// Byte 3 (PGN only; movetext blocks are coded as in coding 2): what the game already says
    /// is coded as such: clocks under a mixing model of the time spent (`src/pgn/clock_model.rs`),
    /// rating diffs from the two ratings and the result (`src/pgn/rating.rs`), `ECO` and
    /// `Opening` from the opening moves, `UTCTime` as a change (`src/pgn/tags.rs`).
    PgnFacts = 3,
    /// Byte 4 (PGN only): as coding 3, and the clocks' time spent is also predicted from the
    /// move model's view of each main-line move (how surprising the played move was, its rank,
    /// the best move's probability, check), `src/pgn/clock_model.rs`'s `view_classes`.
    PgnStreams = 4,
    /// Byte 5 (PGN only): as coding 4, and each block's tags come first, in a range-coded
    /// stream of their own (the *tag stream*, in front of the block's main range stream with
    /// its length) that a reader decodes without the moves: every tag value, the move-dependent
    /// ones (`Result`, `PlyCount`, `ECO`, `Opening`) included, is coded there without the
    /// moves; the main stream then codes the moves knowing `PlyCount` and `Result`
    /// (`src/pgn/codec.rs`, `docs/formats.md`).
    PgnTagStream = 5,
    /// Byte 6 (PGN only): as coding 5, and what the moves and the game's tags already say is
    /// used: `ECO` and `Opening` are coded after the main line, from the opening positions
    /// shared with earlier games of the block (as in coding 4; a reader of the tags alone
    /// decodes such blocks whole); the time spent on a move is also predicted from the time
    /// left per move the player still has to play (the main line's length is known) and from
    /// whether the game was lost on time by this player (`Termination`, `Result`)
    /// (`src/pgn/clock_model.rs`, `docs/formats.md`).
    PgnPredicted = 6,
    /// Byte 7 (PGN only): as coding 6, and a PGN game byte for byte equal to an earlier one
    /// of the input is coded as a reference to its lines, as coding 2 codes a movetext line
    /// (`src/archive/dups.rs`, `docs/formats.md`); a block's `games` count its copies too.
    PgnDuplicates = 7,
}

impl Coding {
    /// The coding this build writes.
    pub const NEWEST: Coding = Coding::PgnDuplicates;

    /// The coding this build writes for `format`: for movetext coding 2 (codings 3 to 7 change
    /// only PGN, so movetext archives stay as they were), for PGN coding 7.
    pub fn newest_for(format: InputFormat) -> Coding {
        match format {
            InputFormat::Movetext => Coding::Duplicates,
            InputFormat::Pgn => Coding::PgnDuplicates,
        }
    }

    fn from_byte(b: u8) -> Option<Coding> {
        match b {
            0 => Some(Coding::First),
            1 => Some(Coding::Notations),
            2 => Some(Coding::Duplicates),
            3 => Some(Coding::PgnFacts),
            4 => Some(Coding::PgnStreams),
            5 => Some(Coding::PgnTagStream),
            6 => Some(Coding::PgnPredicted),
            7 => Some(Coding::PgnDuplicates),
            _ => None,
        }
    }
}

/// The file header.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FileHeader {
    /// Kind of input.
    pub format: InputFormat,
    /// Compression level used.
    pub level: u8,
    /// Id of the model parameters ([`crate::model::Model::id`]).
    pub model_id: u64,
    /// How the blocks are coded.
    pub coding: Coding,
    /// Level 10 only: the sha256 of the transformer weights the archive was made with
    /// ([`crate::model::transformer::Weights`]), in a [`FileHeader::EXT_LEN`]-byte extension
    /// right after the header (the digest and a CRC-32 of the header and digest). Levels 1-9
    /// have no extension: their headers are as before.
    pub weights: Option<[u8; 32]>,
}

impl FileHeader {
    /// Encoded size in bytes.
    pub const LEN: usize = 24;
    /// Size of level 10's extension: the weights' sha256, then a CRC-32 of the header's 24
    /// bytes and the digest.
    pub const EXT_LEN: usize = 36;

    /// Whether a header of this level is followed by the weights extension.
    pub fn has_extension(&self) -> bool {
        self.level == crate::model::transformer::TRANSFORMER_LEVEL
    }

    /// Bytes of the header with its extension, if any: where the first block starts.
    pub(crate) fn encoded_len(&self) -> usize {
        if self.has_extension() { Self::LEN + Self::EXT_LEN } else { Self::LEN }
    }

    /// The header's bytes followed by the extension's, if it has one.
    pub fn to_vec(&self) -> Vec<u8> {
        let mut v = self.to_bytes().to_vec();
        if self.has_extension() {
            v.extend_from_slice(&self.weights.unwrap_or_default());
            let c = crc(&v);
            v.extend_from_slice(&c.to_le_bytes());
        }
        v
    }

    /// Reads the extension `ext` of a header that has one ([`FileHeader::has_extension`]).
    ///
    /// # Errors
    /// [`Error::Corrupt`] if its checksum does not match.
    pub(crate) fn parse_extension(&mut self, ext: &[u8; Self::EXT_LEN]) -> Result<(), Error> {
        let mut v = self.to_bytes().to_vec();
        v.extend_from_slice(&ext[..32]);
        if crc(&v) != u32_at(ext, 32) {
            return Err(Error::Corrupt("file header extension (the weights' sha256) checksum mismatch".into()));
        }
        self.weights = Some(ext[..32].try_into().expect("32 bytes"));
        Ok(())
    }

    /// Reads and checks a header and its extension, if any, from `input`.
    ///
    /// # Errors
    /// As [`FileHeader::parse`]; [`Error::Corrupt`] for a short or damaged extension.
    pub(crate) fn read_from<R: std::io::Read>(input: &mut R, b: &[u8; Self::LEN]) -> Result<FileHeader, Error> {
        let mut h = FileHeader::parse(b)?;
        if h.has_extension() {
            let mut ext = [0u8; Self::EXT_LEN];
            input.read_exact(&mut ext).map_err(|_| Error::Corrupt("file header extension (the weights' sha256) is truncated".into()))?;
            h.parse_extension(&ext)?;
        }
        Ok(h)
    }

    /// Serialises the header.
    pub fn to_bytes(&self) -> [u8; Self::LEN] {
        let mut b = [0u8; Self::LEN];
        b[..8].copy_from_slice(&MAGIC);
        b[8] = VERSION;
        b[9] = self.format as u8;
        b[10] = self.level;
        b[11] = self.coding as u8;
        b[12..20].copy_from_slice(&self.model_id.to_le_bytes());
        let c = crc(&b[..20]);
        b[20..24].copy_from_slice(&c.to_le_bytes());
        b
    }

    /// Parses and checks a header.
    ///
    /// # Errors
    /// [`Error::Corrupt`] for a wrong magic or checksum, [`Error::Unsupported`] for a newer
    /// version or unknown format.
    pub fn parse(b: &[u8; Self::LEN]) -> Result<FileHeader, Error> {
        if b[..8] != MAGIC {
            return Err(Error::Corrupt("not a chesszip archive (wrong magic bytes)".into()));
        }
        if crc(&b[..20]) != u32_at(b, 20) {
            return Err(Error::Corrupt("file header checksum mismatch".into()));
        }
        if b[8] != VERSION {
            return Err(Error::Unsupported(format!("format version {} (this build reads version {VERSION})", b[8])));
        }
        let format = InputFormat::from_byte(b[9]).ok_or_else(|| Error::Unsupported(format!("input format {}", b[9])))?;
        let coding = Coding::from_byte(b[11]).ok_or_else(|| {
            Error::Unsupported(format!("block coding {} (this build reads codings 0 to {})", b[11], Coding::NEWEST as u8))
        })?;
        if coding > Coding::newest_for(format) && format == InputFormat::Movetext {
            // Codings 3 and up change only PGN blocks: no build ever wrote them for movetext.
            return Err(Error::Unsupported(format!("block coding {} for movetext (movetext has codings 0 to 2)", b[11])));
        }
        Ok(FileHeader { format, level: b[10], model_id: u64_at(b, 12), coding, weights: None })
    }
}

/// Bit of [`BlockHeader`]'s flags word: the block's last line has no line feed.
const FLAG_PARTIAL_LINE: u32 = 1;

/// The header in front of each block's streams.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct BlockHeader {
    /// Lines in the block (pieces of text ended by a line feed, and possibly a last piece
    /// without one, see [`BlockHeader::partial_line`]).
    pub lines: u32,
    /// Bytes of expanded text.
    pub text_len: u32,
    /// Bytes of range-coded stream.
    pub range_len: u32,
    /// Bytes of zstd raw-line stream.
    pub raw_len: u32,
    /// CRC-32 of the expanded text.
    pub text_crc: u32,
    /// Plies of the games in the block (informational).
    pub plies: u32,
    /// Lines of the block stored raw, not coded as games (informational).
    pub raw_lines: u32,
    /// The block's text does not end with a line feed: its last line goes on in the next
    /// block (a line longer than a block), or the input ends without a final line feed.
    pub partial_line: bool,
    /// CRC-32 of the range-coded stream followed by the raw-line stream, checked before
    /// decoding so that damaged streams never reach the decoder.
    pub stream_crc: u32,
    /// Games coded with the move model (informational; in a PGN block several lines make a
    /// game).
    pub games: u32,
}

impl BlockHeader {
    /// Encoded size in bytes.
    pub const LEN: usize = 48;

    /// Serialises the header.
    pub fn to_bytes(&self) -> [u8; Self::LEN] {
        let mut b = [0u8; Self::LEN];
        b[..4].copy_from_slice(&BLOCK_TAG);
        let flags = if self.partial_line { FLAG_PARTIAL_LINE } else { 0 };
        let fields = [
            self.lines,
            self.text_len,
            self.range_len,
            self.raw_len,
            self.text_crc,
            self.plies,
            self.raw_lines,
            flags,
            self.stream_crc,
            self.games,
        ];
        for (i, v) in fields.iter().enumerate() {
            b[4 + 4 * i..8 + 4 * i].copy_from_slice(&v.to_le_bytes());
        }
        let c = crc(&b[..Self::LEN - 4]);
        b[Self::LEN - 4..].copy_from_slice(&c.to_le_bytes());
        b
    }

    /// Whether these bytes start with the block tag (as opposed to the index tag).
    pub(crate) fn is_block(b: &[u8]) -> bool {
        b.starts_with(&BLOCK_TAG)
    }

    /// Parses and checks a block header; `n` is the block number for messages.
    ///
    /// # Errors
    /// [`Error::Corrupt`] for a wrong tag or checksum or lengths beyond the format's limits.
    pub fn parse(b: &[u8; Self::LEN], n: u64) -> Result<BlockHeader, Error> {
        if b[..4] != BLOCK_TAG {
            return Err(Error::Corrupt(format!("block {n}: missing block tag")));
        }
        if crc(&b[..Self::LEN - 4]) != u32_at(b, Self::LEN - 4) {
            return Err(Error::Corrupt(format!("block {n}: header checksum mismatch")));
        }
        let flags = u32_at(b, 32);
        let h = BlockHeader {
            lines: u32_at(b, 4),
            text_len: u32_at(b, 8),
            range_len: u32_at(b, 12),
            raw_len: u32_at(b, 16),
            text_crc: u32_at(b, 20),
            plies: u32_at(b, 24),
            raw_lines: u32_at(b, 28),
            partial_line: flags & FLAG_PARTIAL_LINE != 0,
            stream_crc: u32_at(b, 36),
            games: u32_at(b, 40),
        };
        if flags & !FLAG_PARTIAL_LINE != 0 {
            return Err(Error::Corrupt(format!("block {n}: unknown flags {flags:#x} in header")));
        }
        if h.text_len as usize > MAX_BLOCK_TEXT
            || h.range_len as usize > MAX_BLOCK_STREAM
            || h.raw_len as usize > MAX_BLOCK_STREAM
            || h.lines == 0
            || h.lines > h.text_len
            || h.raw_lines > h.lines
            || h.games > h.lines
            // A ply takes at least two bytes of SAN (`e4`); a block cut at `block_bytes` can end
            // right after one, without a separator.
            || h.plies > h.text_len / 2
        {
            return Err(Error::Corrupt(format!("block {n}: impossible lengths in header")));
        }
        Ok(h)
    }

    /// The checksum [`BlockHeader::stream_crc`] of a block's streams.
    pub fn streams_crc(range: &[u8], raw: &[u8]) -> u32 {
        let mut h = crc32fast::Hasher::new();
        h.update(range);
        h.update(raw);
        h.finalize()
    }
}

/// One entry of the block index: where a block starts and what its header says about its
/// text, so that readers can plan without reading the blocks.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct IndexEntry {
    /// Offset of the block header from the start of the file.
    pub offset: u64,
    /// Lines in the block.
    pub lines: u32,
    /// Bytes of expanded text.
    pub text_len: u32,
    /// Plies in the block.
    pub plies: u32,
    /// Lines stored raw.
    pub raw_lines: u32,
    /// The block's text does not end with a line feed.
    pub partial_line: bool,
    /// Games coded with the move model.
    pub games: u32,
}

impl IndexEntry {
    const LEN: usize = 32;

    /// The entry of a block at `offset` with header `h`.
    pub fn new(offset: u64, h: &BlockHeader) -> IndexEntry {
        IndexEntry {
            offset,
            lines: h.lines,
            text_len: h.text_len,
            plies: h.plies,
            raw_lines: h.raw_lines,
            partial_line: h.partial_line,
            games: h.games,
        }
    }

    /// Line feeds in the block's text: its lines, less a last one without line feed.
    pub fn line_feeds(&self) -> u64 {
        self.lines as u64 - self.partial_line as u64
    }
}

/// Lines of text in the blocks of index `entries`: their line feeds, and a last line without
/// one.
pub fn index_lines(entries: &[IndexEntry]) -> u64 {
    entries.iter().map(IndexEntry::line_feeds).sum::<u64>() + entries.last().is_some_and(|e| e.partial_line) as u64
}

/// Serialises the index of `entries`.
pub fn index_to_bytes(entries: &[IndexEntry]) -> Vec<u8> {
    let mut b = Vec::with_capacity(index_len(entries.len() as u32));
    b.extend_from_slice(&INDEX_TAG);
    b.extend_from_slice(&(entries.len() as u32).to_le_bytes());
    for e in entries {
        b.extend_from_slice(&e.offset.to_le_bytes());
        for v in [e.lines, e.text_len, e.plies, e.raw_lines, if e.partial_line { FLAG_PARTIAL_LINE } else { 0 }, e.games] {
            b.extend_from_slice(&v.to_le_bytes());
        }
    }
    let c = crc(&b);
    b.extend_from_slice(&c.to_le_bytes());
    b
}

/// Size in bytes of an index with `count` entries.
pub fn index_len(count: u32) -> usize {
    12 + count as usize * IndexEntry::LEN
}

/// Reads the entry count from the first 8 bytes of an index.
///
/// # Errors
/// [`Error::Corrupt`] for a wrong tag or an impossible count.
pub(crate) fn index_count(head: &[u8; 8]) -> Result<u32, Error> {
    if head[..4] != INDEX_TAG {
        return Err(Error::Corrupt("index: missing index tag".into()));
    }
    let count = u32_at(head, 4);
    if count > MAX_BLOCKS {
        return Err(Error::Corrupt(format!("index: impossible block count {count}")));
    }
    Ok(count)
}

/// Parses a whole index (as sized by [`index_len`]).
///
/// # Errors
/// [`Error::Corrupt`] on a checksum mismatch.
pub(crate) fn parse_index(b: &[u8]) -> Result<Vec<IndexEntry>, Error> {
    let head: &[u8; 8] = b.get(..8).and_then(|h| h.try_into().ok()).ok_or_else(|| Error::Corrupt("index: truncated".into()))?;
    let count = index_count(head)?;
    if b.len() != index_len(count) {
        return Err(Error::Corrupt("index: truncated".into()));
    }
    let body = &b[..b.len() - 4];
    if crc(body) != u32_at(b, b.len() - 4) {
        return Err(Error::Corrupt("index: checksum mismatch".into()));
    }
    (0..count as usize)
        .map(|i| {
            let at = 8 + i * IndexEntry::LEN;
            let flags = u32_at(b, at + 24);
            if flags & !FLAG_PARTIAL_LINE != 0 {
                return Err(Error::Corrupt(format!("index: unknown flags {flags:#x} for block {i}")));
            }
            Ok(IndexEntry {
                offset: u64_at(b, at),
                lines: u32_at(b, at + 8),
                text_len: u32_at(b, at + 12),
                plies: u32_at(b, at + 16),
                raw_lines: u32_at(b, at + 20),
                partial_line: flags & FLAG_PARTIAL_LINE != 0,
                games: u32_at(b, at + 28),
            })
        })
        .collect()
}

/// The fixed-size end of the file: where the index starts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Footer {
    /// Offset of the index from the start of the file.
    pub index_offset: u64,
}

impl Footer {
    /// Encoded size in bytes.
    pub const LEN: usize = 16;

    /// Serialises the footer.
    pub fn to_bytes(&self) -> [u8; Self::LEN] {
        let mut b = [0u8; Self::LEN];
        b[..8].copy_from_slice(&self.index_offset.to_le_bytes());
        b[8..].copy_from_slice(&FOOTER_MAGIC);
        b
    }

    /// Parses a footer.
    ///
    /// # Errors
    /// [`Error::Corrupt`] if the end magic is missing (typically a truncated file).
    pub fn parse(b: &[u8; Self::LEN]) -> Result<Footer, Error> {
        if b[8..] != FOOTER_MAGIC {
            return Err(Error::Corrupt("missing end marker (truncated archive?)".into()));
        }
        Ok(Footer { index_offset: u64_at(b, 0) })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn structures_round_trip() {
        // The newest coding is a PGN one (movetext headers stop at `newest_for(Movetext)`).
        let h = FileHeader { format: InputFormat::Pgn, level: 5, model_id: 0x0123_4567_89ab_cdef, coding: Coding::NEWEST, weights: None };
        assert_eq!(FileHeader::parse(&h.to_bytes()).unwrap(), h);
        let m = FileHeader { format: InputFormat::Movetext, coding: Coding::newest_for(InputFormat::Movetext), ..h };
        assert_eq!(FileHeader::parse(&m.to_bytes()).unwrap(), m);
        let b = BlockHeader {
            lines: 3,
            text_len: 100,
            range_len: 40,
            raw_len: 8,
            text_crc: 7,
            plies: 30,
            raw_lines: 1,
            partial_line: true,
            stream_crc: 9,
            games: 2,
        };
        assert_eq!(BlockHeader::parse(&b.to_bytes(), 0).unwrap(), b);
        let entries = vec![IndexEntry::new(24, &b), IndexEntry::new(200, &BlockHeader { partial_line: false, ..b })];
        assert_eq!(parse_index(&index_to_bytes(&entries)).unwrap(), entries);
        let f = Footer { index_offset: 1234 };
        assert_eq!(Footer::parse(&f.to_bytes()).unwrap(), f);
    }

    #[test]
    fn every_flipped_header_byte_is_detected() {
        let h = FileHeader { format: InputFormat::Movetext, level: 5, model_id: 42, coding: Coding::NEWEST, weights: None }.to_bytes();
        for i in 0..h.len() {
            let mut bad = h;
            bad[i] ^= 0x10;
            assert!(FileHeader::parse(&bad).is_err(), "byte {i}");
        }
        let b = BlockHeader { lines: 3, text_len: 100, range_len: 40, plies: 30, ..Default::default() }.to_bytes();
        for i in 0..b.len() {
            let mut bad = b;
            bad[i] ^= 0x10;
            assert!(BlockHeader::parse(&bad, 0).is_err(), "byte {i}");
        }
    }
}
