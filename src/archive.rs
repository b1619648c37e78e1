//! The whole pipeline: split input into blocks, code blocks in parallel (rayon), write or read
//! the container. This is the library API the command line calls.

use std::io::{BufRead, Read, Seek, SeekFrom, Write};
use std::ops::Range;

use rayon::prelude::*;

use crate::container::format::index_len;
use crate::container::members;
use crate::container::raw;
use crate::container::{BlockHeader, Coding, FileHeader, Footer, InputFormat, MAX_BLOCK_TEXT, Reader, Writer};
use crate::container::{BlockStats, EncodedBlock, IndexedReader};
use crate::error::Error;
use crate::format::BlockFormat;
use crate::model::transformer::{TRANSFORMER_LEVEL, Weights};
use crate::model::{DEFAULT_LEVEL, Model};
use crate::movetext::Movetext;
use crate::pgn;
use crate::pgn::Pgn;

pub mod dups;
pub mod form;
pub mod limits;
pub mod regions;

pub use limits::DecodeLimits;
use limits::Meter;

/// Default number of lines (games) per block at levels 1-3: large enough for the online book
/// to learn, small enough for parallelism and random access.
pub const DEFAULT_BLOCK_LINES: u32 = 1000;

/// Default number of lines (games) per block at levels 4-9, where compression comes before
/// speed: the online book learns from five times as many games. Chosen on the 2016 training
/// games and the heldout games (6,673 games, level 5): 105,560 bytes in blocks of 1,000 lines,
/// 104,332 of 2,500, 103,564 of 5,000, 103,656 of 10,000 (one block).
pub const STRONG_BLOCK_LINES: u32 = 5000;

/// The first level that codes blocks of [`STRONG_BLOCK_LINES`] by default.
pub const STRONG_BLOCK_LEVEL: u8 = 4;

/// Lines (games) per block when [`CompressOptions::block_lines`] is 0: [`DEFAULT_BLOCK_LINES`]
/// below [`STRONG_BLOCK_LEVEL`], [`STRONG_BLOCK_LINES`] from it on.
pub fn default_block_lines(level: u8) -> u32 {
    if level >= STRONG_BLOCK_LEVEL { STRONG_BLOCK_LINES } else { DEFAULT_BLOCK_LINES }
}

/// Blocks read (or decoded) per round, per worker thread: each round ends at a barrier, where a
/// worker that finished its share waits for the others, so fewer, larger rounds keep the
/// threads busier (the benchmark's 10 blocks of 1,000 games fit in one round with two threads).
const BLOCKS_PER_THREAD: usize = 8;

/// Most bytes of text in flight per round, whatever the thread count: a round also ends once
/// its blocks hold this much text (it always takes at least one block). With the temporaries
/// of coding a block (about as large as its text), this sets the memory ceiling of [`compress`]
/// and [`expand`], independent of the number of threads (docs/robustness.md). Real games come
/// in blocks of a few hundred KB, so a round holds a hundred of them or more; only inputs of
/// very long lines (blocks near [`MAX_BLOCK_TEXT`]) are coded two blocks at a time.
pub const ROUND_TEXT_BYTES: usize = 2 * MAX_BLOCK_TEXT;

/// How many of the blocks whose text lengths `text_lens` lists make one round: at most
/// `max_blocks`, and no more once they hold [`ROUND_TEXT_BYTES`] of text; at least one (if
/// any).
#[cfg_attr(not(test), allow(dead_code))]
pub(crate) fn round_len(text_lens: impl IntoIterator<Item = u32>, max_blocks: usize) -> usize {
    round_len_within(text_lens, max_blocks, ROUND_TEXT_BYTES)
}

/// [`round_len`] with rounds of at most `max_bytes` of text instead of [`ROUND_TEXT_BYTES`]
/// (see [`DecodeLimits::memlimit`]).
pub(crate) fn round_len_within(text_lens: impl IntoIterator<Item = u32>, max_blocks: usize, max_bytes: usize) -> usize {
    let mut bytes = 0usize;
    let mut n = 0;
    for len in text_lens.into_iter().take(max_blocks.max(1)) {
        if n > 0 && bytes >= max_bytes {
            break;
        }
        bytes += len as usize;
        n += 1;
    }
    n
}

