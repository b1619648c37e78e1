//! The whole-input raw form of an archive: the whole input as one general-purpose compressed
//! stream, for what the move model does not help (text that is not chess) and for files so
//! small that the block container's fixed overhead (132 bytes for one block) would dominate.
//! [`crate::archive::form`] decides which form an input gets.
//!
//! ```text
//! held      magic(4) kind(1) text_len(varint) lines(varint) text_crc32(4, LE) stream
//! streamed  magic(4) kind(1) stream text_crc32(4, LE) text_len(8, LE) lines(8, LE)
//! ```
//! `magic` is `"\x89CHR"`, which differs from the block container's `"\x89CHZ..."` in its
//! fourth byte, so that readers of either form tell them apart (and readers older than this
//! form reject it as "not a chesszip archive"). `kind` holds the [`Codec`] in bits 0-3 and the
//! [`InputFormat`] the text would be read as (for games) in bits 4-5; the other bits are zero.
//! `text_crc32` (IEEE, crc32fast) covers the expanded text, `lines` counts its lines (line
//! feeds, and a last piece without one), and varints are LEB128 (shortest form, at most 4
//! bytes). The stream runs to the trailer
//! (streamed) or the end of the file (held) and is self-delimiting: a zstd frame (no checksum,
//! no content size, no dictionary), a raw LZMA2 stream with its end marker, or, stored, the
//! text itself. Nothing may follow the archive.
//!
//! # Limits
//! A held archive records at most [`MAX_HELD`] bytes of text; its decoders are sized from
//! that length (zstd window at most `2^ceil(log2(text_len))`, LZMA2 dictionary the next power
//! of two of `text_len`, at least 4 KiB), and decoding stops with [`Error::LimitExceeded`] as
//! soon as the stream gives more text than recorded. A streamed archive (zstd only) has a
//! window of at most [`STREAMED_WINDOW_LOG`] (128 MiB, the memory ceiling of decoding any raw
//! archive); its length is checked at the end. Decoding is streaming: memory does not grow
//! with the text.

use std::io::{BufRead, Read, Seek, SeekFrom, Write};

use liblzma::stream::{Action, Filters, LzmaOptions, PRESET_EXTREME, Status, Stream};
use zstd::stream::raw::{CParameter, DParameter, Operation};

use super::format::InputFormat;
use crate::error::Error;

/// First bytes of a raw-form archive.
pub const RAW_MAGIC: [u8; 4] = *b"\x89CHR";

/// Most bytes of text a held archive may record (and the most [`crate::archive::form`] holds in memory
/// to compare the two forms).
pub const MAX_HELD: usize = 16 << 20;

/// Largest zstd window of a streamed archive, as a power of two (as `zstd --long`).
pub const STREAMED_WINDOW_LOG: u32 = 27;

/// zstd level of the raw streams (as `zstd -19`).
pub(crate) const ZSTD_LEVEL: i32 = 19;

/// LZMA2 preset of the raw streams (as `xz -9e`).
pub(crate) const LZMA_PRESET: u32 = 9 | PRESET_EXTREME;

/// Smallest LZMA2 dictionary (liblzma's minimum).
const LZMA_DICT_MIN: u32 = 4096;

/// Bytes of the streamed form's trailer.
pub(crate) const TRAILER_LEN: usize = 20;

/// How the text is compressed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Codec {
    /// The text itself (held).
    Stored = 0,
    /// One zstd frame, `zstd -19 --long` settings (held).
    Zstd = 1,
    /// Raw LZMA2, `xz -9e` settings (held).
    Lzma2 = 2,
    /// One zstd frame of unknown length when started, `zstd -19 --long` settings (streamed).
    ZstdStreamed = 3,
}

impl Codec {
    /// Every codec of a held archive.
    pub const HELD: [Codec; 3] = [Codec::Stored, Codec::Zstd, Codec::Lzma2];

    fn from_bits(b: u8) -> Option<Codec> {
        match b {
            0 => Some(Codec::Stored),
            1 => Some(Codec::Zstd),
            2 => Some(Codec::Lzma2),
            3 => Some(Codec::ZstdStreamed),
            _ => None,
        }
    }

