//! The whole pipeline: split input into blocks, code blocks in parallel (rayon), write or read
//! the container. This is the library API the command line calls.

use std::io::{BufRead, Read, Write};

use crate::container::format::index_len;
use crate::container::members;
use crate::container::raw;
use crate::container::{BlockHeader, Footer, InputFormat, Reader};
use crate::error::Error;
use crate::model::transformer::{TRANSFORMER_LEVEL, Weights};

mod block;
pub mod dups;
mod encode;
pub mod form;
pub mod limits;
mod options;
pub mod regions;
mod rounds;
mod salvage;
mod stream_salvage;

pub use block::model_for;
use encode::compress_blocks;
pub use limits::DecodeLimits;
use limits::Meter;
pub use options::{
    CompressOptions, DEFAULT_BLOCK_LINES, ExpandOptions, Progress, STRONG_BLOCK_LEVEL, STRONG_BLOCK_LINES, Summary, default_block_lines,
};
pub use rounds::{MAX_THREADS, ROUND_TEXT_BYTES};
use rounds::{Round, Rounds};
pub(crate) use rounds::{round_len_within, worker_pool};
pub use salvage::{DamagedBlock, Salvage, expand_salvage};
pub use stream_salvage::{STREAM_SALVAGE_HOLD, expand_salvage_stream};

/// Compresses `input` to `output` as an archive; `progress` gets the input bytes coded so far
/// (called as each block is finished, possibly from a worker thread).
/// The archive is a block container, or the whole-input raw form when `opts.raw_form` allows
/// it and it is smaller (see [`form`]).
///
/// # Round trip before success
/// With `opts.verify` (the default), nothing is written that was not checked by its reader:
/// each block is decoded in the worker that coded it and compared with its text; a block that
/// differs is coded again with every line stored raw
/// ([`BlockFormat::encode_stored`](crate::format::BlockFormat::encode_stored)), checked the
/// same way. A held raw form is decoded and compared before it is chosen; a streamed one
/// is decoded as it is written, its length, line count and CRC-32 compared with the input's at
/// the end. Should a check still fail, [`Error::SelfCheck`] is returned (for a streamed
/// archive, after its bytes were written: the caller must not keep them).
///
/// ```
/// use chesszip::{CompressOptions, ExpandOptions, Level, compress, expand};
///
/// let pgn = b"[Event \"?\"]\n\n1. e4 e5 2. Nf3 { a comment } Nc6 1-0\n";
/// // The block container: by default a text this small takes the raw form, which counts no plies.
/// let opts = CompressOptions { level: Level::MIN, raw_form: false, ..CompressOptions::default() };
/// let mut archive = Vec::new();
/// let summary = compress(&pgn[..], &mut archive, &opts, &|_| {})?;
/// assert_eq!((summary.text_bytes, summary.stats.plies), (pgn.len() as u64, 4));
/// let mut back = Vec::new();
/// expand(&archive[..], &mut back, &ExpandOptions::default(), &|_| {})?;
/// assert_eq!(back, pgn);
/// // The default: the smaller form, here the raw one.
/// let mut small = Vec::new();
/// compress(&pgn[..], &mut small, &CompressOptions::default(), &|_| {})?;
/// assert!(small.len() < archive.len());
/// let mut back = Vec::new();
/// expand(&small[..], &mut back, &ExpandOptions::default(), &|_| {})?;
/// assert_eq!(back, pgn);
/// # Ok::<(), chesszip::Error>(())
/// ```
///
/// # Errors
/// [`Error::Io`] from reading or writing; [`Error::SelfCheck`] should the check above fail
/// (a bug, never the input's fault). Every input is accepted.
///
/// # Panics
/// If `opts.block_bytes` is 0.
pub fn compress<R: BufRead, W: Write>(input: R, output: W, opts: &CompressOptions, progress: Progress<'_>) -> Result<Summary, Error> {
    assert!(opts.block_bytes > 0, "blocks need at least one byte");
    let mut opts = CompressOptions { block_lines: opts.block_lines_or_default(), ..*opts };
    if opts.level.get() == TRANSFORMER_LEVEL {
        opts.weights = Some(Weights::for_compress(opts.weights)?);
    }
    let opts = &opts;
    if opts.raw_form {
        return form::compress(input, output, opts, progress);
    }
    compress_blocks(input, output, opts, progress)
}

