//! The archive's two forms: the block container ([`crate::container`], games coded with the
//! move model) and the whole-input raw form ([`crate::container::raw`], one general-purpose
//! stream). Which one [`crate::compress`] writes, and the raw form's side of `expand`, `test`,
//! [`crate::info`], [`crate::extract_lines`], [`crate::extract_games`] and [`crate::Blocks`].
//!
//! # Which form
//! An input of at most [`MAX_HELD`] bytes is held in memory and compressed as a block
//! container with the caller's threads. The raw codecs (stored, `zstd -19 --long`, LZMA2 at
//! `xz -9e` settings; the last two in parallel) then run when they might win: always for an
//! input of at most [`ALWAYS_TRY`] bytes, otherwise when the container is larger than [`GATE`]
//! times a cheap estimate ([`raw::estimate_len`], zstd level 1 with long matching, which the
//! raw codecs rarely beat by half). The smallest archive is written. So, for such an input:
//!
//! - the archive is at most the LZMA2 stream of `xz -9e` plus 9 to 15 bytes of header, below
//!   what `xz -9e` writes (its container adds about 60 bytes to the same stream), and at most
//!   the zstd frame of `zstd -19 --long` plus as many bytes, whenever the raw codecs ran;
//! - when they did not run, the container is at most half the estimate, which the raw codecs
//!   beat only on unusual data (this is not proved, only measured: see the README).
//!
//! A longer input is probed: its first [`PROBE`] bytes (cut at a line end) are compressed as
//! a container. If they hold no game, or their container is larger than [`GATE`] times their
//! estimate, the whole input is written as one streamed raw archive (`zstd -19 --long`);
//! otherwise as a container. Nothing is guaranteed for a long input whose start differs from
//! the rest (chess first and other text after, or the reverse).
//!
//! Memory at compression, beyond the container's: the held input (up to 16 MiB) and, while
//! the raw codecs run, LZMA2's tables (about 11 times the input rounded up to a power of two)
//! and zstd's; a streamed archive takes zstd's level-19 tables for a 128 MiB window.

use std::io::{BufRead, BufReader, Read, Seek, SeekFrom, Write};
use std::ops::RangeInclusive;

use crate::archive::{CompressOptions, Progress, Summary, compress_blocks as compress_container};
use crate::codec::block::BlockStats;
use crate::container::raw::{self, Codec, MAX_HELD, RawHeader, RawReader, StreamedWriter, TRAILER_LEN, Totals};
use crate::container::{FileHeader, IndexEntry, InputFormat};
use crate::inspect::ArchiveInfo;
use crate::{Error, pgn};

/// Inputs up to this many bytes always try the raw codecs (the container's fixed overhead
/// matters most there, and the codecs take milliseconds).
pub const ALWAYS_TRY: usize = 16 << 10;

/// The raw codecs run on a larger input only when the container is larger than this fraction
/// of [`raw::estimate_len`].
pub const GATE: f64 = 0.5;

/// Bytes of a long input compressed as a container to choose its form.
pub const PROBE: usize = 512 << 10;

/// Bytes the format detection sees (the command line's input buffer).
const DETECT_SAMPLE: usize = 1 << 16;

/// Bytes of text per block of a raw archive read through [`crate::Blocks`].
const RAW_CHUNK: usize = MAX_HELD;

/// [`crate::compress`] choosing the form (see the [module](self)); `opts.raw_form` is set.
pub(crate) fn compress<R: BufRead, W: Write>(
    mut input: R,
    mut output: W,
    opts: &CompressOptions,
    progress: Progress<'_>,
) -> Result<Summary, Error> {
    let mut head = Vec::new();
    (&mut input).take(MAX_HELD as u64 + 1).read_to_end(&mut head)?;
    let format = opts.format.unwrap_or_else(|| pgn::detect(&head[..head.len().min(DETECT_SAMPLE)]));
    let container_opts = CompressOptions { format: Some(format), raw_form: false, ..*opts };
    if head.len() <= MAX_HELD {
        let mut container = Vec::new();
        let summary = compress_container(&head[..], &mut container, &container_opts, progress)?;
        let (bytes, summary) = match smallest_raw(&head, format, container.len(), opts.threads)? {
            Some(raw) => {
                let summary = raw_summary(Totals::of(&head), raw.len() as u64);
                (raw, summary)
            }
            None => (container, summary),
        };
        output.write_all(&bytes)?;
        output.flush()?;
        return Ok(summary);
    }
    let probe_len = head[..PROBE].iter().rposition(|&b| b == b'\n').map_or(PROBE, |i| i + 1);
    let mut probe = Vec::new();
    let found = compress_container(&head[..probe_len], &mut probe, &container_opts, &|_| {})?;
    let mut input = (&head[..]).chain(input);
    if found.stats.games > 0 && probe.len() as f64 <= GATE * raw::estimate_len(&head[..probe_len]) as f64 {
        return compress_container(input, output, &container_opts, progress);
    }
    let mut writer = StreamedWriter::new(output, format)?;
    let mut done = 0u64;
    loop {
        let buf = match input.fill_buf() {
            Ok(buf) => buf,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e.into()),
        };
        if buf.is_empty() {
            break;
        }
        let n = buf.len();
        writer.write(buf)?;
        input.consume(n);
        done += n as u64;
        progress(done);
    }
    let (_, totals, size) = writer.finish()?;
    Ok(raw_summary(totals, size))
}

