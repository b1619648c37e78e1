//! The whole pipeline: split input into blocks, code blocks in parallel (rayon), write or read
//! the container. This is the library API the command line calls.

use std::io::{BufRead, Read, Write};

use rayon::prelude::*;

use crate::codec::block::{BlockStats, EncodedBlock, decode_block, encode_block};
use crate::container::format::index_len;
use crate::container::{BlockHeader, FileHeader, Footer, InputFormat, MAX_BLOCK_TEXT, Reader, Writer};
use crate::model::{DEFAULT_LEVEL, MAX_LEVEL, MIN_LEVEL, Model};
use crate::{Error, pgn};

/// Default number of lines (games) per block: large enough for the online book to learn,
/// small enough for parallelism and random access.
pub const DEFAULT_BLOCK_LINES: u32 = 1000;

/// Blocks read (or decoded) per round, per worker thread: each round ends at a barrier, where a
/// worker that finished its share waits for the others, so fewer, larger rounds keep the
/// threads busier (the benchmark's 10 blocks fit in one round with two threads). Memory:
/// `threads * BLOCKS_PER_THREAD` blocks of text at a time.
const BLOCKS_PER_THREAD: usize = 8;

/// Settings of [`compress`].
#[derive(Clone, Copy, Debug)]
pub struct CompressOptions {
    /// Compression level, [`MIN_LEVEL`]..=[`MAX_LEVEL`].
    pub level: u8,
    /// Lines per block (at least 1); for PGN, games per block.
    pub block_lines: u32,
    /// Worker threads; 0 means one per core.
    pub threads: usize,
    /// Input format; `None` detects it from the first bytes ([`pgn::detect`]).
    pub format: Option<InputFormat>,
    /// Most bytes of text per block, 1..=[`MAX_BLOCK_TEXT`] (larger values are clamped). A
    /// line longer than this is cut across blocks; the cut is invisible after expansion.
    pub block_bytes: usize,
    /// Whether the archive may take the whole-input raw form when that is smaller (see
    /// [`crate::form`]); `false` always writes the block container.
    pub raw_form: bool,
}

impl Default for CompressOptions {
    fn default() -> Self {
        CompressOptions {
            level: DEFAULT_LEVEL,
            block_lines: DEFAULT_BLOCK_LINES,
            threads: 0,
            format: None,
            block_bytes: MAX_BLOCK_TEXT,
            raw_form: true,
        }
    }
}

// --- Format dispatch (PGN: src/pgn) ---

/// Reads blocks of input in the way of its format.
enum BlockSource {
    Movetext,
    Pgn(pgn::BlockReader),
}

impl BlockSource {
    fn new(format: InputFormat) -> Self {
        match format {
            InputFormat::Movetext => BlockSource::Movetext,
            InputFormat::Pgn => BlockSource::Pgn(pgn::BlockReader::new()),
        }
    }

    fn read<R: BufRead>(&mut self, input: &mut R, units: u32, max_bytes: usize, out: &mut Vec<u8>) -> Result<(), Error> {
        match self {
            BlockSource::Movetext => read_block(input, units, max_bytes, out),
            BlockSource::Pgn(reader) => reader.read_block(input, units, max_bytes, out),
        }
    }
}

/// Compresses one block of `format`.
fn encode_any(format: InputFormat, model: &Model, text: &[u8]) -> (EncodedBlock, BlockStats) {
    match format {
        InputFormat::Movetext => encode_block(model, text),
        InputFormat::Pgn => pgn::encode_block(model, text),
    }
}

/// Expands one block of `format`; returns the counts of what it decoded.
fn decode_any(
    format: InputFormat,
    model: &Model,
    block: &EncodedBlock,
    lines: u64,
    max_len: usize,
    out: &mut Vec<u8>,
) -> Result<BlockStats, Error> {
    match format {
        InputFormat::Movetext => decode_block(model, block, lines, max_len, out),
        InputFormat::Pgn => pgn::decode_block(model, block, max_len, out),
    }
}

// --- End of format dispatch ---

/// Settings of [`expand`].
#[derive(Clone, Copy, Debug, Default)]
pub struct ExpandOptions {
    /// Worker threads; 0 means one per core.
    pub threads: usize,
}

/// What a run did.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Summary {
    /// Bytes of text (compress input, expand output).
    pub text_bytes: u64,
    /// Bytes of archive (compress output, expand input).
    pub archive_bytes: u64,
    /// Blocks in the archive.
    pub blocks: u64,
    /// Lines, games, plies, raw lines and model costs.
    pub stats: BlockStats,
}

impl Summary {
    /// Archive bits per ply, all overhead included.
    pub fn bits_per_ply(&self) -> f64 {
        8.0 * self.archive_bytes as f64 / self.stats.plies.max(1) as f64
    }
}

/// Progress callback: total text bytes processed so far.
pub type Progress<'a> = &'a (dyn Fn(u64) + Sync);

