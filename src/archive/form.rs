//! The archive's two forms: the block container ([`crate::container`], games coded with the
//! move model) and the whole-input raw form ([`crate::container::raw`], one general-purpose
//! stream). Which one [`super::compress`] writes, and the raw form's side of
//! [`super::expand`] (and so of `test`). The raw form's side of `info` and `extract` is in
//! [`crate::inspect`], of [`crate::games::Blocks`] in [`crate::games`], of conversion in
//! [`crate::convert`].
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
//!   beat only on unusual data (this is not proved, only measured: see docs/formats.md).
//!
//! An input of several *regions* (stretches of games and stretches of other text, found line
//! by line without the model: [`super::regions`]) is cut into them, and each region is written
//! as a member of its own ([`crate::container::members`]) in the form chosen for it alone, as
//! above or below; a held input takes that concatenation only when it is smaller than the best
//! single form of the whole. An input of one region is written exactly as before regions.
//!
//! A longer input (or region) is probed: its first [`PROBE`] bytes (cut at a line end) are
//! compressed as a container. If they hold no game, or their container is larger than
//! [`GATE`] times their estimate, the whole input is written as one streamed raw archive
//! (`zstd -19 --long`); otherwise as a container. A region shorter than [`MAX_HELD`] is held
//! and judged whole. Within one region, nothing is guaranteed for a start that differs from
//! the rest; regions shorter than [`super::regions::MIN_REGION`] are not separated.
//!
//! Memory at compression, beyond the container's: the held input (up to 16 MiB) and, while
//! the raw codecs run, LZMA2's tables (about 11 times the input rounded up to a power of two)
//! and zstd's; a streamed archive takes zstd's level-19 tables for a 128 MiB window.

use std::io::{BufRead, Read, Write};

use super::encode::compress_blocks;
use super::limits::{DecodeLimits, Meter};
use super::options::{CompressOptions, Progress, Summary};
use super::regions;
use super::rounds::worker_pool;
use crate::container::raw::{self, Codec, MAX_HELD, RawReader, StreamedWriter, Totals};
use crate::container::{BlockStats, InputFormat};
use crate::error::Error;
use crate::pgn;

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

/// [`super::compress`] choosing the form (see the [module](self)); `opts.raw_form` is set.
pub(crate) fn compress<R: BufRead, W: Write>(
    mut input: R,
    mut output: W,
    opts: &CompressOptions,
    progress: Progress<'_>,
) -> Result<Summary, Error> {
    let mut head = Vec::new();
    (&mut input).take(MAX_HELD as u64 + 1).read_to_end(&mut head)?;
    let format = opts.format.unwrap_or_else(|| pgn::detect(&head[..head.len().min(DETECT_SAMPLE)]));
    if head.len() <= MAX_HELD {
        let (mut bytes, mut summary) = held(&head, format, opts, progress)?;
        let regions = regions::split(&head);
        if regions.len() > 1 {
            // Each region a member of its own, when that is smaller than the best single form.
            let mut parts = Vec::new();
            let mut total: Option<Summary> = None;
            for (_, start, range) in regions {
                let format = region_format(format, start, &head[range.clone()], opts);
                let (part, s) = held(&head[range], format, opts, &|_| {})?;
                parts.extend_from_slice(&part);
                add(&mut total, &s);
            }
            if parts.len() < bytes.len() {
                (bytes, summary) = (parts, total.expect("regions"));
            }
        }
        output.write_all(&bytes)?;
        output.flush()?;
        return Ok(summary);
    }
    let mut splitter = regions::Splitter::new((&head[..]).chain(input));
    let mut total: Option<Summary> = None;
    while let Some((_, start)) = splitter.next_region()? {
        let done = total.as_ref().map_or(0, |t| t.text_bytes);
        let progress = |n| progress(done + n);
        let s = if start == regions::Start::Tags && opts.format.is_none() {
            let mut first = Vec::new();
            (&mut splitter.region()).take(DETECT_SAMPLE as u64).read_to_end(&mut first)?;
            let format = region_format(format, start, &first, opts);
            compress_part((&first[..]).chain(splitter.region()), &mut output, format, opts, &progress)?
        } else {
            compress_part(splitter.region(), &mut output, format, opts, &progress)?
        };
        add(&mut total, &s);
    }
    Ok(total.expect("a long input has a region"))
}

/// The format of a region that starts with `head`: the input's `format`, but for a region
/// of PGN after movetext ([`regions::Start::Tags`]), whose format is detected from its start
/// unless the caller named one.
fn region_format(format: InputFormat, start: regions::Start, head: &[u8], opts: &CompressOptions) -> InputFormat {
    match (start, opts.format) {
        (regions::Start::Tags, None) => pgn::detect(&head[..head.len().min(DETECT_SAMPLE)]),
        _ => format,
    }
}