/// The smallest held raw archive of `text` if the raw codecs run (see the [module](self)) and
/// it is smaller than the container's `container_len` bytes.
fn smallest_raw(text: &[u8], format: InputFormat, container_len: usize, threads: usize) -> Result<Option<Vec<u8>>, Error> {
    if text.len() > ALWAYS_TRY && container_len as f64 <= GATE * raw::estimate_len(text) as f64 {
        return Ok(None);
    }
    let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build().map_err(|e| Error::Io(std::io::Error::other(e)))?;
    let (zstd, lzma) =
        pool.install(|| rayon::join(|| raw::encode_held(text, format, Codec::Zstd), || raw::encode_held(text, format, Codec::Lzma2)));
    let stored = raw::encode_held(text, format, Codec::Stored);
    Ok([stored, zstd, lzma].into_iter().min_by_key(Vec::len).filter(|a| a.len() < container_len))
}

fn raw_summary(t: Totals, archive_bytes: u64) -> Summary {
    Summary {
        text_bytes: t.text_len,
        archive_bytes,
        blocks: 0,
        stats: BlockStats { lines: t.lines, raw_lines: t.lines, ..BlockStats::default() },
    }
}

/// Whether `input` holds a raw archive (from its first bytes); leaves it at its start.
///
/// # Errors
/// [`Error::Io`] from seeking or reading.
pub(crate) fn is_raw<R: Read + Seek>(input: &mut R) -> Result<bool, Error> {
    input.seek(SeekFrom::Start(0))?;
    let mut b = [0u8; 4];
    let got = read_up_to(input, &mut b)?;
    input.seek(SeekFrom::Start(0))?;
    Ok(raw::is_raw(&b[..got]))
}

/// Reads as many bytes as `buf` holds, fewer only at the end of the input.
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

/// [`crate::expand`] of a raw archive.
pub(crate) fn expand<R: BufRead, W: Write>(input: R, mut output: W, progress: Progress<'_>) -> Result<Summary, Error> {
    let mut reader = RawReader::new(input)?;
    let mut buf = vec![0u8; 1 << 16];
    loop {
        let n = reader.read(&mut buf)?;
        if n == 0 {
            break;
        }
        output.write_all(&buf[..n])?;
        progress(reader.text_bytes());
    }
    output.flush()?;
    Ok(raw_summary(reader.totals(), reader.archive_bytes()))
}

/// [`crate::info`] of a raw archive: from its header (held) or trailer (streamed), without
/// decoding it.
pub(crate) fn info<R: Read + Seek>(mut input: R) -> Result<ArchiveInfo, Error> {
    let file_len = input.seek(SeekFrom::End(0))?;
    input.seek(SeekFrom::Start(0))?;
    let header = RawHeader::read(&mut BufReader::new(&mut input))?;
    let totals = match header.held {
        Some(t) => t,
        None => {
            if file_len < (header.overhead()) as u64 {
                return Err(Error::Corrupt("truncated archive: the raw trailer is cut off".into()));
            }
            input.seek(SeekFrom::End(-(TRAILER_LEN as i64)))?;
            let mut t = [0u8; TRAILER_LEN];
            if read_up_to(&mut input, &mut t)? != TRAILER_LEN {
                return Err(Error::Corrupt("truncated archive: the raw trailer is cut off".into()));
            }
            RawHeader::parse_trailer(&t)
        }
    };
    Ok(ArchiveInfo {
        header: FileHeader { format: header.format, level: 0, model_id: 0 },
        model_available: true,
        blocks: 0,
        lines: totals.lines,
        games: 0,
        raw_lines: totals.lines,
        plies: 0,
        text_bytes: totals.text_len,
        archive_bytes: file_len,
        raw: Some(header.codec),
    })
}

/// Writes the lines of `range` (1-based, inclusive) of text given piece by piece.
struct LineFilter<W: Write> {
    out: W,
    range: RangeInclusive<u64>,
    /// Number of the line the next byte belongs to.
    line: u64,
    /// Whether the open line has bytes.
    open: bool,
    written: u64,
}

impl<W: Write> LineFilter<W> {
    fn feed(&mut self, text: &[u8]) -> Result<(), Error> {
        for piece in text.split_inclusive(|&b| b == b'\n') {
            let wanted = self.range.contains(&self.line);
            if wanted {
                self.out.write_all(piece)?;
            }
            if piece.ends_with(b"\n") {
                self.written += wanted as u64;
                self.line += 1;
                self.open = false;
            } else {
                self.open = true;
            }
        }
        Ok(())
    }