fn pool(threads: usize) -> Result<rayon::ThreadPool, Error> {
    rayon::ThreadPoolBuilder::new().num_threads(threads).build().map_err(|e| Error::Io(std::io::Error::other(e)))
}

/// Reads the next block of input: up to `lines` whole lines and at most `max_bytes` bytes (a
/// longer line is cut; the cut is invisible after expansion). Empty at end of input.
fn read_block<R: BufRead>(input: &mut R, lines: u32, max_bytes: usize, out: &mut Vec<u8>) -> Result<(), Error> {
    out.clear();
    let mut count = 0;
    while count < lines && out.len() < max_bytes {
        let buf = match input.fill_buf() {
            Ok(buf) => buf,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e.into()),
        };
        if buf.is_empty() {
            break;
        }
        let room = max_bytes - out.len();
        let window = &buf[..buf.len().min(room)];
        let mut used = 0;
        for i in memchr::memchr_iter(b'\n', window) {
            used = i + 1;
            count += 1;
            if count == lines {
                break;
            }
        }
        if count < lines {
            used = window.len();
        }
        out.extend_from_slice(&window[..used]);
        input.consume(used);
    }
    Ok(())
}

/// Compresses `input` to `output` as an archive: a block container, or the whole-input raw
/// form when `opts.raw_form` allows it and it is smaller (see [`crate::form`]).
///
/// # Errors
/// [`Error::Io`] from reading or writing. Every input is accepted.
///
/// # Panics
/// If `opts.level` is outside `MIN_LEVEL..=MAX_LEVEL`, or `opts.block_lines` or
/// `opts.block_bytes` is 0.
pub fn compress<R: BufRead, W: Write>(input: R, output: W, opts: &CompressOptions, progress: Progress<'_>) -> Result<Summary, Error> {
    assert!((MIN_LEVEL..=MAX_LEVEL).contains(&opts.level), "level {} out of range", opts.level);
    assert!(opts.block_lines > 0, "blocks need at least one line");
    assert!(opts.block_bytes > 0, "blocks need at least one byte");
    if opts.raw_form {
        return crate::form::compress(input, output, opts, progress);
    }
    compress_blocks(input, output, opts, progress)
}

/// [`compress`] to a block container, whatever `opts.raw_form` says.
pub(crate) fn compress_blocks<R: BufRead, W: Write>(
    mut input: R,
    output: W,
    opts: &CompressOptions,
    progress: Progress<'_>,
) -> Result<Summary, Error> {
    let block_bytes = opts.block_bytes.min(MAX_BLOCK_TEXT);
    let model = Model::builtin(opts.level);
    let format = match opts.format {
        Some(f) => f,
        None => pgn::detect(input.fill_buf()?),
    };
    let mut source = BlockSource::new(format);
    let header = FileHeader { format, level: opts.level, model_id: Model::builtin_id(opts.level) };
    let mut writer = Writer::new(output, &header)?;
    let pool = pool(opts.threads)?;
    let batch = pool.current_num_threads() * BLOCKS_PER_THREAD;
    let mut summary = Summary::default();
    loop {
        let mut texts = Vec::with_capacity(batch);
        for _ in 0..batch {
            let mut text = Vec::new();
            source.read(&mut input, opts.block_lines, block_bytes, &mut text)?;
            if text.is_empty() {
                break;
            }
            texts.push(text);
        }
        if texts.is_empty() {
            break;
        }
        // One task per block (`with_max_len(1)`): rayon would otherwise hand a thread runs of
        // two or three blocks, and a thread that finishes early could only wait for them.
        let coded: Vec<(EncodedBlock, BlockStats)> =
            pool.install(|| texts.par_iter().with_max_len(1).map(|t| encode_any(format, model, t)).collect());
        for (text, (block, stats)) in texts.iter().zip(coded) {
            let header = BlockHeader {
                lines: stats.lines as u32,
                text_len: text.len() as u32,
                text_crc: crc32fast::hash(text),
                plies: stats.plies as u32,
                raw_lines: stats.raw_lines as u32,
                games: stats.games as u32,
                partial_line: text.last() != Some(&b'\n'),
                ..BlockHeader::default()
            };
            writer.write_block(&header, &block)?;
            summary.text_bytes += text.len() as u64;
            summary.blocks += 1;
            summary.stats += stats;
        }
        progress(summary.text_bytes);
    }
    let (_, size) = writer.finish()?;
    summary.archive_bytes = size;
    Ok(summary)
}

/// The model an archive was made with: the embedded release of its level with its id.
///
/// # Errors
/// [`Error::Unsupported`] if this build does not embed that model.
pub fn model_for(header: &FileHeader) -> Result<&'static Model, Error> {
    let level = header.level;
    if let Some(model) = Model::released(level, header.model_id) {
        return Ok(model);
    }
    Err(Error::Unsupported(format!(
        "archive was made with model {:016x} (level {level}), which this build of chesszip does not include",
        header.model_id
    )))
}