    /// The codec's name for messages and `info`.
    pub fn name(self) -> &'static str {
        match self {
            Codec::Stored => "stored",
            Codec::Zstd => "zstd",
            Codec::Lzma2 => "lzma2",
            Codec::ZstdStreamed => "zstd (streamed)",
        }
    }
}

/// What a raw archive records about its text: checked when the text is decoded.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct Totals {
    /// Bytes of text.
    pub text_len: u64,
    /// Lines of text (line feeds, and a last piece without one).
    pub lines: u64,
    /// CRC-32 of the text.
    pub crc: u32,
}

impl Totals {
    /// The totals of `text`.
    pub fn of(text: &[u8]) -> Totals {
        let mut t = Counter::default();
        t.update(text);
        t.totals()
    }
}

/// Counts the totals of text given piece by piece.
#[derive(Clone, Default)]
struct Counter {
    crc: crc32fast::Hasher,
    len: u64,
    feeds: u64,
    last: Option<u8>,
}

impl Counter {
    fn update(&mut self, text: &[u8]) {
        self.crc.update(text);
        self.len += text.len() as u64;
        self.feeds += memchr::memchr_iter(b'\n', text).count() as u64;
        if let Some(&b) = text.last() {
            self.last = Some(b);
        }
    }

    fn totals(&self) -> Totals {
        let partial = self.last.is_some_and(|b| b != b'\n');
        Totals { text_len: self.len, lines: self.feeds + partial as u64, crc: self.crc.clone().finalize() }
    }
}

/// The header of a raw-form archive (see the [module](self)).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RawHeader {
    /// How the text is compressed.
    pub codec: Codec,
    /// What the text holds (how `extract --game` cuts it).
    pub format: InputFormat,
    /// Held archives: the text's totals; `None` for streamed ones (their trailer has them).
    pub held: Option<Totals>,
}

fn push_varint(b: &mut Vec<u8>, mut v: u64) {
    while v >= 0x80 {
        b.push(v as u8 | 0x80);
        v >>= 7;
    }
    b.push(v as u8);
}

fn read_varint<R: BufRead>(input: &mut R) -> Result<u64, Error> {
    let mut v = 0u64;
    for i in 0..4 {
        let mut b = [0u8; 1];
        read_exact(input, &mut b, "raw archive header")?;
        v |= u64::from(b[0] & 0x7f) << (7 * i);
        if b[0] & 0x80 == 0 {
            // The shortest encoding only, so that every archive has one header.
            if i > 0 && b[0] == 0 {
                return Err(Error::Corrupt("raw archive header: overlong number".into()));
            }
            return Ok(v);
        }
    }
    Err(Error::Corrupt("raw archive header: impossible number".into()))
}

impl RawHeader {
    /// Bytes of the header (and, streamed, the trailer) around the stream.
    pub fn overhead(&self) -> usize {
        match self.held {
            Some(t) => 5 + varint_len(t.text_len) + varint_len(t.lines) + 4,
            None => 5 + TRAILER_LEN,
        }
    }

    fn to_bytes(self) -> Vec<u8> {
        let mut b = RAW_MAGIC.to_vec();
        b.push(self.codec as u8 | (self.format as u8) << 4);
        if let Some(t) = self.held {
            push_varint(&mut b, t.text_len);
            push_varint(&mut b, t.lines);
            b.extend_from_slice(&t.crc.to_le_bytes());
        }
        b
    }

    /// Reads and checks the header at the start of `input`.
    ///
    /// # Errors
    /// [`Error::Corrupt`] for a wrong magic, a truncated header or an impossible length;
    /// [`Error::Unsupported`] for an unknown kind.
    pub fn read<R: BufRead>(input: &mut R) -> Result<RawHeader, Error> {
        let mut head = [0u8; 5];
        read_exact(input, &mut head, "raw archive header")?;
        if head[..4] != RAW_MAGIC {
            return Err(Error::Corrupt("not a chesszip raw archive (wrong magic bytes)".into()));
        }
        let kind = head[4];
        let codec = Codec::from_bits(kind & 0x0f).ok_or_else(|| Error::Unsupported(format!("raw archive kind {kind:#04x}")))?;
        let format = match kind >> 4 {
            0 => InputFormat::Movetext,
            1 => InputFormat::Pgn,
            _ => return Err(Error::Unsupported(format!("raw archive kind {kind:#04x}"))),
        };
        if codec == Codec::ZstdStreamed {
            return Ok(RawHeader { codec, format, held: None });
        }
        let text_len = read_varint(input)?;
        let lines = read_varint(input)?;
        if text_len > MAX_HELD as u64 || lines > text_len {
            return Err(Error::Corrupt(format!("raw archive header: impossible length {text_len} ({lines} lines)")));
        }
        let mut crc = [0u8; 4];
        read_exact(input, &mut crc, "raw archive header")?;
        Ok(RawHeader { codec, format, held: Some(Totals { text_len, lines, crc: u32::from_le_bytes(crc) }) })
    }

