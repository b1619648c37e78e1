//! `chesszip._native`: the Python bindings of the chesszip library (PyO3). The pure-Python
//! package `chesszip` wraps these functions and classes in the API of `gzip` and `lzma`; see
//! `chesszip/_native.pyi` for their signatures.
//!
//! Every call that codes releases the GIL (`Python::detach`), so Python threads compress or
//! expand in parallel; the library's own worker threads (rayon) do the rest. Errors of the
//! library become `ChesszipError` (a `ValueError`), `CorruptArchiveError` or
//! `UnsupportedArchiveError` with the library's message, the one the command line prints after
//! the file name; I/O errors become `OSError`.

use std::fs::File;
use std::io::{self, BufRead, BufReader, Cursor, Read, Seek, SeekFrom, Write};
use std::path::PathBuf;
use std::sync::mpsc::{Receiver, SyncSender, sync_channel};
use std::sync::{Arc, Mutex, MutexGuard};
use std::thread::JoinHandle;

use pyo3::create_exception;
use pyo3::exceptions::PyIndexError;
use pyo3::exceptions::{PyMemoryError, PyOSError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict};

use chesszip::container::{IndexEntry, InputFormat};
use chesszip::model::transformer::Weights;
use chesszip::model::{DEFAULT_LEVEL, Level, MAX_LEVEL, MIN_LEVEL};
use chesszip::pgn::lexer::GameSplitter;
use chesszip::{Blocks, CompressOptions, DecodeLimits, Error, ExpandOptions, Games};

create_exception!(chesszip, ChesszipError, PyValueError, "An error of chesszip: the same message as the command line's.");
create_exception!(chesszip, CorruptArchiveError, ChesszipError, "The data is damaged or not a chesszip archive; the message says where.");
create_exception!(
    chesszip,
    UnsupportedArchiveError,
    ChesszipError,
    "The archive is valid but this build cannot expand it (newer format, or a model it lacks)."
);

create_exception!(
    chesszip,
    DecodeLimitError,
    ChesszipError,
    "Decoding would exceed a limit the caller set (or the default game size); the message names it and the keyword that raises it."
);

/// Bytes the command line's input buffer holds: the first read of input, from which the format
/// is detected, is this long in both, so that both make the same archive.
const INPUT_BUFFER: usize = 1 << 16;

/// Chunks of input queued for a [`Compressor`]'s thread.
const QUEUED_CHUNKS: usize = 4;

/// The Python exception for a library error.
fn py_err(e: Error) -> PyErr {
    match e {
        // A fallible allocation that failed (see `FallibleVec`): Python's own error for it.
        Error::Io(io) if io.kind() == io::ErrorKind::OutOfMemory => PyMemoryError::new_err(io.to_string()),
        Error::Io(io) => PyErr::from(io),
        Error::DecodeLimit { .. } => DecodeLimitError::new_err(e.to_string()),
        Error::Corrupt(_) => CorruptArchiveError::new_err(e.to_string()),
        Error::Unsupported(_) => UnsupportedArchiveError::new_err(e.to_string()),
        other => ChesszipError::new_err(other.to_string()),
    }
}

/// `OSError` (the subclass Python picks for the error number) naming `path`.
fn open_err(e: io::Error, path: &std::path::Path) -> PyErr {
    let name = path.display().to_string();
    match e.raw_os_error() {
        Some(errno) => PyOSError::new_err((errno, e.to_string(), name)),
        None => PyOSError::new_err(format!("{name}: {e}")),
    }
}

/// Locks a mutex, ignoring poisoning (a panic while it was held has already been reported).
fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}

/// The level `level`, or Python's `ValueError`.
fn check_level(level: u8) -> PyResult<Level> {
    Level::new(level).map_err(|_| PyValueError::new_err(format!("level must be {MIN_LEVEL}..{MAX_LEVEL}, not {level}")))
}