/// Settings of [`compress`].
#[derive(Clone, Copy, Debug)]
pub struct CompressOptions {
    /// Compression level, [`crate::model::MIN_LEVEL`]..=[`crate::model::MAX_LEVEL`].
    pub level: u8,
    /// Lines per block; for PGN, games per block; 0 (the default) means the level's default,
    /// [`default_block_lines`].
    pub block_lines: u32,
    /// Worker threads; 0 means one per core; at most [`MAX_THREADS`].
    pub threads: usize,
    /// Input format; `None` detects it from the first bytes ([`pgn::detect`]).
    pub format: Option<InputFormat>,
    /// Most bytes of text per block, 1..=[`MAX_BLOCK_TEXT`] (larger values are clamped). A
    /// line longer than this is cut across blocks; the cut is invisible after expansion.
    pub block_bytes: usize,
    /// Whether the archive may take the whole-input raw form when that is smaller (see
    /// [`form`]); `false` always writes the block container.
    pub raw_form: bool,
    /// Whether every block and raw form is decoded and compared with its input before it is
    /// written (see [`compress`]); `true` by default. Turning it off saves about the time of
    /// an `expand` and trusts the encoder.
    pub verify: bool,
    /// Level 10's transformer weights ([`Weights::load`]); `None` reads the file
    /// `CHESSZIP_WEIGHTS` names. Unused at levels 1-9.
    pub weights: Option<&'static Weights>,
}

impl CompressOptions {
    /// [`CompressOptions::block_lines`], or the level's default when it is 0.
    pub fn block_lines_or_default(&self) -> u32 {
        if self.block_lines == 0 { default_block_lines(self.level) } else { self.block_lines }
    }
}

impl Default for CompressOptions {
    fn default() -> Self {
        CompressOptions {
            level: DEFAULT_LEVEL,
            block_lines: 0,
            threads: 0,
            format: None,
            block_bytes: MAX_BLOCK_TEXT,
            raw_form: true,
            verify: true,
            weights: None,
        }
    }
}

/// The block format of `format`: picked once per archive.
pub fn block_format(format: InputFormat) -> &'static dyn BlockFormat {
    match format {
        InputFormat::Movetext => &Movetext,
        InputFormat::Pgn => &Pgn,
    }
}

/// Settings of [`expand`].
#[derive(Clone, Copy, Debug, Default)]
pub struct ExpandOptions {
    /// Worker threads; 0 means one per core; at most [`MAX_THREADS`].
    pub threads: usize,
    /// Ceilings for untrusted archives (the default refuses none chesszip writes).
    pub limits: DecodeLimits,
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
    /// Counts one expanded block of header `h` and `text_len` bytes of text.
    fn add_block(&mut self, h: &BlockHeader, text_len: usize) {
        self.text_bytes += text_len as u64;
        self.blocks += 1;
        self.stats.lines += h.lines as u64;
        self.stats.plies += h.plies as u64;
        self.stats.raw_lines += h.raw_lines as u64;
        self.stats.games += h.games as u64;
    }

    /// Adds the summary of another member of the same archive.
    pub(crate) fn add_member(&mut self, o: &Summary) {
        self.text_bytes += o.text_bytes;
        self.archive_bytes += o.archive_bytes;
        self.blocks += o.blocks;
        self.stats += o.stats;
    }

    /// Archive bits per ply, all overhead included.
    pub fn bits_per_ply(&self) -> f64 {
        8.0 * self.archive_bytes as f64 / self.stats.plies.max(1) as f64
    }
}

/// Progress callback: total text bytes processed so far.
pub type Progress<'a> = &'a (dyn Fn(u64) + Sync);

/// Most worker threads of any pool: a larger request is clamped to it (zstd clamps at 200 the
/// same way). Rounds bound the memory whatever the count ([`ROUND_TEXT_BYTES`]); this bounds
/// the threads themselves, each with its stack and model state.
pub const MAX_THREADS: usize = 256;

/// A pool of `threads` worker threads (0: one per core), at most [`MAX_THREADS`].
///
/// # Errors
/// [`Error::Io`] if the threads cannot be started.
pub(crate) fn worker_pool(threads: usize) -> Result<rayon::ThreadPool, Error> {
    rayon::ThreadPoolBuilder::new().num_threads(threads.min(MAX_THREADS)).build().map_err(|e| Error::Io(std::io::Error::other(e)))
}