    /// The totals of a streamed archive from its `trailer` (its last bytes).
    pub(crate) fn parse_trailer(trailer: &[u8; TRAILER_LEN]) -> Totals {
        let u64_at = |at: usize| u64::from_le_bytes(trailer[at..at + 8].try_into().expect("8 bytes"));
        Totals { crc: u32::from_le_bytes(trailer[..4].try_into().expect("4 bytes")), text_len: u64_at(4), lines: u64_at(12) }
    }
}

fn varint_len(v: u64) -> usize {
    (64 - v.max(1).leading_zeros() as usize).div_ceil(7)
}

fn read_exact<R: BufRead>(input: &mut R, buf: &mut [u8], what: &str) -> Result<(), Error> {
    input.read_exact(buf).map_err(|e| match e.kind() {
        std::io::ErrorKind::UnexpectedEof => Error::Corrupt(format!("truncated archive: {what} is cut off")),
        _ => Error::Io(e),
    })
}

/// Whether `prefix` (the first bytes of a file, at least 4 to tell) starts a raw archive.
pub fn is_raw(prefix: &[u8]) -> bool {
    prefix.starts_with(&RAW_MAGIC)
}

/// Whether the archive `input` has the raw form (from its first bytes); leaves it at its start.
///
/// # Errors
/// [`Error::Io`] from seeking or reading.
pub(crate) fn starts_raw<R: Read + Seek>(input: &mut R) -> Result<bool, Error> {
    input.seek(SeekFrom::Start(0))?;
    let mut b = [0u8; RAW_MAGIC.len()];
    let got = read_up_to(input, &mut b)?;
    input.seek(SeekFrom::Start(0))?;
    Ok(is_raw(&b[..got]))
}

/// Reads as many bytes as `buf` holds, fewer only at the end of the input; returns how many.
///
/// # Errors
/// [`Error::Io`] from reading.
pub(crate) fn read_up_to<R: Read>(input: &mut R, buf: &mut [u8]) -> Result<usize, Error> {
    let mut got = 0;
    while got < buf.len() {
        match input.read(&mut buf[got..]) {
            Ok(0) => break,
            Ok(n) => got += n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e.into()),
        }
    }
    Ok(got)
}

/// The bytes the decoder of an archive with `header` holds at most: its zstd window or LZMA2
/// dictionary (the held text's size, or [`STREAMED_WINDOW_LOG`]), nothing for stored text.
pub(crate) fn decoder_window(header: &RawHeader) -> u64 {
    match (header.codec, header.held) {
        (Codec::Stored, _) => 0,
        (Codec::Lzma2, Some(t)) => lzma_dict(t.text_len) as u64,
        (_, held) => 1 << held.map_or(STREAMED_WINDOW_LOG, |t| held_window_log(t.text_len)),
    }
}

/// Checks that the decoder of an archive with `header` ([`decoder_window`]) fits a memory
/// ceiling of `memlimit` bytes (none without one).
///
/// # Errors
/// [`Error::DecodeLimit`] naming the memory limit.
pub(crate) fn check_window(header: &RawHeader, memlimit: Option<u64>) -> Result<(), Error> {
    check_window_of(decoder_window(header), memlimit)
}

/// [`check_window`] of a decoder that holds `window` bytes.
///
/// # Errors
/// As [`check_window`].
pub(crate) fn check_window_of(window: u64, memlimit: Option<u64>) -> Result<(), Error> {
    match memlimit {
        Some(m) if window > m => Err(Error::DecodeLimit {
            limit: crate::error::Limit::Memory,
            value: m,
            detail: format!("the raw form's decoder needs a window of {window} bytes"),
        }),
        _ => Ok(()),
    }
}