/// Reads, checks and quantises level 10's transformer weights (`chesszip.load_weights`), once
/// per process and file, with the GIL released; from then on archives naming their sha256
/// expand in this process, as with the command line's `--weights`.
fn weights_at(py: Python<'_>, path: PathBuf) -> PyResult<&'static Weights> {
    py.detach(|| Weights::load(&path)).map_err(py_err)
}

/// Loads level 10's weights (the Maia3 ONNX file with its `.onnx.data` beside it) into this
/// process; returns their sha256 in hex, the digest archives name.
#[pyfunction]
fn load_weights(py: Python<'_>, path: PathBuf) -> PyResult<String> {
    Ok(weights_at(py, path)?.sha256.iter().map(|b| format!("{b:02x}")).collect())
}

/// The input format named `format` (`None`: detect it), or Python's `ValueError`.
fn input_format(format: Option<&str>) -> PyResult<Option<InputFormat>> {
    match format {
        None => Ok(None),
        Some("movetext") => Ok(Some(InputFormat::Movetext)),
        Some("pgn") => Ok(Some(InputFormat::Pgn)),
        Some(f) => Err(PyValueError::new_err(format!("format must be 'movetext', 'pgn' or None, not {f:?}"))),
    }
}

/// `block_lines = None` is the level's default ([`chesszip::archive::default_block_lines`]);
/// `weights`: level 10's transformer weights file, loaded with [`weights_at`].
fn compress_options(
    py: Python<'_>,
    level: u8,
    block_lines: Option<u32>,
    threads: usize,
    format: Option<&str>,
    weights: Option<PathBuf>,
) -> PyResult<CompressOptions> {
    let level = check_level(level)?;
    if block_lines == Some(0) {
        return Err(PyValueError::new_err("block_lines must be at least 1"));
    }
    let block_lines = block_lines.unwrap_or(0);
    let format = input_format(format)?;
    let weights = weights.map(|w| weights_at(py, w)).transpose()?;
    Ok(CompressOptions { level, block_lines, threads, format, weights, ..CompressOptions::default() })
}

/// Compresses `data` into an archive, exactly as the command line compresses a file holding it.
/// `block_bytes` (tests only, not in the package's API): most bytes of text per block, so
/// that blocks are cut inside lines and games; always a block container then.
#[pyfunction]
#[pyo3(signature = (data, level = DEFAULT_LEVEL, *, block_lines = None, threads = 0, format = None, weights = None, block_bytes = None))]
#[allow(clippy::too_many_arguments)]
fn compress<'py>(
    py: Python<'py>,
    data: &[u8],
    level: u8,
    block_lines: Option<u32>,
    threads: usize,
    format: Option<&str>,
    weights: Option<PathBuf>,
    block_bytes: Option<usize>,
) -> PyResult<Bound<'py, PyBytes>> {
    let mut opts = compress_options(py, level, block_lines, threads, format, weights)?;
    if let Some(b) = block_bytes {
        if b == 0 {
            return Err(PyValueError::new_err("block_bytes must be at least 1"));
        }
        opts.block_bytes = b;
        // Always blocks (the whole-input raw form would keep a small input in one piece).
        opts.raw_form = false;
    }
    let out = py.detach(|| {
        let mut out = Vec::with_capacity(data.len() / 8);
        // gzip, bzip2, xz or zstd data is decoded on the fly, as the command line does: the
        // archive holds the text inside.
        let (_, input) = chesszip::compressed::open(BufReader::with_capacity(INPUT_BUFFER, data))?;
        chesszip::compress(BufReader::with_capacity(INPUT_BUFFER, input), &mut out, &opts, &|_| {}).map(|_| out)
    });
    Ok(PyBytes::new(py, &out.map_err(py_err)?))
}

/// The decoding limits from Python: a dict of `max_plies`, `max_plies_per_byte`,
/// `max_game_bytes`, `max_output`, `memlimit` (int or None: the default) and `no_limits`
/// (bool: start from no limit at all); `None` is the defaults.
fn decode_limits(limits: Option<&Bound<'_, PyDict>>) -> PyResult<DecodeLimits> {
    let Some(d) = limits else { return Ok(DecodeLimits::default()) };
    let unlimited = match d.get_item("no_limits")? {
        Some(v) => v.extract::<bool>()?,
        None => false,
    };
    let mut l = if unlimited { DecodeLimits::unlimited() } else { DecodeLimits::default() };
    for (key, value) in d.iter() {
        let key: String = key.extract()?;
        if key == "no_limits" {
            continue;
        }
        let Some(value) = value.extract::<Option<u64>>()? else { continue };
        match key.as_str() {
            "max_plies" => l.max_plies = Some(value),
            "max_plies_per_byte" => l.max_plies_per_byte = Some(value),
            "max_game_bytes" => l.max_game_bytes = Some(value),
            "max_output" => l.max_output = Some(value),
            "memlimit" => l.memlimit = Some(value),
            other => return Err(PyValueError::new_err(format!("unknown decoding limit {other:?}"))),
        }
    }
    Ok(l)
}

/// A `Vec<u8>` writer that grows with `try_reserve`: an allocation the archive asks for and
/// the system refuses is an `OutOfMemory` error (Python's `MemoryError`), never an abort of
/// the interpreter.
#[derive(Default)]
struct FallibleVec(Vec<u8>);