    /// Counts a last line without line feed; returns the lines written.
    fn finish(mut self) -> Result<u64, Error> {
        if self.open && self.range.contains(&self.line) {
            self.written += 1;
        }
        self.out.flush()?;
        Ok(self.written)
    }
}

/// [`crate::extract_lines`] of a raw archive. A held archive is decoded and checked before
/// anything is written; a streamed one is written as it is decoded (and checked at its end).
pub(crate) fn extract_lines<R: Read + Seek, W: Write>(mut input: R, range: RangeInclusive<u64>, output: W) -> Result<u64, Error> {
    input.seek(SeekFrom::Start(0))?;
    let mut reader = RawReader::new(BufReader::new(input))?;
    if *range.start() == 0 || range.end() < range.start() {
        return Ok(0);
    }
    let mut filter = LineFilter { out: output, range, line: 1, open: false, written: 0 };
    if reader.header().held.is_some() {
        let mut text = Vec::new();
        reader.copy_to(&mut text)?;
        filter.feed(&text)?;
    } else {
        let mut buf = vec![0u8; 1 << 16];
        loop {
            let n = reader.read(&mut buf)?;
            if n == 0 {
                break;
            }
            filter.feed(&buf[..n])?;
        }
    }
    filter.finish()
}

/// The text of a raw archive in blocks of [`RAW_CHUNK`] bytes, for [`crate::Blocks`]: opening
/// decodes (and checks) it once to list the blocks; reading them in order decodes it once
/// more, and going back starts over.
pub(crate) struct RawBlocks<R: Read + Seek> {
    /// `None` only if starting over failed.
    reader: Option<RawReader<BufReader<R>>>,
    /// The block the reader is at; `usize::MAX` after an error.
    at: usize,
    header: FileHeader,
    entries: Vec<IndexEntry>,
}

fn read_chunk<R: BufRead>(reader: &mut RawReader<R>, chunk: &mut Vec<u8>) -> Result<(), Error> {
    chunk.clear();
    chunk.resize(RAW_CHUNK, 0);
    let mut filled = 0;
    while filled < RAW_CHUNK {
        let n = reader.read(&mut chunk[filled..])?;
        if n == 0 {
            break;
        }
        filled += n;
    }
    chunk.truncate(filled);
    Ok(())
}

impl<R: Read + Seek> RawBlocks<R> {
    /// Opens the raw archive `input`.
    ///
    /// # Errors
    /// As [`RawReader::read`], for the whole archive.
    pub(crate) fn open(mut input: R) -> Result<Self, Error> {
        input.seek(SeekFrom::Start(0))?;
        let mut reader = RawReader::new(BufReader::new(input))?;
        let mut entries = Vec::new();
        let mut chunk = Vec::new();
        loop {
            read_chunk(&mut reader, &mut chunk)?;
            if chunk.is_empty() {
                break;
            }
            let lines = pgn::codec::count_lines(&chunk) as u32;
            entries.push(IndexEntry {
                offset: 0,
                lines,
                text_len: chunk.len() as u32,
                plies: 0,
                raw_lines: lines,
                partial_line: chunk.last() != Some(&b'\n'),
                games: 0,
            });
        }
        let header = FileHeader { format: reader.header().format, level: 0, model_id: 0 };
        let mut input = reader.into_inner().into_inner();
        input.seek(SeekFrom::Start(0))?;
        Ok(RawBlocks { reader: Some(RawReader::new(BufReader::new(input))?), at: 0, header, entries })
    }

    /// The header the archive's text is read with: its format, level 0, model id 0.
    pub(crate) fn header(&self) -> &FileHeader {
        &self.header
    }

    /// One entry per block (offsets 0).
    pub(crate) fn entries(&self) -> &[IndexEntry] {
        &self.entries
    }

    /// The text of block `k` (below the number of entries).
    ///
    /// # Errors
    /// As [`RawReader::read`].
    pub(crate) fn read(&mut self, k: usize) -> Result<Vec<u8>, Error> {
        if k < self.at
            && let Some(reader) = self.reader.take()
        {
            let mut input = reader.into_inner().into_inner();
            input.seek(SeekFrom::Start(0))?;
            self.reader = Some(RawReader::new(BufReader::new(input))?);
            self.at = 0;
        }
        let reader = self.reader.as_mut().ok_or_else(|| Error::Io(std::io::Error::other("the raw archive could not be read again")))?;
        let mut chunk = Vec::new();
        while self.at <= k {
            if let Err(e) = read_chunk(reader, &mut chunk) {
                self.at = usize::MAX;
                return Err(e);
            }
            self.at += 1;
        }
        Ok(chunk)
    }
}