/// The zstd window of a held text of `len` bytes, as a power of two (zstd's own sizing for a
/// known length, at least its minimum 2^10).
fn held_window_log(len: u64) -> u32 {
    let need = 64 - len.saturating_sub(1).leading_zeros();
    need.clamp(10, STREAMED_WINDOW_LOG)
}

/// The LZMA2 dictionary of a held text of `len` bytes: as large as the text (so that every
/// match `xz -9e`'s 64 MiB dictionary finds is found), at most 64 MiB.
fn lzma_dict(len: u64) -> u32 {
    (len.max(1).next_power_of_two().min(64 << 20) as u32).max(LZMA_DICT_MIN)
}

fn lzma_filters(len: u64) -> Filters {
    let mut opts = LzmaOptions::new_preset(LZMA_PRESET).expect("preset 9e exists");
    opts.dict_size(lzma_dict(len));
    let mut filters = Filters::new();
    filters.lzma2(&opts);
    filters
}

fn zstd_encoder(window_log: u32) -> zstd::stream::raw::Encoder<'static> {
    let mut enc = zstd::stream::raw::Encoder::new(ZSTD_LEVEL).expect("zstd encoder");
    for p in [
        CParameter::WindowLog(window_log),
        CParameter::EnableLongDistanceMatching(true),
        CParameter::ChecksumFlag(false),
        CParameter::ContentSizeFlag(false),
        CParameter::DictIdFlag(false),
    ] {
        enc.set_parameter(p).expect("valid zstd parameter");
    }
    enc
}

/// Compresses `text` (at most [`MAX_HELD`] bytes) into a held archive with `codec`, recording
/// `format`. Memory: about 11 times the text's length (rounded up to a power of two) for
/// LZMA2, less for zstd.
///
/// # Panics
/// If `text` is longer than [`MAX_HELD`] or `codec` is [`Codec::ZstdStreamed`].
pub(crate) fn encode_held(text: &[u8], format: InputFormat, codec: Codec) -> Vec<u8> {
    assert!(text.len() <= MAX_HELD, "held raw archives hold at most {MAX_HELD} bytes");
    let len = text.len() as u64;
    let mut out = RawHeader { codec, format, held: Some(Totals::of(text)) }.to_bytes();
    match codec {
        Codec::Stored => out.extend_from_slice(text),
        Codec::Zstd => {
            let mut enc = zstd::bulk::Compressor::new(ZSTD_LEVEL).expect("zstd encoder");
            for p in [
                CParameter::WindowLog(held_window_log(len)),
                CParameter::EnableLongDistanceMatching(true),
                CParameter::ChecksumFlag(false),
                CParameter::ContentSizeFlag(false),
                CParameter::DictIdFlag(false),
            ] {
                enc.set_parameter(p).expect("valid zstd parameter");
            }
            out.extend(enc.compress(text).expect("in-memory zstd compression cannot fail"));
        }
        Codec::Lzma2 => {
            let mut stream = Stream::new_raw_encoder(&lzma_filters(len)).expect("LZMA2 encoder");
            out.reserve(text.len() / 2 + 1024);
            let start = out.len();
            loop {
                let used = stream.total_in() as usize;
                match stream.process_vec(&text[used..], &mut out, Action::Finish).expect("in-memory LZMA2 compression cannot fail") {
                    Status::StreamEnd => break,
                    _ => out.reserve((out.len() - start).max(4096)),
                }
            }
        }
        Codec::ZstdStreamed => panic!("a held archive cannot be streamed"),
    }
    out
}

/// A cheap estimate of what general-purpose compression makes of `text` (at most
/// [`MAX_HELD`] bytes): the size of zstd level 1 with long-distance matching, a few hundred
/// MB/s. The raw codecs of a held archive rarely do better than half of it.
pub fn estimate_len(text: &[u8]) -> usize {
    let mut enc = zstd::bulk::Compressor::new(1).expect("zstd encoder");
    for p in [CParameter::WindowLog(held_window_log(text.len() as u64)), CParameter::EnableLongDistanceMatching(true)] {
        enc.set_parameter(p).expect("valid zstd parameter");
    }
    enc.compress(text).expect("in-memory zstd compression cannot fail").len()
}