impl Write for FallibleVec {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.0
            .try_reserve(buf.len())
            .map_err(|e| io::Error::new(io::ErrorKind::OutOfMemory, format!("cannot hold the expanded text: {e}")))?;
        self.0.extend_from_slice(buf);
        Ok(buf.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

/// Python `bytes` of `data`, `MemoryError` if Python cannot allocate them.
fn py_bytes<'py>(py: Python<'py>, data: &[u8]) -> PyResult<Bound<'py, PyBytes>> {
    PyBytes::new_with(py, data.len(), |buf| {
        buf.copy_from_slice(data);
        Ok(())
    })
}

/// Expands a whole archive held in memory, checking every block; `weights` as [`load_weights`].
#[pyfunction]
#[pyo3(signature = (data, *, threads = 0, limits = None, weights = None))]
fn decompress<'py>(
    py: Python<'py>,
    data: &[u8],
    threads: usize,
    limits: Option<&Bound<'py, PyDict>>,
    weights: Option<PathBuf>,
) -> PyResult<Bound<'py, PyBytes>> {
    if let Some(w) = weights {
        weights_at(py, w)?;
    }
    let opts = ExpandOptions { threads, limits: decode_limits(limits)? };
    let out = py.detach(|| {
        let mut out = FallibleVec::default();
        chesszip::expand(data, &mut out, &opts, &|_| {}).map(|_| out.0)
    });
    py_bytes(py, &out.map_err(py_err)?)
}

/// An archive to read: a file, or bytes copied from Python.
enum Input {
    File(File),
    Memory(Cursor<Vec<u8>>),
}

impl Input {
    /// `source` is `bytes` (the archive) or a path (`str` or `os.PathLike`).
    fn from_py(source: &Bound<'_, PyAny>) -> PyResult<Input> {
        if let Ok(bytes) = source.cast::<PyBytes>() {
            return Ok(Input::Memory(Cursor::new(bytes.as_bytes().to_vec())));
        }
        let path: PathBuf = source.extract()?;
        let file = File::open(&path).map_err(|e| open_err(e, &path))?;
        if file.metadata().is_ok_and(|m| m.is_dir()) {
            return Err(open_err(io::Error::from_raw_os_error(21), &path));
        }
        Ok(Input::File(file))
    }
}

impl Read for Input {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        match self {
            Input::File(f) => f.read(buf),
            Input::Memory(c) => c.read(buf),
        }
    }
}

impl Seek for Input {
    fn seek(&mut self, pos: SeekFrom) -> io::Result<u64> {
        match self {
            Input::File(f) => f.seek(pos),
            Input::Memory(c) => c.seek(pos),
        }
    }
}

/// The number of games of an archive (every member of a concatenation): from the index for
/// movetext, and for PGN from the index where it tells, decoding only the blocks it does not
/// count (`chesszip::count_games`).
#[pyfunction]
#[pyo3(signature = (source, *, threads = 0, limits = None))]
fn count_games(py: Python<'_>, source: &Bound<'_, PyAny>, threads: usize, limits: Option<&Bound<'_, PyDict>>) -> PyResult<u64> {
    let opts = ExpandOptions { threads, limits: decode_limits(limits)? };
    let input = Input::from_py(source)?;
    py.detach(|| chesszip::count_games_with(input, &opts)).map_err(py_err)
}

/// One game's tags: `(name, value)` byte pairs in file order.
type TagPairs = Vec<(Py<PyBytes>, Py<PyBytes>)>;

/// Every game's tags, in order, as lists of `(name, value)` byte pairs, without decoding the
/// moves of PGN archives of coding 5 (`chesszip::GameTags`); the GIL is released while reading.
#[pyfunction]
#[pyo3(signature = (source, *, threads = 0, limits = None))]
fn read_tags(py: Python<'_>, source: &Bound<'_, PyAny>, threads: usize, limits: Option<&Bound<'_, PyDict>>) -> PyResult<Vec<TagPairs>> {
    let opts = ExpandOptions { threads, limits: decode_limits(limits)? };
    let input = Input::from_py(source)?;
    let games = py.detach(|| chesszip::GameTags::open_with(input, &opts).and_then(|t| t.collect::<Result<Vec<_>, _>>())).map_err(py_err)?;
    Ok(games
        .into_iter()
        .map(|tags| tags.into_iter().map(|(n, v)| (PyBytes::new(py, &n).unbind(), PyBytes::new(py, &v).unbind())).collect())
        .collect())
}

