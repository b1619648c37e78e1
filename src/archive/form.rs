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
//! A longer input is probed: its first [`PROBE`] bytes (cut at a line end) are compressed as
//! a container. If they hold no game, or their container is larger than [`GATE`] times their
//! estimate, the whole input is written as one streamed raw archive (`zstd -19 --long`);
//! otherwise as a container. Nothing is guaranteed for a long input whose start differs from
//! the rest (chess first and other text after, or the reverse).
//!
//! Memory at compression, beyond the container's: the held input (up to 16 MiB) and, while
//! the raw codecs run, LZMA2's tables (about 11 times the input rounded up to a power of two)
//! and zstd's; a streamed archive takes zstd's level-19 tables for a 128 MiB window.

use std::io::{BufRead, Read, Write};

use super::{CompressOptions, Progress, Summary, compress_blocks};
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
    let container_opts = CompressOptions { format: Some(format), raw_form: false, ..*opts };
    if head.len() <= MAX_HELD {
        let mut container = Vec::new();
        let summary = compress_blocks(&head[..], &mut container, &container_opts, progress)?;
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
    let found = compress_blocks(&head[..probe_len], &mut probe, &container_opts, &|_| {})?;
    let mut input = (&head[..]).chain(input);
    if found.stats.games > 0 && probe.len() as f64 <= GATE * raw::estimate_len(&head[..probe_len]) as f64 {
        return compress_blocks(input, output, &container_opts, progress);
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
    let pool = super::worker_pool(threads)?;
    let (zstd, lzma) =
        pool.install(|| rayon::join(|| raw::encode_held(text, format, Codec::Zstd), || raw::encode_held(text, format, Codec::Lzma2)));
    let stored = raw::encode_held(text, format, Codec::Stored);
    Ok([stored, zstd, lzma].into_iter().min_by_key(Vec::len).filter(|a| a.len() < container_len))
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