/// Writes a streamed archive (zstd, `zstd -19 --long` settings) of text given piece by piece:
/// header at creation, stream as the text comes, trailer at [`StreamedWriter::finish`].
/// Memory: zstd's level-19 tables for a 128 MiB window (a few hundred MiB).
pub struct StreamedWriter<W: Write> {
    out: W,
    enc: zstd::stream::raw::Encoder<'static>,
    buf: Vec<u8>,
    counter: Counter,
    archive_len: u64,
}

impl<W: Write> StreamedWriter<W> {
    /// Writes the header of a streamed archive recording `format`.
    ///
    /// # Errors
    /// [`Error::Io`] from `out`.
    pub fn new(mut out: W, format: InputFormat) -> Result<Self, Error> {
        let header = RawHeader { codec: Codec::ZstdStreamed, format, held: None }.to_bytes();
        out.write_all(&header)?;
        let enc = zstd_encoder(STREAMED_WINDOW_LOG);
        Ok(StreamedWriter { out, enc, buf: vec![0; 1 << 17], counter: Counter::default(), archive_len: header.len() as u64 })
    }

    fn emit(&mut self, n: usize) -> Result<(), Error> {
        self.out.write_all(&self.buf[..n])?;
        self.archive_len += n as u64;
        Ok(())
    }

    /// Compresses the next piece of text.
    ///
    /// # Errors
    /// [`Error::Io`] from the writer.
    pub fn write(&mut self, mut text: &[u8]) -> Result<(), Error> {
        self.counter.update(text);
        while !text.is_empty() {
            let mut buf = std::mem::take(&mut self.buf);
            let s = self.enc.run_on_buffers(text, &mut buf)?;
            self.buf = buf;
            self.emit(s.bytes_written)?;
            text = &text[s.bytes_read..];
        }
        Ok(())
    }

    /// Ends the stream, writes the trailer and flushes; returns the writer, the text's totals
    /// and the bytes of archive.
    ///
    /// # Errors
    /// [`Error::Io`] from the writer.
    pub fn finish(mut self) -> Result<(W, Totals, u64), Error> {
        loop {
            let mut buf = std::mem::take(&mut self.buf);
            let left = {
                let mut out = zstd::stream::raw::OutBuffer::around(&mut buf[..]);
                let left = self.enc.finish(&mut out, true)?;
                let n = out.pos();
                (left, n)
            };
            self.buf = buf;
            self.emit(left.1)?;
            if left.0 == 0 {
                break;
            }
        }
        let t = self.counter.totals();
        self.out.write_all(&t.crc.to_le_bytes())?;
        self.out.write_all(&t.text_len.to_le_bytes())?;
        self.out.write_all(&t.lines.to_le_bytes())?;
        self.out.flush()?;
        Ok((self.out, t, self.archive_len + TRAILER_LEN as u64))
    }
}

/// The decoder of one codec.
enum Dec {
    Stored,
    Zstd(Box<zstd::stream::raw::Decoder<'static>>),
    Lzma(Box<Stream>),
}

/// Reads the text of a raw archive piece by piece ([`RawReader::read`]), checking its length,
/// checksum and end. Memory: the decoder's window (see the [module](self)) and one buffer.
pub struct RawReader<R: BufRead> {
    input: R,
    header: RawHeader,
    dec: Dec,
    counter: Counter,
    produced: u64,
    /// Bytes of archive read so far.
    consumed: u64,
    done: bool,
    /// A member of a concatenation ([`RawReader::member`]): what follows is not checked.
    member: bool,
}

impl<R: BufRead> RawReader<R> {
    /// Reads the header of the raw archive at the start of `input`.
    ///
    /// # Errors
    /// As [`RawHeader::read`].
    pub fn new(mut input: R) -> Result<Self, Error> {
        let header = RawHeader::read(&mut input)?;
        let corrupt = |e: std::io::Error| Error::Corrupt(format!("raw archive: {e}"));
        let dec = match (header.codec, header.held) {
            (Codec::Stored, _) => Dec::Stored,
            (Codec::Lzma2, Some(t)) => Dec::Lzma(Box::new(
                Stream::new_raw_decoder(&lzma_filters(t.text_len)).map_err(|e| Error::Corrupt(format!("raw archive: {e}")))?,
            )),
            (_, held) => {
                let mut d = zstd::stream::raw::Decoder::new().map_err(corrupt)?;
                let log = held.map_or(STREAMED_WINDOW_LOG, |t| held_window_log(t.text_len));
                d.set_parameter(DParameter::WindowLogMax(log)).map_err(corrupt)?;
                Dec::Zstd(Box::new(d))
            }
        };
        let consumed = header.overhead() as u64 - if header.held.is_some() { 0 } else { TRAILER_LEN as u64 };
        Ok(RawReader { input, header, dec, counter: Counter::default(), produced: 0, consumed, done: false, member: false })
    }