/// The tags of one game's text (a piece as the game readers cut it: `GameReader`,
/// `block_games`) as `(name, value)` byte pairs in order, escapes kept: what `read_tags` and
/// the command line's `extract --tags` give for that game (`chesszip::pgn::codec::scan_tags`:
/// the PGN reader's tags when the game parses, else its leading `[Name "value"]` lines), so
/// that the tables cannot find other tags. The GIL is released while reading.
#[pyfunction]
fn scan_tags(py: Python<'_>, piece: &[u8]) -> TagPairs {
    let tags = py.detach(|| chesszip::pgn::codec::scan_tags(piece));
    tags.into_iter().map(|t| (PyBytes::new(py, &t.name).unbind(), PyBytes::new(py, &t.value).unbind())).collect()
}

/// The wide encoding (`"UTF-16LE"`, `"UTF-16BE"`, `"UTF-32LE"`, `"UTF-32BE"`) that the start
/// of an input is written in, or `None` (`chesszip::text::encoding::wide_encoding`): what the
/// command line warns of when compressing.
#[pyfunction]
fn wide_encoding(head: &[u8]) -> Option<&'static str> {
    chesszip::text::encoding::wide_encoding(head)
}

/// What an archive holds, from its header and index (no block is decoded), as a dict.
#[pyfunction]
fn info<'py>(py: Python<'py>, source: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyDict>> {
    let input = Input::from_py(source)?;
    let i = py.detach(|| chesszip::info(input)).map_err(py_err)?;
    let d = PyDict::new(py);
    d.set_item("format", format_name(i.header.format))?;
    d.set_item("level", i.header.level)?;
    d.set_item("model_id", i.header.model_id)?;
    // How the blocks are coded: 0, or 1 where other move notations may be coded as moves.
    d.set_item("coding", i.header.coding as u8)?;
    d.set_item("model_available", i.model_available)?;
    // The codec of the whole-input raw form ("stored", "zstd", "lzma2", "zstd (streamed)"),
    // None for a block container.
    d.set_item("raw", i.raw.map(|c| c.name()))?;
    d.set_item("blocks", i.blocks)?;
    d.set_item("lines", i.lines)?;
    d.set_item("games", i.games)?;
    d.set_item("references", i.references)?;
    d.set_item("raw_lines", i.raw_lines)?;
    d.set_item("plies", i.plies)?;
    d.set_item("text_bytes", i.text_bytes)?;
    d.set_item("archive_bytes", i.archive_bytes)?;
    // Archives concatenated in the file (1 for one archive): the counts above are their sums.
    d.set_item("members", i.members)?;
    Ok(d)
}

fn format_name(f: InputFormat) -> &'static str {
    match f {
        InputFormat::Movetext => "movetext",
        InputFormat::Pgn => "pgn",
    }
}

/// The expanded text of an archive block by block, decoded ahead in parallel.
#[pyclass(module = "chesszip._native")]
struct BlockReader {
    inner: Mutex<Blocks<Input>>,
}

#[pymethods]
impl BlockReader {
    #[new]
    #[pyo3(signature = (source, *, threads = 0, limits = None))]
    fn new(py: Python<'_>, source: &Bound<'_, PyAny>, threads: usize, limits: Option<&Bound<'_, PyDict>>) -> PyResult<Self> {
        let opts = ExpandOptions { threads, limits: decode_limits(limits)? };
        let input = Input::from_py(source)?;
        let blocks = py.detach(|| Blocks::open_with(input, &opts)).map_err(py_err)?;
        Ok(BlockReader { inner: Mutex::new(blocks) })
    }

    /// The text of the next block, or `None` after the last.
    fn read_block<'py>(&self, py: Python<'py>) -> PyResult<Option<Bound<'py, PyBytes>>> {
        let text = py.detach(|| lock(&self.inner).next_text()).map_err(py_err)?;
        text.map(|t| py_bytes(py, &t)).transpose()
    }

    /// Bytes of text of every block, in order (blocks numbered across members), from the
    /// index alone: block `k`'s text starts at the sum of the lengths before it.
    fn text_lengths(&self) -> Vec<u64> {
        lock(&self.inner).entries().iter().map(|e| u64::from(e.text_len)).collect()
    }

    /// Makes block `k` the next one `read_block` returns (past the last: none is); blocks
    /// already decoded ahead from `k` on are kept (`Blocks::seek`).
    fn seek(&self, k: usize) {
        lock(&self.inner).seek(k);
    }
}

/// The games of an archive in order (an iterator of `bytes`), and game `n` by number.
#[pyclass(module = "chesszip._native")]
struct GameReader {
    inner: Mutex<Games<Input>>,
}