/// Decodes block number `n` (for messages) of a `format` archive and checks it against its
/// header: the text's length and checksum, and every count the header records (lines, whether
/// the last is partial, games, plies, raw lines) against what decoding found, so that a forged
/// count (re-signed header and index) cannot mislead the readers that trust the index.
///
/// # Errors
/// [`Error::Corrupt`] naming the block if it does not decode to the text its header describes;
/// [`Error::LimitExceeded`] naming the block if decoding would exceed its work budget.
pub(crate) fn expand_one(format: InputFormat, model: &Model, n: u64, h: &BlockHeader, block: &EncodedBlock) -> Result<Vec<u8>, Error> {
    let mut text = Vec::new();
    let found = decode_any(format, model, block, h.lines as u64, h.text_len as usize, &mut text).map_err(|e| match e {
        Error::Corrupt(m) => Error::Corrupt(format!("block {n}: {m}")),
        Error::LimitExceeded(m) => Error::LimitExceeded(format!("block {n}: {m}")),
        other => other,
    })?;
    if text.len() != h.text_len as usize || crc32fast::hash(&text) != h.text_crc {
        return Err(Error::Corrupt(format!("block {n}: checksum mismatch, the block is damaged")));
    }
    check_counts(n, h, &found, &text)?;
    Ok(text)
}

/// Checks the counts of block header `h` (block `n`) against its decoded `text` and the
/// counts its decoder `found` (whose line count is that of the text: the movetext decoder
/// decodes exactly the header's lines, the PGN decoder counts the text's).
///
/// # Errors
/// [`Error::Corrupt`] naming the block and the first count that differs.
fn check_counts(n: u64, h: &BlockHeader, found: &BlockStats, text: &[u8]) -> Result<(), Error> {
    let partial = text.last() != Some(&b'\n');
    let counts = [
        ("lines", h.lines as u64, pgn::codec::count_lines(text)),
        ("games", h.games as u64, found.games),
        ("plies", h.plies as u64, found.plies),
        ("raw lines", h.raw_lines as u64, found.raw_lines),
        ("last lines without line feed", h.partial_line as u64, partial as u64),
    ];
    for (what, recorded, decoded) in counts {
        if recorded != decoded {
            return Err(Error::Corrupt(format!("block {n}: header records {recorded} {what}, the block holds {decoded}")));
        }
    }
    Ok(())
}

/// Expands an archive from `input` to `output`.
///
/// # Errors
/// [`Error::Corrupt`] naming the block for damaged input, [`Error::Unsupported`] for archives
/// of another version or model, [`Error::Io`] from reading or writing. Blocks before the
/// damage may already have been written to `output`.
pub fn expand<R: Read, W: Write>(mut input: R, mut output: W, opts: &ExpandOptions, progress: Progress<'_>) -> Result<Summary, Error> {
    let mut magic = [0u8; 4];
    let got = crate::form::read_up_to(&mut input, &mut magic)?;
    let input = (&magic[..got]).chain(input);
    if crate::container::raw::is_raw(&magic[..got]) {
        return crate::form::expand(std::io::BufReader::new(input), output, progress);
    }
    let mut reader = Reader::new(input)?;
    let model = model_for(reader.header())?;
    let format = reader.header().format;
    let pool = pool(opts.threads)?;
    let batch = pool.current_num_threads() * BLOCKS_PER_THREAD;
    let mut summary = Summary { archive_bytes: FileHeader::LEN as u64, ..Summary::default() };
    loop {
        let first = reader.blocks_read();
        let mut blocks = Vec::with_capacity(batch);
        while blocks.len() < batch {
            match reader.next_block()? {
                Some(b) => blocks.push(b),
                None => break,
            }
        }
        if blocks.is_empty() {
            break;
        }
        let texts: Vec<Result<Vec<u8>, Error>> = pool.install(|| {
            blocks.par_iter().with_max_len(1).enumerate().map(|(i, (h, b))| expand_one(format, model, first + i as u64, h, b)).collect()
        });
        for ((h, b), text) in blocks.iter().zip(texts) {
            let text = text?;
            output.write_all(&text)?;
            summary.text_bytes += text.len() as u64;
            summary.archive_bytes += (BlockHeader::LEN + b.range.len() + b.raw.len()) as u64;
            summary.blocks += 1;
            summary.stats.lines += h.lines as u64;
            summary.stats.plies += h.plies as u64;
            summary.stats.raw_lines += h.raw_lines as u64;
            summary.stats.games += h.games as u64;
        }
        progress(summary.text_bytes);
    }
    summary.archive_bytes += (index_len(summary.blocks as u32) + Footer::LEN) as u64;
    output.flush()?;
    Ok(summary)
}

/// Compresses a byte slice in memory.
pub fn compress_bytes(input: &[u8], opts: &CompressOptions) -> Vec<u8> {
    let mut out = Vec::new();
    compress(input, &mut out, opts, &|_| {}).expect("in-memory compression cannot fail");
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