    /// As [`RawReader::new`], for an archive that may be followed by more data (the next
    /// member of a concatenation, [`crate::container::members`]): at the end, what follows is
    /// left unread in `input`, which is positioned right after the archive.
    ///
    /// # Errors
    /// As [`RawReader::new`].
    pub fn member(input: R) -> Result<Self, Error> {
        Ok(RawReader { member: true, ..Self::new(input)? })
    }

    /// The archive's header.
    pub fn header(&self) -> &RawHeader {
        &self.header
    }

    /// Bytes of archive read so far (all of it once [`RawReader::read`] has returned 0).
    pub fn archive_bytes(&self) -> u64 {
        self.consumed
    }

    /// Bytes of text returned so far.
    pub fn text_bytes(&self) -> u64 {
        self.produced
    }

    /// The totals of the text returned so far (those the archive records, once
    /// [`RawReader::read`] has returned 0).
    pub fn totals(&self) -> Totals {
        self.counter.totals()
    }

    /// Decodes the next piece of text into `buf` and returns its length; 0 at the end, once
    /// the length, checksum and end of the archive are checked.
    ///
    /// # Errors
    /// [`Error::Corrupt`] for a damaged or truncated stream or a checksum mismatch,
    /// [`Error::LimitExceeded`] when the stream gives more text than its header records,
    /// [`Error::Io`] from the input.
    ///
    /// # Panics
    /// If `buf` is empty.
    pub fn read(&mut self, buf: &mut [u8]) -> Result<usize, Error> {
        assert!(!buf.is_empty(), "a buffer to decode into");
        if self.done {
            return Ok(0);
        }
        let limit = self.header.held.map(|t| t.text_len);
        // Room up to the recorded length plus one byte, to notice a stream that goes on.
        let room = match limit {
            Some(len) => buf.len().min((len + 1 - self.produced) as usize),
            None => buf.len(),
        };
        let buf = &mut buf[..room];
        loop {
            let input = self.input.fill_buf()?;
            let eof = input.is_empty();
            let (used, made, end) = match &mut self.dec {
                Dec::Stored => {
                    // Stored archives are held: the text is exactly the recorded length.
                    let left = limit.map_or(0, |len| len - self.produced);
                    let n = input.len().min(buf.len()).min(left as usize);
                    buf[..n].copy_from_slice(&input[..n]);
                    (n, n, eof || n as u64 == left)
                }
                Dec::Zstd(d) => {
                    let s = d.run_on_buffers(input, buf).map_err(|e| Error::Corrupt(format!("raw archive: {e}")))?;
                    // zstd returns 0 exactly when the frame is decoded *and* flushed, also when
                    // that fills the buffer to its last byte: a frame that ends at the end of
                    // a full buffer has ended (waiting for the next call would find no input
                    // and call a whole archive truncated).
                    (s.bytes_read, s.bytes_written, s.remaining == 0)
                }
                Dec::Lzma(s) => {
                    let (in0, out0) = (s.total_in(), s.total_out());
                    let status = s
                        .process(input, buf, if eof { Action::Finish } else { Action::Run })
                        .map_err(|e| Error::Corrupt(format!("raw archive: {e}")))?;
                    ((s.total_in() - in0) as usize, (s.total_out() - out0) as usize, status == Status::StreamEnd)
                }
            };
            self.input.consume(used);
            self.consumed += used as u64;
            self.produced += made as u64;
            if limit.is_some_and(|len| self.produced > len) {
                return Err(Error::LimitExceeded("raw archive decodes to more text than its header records".into()));
            }
            self.counter.update(&buf[..made]);
            if end {
                self.finish()?;
                return Ok(made);
            }
            if made > 0 {
                return Ok(made);
            }
            if eof {
                return Err(Error::Corrupt("truncated archive: the raw stream is cut off".into()));
            }
            if used == 0 {
                return Err(Error::Corrupt("raw archive: the stream does not progress".into()));
            }
        }
    }