#[pymethods]
impl GameReader {
    #[new]
    #[pyo3(signature = (source, *, threads = 0, limits = None))]
    fn new(py: Python<'_>, source: &Bound<'_, PyAny>, threads: usize, limits: Option<&Bound<'_, PyDict>>) -> PyResult<Self> {
        let opts = ExpandOptions { threads, limits: decode_limits(limits)? };
        let input = Input::from_py(source)?;
        let games = py.detach(|| Games::open_with(input, &opts)).map_err(py_err)?;
        Ok(GameReader { inner: Mutex::new(games) })
    }

    /// `'movetext'` or `'pgn'`.
    #[getter]
    fn format(&self) -> &'static str {
        format_name(lock(&self.inner).format())
    }

    /// The number of games when the index tells it (movetext), else `None`.
    #[getter]
    fn len_hint(&self) -> Option<u64> {
        lock(&self.inner).len_hint()
    }

    /// The number of the game `next()` returns.
    #[getter]
    fn position(&self) -> u64 {
        lock(&self.inner).position()
    }

    /// Makes game `n` (0-based) the next one returned.
    fn seek(&self, py: Python<'_>, n: u64) -> PyResult<()> {
        py.detach(|| lock(&self.inner).seek(n)).map_err(py_err)
    }

    /// Game `n` (0-based), or `None` past the last game.
    fn game<'py>(&self, py: Python<'py>, n: u64) -> PyResult<Option<Bound<'py, PyBytes>>> {
        let game = py.detach(|| {
            let mut games = lock(&self.inner);
            games.seek(n)?;
            games.next_game()
        });
        game.map_err(py_err)?.map(|g| py_bytes(py, &g)).transpose()
    }

    fn __iter__(slf: PyRef<'_, Self>) -> PyRef<'_, Self> {
        slf
    }

    fn __next__<'py>(&self, py: Python<'py>) -> PyResult<Option<Bound<'py, PyBytes>>> {
        let game = {
            // Most games are cut already: take one without releasing the GIL.
            let mut games = lock(&self.inner);
            if games.next_is_ready() {
                games.next_game()
            } else {
                drop(games);
                py.detach(|| lock(&self.inner).next_game())
            }
        };
        game.map_err(py_err)?.map(|g| py_bytes(py, &g)).transpose()
    }
}

/// The blocks of an archive (every member of a concatenation), from the index alone: a
/// `(member, block, text_len)` per block, blocks numbered across members. A raw member (no
/// index) is decoded once to cut its text into blocks.
#[pyfunction]
#[pyo3(signature = (source, *, limits = None))]
fn block_list(py: Python<'_>, source: &Bound<'_, PyAny>, limits: Option<&Bound<'_, PyDict>>) -> PyResult<Vec<(usize, usize, u64)>> {
    let opts = ExpandOptions { threads: 1, limits: decode_limits(limits)? };
    let input = Input::from_py(source)?;
    let blocks = py.detach(|| Blocks::open_with(input, &opts)).map_err(py_err)?;
    Ok(blocks.entries().iter().enumerate().map(|(k, e)| (blocks.member_of(k), k, e.text_len as u64)).collect())
}

/// Whether block `j` of a member (its index `entries`) certainly starts with a game's first
/// byte, from the index alone: the member's first block; in movetext any block after one
/// that ends with a line feed; in PGN (as `count_games` cuts runs) a block after one that is
/// shorter than the member's longest block but the last (so not cut for its size), ends with
/// a line feed and does not start inside a line.
fn starts_game(format: InputFormat, entries: &[IndexEntry], longest: u32, j: usize) -> bool {
    if j == 0 {
        return true;
    }
    let before = &entries[j - 1];
    match format {
        InputFormat::Movetext => !before.partial_line,
        InputFormat::Pgn => !before.partial_line && before.text_len < longest && (j == 1 || !entries[j - 2].partial_line),
    }
}