/// Adds the summary `s` of one more member to `total`.
fn add(total: &mut Option<Summary>, s: &Summary) {
    match total {
        Some(t) => t.add_member(s),
        None => *total = Some(*s),
    }
}

/// The archive of `text` (at most [`MAX_HELD`] bytes) as one member: the smaller of its
/// block container and, when they run, the raw codecs (see the [module](self)).
fn held(text: &[u8], format: InputFormat, opts: &CompressOptions, progress: Progress<'_>) -> Result<(Vec<u8>, Summary), Error> {
    let container_opts = CompressOptions { format: Some(format), raw_form: false, ..*opts };
    let mut container = Vec::new();
    let summary = compress_blocks(text, &mut container, &container_opts, progress)?;
    Ok(match smallest_raw(text, format, container.len(), opts)? {
        Some(raw) => {
            let summary = raw_summary(Totals::of(text), raw.len() as u64);
            (raw, summary)
        }
        None => (container, summary),
    })
}

/// Writes all of `input` as one member: held ([`held`]) if it has at most [`MAX_HELD`]
/// bytes, else as a container or a streamed raw archive as its first [`PROBE`] bytes say.
fn compress_part<R: BufRead, W: Write>(
    mut input: R,
    mut output: W,
    format: InputFormat,
    opts: &CompressOptions,
    progress: Progress<'_>,
) -> Result<Summary, Error> {
    let mut head = Vec::new();
    (&mut input).take(MAX_HELD as u64 + 1).read_to_end(&mut head)?;
    if head.len() <= MAX_HELD {
        let (bytes, summary) = held(&head, format, opts, progress)?;
        output.write_all(&bytes)?;
        output.flush()?;
        return Ok(summary);
    }
    let container_opts = CompressOptions { format: Some(format), raw_form: false, ..*opts };
    let probe_len = head[..PROBE].iter().rposition(|&b| b == b'\n').map_or(PROBE, |i| i + 1);
    let mut probe = Vec::new();
    let found = compress_blocks(&head[..probe_len], &mut probe, &container_opts, &|_| {})?;
    let input = (&head[..]).chain(input);
    if found.stats.games > 0 && probe.len() as f64 <= GATE * raw::estimate_len(&head[..probe_len]) as f64 {
        return compress_blocks(input, output, &container_opts, progress);
    }
    if opts.verify {
        let mut checked = CheckedOutput::new(output);
        let summary = stream(input, &mut checked, format, progress)?;
        checked.finish()?;
        return Ok(summary);
    }
    stream(input, output, format, progress)
}

/// Writes all of `input` to `output` as one streamed raw archive.
fn stream<R: BufRead, W: Write>(mut input: R, output: W, format: InputFormat, progress: Progress<'_>) -> Result<Summary, Error> {
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

/// Chunks of archive queued for the checking thread of [`CheckedOutput`] (each at most the
/// streamed writer's buffer, 128 KiB).
const QUEUED_CHUNKS: usize = 16;

/// An output that also decodes what is written to it, in a thread of its own, with the reader
/// that `expand` uses ([`RawReader`]): the streamed raw form's round trip before success. The
/// reader checks the text's length, line count and CRC-32 against the trailer, which the
/// writer computed from the input, so a stream that decodes to anything but the input fails
/// (but for a CRC-32 collision). Memory: zstd's decoder window (128 MiB at most) and the
/// queue.
struct CheckedOutput<W: Write> {
    out: W,
    queue: Option<std::sync::mpsc::SyncSender<Vec<u8>>>,
    check: Option<std::thread::JoinHandle<Result<(), Error>>>,
}

impl<W: Write> CheckedOutput<W> {
    fn new(out: W) -> Self {
        let (queue, chunks) = std::sync::mpsc::sync_channel::<Vec<u8>>(QUEUED_CHUNKS);
        let check = std::thread::spawn(move || {
            let mut reader = RawReader::new(std::io::BufReader::new(ChunkReader { chunks, chunk: Vec::new(), at: 0 }))?;
            reader.copy_to(&mut std::io::sink())?;
            Ok(())
        });
        CheckedOutput { out, queue: Some(queue), check: Some(check) }
    }

    /// Ends the check: [`Error::SelfCheck`] if the archive written did not decode.
    fn finish(mut self) -> Result<(), Error> {
        self.queue = None;
        self.join()
    }

    fn join(&mut self) -> Result<(), Error> {
        let check = self.check.take().expect("joined once");
        match check.join() {
            Ok(Ok(())) => Ok(()),
            Ok(Err(e)) => Err(Error::SelfCheck(format!("the streamed raw archive does not decode: {e}"))),
            Err(_) => Err(Error::SelfCheck("the streamed raw archive's check stopped".into())),
        }
    }
}

impl<W: Write> Write for CheckedOutput<W> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        let n = self.out.write(buf)?;
        let sent = self.queue.as_ref().is_some_and(|q| q.send(buf[..n].to_vec()).is_ok());
        if !sent {
            // The checking thread stopped early: the archive so far does not decode.
            self.queue = None;
            let e = self.join().err().unwrap_or_else(|| Error::SelfCheck("the streamed raw archive's check ended early".into()));
            return Err(std::io::Error::other(e));
        }
        Ok(n)
    }

    fn flush(&mut self) -> std::io::Result<()> {
        self.out.flush()
    }
}