    /// Checks the end of the archive: the trailer (streamed), the totals, and that nothing
    /// follows.
    fn finish(&mut self) -> Result<(), Error> {
        self.done = true;
        let recorded = match self.header.held {
            Some(t) => t,
            None => {
                let mut t = [0u8; TRAILER_LEN];
                read_exact(&mut self.input, &mut t, "raw archive trailer")?;
                self.consumed += TRAILER_LEN as u64;
                RawHeader::parse_trailer(&t)
            }
        };
        let found = self.counter.totals();
        if found.text_len != recorded.text_len {
            return Err(Error::Corrupt(format!(
                "raw archive: {} bytes of text, the archive records {}",
                found.text_len, recorded.text_len
            )));
        }
        if found.crc != recorded.crc {
            return Err(Error::Corrupt("raw archive: checksum mismatch, the archive is damaged".into()));
        }
        if found.lines != recorded.lines {
            return Err(Error::Corrupt(format!("raw archive: {} lines of text, the archive records {}", found.lines, recorded.lines)));
        }
        if !self.member && !self.input.fill_buf()?.is_empty() {
            return Err(Error::Corrupt("unexpected data after the end of the archive".into()));
        }
        Ok(())
    }

    /// The reader's input, positioned where decoding stopped.
    pub fn into_inner(self) -> R {
        self.input
    }