/// The games whose first byte lies in block `k` (numbered across members) of an archive, as
/// `Games` cuts them: a game that goes on into later blocks is whole here, and a game that
/// began in an earlier block is left to that block's list. So the lists of all blocks,
/// joined in order, are the archive's games, and their bytes the archive's text. Decodes the
/// blocks from the last one before `k` that certainly starts a game (usually `k` itself) to
/// the end of `k`'s last game. `None` when the archive has no block `k`.
fn games_of_block<R: Read + Seek>(input: R, k: usize, opts: &ExpandOptions) -> Result<Option<Vec<Vec<u8>>>, Error> {
    let mut blocks = Blocks::open_with(input, opts)?;
    if k >= blocks.entries().len() {
        return Ok(None);
    }
    let m = blocks.member_of(k);
    let range = blocks.member_blocks(m);
    let format = blocks.member_header(m).format;
    let entries: Vec<IndexEntry> = blocks.entries()[range.clone()].to_vec();
    let longest = entries.iter().rev().skip(1).map(|e| e.text_len).max().unwrap_or(0);
    let certain = |j: usize| starts_game(format, &entries, longest, j);
    let local = k - range.start;
    // Movetext: every line after a line feed starts a game, so cutting starts at `k`; PGN
    // needs the lines before, from a block known to start a game.
    let s = match format {
        InputFormat::Movetext => local,
        InputFormat::Pgn => (0..=local).rev().find(|&j| certain(j)).expect("block 0 starts a game"),
    };
    let first_starts = certain(s);
    // A BOM at the member's first byte belongs to its first game, as `Games` cuts.
    let mut splitter = if s == 0 { GameSplitter::reading() } else { GameSplitter::new() };
    let (mut text, mut starts) = (Vec::new(), Vec::new());
    let (mut k_start, mut k_end, mut scanned, mut j) = (0, 0, 0, s);
    let mut classify = |text: &[u8], at: usize, end: usize, starts: &mut Vec<usize>| {
        let line = &text[at..end];
        let start = match format {
            InputFormat::Movetext => at > 0 || first_starts,
            InputFormat::Pgn => splitter.starts_game(line.strip_suffix(b"\n").unwrap_or(line)) | (at == 0),
        };
        if start {
            starts.push(at);
        }
    };
    loop {
        if j < entries.len() {
            // One block at a time: no block past the last game is decoded ahead.
            blocks.seek(range.start + j);
            let t = blocks.next_text()?.ok_or_else(|| Error::Corrupt(format!("block {}: missing", range.start + j)))?;
            if j == local {
                k_start = text.len();
            }
            text.extend_from_slice(&t);
            if j == local {
                k_end = text.len();
            }
            j += 1;
        }
        let at_end = j == entries.len();
        while let Some(i) = text[scanned..].iter().position(|&b| b == b'\n') {
            classify(&text, scanned, scanned + i + 1, &mut starts);
            scanned += i + 1;
        }
        if at_end && scanned < text.len() {
            classify(&text, scanned, text.len(), &mut starts);
            scanned = text.len();
        }
        if j <= local {
            continue;
        }
        if at_end || starts.last().is_some_and(|&p| p >= k_end) || certain(j) {
            break;
        }
    }
    let mut games = Vec::new();
    for (i, &p) in starts.iter().enumerate() {
        if (k_start..k_end).contains(&p) {
            let end = starts.get(i + 1).copied().unwrap_or(text.len());
            opts.limits.check_game((end - p) as u64)?;
            games.push(text[p..end].to_vec());
        }
    }
    Ok(Some(games))
}

/// The games whose first byte lies in block `k` of an archive (see `block_list`), as a list
/// of `bytes`: joined over all blocks in order they are the archive's text.
#[pyfunction]
#[pyo3(signature = (source, k, *, limits = None))]
fn block_games<'py>(
    py: Python<'py>,
    source: &Bound<'py, PyAny>,
    k: usize,
    limits: Option<&Bound<'py, PyDict>>,
) -> PyResult<Vec<Bound<'py, PyBytes>>> {
    let opts = ExpandOptions { threads: 1, limits: decode_limits(limits)? };
    let input = Input::from_py(source)?;
    let games = py.detach(|| games_of_block(input, k, &opts)).map_err(py_err)?;
    let Some(games) = games else { return Err(PyIndexError::new_err(format!("the archive has no block {k}"))) };
    games.iter().map(|g| py_bytes(py, g)).collect()
}

/// Text read in shards of whole games (lines of movetext, games of PGN as `Games` cuts
/// them), from a file or bytes, decoding gzip, bzip2, xz or zstd on the fly as the command
/// line does; the format is detected from the first 64 KiB as the command line detects it.
#[pyclass(module = "chesszip._native", unsendable)]
struct ShardReader {
    input: Box<dyn BufRead>,
    format: InputFormat,
    games: usize,
    splitter: GameSplitter,
    /// The line read past the end of the last shard (it starts the next one).
    carry: Vec<u8>,
    /// Bytes of text read so far.
    read: u64,
}