/// The bytes sent to a channel, as a reader (end of input once the sender is dropped).
struct ChunkReader {
    chunks: std::sync::mpsc::Receiver<Vec<u8>>,
    chunk: Vec<u8>,
    at: usize,
}

impl Read for ChunkReader {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        while self.at == self.chunk.len() {
            match self.chunks.recv() {
                Ok(chunk) => (self.chunk, self.at) = (chunk, 0),
                Err(_) => return Ok(0),
            }
        }
        let n = buf.len().min(self.chunk.len() - self.at);
        buf[..n].copy_from_slice(&self.chunk[self.at..self.at + n]);
        self.at += n;
        Ok(n)
    }
}

/// The smallest held raw archive of `text` if the raw codecs run (see the [module](self)) and
/// it is smaller than the container's `container_len` bytes; with `opts.verify`, the smallest
/// of those that decode to `text` (the container, checked block by block, is the fallback).
fn smallest_raw(text: &[u8], format: InputFormat, container_len: usize, opts: &CompressOptions) -> Result<Option<Vec<u8>>, Error> {
    if text.len() > ALWAYS_TRY && container_len as f64 <= GATE * raw::estimate_len(text) as f64 {
        return Ok(None);
    }
    let pool = worker_pool(opts.threads)?;
    let (zstd, lzma) =
        pool.install(|| rayon::join(|| raw::encode_held(text, format, Codec::Zstd), || raw::encode_held(text, format, Codec::Lzma2)));
    let stored = raw::encode_held(text, format, Codec::Stored);
    let mut candidates: Vec<Vec<u8>> = [stored, zstd, lzma].into_iter().filter(|a| a.len() < container_len).collect();
    candidates.sort_by_key(Vec::len);
    Ok(candidates.into_iter().find(|a| !opts.verify || decodes_to(a, text)))
}

/// Whether the held raw archive `archive` decodes, through the reader that `expand` uses, to
/// exactly `text`.
fn decodes_to(archive: &[u8], text: &[u8]) -> bool {
    let mut back = Vec::with_capacity(text.len());
    RawReader::new(archive).and_then(|mut r| r.copy_to(&mut back)).is_ok() && back == text
}

/// The summary of a raw archive of `archive_bytes` bytes holding text of totals `t`: no
/// blocks, every line raw.
fn raw_summary(t: Totals, archive_bytes: u64) -> Summary {
    Summary {
        text_bytes: t.text_len,
        archive_bytes,
        blocks: 0,
        stats: BlockStats { lines: t.lines, raw_lines: t.lines, ..BlockStats::default() },
    }
}

/// [`super::expand`] of a raw archive.
///
/// The decoder's window (the held text's length, or 128 MiB streamed) is checked against
/// [`DecodeLimits::memlimit`] and the recorded length against [`DecodeLimits::max_output`]
/// before decoding; a streamed archive, whose length is recorded at its end, is stopped as
/// soon as its text passes [`DecodeLimits::max_output`].
pub(crate) fn expand<R: BufRead, W: Write>(input: R, output: W, limits: &DecodeLimits, progress: Progress<'_>) -> Result<Summary, Error> {
    expand_raw(RawReader::new(input)?, output, &mut Meter::new(*limits), progress)
}

/// [`expand`] of a raw archive that may be followed by another member, read by `reader`
/// ([`RawReader::member`]), whose input is left right after it. `meter` holds what the members
/// before it expanded to.
pub(crate) fn expand_member<R: BufRead, W: Write>(
    reader: RawReader<R>,
    output: W,
    meter: &mut Meter,
    progress: Progress<'_>,
) -> Result<Summary, Error> {
    expand_raw(reader, output, meter, progress)
}

fn expand_raw<R: BufRead, W: Write>(
    mut reader: RawReader<R>,
    mut output: W,
    meter: &mut Meter,
    progress: Progress<'_>,
) -> Result<Summary, Error> {
    let held = reader.header().held.map(|t| t.text_len);
    meter.check_raw(raw::decoder_window(reader.header()), held)?;
    let mut buf = vec![0u8; 1 << 16];
    loop {
        let n = reader.read(&mut buf)?;
        if n == 0 {
            break;
        }
        meter.check_raw(0, Some(reader.text_bytes()))?;
        output.write_all(&buf[..n])?;
        progress(reader.text_bytes());
    }
    meter.add_raw(reader.text_bytes());
    output.flush()?;
    Ok(raw_summary(reader.totals(), reader.archive_bytes()))
}