    /// Decodes the whole text to `out`; returns the bytes of text.
    ///
    /// # Errors
    /// As [`RawReader::read`]; [`Error::Io`] from `out`. Text before the damage may already
    /// have been written.
    pub fn copy_to<W: Write>(&mut self, out: &mut W) -> Result<u64, Error> {
        let mut buf = vec![0u8; 1 << 16];
        loop {
            let n = self.read(&mut buf)?;
            if n == 0 {
                return Ok(self.produced);
            }
            out.write_all(&buf[..n])?;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn decode(archive: &[u8]) -> Result<Vec<u8>, Error> {
        let mut out = Vec::new();
        let mut r = RawReader::new(archive)?;
        r.copy_to(&mut out)?;
        assert_eq!(r.archive_bytes(), archive.len() as u64);
        Ok(out)
    }

    fn streamed(text: &[u8], format: InputFormat) -> Vec<u8> {
        let mut w = StreamedWriter::new(Vec::new(), format).unwrap();
        for piece in text.chunks(1000) {
            w.write(piece).unwrap();
        }
        let (out, totals, size) = w.finish().unwrap();
        assert_eq!((totals, size), (Totals::of(text), out.len() as u64));
        out
    }

    fn samples() -> Vec<Vec<u8>> {
        let mut random = Vec::new();
        let mut x = 0x1234_5678_u32;
        for _ in 0..70_000 {
            x ^= x << 13;
            x ^= x >> 17;
            x ^= x << 5;
            random.push(x as u8);
        }
        vec![Vec::new(), b"x".to_vec(), b"hello, world\n".repeat(1000), random]
    }

    #[test]
    fn every_codec_round_trips() {
        for text in samples() {
            for format in [InputFormat::Movetext, InputFormat::Pgn] {
                for codec in Codec::HELD {
                    let a = encode_held(&text, format, codec);
                    assert_eq!(RawHeader::read(&mut &a[..]).unwrap().format, format);
                    assert_eq!(decode(&a).unwrap(), text, "{codec:?}, {} bytes", text.len());
                }
                let a = streamed(&text, format);
                assert_eq!(RawHeader::read(&mut &a[..]).unwrap().codec, Codec::ZstdStreamed);
                assert_eq!(decode(&a).unwrap(), text);
            }
        }
    }

    /// [`decode`] reading into a buffer of `buf_len` bytes.
    fn decode_by(archive: &[u8], buf_len: usize) -> Result<Vec<u8>, Error> {
        let mut out = Vec::new();
        let mut r = RawReader::new(archive)?;
        let mut buf = vec![0u8; buf_len];
        loop {
            match r.read(&mut buf)? {
                0 => return Ok(out),
                n => out.extend_from_slice(&buf[..n]),
            }
        }
    }

    /// Repetitive texts whose length is at or next to a multiple of the readers' buffers
    /// (`copy_to` and `expand` decode 64 KiB at a time): a stream that ends exactly at the end
    /// of a full buffer once failed its own check as "truncated".
    #[test]
    fn repetitive_texts_at_buffer_boundaries_round_trip() {
        let line = b"e4 e5 Nf3 Nc6 Bb5 a6 1-0\n";
        for size in [4095, 4096, 65535, 65536, 65537, 131071, 131072, 131073, 3 << 16, 1 << 20] {
            let zeros = vec![0u8; size];
            let lines: Vec<u8> = line.iter().copied().cycle().take(size).collect();
            for text in [zeros, lines] {
                let mut archives: Vec<Vec<u8>> = Codec::HELD.iter().map(|&c| encode_held(&text, InputFormat::Movetext, c)).collect();
                archives.push(streamed(&text, InputFormat::Movetext));
                for (a, codec) in archives.iter().zip(["stored", "zstd", "lzma2", "streamed"]) {
                    assert_eq!(decode(a).unwrap(), text, "{codec}, {size} bytes");
                    for buf_len in [1, 4096, 65536, 65537, size, size + 1] {
                        assert!(decode_by(a, buf_len).unwrap() == text, "{codec}, {size} bytes, buffer {buf_len}");
                    }
                }
            }
        }
    }

    /// The largest held text (zeros, the case of the bug) in the two codecs that compress it.
    #[test]
    fn the_largest_held_text_round_trips() {
        let text = vec![0u8; MAX_HELD];
        for codec in [Codec::Zstd, Codec::Lzma2] {
            let a = encode_held(&text, InputFormat::Movetext, codec);
            assert!(decode(&a).unwrap() == text, "{codec:?}");
        }
        assert!(decode(&streamed(&text, InputFormat::Movetext)).unwrap() == text);
    }

    #[test]
    fn damage_is_detected() {
        let text = b"1. e4 e5 2. Nf3 Nc6 some words that repeat, some words that repeat\n".repeat(50);
        let mut archives: Vec<Vec<u8>> = Codec::HELD.iter().map(|&c| encode_held(&text, InputFormat::Pgn, c)).collect();
        archives.push(streamed(&text, InputFormat::Pgn));
        for a in &archives {
            // Every truncation, an extension, and every flipped byte.
            for cut in 0..a.len() {
                assert!(decode(&a[..cut]).is_err(), "cut at {cut}");
            }
            let mut longer = a.clone();
            longer.push(0);
            assert!(decode(&longer).is_err());
            for i in 0..a.len() {
                let mut bad = a.clone();
                bad[i] ^= 0x21;
                assert_ne!(decode(&bad).ok().as_deref(), Some(&text[..]), "byte {i}");
            }
        }
    }

    #[test]
    fn wrong_lengths_are_caught() {
        let text = b"abcdefgh".repeat(100);
        for codec in Codec::HELD {
            let a = encode_held(&text, InputFormat::Movetext, codec);
            for (len, limit) in [(799u64, true), (801, false), (1, true)] {
                let t = Totals { text_len: len, ..Totals::of(&text) };
                let mut forged = RawHeader { codec, format: InputFormat::Movetext, held: Some(t) }.to_bytes();
                forged.extend_from_slice(&a[RawHeader::read(&mut &a[..]).unwrap().overhead()..]);
                let err = decode(&forged).unwrap_err();
                assert!(matches!(err, Error::LimitExceeded(_)) == limit || codec == Codec::Stored, "{codec:?} {len}: {err}");
            }
        }
        // A length beyond the held limit is refused before anything is allocated.
        let mut huge = RAW_MAGIC.to_vec();
        huge.extend_from_slice(&[1, 0xff, 0xff, 0xff, 0x7f, 0, 0, 0, 0, 0]);
        assert!(matches!(decode(&huge), Err(Error::Corrupt(_))));
    }
}