/// Compresses `input` to `output` as an archive; `progress` gets the input bytes read so far.
/// The archive is a block container, or the whole-input raw form when `opts.raw_form` allows
/// it and it is smaller (see [`form`]).
///
/// # Round trip before success
/// With `opts.verify` (the default), nothing is written that was not checked by its reader:
/// each block is decoded in the worker that coded it and compared with its text; a block that
/// differs is coded again with every line stored raw ([`BlockFormat::encode_stored`]), checked
/// the same way. A held raw form is decoded and compared before it is chosen; a streamed one
/// is decoded as it is written, its length, line count and CRC-32 compared with the input's at
/// the end. Should a check still fail, [`Error::SelfCheck`] is returned (for a streamed
/// archive, after its bytes were written: the caller must not keep them).
///
/// ```
/// use chesszip::{CompressOptions, ExpandOptions, compress, expand};
///
/// let pgn = b"[Event \"?\"]\n\n1. e4 e5 2. Nf3 { a comment } Nc6 1-0\n";
/// // The block container: by default a text this small takes the raw form, which counts no plies.
/// let opts = CompressOptions { level: 1, raw_form: false, ..CompressOptions::default() };
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
/// If `opts.level` is outside `MIN_LEVEL..=MAX_LEVEL`, or `opts.block_bytes` is 0.
pub fn compress<R: BufRead, W: Write>(input: R, output: W, opts: &CompressOptions, progress: Progress<'_>) -> Result<Summary, Error> {
    assert!(opts.block_bytes > 0, "blocks need at least one byte");
    let mut opts = CompressOptions { block_lines: opts.block_lines_or_default(), ..*opts };
    if opts.level == TRANSFORMER_LEVEL {
        opts.weights = Some(Weights::for_compress(opts.weights)?);
    }
    let opts = &opts;
    if opts.raw_form {
        return form::compress(input, output, opts, progress);
    }
    compress_blocks(input, output, opts, progress)
}