#[pymethods]
impl ShardReader {
    #[new]
    #[pyo3(signature = (source, games, *, format = None))]
    fn new(source: &Bound<'_, PyAny>, games: usize, format: Option<&str>) -> PyResult<Self> {
        if games == 0 {
            return Err(PyValueError::new_err("games per shard must be at least 1"));
        }
        let raw: Box<dyn BufRead> = match Input::from_py(source)? {
            Input::File(f) => Box::new(BufReader::with_capacity(1 << 20, f)),
            Input::Memory(c) => Box::new(c),
        };
        let (_, input) = chesszip::compressed::open(raw)?;
        let mut input: Box<dyn BufRead> = Box::new(BufReader::with_capacity(1 << 20, input));
        let format = match format {
            Some(f) => input_format(Some(f))?.expect("given"),
            None => {
                // The sample the command line detects from: its first buffer of input.
                let mut sample = Vec::with_capacity(INPUT_BUFFER);
                (&mut input).take(INPUT_BUFFER as u64).read_to_end(&mut sample)?;
                let format = chesszip::pgn::detect(&sample);
                input = Box::new(Cursor::new(sample).chain(input));
                format
            }
        };
        Ok(ShardReader { input, format, games, splitter: GameSplitter::new(), carry: Vec::new(), read: 0 })
    }

    /// `'movetext'` or `'pgn'`: the format detected (or given).
    #[getter]
    fn format(&self) -> &'static str {
        format_name(self.format)
    }

    /// Bytes of text read so far.
    #[getter]
    fn text_bytes(&self) -> u64 {
        self.read
    }

    /// The text of the next `games` games (fewer at the end), `None` after the last.
    fn read_shard<'py>(&mut self, py: Python<'py>) -> PyResult<Option<Bound<'py, PyBytes>>> {
        let mut shard = std::mem::take(&mut self.carry);
        let mut started = usize::from(!shard.is_empty());
        let mut line = Vec::new();
        loop {
            line.clear();
            let n = self.input.read_until(b'\n', &mut line)?;
            if n == 0 {
                break;
            }
            self.read += n as u64;
            let start = match self.format {
                InputFormat::Movetext => true,
                InputFormat::Pgn => {
                    let content = line.strip_suffix(b"\n").unwrap_or(&line);
                    self.splitter.starts_game(content) || (self.read == n as u64)
                }
            };
            if start {
                if started == self.games {
                    self.carry = std::mem::take(&mut line);
                    break;
                }
                started += 1;
            }
            shard.extend_from_slice(&line);
        }
        if shard.is_empty() { Ok(None) } else { py_bytes(py, &shard).map(Some) }
    }
}

/// The compressing thread's input: chunks from Python, read as the command line reads a file
/// (the first read returns [`INPUT_BUFFER`] bytes, or all of a shorter input).
struct ChunkReader {
    rx: Receiver<Vec<u8>>,
    buf: Vec<u8>,
    pos: usize,
    first: bool,
}

impl Read for ChunkReader {
    fn read(&mut self, out: &mut [u8]) -> io::Result<usize> {
        let n = {
            let buf = self.fill_buf()?;
            let n = buf.len().min(out.len());
            out[..n].copy_from_slice(&buf[..n]);
            n
        };
        self.consume(n);
        Ok(n)
    }
}

impl BufRead for ChunkReader {
    fn fill_buf(&mut self) -> io::Result<&[u8]> {
        if self.first {
            // The detection sample: the first INPUT_BUFFER bytes, or all of a shorter input.
            self.first = false;
            while self.buf.len() < INPUT_BUFFER {
                match self.rx.recv() {
                    Ok(chunk) => self.buf.extend_from_slice(&chunk),
                    Err(_) => break,
                }
            }
            return Ok(&self.buf[..self.buf.len().min(INPUT_BUFFER)]);
        }
        if self.pos == self.buf.len() {
            self.pos = 0;
            self.buf = self.rx.recv().unwrap_or_default();
        }
        Ok(&self.buf[self.pos..])
    }

    fn consume(&mut self, n: usize) {
        self.pos += n;
    }
}

/// The compressing thread's output, taken by Python after each call.
#[derive(Clone, Default)]
struct SharedOutput(Arc<Mutex<Vec<u8>>>);

impl Write for SharedOutput {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        lock(&self.0).extend_from_slice(buf);
        Ok(buf.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

/// Compresses data given in pieces, like `lzma.LZMACompressor`: a thread of its own runs the
/// library's `compress` over the pieces while Python produces more.
#[pyclass(module = "chesszip._native")]
struct Compressor {
    tx: Mutex<Option<SyncSender<Vec<u8>>>>,
    thread: Mutex<Option<JoinHandle<Result<chesszip::Summary, Error>>>>,
    output: SharedOutput,
}

impl Compressor {
    fn take_output<'py>(&self, py: Python<'py>) -> Bound<'py, PyBytes> {
        let out = std::mem::take(&mut *lock(&self.output.0));
        PyBytes::new(py, &out)
    }