/// Expands an archive from `input` to `output`. An archive of several members (archives
/// concatenated, [`crate::container::members`]) expands to their texts one after the other;
/// zero bytes after the last member are padding (a tape or disk block), read and ignored as
/// `gzip -d` ignores them; other data after a member that starts no archive is an error.
///
/// # Errors
/// [`Error::Corrupt`] naming the block (and the member, after the first) for damaged input,
/// [`Error::Unsupported`] for archives of another version or model, [`Error::Io`] from
/// reading or writing. Blocks before the damage may already have been written to `output`.
pub fn expand<R: Read, W: Write>(input: R, output: W, opts: &ExpandOptions, progress: Progress<'_>) -> Result<Summary, Error> {
    expand_members(input, output, opts, progress, |_, _| Ok(()))
}

/// [`expand`], calling `start_member` with the output and the format of each member (movetext
/// or PGN: the members of a concatenation may differ) before any of that member's text is
/// written, so that a writer that reads the text (a conversion) can read each member in its
/// own format.
///
/// # Errors
/// As [`expand`], and those of `start_member`.
pub fn expand_members<R: Read, W: Write>(
    input: R,
    mut output: W,
    opts: &ExpandOptions,
    progress: Progress<'_>,
    mut start_member: impl FnMut(&mut W, InputFormat) -> Result<(), Error>,
) -> Result<Summary, Error> {
    let mut input = std::io::BufReader::with_capacity(1 << 16, input);
    let mut total = Summary::default();
    // One meter for all members: the limits hold for the whole file.
    let mut meter = Meter::new(opts.limits);
    for m in 0.. {
        let mut magic = [0u8; 4];
        let got = raw::read_up_to(&mut input, &mut magic)?;
        if m > 0 {
            if got == 0 {
                break;
            }
            if magic[..got].iter().all(|&b| b == 0) && members::rest_is_zeros(&mut input)? {
                break; // zero padding after the last member (a tape or disk block)
            }
            if !members::starts_member(&magic[..got]) {
                return Err(members::trailing_garbage());
            }
        }
        let chained = (&magic[..got]).chain(&mut input);
        let base = total.text_bytes;
        let at = |n: u64| progress(base + n);
        let summary = if raw::is_raw(&magic[..got]) {
            raw::RawReader::member(chained).and_then(|reader| {
                start_member(&mut output, reader.header().format)?;
                form::expand_member(reader, &mut output, &mut meter, &at)
            })
        } else {
            Reader::member(chained).and_then(|reader| {
                start_member(&mut output, reader.header().format)?;
                expand_container(reader, &mut output, opts, &mut meter, &at)
            })
        }
        .map_err(|e| members::in_member(m, e))?;
        meter.next_member(summary.archive_bytes);
        total.add_member(&summary);
    }
    output.flush()?;
    Ok(total)
}

/// [`expand`] of one block container, read by `reader`.
fn expand_container<R: Read, W: Write>(
    mut reader: Reader<R>,
    mut output: W,
    opts: &ExpandOptions,
    meter: &mut Meter,
    progress: Progress<'_>,
) -> Result<Summary, Error> {
    let header = *reader.header();
    let mut rounds = Rounds::new(header, opts)?;
    let mut summary = Summary { archive_bytes: header.encoded_len() as u64, ..Summary::default() };
    loop {
        let first = reader.blocks_read();
        let Round { blocks, failed } = rounds.read_round(&mut reader, meter)?;
        if let Some(e) = failed {
            return Err(e);
        }
        if blocks.is_empty() {
            break;
        }
        let texts = rounds.decode_round(first, &blocks, |b| Ok(b));
        for ((h, b), text) in blocks.iter().zip(texts) {
            let text = rounds.resolve(text)?;
            output.write_all(&text)?;
            summary.add_block(h, text.len());
            summary.archive_bytes += (BlockHeader::LEN + b.range.len() + b.raw.len()) as u64;
        }
        progress(summary.text_bytes);
    }
    summary.archive_bytes += (index_len(summary.blocks as u32) + Footer::LEN) as u64;
    output.flush()?;
    Ok(summary)
}

/// Compresses a byte slice in memory.
///
/// # Panics
/// As [`compress`], and on [`Error::SelfCheck`] (a bug of chesszip: the archive failed its
/// own check); [`compress`] returns that error instead.
pub fn compress_bytes(input: &[u8], opts: &CompressOptions) -> Vec<u8> {
    let mut out = Vec::new();
    compress(input, &mut out, opts, &|_| {}).unwrap_or_else(|e| panic!("{e}"));
    out
}

/// Expands an archive held in memory.
///
/// # Errors
/// As [`expand`].
pub fn expand_bytes(archive: &[u8], opts: &ExpandOptions) -> Result<Vec<u8>, Error> {
    let mut out = Vec::new();
    expand(archive, &mut out, opts, &|_| {})?;
    Ok(out)
}