/// [`compress`] to a block container, whatever `opts.raw_form` says.
fn compress_blocks<R: BufRead, W: Write>(
    mut input: R,
    output: W,
    opts: &CompressOptions,
    progress: Progress<'_>,
) -> Result<Summary, Error> {
    let block_bytes = opts.block_bytes.min(MAX_BLOCK_TEXT);
    let weights = opts.weights.filter(|_| opts.level == TRANSFORMER_LEVEL);
    let model = match weights {
        Some(w) => Model::with_weights(w),
        None => Model::builtin(opts.level),
    };
    let format = match opts.format {
        Some(f) => f,
        None => pgn::detect(input.fill_buf()?),
    };
    let coder = block_format(format);
    let mut splitter = coder.splitter();
    let header = FileHeader {
        format,
        level: opts.level,
        model_id: Model::builtin_id(opts.level),
        coding: Coding::newest_for(format),
        weights: weights.map(|w| w.sha256),
    };
    let mut writer = Writer::new(output, &header)?;
    let mut store = dups::has_refs(format, header.coding).then(dups::Store::compressor);
    let pool = worker_pool(opts.threads)?;
    let batch = pool.current_num_threads() * BLOCKS_PER_THREAD;
    let mut summary = Summary::default();
    loop {
        let mut texts = Vec::with_capacity(batch);
        let mut round_bytes = 0;
        while texts.len() < batch && round_bytes < ROUND_TEXT_BYTES {
            let mut text = Vec::new();
            splitter.read(&mut input, opts.block_lines, block_bytes, &mut text)?;
            if text.is_empty() {
                break;
            }
            round_bytes += text.len();
            texts.push(text);
        }
        if texts.is_empty() {
            break;
        }
        // One task per block (`with_max_len(1)`): rayon would otherwise hand a thread runs of
        // two or three blocks, and a thread that finishes early could only wait for them.
        let first = summary.blocks;
        // Duplicates are found in order, before the blocks are coded (dups.rs).
        let found: Vec<Option<(Vec<u8>, Vec<dups::Run>)>> = texts.iter().map(|t| store.as_mut().and_then(|s| s.dedup(t))).collect();
        let coded: Vec<Result<(BlockHeader, EncodedBlock, BlockStats), Error>> = pool.install(|| {
            texts
                .par_iter()
                .zip(&found)
                .with_max_len(1)
                .enumerate()
                .map(|(i, (t, d))| encode_checked(header, model, first + i as u64, t, d.as_ref(), opts.verify))
                .collect()
        });
        for (text, coded) in texts.iter().zip(coded) {
            let (header, block, stats) = coded?;
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

/// The block header of `text` coded with counts `stats`.
fn block_header(text: &[u8], stats: &BlockStats) -> BlockHeader {
    BlockHeader {
        lines: stats.lines as u32,
        text_len: text.len() as u32,
        text_crc: crc32fast::hash(text),
        plies: stats.plies as u32,
        raw_lines: stats.raw_lines as u32,
        games: stats.games as u32,
        partial_line: text.last() != Some(&b'\n'),
        ..BlockHeader::default()
    }
}

/// Codes `text` as block number `n` of an archive with header `file` and, if `verify`, decodes
/// it as [`expand`] would and compares; a block that does not give back its text is coded
/// again with every line stored ([`BlockFormat::encode_stored`]) and checked again. With
/// `dedup` (coding 2, [`dups`]), only its lines are coded and its references written in front
/// of the raw stream.
///
/// # Errors
/// [`Error::SelfCheck`] if the stored block does not decode to `text` either.
fn encode_checked(
    file: FileHeader,
    model: &Model,
    n: u64,
    text: &[u8],
    dedup: Option<&(Vec<u8>, Vec<dups::Run>)>,
    verify: bool,
) -> Result<(BlockHeader, EncodedBlock, BlockStats), Error> {
    let coder = block_format(file.format);
    let (inner, runs): (&[u8], &[dups::Run]) = match dedup {
        Some((inner, runs)) => (inner, runs),
        None => (text, &[]),
    };
    let code = |(mut block, mut stats): (EncodedBlock, BlockStats)| {
        if dups::has_refs(file.format, file.coding) && !(runs.is_empty() && block.raw.is_empty()) {
            let mut raw = Vec::new();
            dups::write_runs(runs, &mut raw);
            raw.extend_from_slice(&block.raw);
            block.raw = raw;
        }
        stats.lines += runs.iter().map(|r| r.len as u64).sum::<u64>();
        (block_header(text, &stats), block, stats)
    };
    let decodes = |header: &BlockHeader, block: &EncodedBlock| {
        dups::expand_block(file, model, n, header, block).and_then(|d| match d {
            dups::Decoded::Text(t) => Ok(t),
            dups::Decoded::Refs(p) => p.check_against(text),
        })
    };
    let (header, block, stats) = code(coder.encode(model, inner));
    if !verify || decodes(&header, &block).is_ok_and(|back| back == text) {
        return Ok((header, block, stats));
    }
    let (header, block, stats) = code(coder.encode_stored(model, inner));
    match decodes(&header, &block) {
        Ok(back) if back == text => Ok((header, block, stats)),
        Ok(_) => Err(Error::SelfCheck(format!("block {n} stored raw decodes to other text"))),
        Err(e) => Err(Error::SelfCheck(format!("block {n} stored raw does not decode: {e}"))),
    }
}

/// The model an archive was made with: the embedded release of its level with its id.
///
/// # Errors
/// [`Error::Unsupported`] if this build does not embed that model.
pub fn model_for(header: &FileHeader) -> Result<&'static Model, Error> {
    let level = header.level;
    if let Some(model) = Model::released(level, header.model_id) {
        if level == TRANSFORMER_LEVEL {
            return Ok(Model::with_weights(Weights::find(&header.weights.unwrap_or_default())?));
        }
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
pub(crate) fn expand_one(header: FileHeader, model: &Model, n: u64, h: &BlockHeader, block: &EncodedBlock) -> Result<Vec<u8>, Error> {
    let mut text = Vec::new();
    let found = block_format(header.format).decode(model, header.coding, block, h.lines as u64, h.text_len as usize, &mut text).map_err(
        |e| match e {
            Error::Corrupt(m) => Error::Corrupt(format!("block {n}: {m}")),
            Error::LimitExceeded(m) => Error::LimitExceeded(format!("block {n}: {m}")),
            other => other,
        },
    )?;
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

/// Expands an archive from `input` to `output`. An archive of several members (archives
/// concatenated, [`crate::container::members`]) expands to their texts one after the other;
/// data after a member that starts no archive is an error.
///
/// # Errors
/// [`Error::Corrupt`] naming the block (and the member, after the first) for damaged input,
/// [`Error::Unsupported`] for archives of another version or model, [`Error::Io`] from
/// reading or writing. Blocks before the damage may already have been written to `output`.
pub fn expand<R: Read, W: Write>(input: R, mut output: W, opts: &ExpandOptions, progress: Progress<'_>) -> Result<Summary, Error> {
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
            if !members::starts_member(&magic[..got]) {
                return Err(members::trailing_garbage());
            }
        }
        let chained = (&magic[..got]).chain(&mut input);
        let base = total.text_bytes;
        let at = |n: u64| progress(base + n);
        let summary = if raw::is_raw(&magic[..got]) {
            form::expand_member(chained, &mut output, &mut meter, &at)
        } else {
            Reader::member(chained).and_then(|reader| expand_container(reader, &mut output, opts, &mut meter, &at))
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
    let model = model_for(reader.header())?;
    let header = *reader.header();
    let pool = worker_pool(opts.threads)?;
    let batch = pool.current_num_threads() * BLOCKS_PER_THREAD;
    let mut summary = Summary { archive_bytes: header.encoded_len() as u64, ..Summary::default() };
    let round_max = opts.limits.round_bytes(ROUND_TEXT_BYTES);
    let mut read_bytes = header.encoded_len() as u64;
    // Coding 2: the lines later blocks may copy (dups.rs), at most `dups::WINDOW` bytes.
    let mut store = dups::has_refs(header.format, header.coding).then(dups::Store::expander);
    loop {
        let first = reader.blocks_read();
        let mut blocks = Vec::with_capacity(batch);
        let mut round_bytes = 0;
        while blocks.len() < batch && round_bytes < round_max {
            match reader.next_block()? {
                Some(b) => {
                    read_bytes += (BlockHeader::LEN + b.1.range.len() + b.1.raw.len()) as u64;
                    meter.admit(reader.blocks_read() - 1, &b.0, read_bytes)?;
                    round_bytes += b.0.text_len as usize;
                    blocks.push(b)
                }
                None => break,
            }
        }
        if blocks.is_empty() {
            break;
        }
        let texts: Vec<Result<dups::Decoded, Error>> = pool.install(|| {
            blocks
                .par_iter()
                .with_max_len(1)
                .enumerate()
                .map(|(i, (h, b))| dups::expand_block(header, model, first + i as u64, h, b))
                .collect()
        });
        for ((h, b), text) in blocks.iter().zip(texts) {
            let text = match &mut store {
                Some(store) => store.resolve(text?)?,
                None => text?.into_text()?,
            };
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

/// A part of an archive that [`expand_salvage`] could not expand, and left out of its output.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DamagedBlock {
    /// The member of a concatenated archive that holds the block, from 0
    /// ([`crate::container::members`]); 0 in an archive of one member.
    pub member: u64,
    /// The block's number in its member, from 0 as in every message of chesszip ("block 5" is the sixth);
    /// for the whole-input raw form, which has no blocks, 0.
    pub block: u64,
    /// Lines of text the block held per its index entry; `None` when not known (the index
    /// could not be read, or the raw form).
    pub lines: Option<u64>,
    /// Games the block held per its index entry; `None` when not known.
    pub games: Option<u64>,
    /// Lines of text before the block, in the whole archive (so its lines are numbered from `first_line + 1`, as
    /// `extract --line` numbers them); `None` when not known.
    pub first_line: Option<u64>,
    /// Where the damaged part lies in the archive, in bytes from its start.
    pub archive_range: Range<u64>,
    /// Whether the damaged part reaches the end of the archive (of its member, in a
    /// concatenated archive): without a usable index the
    /// blocks after a damaged one cannot be located, so all that follows it is left out too.
    pub to_end: bool,
    /// What is wrong, as the error of [`expand`] says it.
    pub error: String,
}

/// What [`expand_salvage`] did: the [`Summary`] of what it wrote, and what it left out.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Salvage {
    /// The blocks written (their text, lines, games and archive bytes).
    pub summary: Summary,
    /// The damaged parts left out, in archive order; empty if the whole archive expanded.
    pub damaged: Vec<DamagedBlock>,
}

impl Salvage {
    /// Whether nothing was left out.
    pub fn is_complete(&self) -> bool {
        self.damaged.is_empty()
    }
}

/// Expands what can be expanded of a damaged archive: every block that checks out (its
/// header, index entry, checksums and counts, as [`expand`] checks them) is written, in
/// order, and every damaged one is left out and listed in [`Salvage::damaged`]. An undamaged
/// archive gives what [`expand`] gives.
///
/// The blocks are found through the index, so damage to one block does not hide the next. If
/// the footer or index is damaged, the blocks are read in order from the start instead, up to
/// the first damaged one: what follows cannot be located, and is reported as one part
/// reaching the end ([`DamagedBlock::to_end`]). The whole-input raw form has no blocks: its
/// text up to the damage is written (it is checked only as a whole), and the archive is
/// reported as one damaged part. Blocks are decoded in parallel rounds, as by [`expand`].
///
/// ```
/// use chesszip::{CompressOptions, ExpandOptions, compress_bytes, expand_salvage};
///
/// let text = b"e4 e5 Nf3 1-0\nd4 d5 0-1\nc4 1/2-1/2\n";
/// let opts = CompressOptions { level: 1, block_lines: 1, raw_form: false, ..CompressOptions::default() };
/// let archive = compress_bytes(text, &opts);
/// let mut back = Vec::new();
/// let salvage = expand_salvage(std::io::Cursor::new(&archive), &mut back, &ExpandOptions::default(), &|_| {})?;
/// assert!(salvage.is_complete());
/// assert_eq!(back, text);
/// # Ok::<(), chesszip::Error>(())
/// ```
///
/// # Errors
/// [`Error::Io`] from reading or writing; [`Error::Corrupt`] or [`Error::Unsupported`] when
/// nothing can be expanded (the file header is damaged, or names a model this build lacks).
pub fn expand_salvage<R: Read + Seek, W: Write>(
    mut input: R,
    mut output: W,
    opts: &ExpandOptions,
    progress: Progress<'_>,
) -> Result<Salvage, Error> {
    let found = members::scan(&mut input)?;
    if found.len() == 1 {
        return salvage_member(input, output, opts, progress);
    }
    let mut salvage = Salvage::default();
    let mut lines_before = Some(0u64);
    for (m, (member, mut window)) in members::Window::members(input)?.into_iter().enumerate() {
        let start = member.range.start;
        if member.kind == members::MemberKind::Garbage {
            salvage.damaged.push(DamagedBlock {
                member: m as u64,
                block: 0,
                lines: None,
                games: None,
                first_line: lines_before,
                archive_range: member.range.clone(),
                to_end: false,
                error: members::trailing_garbage().to_string(),
            });
            lines_before = None;
            continue;
        }
        let base = salvage.summary.text_bytes;
        let part = match salvage_member(&mut window, &mut output, opts, &|n| progress(base + n)) {
            Ok(part) => part,
            Err(Error::Io(e)) => return Err(Error::Io(e)),
            Err(e) => Salvage {
                summary: Summary::default(),
                damaged: vec![DamagedBlock {
                    member: 0,
                    block: 0,
                    lines: None,
                    games: None,
                    first_line: Some(0),
                    archive_range: 0..member.range.end - start,
                    to_end: true,
                    error: inner_message(e),
                }],
            },
        };
        let lines = member_lines(&mut window, &part);
        for mut d in part.damaged {
            d.member = m as u64;
            d.archive_range = d.archive_range.start + start..d.archive_range.end + start;
            d.first_line = d.first_line.zip(lines_before).map(|(a, b)| a + b);
            salvage.damaged.push(d);
        }
        salvage.summary.add_member(&part.summary);
        lines_before = lines_before.zip(lines).map(|(a, b)| a + b);
    }
    salvage.summary.archive_bytes = found.last().map_or(0, |m| m.range.end);
    output.flush()?;
    Ok(salvage)
}

/// Lines of text in the member read by `window`, when known: from a container's index, or
/// from a raw member expanded whole.
fn member_lines<R: Read + Seek>(window: &mut R, part: &Salvage) -> Option<u64> {
    if raw::starts_raw(window).ok()? {
        return part.is_complete().then_some(part.summary.stats.lines);
    }
    let reader = IndexedReader::open_index(window).ok()?;
    let entries = reader.entries();
    Some(entries.iter().map(|e| e.line_feeds()).sum::<u64>() + entries.last().is_some_and(|e| e.partial_line) as u64)
}

/// [`expand_salvage`] of an archive of one member.
fn salvage_member<R: Read + Seek, W: Write>(
    mut input: R,
    mut output: W,
    opts: &ExpandOptions,
    progress: Progress<'_>,
) -> Result<Salvage, Error> {
    let file_len = input.seek(SeekFrom::End(0))?;
    input.seek(SeekFrom::Start(0))?;
    let mut magic = [0u8; 4];
    let got = raw::read_up_to(&mut input, &mut magic)?;
    input.seek(SeekFrom::Start(0))?;
    if raw::is_raw(&magic[..got]) {
        return match form::expand(std::io::BufReader::new(input), output, &opts.limits, progress) {
            Err(e @ Error::DecodeLimit { .. }) => Err(e),
            Ok(summary) => Ok(Salvage { summary, damaged: Vec::new() }),
            Err(Error::Io(e)) => Err(Error::Io(e)),
            Err(e) => Ok(Salvage {
                summary: Summary::default(),
                damaged: vec![DamagedBlock {
                    member: 0,
                    block: 0,
                    lines: None,
                    games: None,
                    first_line: Some(0),
                    archive_range: 0..file_len,
                    to_end: true,
                    error: e.to_string(),
                }],
            }),
        };
    }
    let mut reader = match IndexedReader::open_index(&mut input) {
        Ok(r) => r,
        Err(Error::Io(e)) => return Err(Error::Io(e)),
        Err(_) => {
            input.seek(SeekFrom::Start(0))?;
            return salvage_sequential(input, output, opts, progress, file_len);
        }
    };
    let header = *reader.header();
    let model = model_for(&header)?;
    let pool = worker_pool(opts.threads)?;
    let batch = pool.current_num_threads() * BLOCKS_PER_THREAD;
    let count = reader.entries().len();
    let mut salvage = Salvage::default();
    salvage.summary.archive_bytes = file_len;
    let mut first_line = 0u64;
    let mut store = dups::has_refs(header.format, header.coding).then(dups::Store::expander);
    let mut n = 0;
    let mut meter = Meter::new(opts.limits);
    let round_max = opts.limits.round_bytes(ROUND_TEXT_BYTES);
    while n < count {
        let len = round_len_within(reader.entries()[n..].iter().map(|e| e.text_len), batch, round_max);
        let blocks: Vec<Result<(BlockHeader, EncodedBlock), Error>> = (n..n + len).map(|i| reader.read_block(i)).collect();
        // A limit is the caller's, not damage: it stops the salvage as it stops `expand`.
        for (i, b) in blocks.iter().enumerate() {
            if let Ok((h, _)) = b {
                meter.admit((n + i) as u64, h, reader.block_range(n + i).end)?;
            }
        }
        let texts: Vec<Result<dups::Decoded, Error>> = pool.install(|| {
            blocks
                .par_iter()
                .with_max_len(1)
                .enumerate()
                .map(|(i, b)| match b {
                    Ok((h, b)) => dups::expand_block(header, model, (n + i) as u64, h, b),
                    Err(e) => Err(Error::Corrupt(e.to_string())),
                })
                .collect()
        });
        for (i, (block, text)) in blocks.into_iter().zip(texts).enumerate() {
            let b = n + i;
            let entry = reader.entries()[b];
            let text = match (&mut store, text) {
                (_, Err(e)) => Err(e),
                (Some(store), Ok(d)) => store.resolve(d),
                (None, Ok(d)) => d.into_text(),
            };
            if text.is_err()
                && let Some(store) = &mut store
            {
                store.skip(entry.line_feeds(), entry.partial_line);
            }
            match (block, text) {
                (Ok((h, _)), Ok(text)) => {
                    output.write_all(&text)?;
                    salvage.summary.add_block(&h, text.len());
                }
                (Err(Error::Io(e)), _) => return Err(Error::Io(e)),
                (Err(e), _) | (_, Err(e)) => salvage.damaged.push(DamagedBlock {
                    member: 0,
                    block: b as u64,
                    lines: Some(entry.lines as u64),
                    games: Some(entry.games as u64),
                    first_line: Some(first_line),
                    archive_range: reader.block_range(b),
                    to_end: false,
                    error: inner_message(e),
                }),
            }
            first_line += entry.line_feeds();
        }
        progress(salvage.summary.text_bytes);
        n += len;
    }
    output.flush()?;
    Ok(salvage)
}

/// The message of `e` without the "corrupt archive: " its display starts with (the messages
/// of read errors carried into a decoding error would repeat it).
fn inner_message(e: Error) -> String {
    match e {
        Error::Corrupt(m) => m.strip_prefix("corrupt archive: ").map(str::to_owned).unwrap_or(m),
        other => other.to_string(),
    }
}

/// [`expand_salvage`] of a block container whose index cannot be used: the blocks in order up
/// to the first damaged one, which is reported as reaching the end (`file_len`).
fn salvage_sequential<R: Read, W: Write>(
    input: R,
    mut output: W,
    opts: &ExpandOptions,
    progress: Progress<'_>,
    file_len: u64,
) -> Result<Salvage, Error> {
    let mut reader = Reader::new(input)?;
    let header = *reader.header();
    let model = model_for(&header)?;
    let pool = worker_pool(opts.threads)?;
    let batch = pool.current_num_threads() * BLOCKS_PER_THREAD;
    let mut salvage = Salvage::default();
    let mut offset = header.encoded_len() as u64;
    let mut first_line = 0u64;
    let mut meter = Meter::new(opts.limits);
    let round_max = opts.limits.round_bytes(ROUND_TEXT_BYTES);
    let mut read_bytes = header.encoded_len() as u64;
    let mut store = dups::has_refs(header.format, header.coding).then(dups::Store::expander);
    loop {
        let first = reader.blocks_read();
        let mut blocks = Vec::with_capacity(batch);
        let mut round_bytes = 0;
        let mut failed = None;
        while blocks.len() < batch && round_bytes < round_max {
            match reader.next_block() {
                Ok(Some(b)) => {
                    read_bytes += (BlockHeader::LEN + b.1.range.len() + b.1.raw.len()) as u64;
                    meter.admit(reader.blocks_read() - 1, &b.0, read_bytes)?;
                    round_bytes += b.0.text_len as usize;
                    blocks.push(b)
                }
                Ok(None) => break,
                Err(Error::Io(e)) => return Err(Error::Io(e)),
                Err(e) => {
                    failed = Some(e);
                    break;
                }
            }
        }
        let texts: Vec<Result<dups::Decoded, Error>> = pool.install(|| {
            blocks
                .par_iter()
                .with_max_len(1)
                .enumerate()
                .map(|(i, (h, b))| dups::expand_block(header, model, first + i as u64, h, b))
                .collect()
        });
        for ((h, b), text) in blocks.iter().zip(texts) {
            let text = match (&mut store, text) {
                (_, Err(e)) => Err(e),
                (Some(store), Ok(d)) => store.resolve(d),
                (None, Ok(d)) => d.into_text(),
            };
            let text = match text {
                Ok(text) => text,
                Err(e) => {
                    failed = Some(e);
                    break;
                }
            };
            output.write_all(&text)?;
            salvage.summary.add_block(h, text.len());
            offset += (BlockHeader::LEN + b.range.len() + b.raw.len()) as u64;
            first_line += h.lines as u64 - h.partial_line as u64;
        }
        progress(salvage.summary.text_bytes);
        if let Some(e) = failed {
            salvage.damaged.push(DamagedBlock {
                member: 0,
                block: salvage.summary.blocks,
                lines: None,
                games: None,
                first_line: Some(first_line),
                archive_range: offset..file_len,
                to_end: true,
                error: inner_message(e),
            });
            break;
        }
        if blocks.is_empty() {
            break;
        }
    }
    salvage.summary.archive_bytes = file_len;
    output.flush()?;
    Ok(salvage)
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pools_are_clamped_to_max_threads() {
        assert_eq!(worker_pool(100_000).unwrap().current_num_threads(), MAX_THREADS);
        assert_eq!(worker_pool(3).unwrap().current_num_threads(), 3);
    }

    #[test]
    fn rounds_end_at_their_block_count_or_text_budget() {
        // Small blocks: the block count rules.
        assert_eq!(round_len([1000; 50], 16), 16);
        assert_eq!(round_len([1000; 5], 16), 5);
        // Full blocks: two per round whatever the thread count.
        let full = MAX_BLOCK_TEXT as u32;
        assert_eq!(round_len([full; 40], 8), 2);
        assert_eq!(round_len([full; 40], 128), 2);
        // Always one block, even one larger than the budget.
        assert_eq!(round_len([u32::MAX; 3], 128), 1);
        assert_eq!(round_len([full; 3], 0), 1);
        assert_eq!(round_len([], 8), 0);
    }
}