    /// Waits for the thread; its error, if it failed.
    fn join(&self, py: Python<'_>) -> PyResult<()> {
        lock(&self.tx).take();
        let Some(thread) = lock(&self.thread).take() else {
            return Ok(());
        };
        match py.detach(|| thread.join()) {
            Ok(result) => result.map(|_| ()).map_err(py_err),
            Err(_) => Err(ChesszipError::new_err("the compressing thread panicked")),
        }
    }
}

#[pymethods]
impl Compressor {
    #[new]
    #[pyo3(signature = (level = DEFAULT_LEVEL, *, block_lines = None, threads = 0, format = None, weights = None))]
    fn new(
        py: Python<'_>,
        level: u8,
        block_lines: Option<u32>,
        threads: usize,
        format: Option<&str>,
        weights: Option<PathBuf>,
    ) -> PyResult<Self> {
        let opts = compress_options(py, level, block_lines, threads, format, weights)?;
        let (tx, rx) = sync_channel(QUEUED_CHUNKS);
        let output = SharedOutput::default();
        let sink = output.clone();
        let thread = std::thread::Builder::new()
            .name("chesszip-compress".into())
            .spawn(move || {
                let reader = ChunkReader { rx, buf: Vec::new(), pos: 0, first: true };
                chesszip::compress(reader, sink, &opts, &|_| {})
            })
            .map_err(PyErr::from)?;
        Ok(Compressor { tx: Mutex::new(Some(tx)), thread: Mutex::new(Some(thread)), output })
    }

    /// Queues `data`; returns the archive bytes ready so far (often none).
    fn compress<'py>(&self, py: Python<'py>, data: &[u8]) -> PyResult<Bound<'py, PyBytes>> {
        let Some(tx) = lock(&self.tx).clone() else {
            return Err(PyValueError::new_err("compressor already flushed"));
        };
        if !data.is_empty() {
            let chunk = data.to_vec();
            if py.detach(|| tx.send(chunk)).is_err() {
                // The thread stopped early: its error says why.
                self.join(py)?;
                return Err(ChesszipError::new_err("the compressing thread stopped"));
            }
        }
        Ok(self.take_output(py))
    }

    /// Ends the input; returns the rest of the archive.
    fn flush<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyBytes>> {
        if lock(&self.tx).is_none() && lock(&self.thread).is_none() {
            return Err(PyValueError::new_err("compressor already flushed"));
        }
        self.join(py)?;
        Ok(self.take_output(py))
    }
}

/// The native part of the `chesszip` package.
#[pymodule]
fn _native(m: &Bound<'_, PyModule>) -> PyResult<()> {
    let py = m.py();
    m.add("ChesszipError", py.get_type::<ChesszipError>())?;
    m.add("CorruptArchiveError", py.get_type::<CorruptArchiveError>())?;
    m.add("UnsupportedArchiveError", py.get_type::<UnsupportedArchiveError>())?;
    m.add("DecodeLimitError", py.get_type::<DecodeLimitError>())?;
    m.add("MIN_LEVEL", MIN_LEVEL)?;
    m.add("MAX_LEVEL", MAX_LEVEL)?;
    m.add("DEFAULT_LEVEL", DEFAULT_LEVEL)?;
    m.add("DEFAULT_BLOCK_LINES", chesszip::archive::DEFAULT_BLOCK_LINES)?;
    m.add_function(wrap_pyfunction!(compress, m)?)?;
    m.add_function(wrap_pyfunction!(decompress, m)?)?;
    m.add_function(wrap_pyfunction!(load_weights, m)?)?;
    m.add_function(wrap_pyfunction!(info, m)?)?;
    m.add_function(wrap_pyfunction!(count_games, m)?)?;
    m.add_function(wrap_pyfunction!(read_tags, m)?)?;
    m.add_function(wrap_pyfunction!(scan_tags, m)?)?;
    m.add_function(wrap_pyfunction!(wide_encoding, m)?)?;
    m.add_function(wrap_pyfunction!(block_list, m)?)?;
    m.add_function(wrap_pyfunction!(block_games, m)?)?;
    m.add_class::<ShardReader>()?;
    m.add_class::<BlockReader>()?;
    m.add_class::<GameReader>()?;
    m.add_class::<Compressor>()?;
    Ok(())
}
