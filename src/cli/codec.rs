//! `compress`, `expand` and `test`: one input at a time, gzip's conventions for names,
//! standard streams and existing files.

use std::fs::{self, File};
use std::io::{self, BufRead, BufReader, BufWriter, IsTerminal, Read, Write};
use std::path::{Path, PathBuf};
use std::time::Instant;

use anyhow::{Context, Result, anyhow, bail};

use chesszip::compressed::Compression;
use chesszip::{CompressOptions, ExpandOptions, Summary};

use super::args::CommonArgs;
use super::labeled::Labeled;
use super::progress::Progress;
use super::status::{self, Status, describe, error, is_broken_pipe, say, stdout_failed, warning};
use super::target::{
    PendingFile, Sink, Source, TargetKind, archive_name, check_target, compression_suffix, has_archive_suffix, is_device, movetext_name,
    open_device, open_input, text_name,
};

/// What to do with each input.
#[derive(Clone, Copy, Debug)]
pub enum Mode {
    /// Text to archive; whether gzip, bzip2, xz or zstd input is decoded first
    /// (`--no-decompress` turns it off).
    Compress(CompressOptions, DecodeInput),
    /// Archive to text.
    Expand,
    /// Archive to text in the movetext format (one game per line), whatever the archive holds.
    ExpandMovetext,
    /// Archive to text, leaving out the damaged blocks (`--salvage`).
    Salvage,
    /// Archive to nothing, checking everything.
    Test,
}

impl Mode {
    fn reads_archives(self) -> bool {
        !matches!(self, Mode::Compress(..))
    }
}

/// Whether compressed input (`x.pgn.zst`) is archived as the text inside or as its bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DecodeInput {
    /// Decode it, so that the archive holds the text inside (the default).
    Text,
    /// Archive the bytes as they are (`--no-decompress`).
    Bytes,
}

/// An input skipped, or only partly converted, with a warning (exit status 2) rather than failed.
struct Skip(String);

/// Runs `mode` over the inputs of `args`; returns the worst status.
pub fn run(args: &CommonArgs, mode: Mode) -> Status {
    // Level 10's weights: read and quantised once, before any input (expanding finds them by
    // the sha256 an archive names). Compressing at another level has no use for them: they
    // are not read.
    let mut mode = mode;
    let weights = match mode {
        Mode::Compress(opts, _) if opts.level.get() != chesszip::model::transformer::TRANSFORMER_LEVEL => {
            if let Some(path) = &args.weights
                && !args.quiet
            {
                say!(
                    "chesszip: --weights {} ignored: only level {} uses transformer weights (this run compresses at level {})",
                    path.display(),
                    chesszip::model::transformer::TRANSFORMER_LEVEL,
                    opts.level
                );
            }
            None
        }
        _ => args.weights.as_ref(),
    };
    if let Some(path) = weights {
        match chesszip::model::transformer::Weights::load(path) {
            Ok(w) => {
                if let Mode::Compress(opts, _) = &mut mode {
                    opts.weights = Some(w);
                }
            }
            Err(e) => return error(e),
        }
    }
    let sources: Vec<Source> =
        if args.files.is_empty() { vec![Source::Stdin] } else { args.files.iter().map(|f| Source::from_arg(f)).collect() };
    if args.output.is_some() && sources.len() > 1 {
        return error("-o/--output needs a single input file");
    }
    if sources.iter().filter(|s| **s == Source::Stdin).count() > 1 {
        return error("standard input given more than once");
    }
    // As zstd: nobody types an archive, and typed games are a mistake far more often than not.
    if sources.contains(&Source::Stdin) && io::stdin().is_terminal() && !args.force {
        let what = if mode.reads_archives() { "an archive" } else { "the text to compress" };
        return error(format_args!("stdin is a terminal, aborting (name a FILE, or use -f to type {what})"));
    }
    let mut status = Status::Success;
    // Outputs written by this run: a later input named to the same file is refused, even with -f.
    let mut written = Vec::new();
    for source in &sources {
        let before = written.len();
        let result = one(args, mode, source, &mut written);
        if result.is_err() {
            written.truncate(before); // nothing was written
        }
        let s = match result {
            Ok(()) => Status::Success,
            Err(e) => match e.downcast::<Skip>() {
                Ok(Skip(message)) => warning(args.quiet, message),
                Err(e) if is_broken_pipe(&e) => status::broken_pipe(),
                Err(e) => error(format_args!("{}: {}", source.name(), describe(&e))),
            },
        };
        status = status.max(s);
        if stdout_failed() {
            // Standard output is lost (a full disk): the next inputs' output would be too.
            return status.max(Status::Error);
        }
    }
    status
}

impl std::fmt::Debug for Skip {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::fmt::Display for Skip {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for Skip {}

/// Decides where `source` goes; `compression` is that of an input to compress, whose archive
/// is named for the text inside ([`archive_name`]).
fn sink_for(args: &CommonArgs, mode: Mode, source: &Source, compression: Option<Compression>) -> Result<Sink> {
    if matches!(mode, Mode::Test) {
        return Ok(Sink::Discard);
    }
    if args.stdout {
        return Ok(Sink::Stdout);
    }
    if let Some(o) = &args.output {
        return Ok(Sink::from_arg(o));
    }
    let Source::File(path) = source else {
        return Ok(Sink::Stdout);
    };
    match mode {
        Mode::Compress(..) if has_archive_suffix(path) && !args.force => {
            Err(Skip(format!("{}: already has the .chz suffix -- unchanged (use -f to compress it anyway)", path.display())).into())
        }
        Mode::Compress(..) => Ok(Sink::File(archive_name(path, compression))),
        _ => match if matches!(mode, Mode::ExpandMovetext) { movetext_name(path) } else { text_name(path) } {
            Some(p) => Ok(Sink::File(p)),
            None => Err(Skip(format!("{}: unknown suffix (not .chz) -- ignored; use -o or -c to name the output", path.display())).into()),
        },
    }
}

/// Compresses, expands or tests one input.
/// The absolute form of `path`, for telling whether two outputs are one file.
fn output_key(path: &Path) -> PathBuf {
    std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf()).components().collect()
}

fn one(args: &CommonArgs, mode: Mode, source: &Source, written: &mut Vec<PathBuf>) -> Result<()> {
    let (input, len, permissions, modified): (Box<dyn BufRead>, Option<u64>, _, _) = match source {
        Source::Stdin => (Box::new(BufReader::with_capacity(1 << 16, io::stdin().lock())), None, None, None),
        Source::File(path) => {
            let meta = fs::metadata(path).context("cannot open")?;
            if meta.is_dir() {
                return Err(Skip(format!("{}: is a directory -- ignored", path.display())).into());
            }
            if is_device(&meta) && !args.force {
                return Err(Skip(format!("{}: not a regular file -- ignored (use -f to read it anyway)", path.display())).into());
            }
            let file = open_input(path)?;
            // The output gets the input's mode and modification time (a regular file's).
            let modified = if meta.is_file() { meta.modified().ok() } else { None };
            (Box::new(BufReader::with_capacity(1 << 16, file)), Some(meta.len()), Some(meta.permissions()), modified)
        }
    };
    let input = Labeled::new(input, format!("reading {}", source.name()));
    // Compressed text (x.pgn.zst) is decoded on the fly, so that the archive holds the text
    // inside, named for it.
    // The zero bytes dropped after the input's data (gzip or bzip2 padding, or padding after
    // an archive), said with -v.
    let mut padding = None;
    let archive_read = ReadCount::default();
    let (compression, mut input, len): (_, Box<dyn BufRead>, _) = match mode {
        Mode::Compress(_, DecodeInput::Bytes) => (None, Box::new(input), len),
        Mode::Compress(_, DecodeInput::Text) => match chesszip::compressed::open_with_padding(input)? {
            (Some(c), decoded, zeros) => {
                padding = Some(zeros);
                (Some(c), decoded, None)
            }
            (None, same, _) => (None, same, len),
        },
        _ => (None, Box::new(Counting { inner: input, count: archive_read.clone() }), len),
    };
    let mut sink = sink_for(args, mode, source, compression)?;
    if mode.reads_archives()
        && let Some(what) = not_an_archive(input.fill_buf()?, source)
    {
        bail!("not a chesszip archive ({what})");
    }
    if let Sink::File(target) = &sink {
        let key = output_key(target);
        if written.contains(&key) {
            bail!("{} was written from another input of this run; not overwritten", target.display());
        }
        written.push(key);
        let input_path = match source {
            Source::File(p) => Some(p.as_path()),
            Source::Stdin => None,
        };
        if check_target(target, input_path, args.force)? == TargetKind::Device {
            sink = Sink::Device(target.clone());
        }
    }
    if matches!(mode, Mode::Compress(..)) && sink == Sink::Stdout && io::stdout().is_terminal() && !args.force {
        bail!("refusing to write an archive to a terminal (use -f to force, or -o to name a file)");
    }
    // Kept byte for byte all the same (no error, no exit status): only most of it is not coded.
    if matches!(mode, Mode::Compress(..))
        && !args.quiet
        && let Some(encoding) =
            chesszip::text::encoding::wide_encoding(input.fill_buf().map_err(|e| decode_context(e.into(), compression))?)
    {
        say!(
            "chesszip: {}: the text looks like {encoding}: it is kept byte for byte but mostly stored raw, not coded as games (iconv -f {encoding} -t UTF-8 first for chess coding)",
            source.name()
        );
    }
    // Only with -v: zstd and xz say nothing of what they read, and scripts want a quiet stderr.
    if let Some(c) = compression
        && args.verbose
    {
        let names = match &sink {
            Sink::File(p) | Sink::Device(p) => match text_name(p) {
                Some(text) => format!("; {} expands to {}", p.display(), text.display()),
                None => String::new(),
            },
            _ => String::new(),
        };
        // A name of another format's suffix (x.pgn.zst holding gzip data) is said, as the
        // archive's name drops that suffix all the same (see `archive_name`).
        let named = match source {
            Source::File(path) => match path.file_name().and_then(|n| n.to_str()).and_then(compression_suffix) {
                Some((named, suffix)) if named != c => format!(" (named {suffix}, for {named})"),
                _ => String::new(),
            },
            Source::Stdin => String::new(),
        };
        say!("chesszip: {}: {c}-compressed input{named}: the archive holds the text inside, not the {c} data{names}", source.name());
    }
    let total = match (mode, source) {
        (Mode::Compress(..), _) => len,
        // Only a regular file can be read twice (a FIFO's data would be split between readers);
        // and only for a bar that shows: finding a concatenation's raw members walks them,
        // each under --memlimit.
        (_, Source::File(path)) if fs::metadata(path).is_ok_and(|m| m.is_file()) && !args.quiet && io::stderr().is_terminal() => {
            File::open(path).ok().and_then(|f| chesszip::inspect::info_within(f, args.limits.limits().memlimit).ok()).map(|i| i.text_bytes)
        }
        _ => None,
    };
    let progress = Progress::new(&source.name(), total, !args.quiet);
    let started = Instant::now();
    let summary = (|| -> Result<_> {
        match &sink {
            Sink::Stdout => {
                let mut out = Labeled::new(BufWriter::with_capacity(1 << 16, status::stdout()), "writing (stdout)".into());
                let s = code(mode, input, &mut out, args, source, &progress)?;
                out.flush()?;
                Ok(s)
            }
            Sink::Discard => code(mode, input, io::sink(), args, source, &progress),
            Sink::Device(target) => {
                let mut out = open_device(target)?;
                let s = code(mode, input, &mut out, args, source, &progress)?;
                out.flush()?;
                Ok(s)
            }
            Sink::File(target) => {
                let mut pending = PendingFile::create(target, args.force, permissions)?;
                let s = code(mode, input, pending.writer(), args, source, &progress)?;
                pending.commit(modified)?;
                Ok(s)
            }
        }
    })()
    .map_err(|e| decode_context(e, compression))?;
    progress.finish();
    let (summary, incomplete) = summary;
    if args.verbose {
        report(mode, source, &sink, &summary, started.elapsed().as_secs_f64());
        // Zero padding dropped: one line, as `gzip -v` says "trailing zero bytes ignored".
        let dropped = match (mode, compression, padding) {
            (Mode::Compress(..), Some(c), Some(p)) => Some((p.bytes(), format!("the {c} data"))),
            (Mode::Expand | Mode::ExpandMovetext | Mode::Test, ..) => {
                Some((archive_read.get().saturating_sub(summary.archive_bytes), "the archive".to_string()))
            }
            _ => None,
        };
        if let Some((zeros, after)) = dropped.filter(|&(zeros, _)| zeros > 0) {
            say!("chesszip: {}: {} after {after} ignored (zero padding)", source.name(), counted(zeros, "zero byte"));
        }
    }
    match incomplete {
        Some(message) => Err(Skip(format!("{}: {message}", source.name())).into()),
        None => Ok(()),
    }
}

/// Runs the library on one input, `source`. Returns what it did, and a warning when the
/// output is not the whole input (games left out of a movetext conversion, damaged blocks
/// left out by salvage).
fn code(
    mode: Mode,
    input: impl BufRead,
    output: impl Write,
    args: &CommonArgs,
    source: &Source,
    progress: &Progress,
) -> Result<(Summary, Option<String>)> {
    let tick = |done| progress.set(done);
    let summary = match mode {
        Mode::Salvage => return salvage(input, output, args, source, &tick),
        Mode::Compress(opts, _) => chesszip::compress(input, output, &opts, &tick)?,
        Mode::Expand | Mode::Test => {
            chesszip::expand(input, output, &ExpandOptions { threads: args.threads, limits: args.limits.limits() }, &tick)?
        }
        Mode::ExpandMovetext => {
            let c =
                chesszip::convert::convert(input, output, &ExpandOptions { threads: args.threads, limits: args.limits.limits() }, &tick)?;
            let mut summary = Summary { text_bytes: c.bytes, archive_bytes: c.archive_bytes, ..Summary::default() };
            summary.stats.games = c.games;
            let warning = (c.skipped > 0).then(|| {
                let (what, verb) = if c.skipped == 1 { ("game or line", "was") } else { ("games or lines", "were") };
                format!(
                    "{} {what} could not be written as movetext (not standard chess from the initial position, or not games) and {verb} left out",
                    c.skipped
                )
            });
            return Ok((summary, warning));
        }
    };
    Ok((summary, None))
}

/// `expand --salvage` of one input: the archive read with `Seek` from the file itself when
/// `source` is a regular file, else as a stream, one member held at a time
/// ([`chesszip::expand_salvage_stream`]), unless its first [`STREAM_HEAD_LEN`] bytes already
/// show that it is no archive. Each damaged
/// block is reported on standard error as it is found in the result (even with -q: it is
/// text lost); the warning returned sums them up.
fn salvage(
    mut input: impl BufRead,
    output: impl Write,
    args: &CommonArgs,
    source: &Source,
    tick: &(dyn Fn(u64) + Sync),
) -> Result<(Summary, Option<String>)> {
    let opts = ExpandOptions { threads: args.threads, limits: args.limits.limits() };
    let file = match source {
        Source::File(path) if fs::metadata(path).is_ok_and(|m| m.is_file()) => Some(open_input(path)?),
        _ => None,
    };
    let result = match file {
        Some(file) => {
            drop(input);
            chesszip::expand_salvage(BufReader::with_capacity(1 << 16, file), output, &opts, tick)?
        }
        None => {
            // A stream is salvaged member by member, each held as it comes; but one whose
            // first 4 bytes start no member is no archive for salvage, whatever follows: the
            // library refuses it from its head alone, with the error it gives for the whole
            // stream, and the rest is never read (`< /dev/zero`).
            let mut bytes = Vec::new();
            input.by_ref().take(STREAM_HEAD_LEN as u64).read_to_end(&mut bytes)?;
            if bytes.len() >= 4
                && !chesszip::container::members::starts_member(&bytes)
                && let Err(e) = chesszip::expand_salvage(io::Cursor::new(&bytes), io::sink(), &opts, &|_| {})
            {
                return Err(e.into());
            }
            chesszip::expand_salvage_stream(io::Cursor::new(bytes).chain(input), output, &opts, tick)?
        }
    };
    for d in &result.damaged {
        say!("chesszip: {}: {}", source.name(), damaged_line(d));
    }
    let warning = (!result.is_complete()).then(|| {
        let n = result.damaged.len();
        let parts = if n == 1 { "1 damaged part was".to_string() } else { format!("{n} damaged parts were") };
        format!(
            "{parts} left out; {} of text written ({} in {})",
            counted(result.summary.text_bytes, "byte"),
            counted(result.summary.stats.lines, "line"),
            counted(result.summary.blocks, "block")
        )
    });
    Ok((result.summary, warning))
}

/// `e` with the way out where it is an error of compressed input's data (a damaged download,
/// text that only starts like bzip2): `--no-decompress` archives such a file as its bytes.
fn decode_context(e: anyhow::Error, compression: Option<Compression>) -> anyhow::Error {
    match compression {
        Some(c) if chesszip::compressed::is_decode_error(e.as_ref()) => {
            e.context(format!("the {c} data inside does not decode (--no-decompress archives the file as its bytes)"))
        }
        _ => e,
    }
}

/// Bytes read from an input, shared with the reader that counts them ([`Counting`]).
#[derive(Clone, Debug, Default)]
struct ReadCount(std::rc::Rc<std::cell::Cell<u64>>);

impl ReadCount {
    fn get(&self) -> u64 {
        self.0.get()
    }

    fn add(&self, n: usize) {
        self.0.set(self.0.get() + n as u64);
    }
}

/// A reader counting the bytes read or consumed from `inner` (an archive to expand: what the
/// archive's members do not account for is the zero padding after them).
struct Counting<R> {
    inner: R,
    count: ReadCount,
}

impl<R: Read> Read for Counting<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.count.add(n);
        Ok(n)
    }
}

impl<R: BufRead> BufRead for Counting<R> {
    fn fill_buf(&mut self) -> io::Result<&[u8]> {
        self.inner.fill_buf()
    }

    fn consume(&mut self, amount: usize) {
        self.count.add(amount);
        self.inner.consume(amount);
    }
}

/// The message for one part that salvage left out.
fn damaged_line(d: &chesszip::DamagedBlock) -> String {
    let range = format!("archive bytes {}..{}", d.archive_range.start, d.archive_range.end);
    let lines = match (d.first_line, d.lines) {
        (Some(first), Some(0)) => format!("no lines, after line {first}"),
        (Some(first), Some(n)) => format!("lines {}..{} ({})", first + 1, first + n, counted(n, "line")),
        (Some(first), None) => format!("the lines from {} on", first + 1),
        (None, _) => "lines unknown".to_string(),
    };
    let games = d.games.map(|g| format!(", {}", counted(g, "game"))).unwrap_or_default();
    let member = if d.member > 0 { format!("member {}, ", d.member) } else { String::new() };
    if d.to_end {
        format!(
            "{member}block {} damaged: it and all after it left out (the index cannot locate the blocks after it): {lines}{games}, {range}: {}",
            d.block, d.error
        )
    } else {
        format!("{member}block {} damaged, left out: {lines}{games}, {range}: {}", d.block, d.error)
    }
}

/// `n` and `noun`, in the plural unless `n` is 1 ("1 game", "2 plies").
fn counted(n: u64, noun: &str) -> String {
    match (n, noun) {
        (1, _) => format!("1 {noun}"),
        (_, "ply") => format!("{n} plies"),
        _ => format!("{n} {noun}s"),
    }
}

/// An archive's size as a percentage of its text's, `12.34%`; `---` for an empty text (as
/// `xz -l`). The one spelling of `-v`, `-l` and `info`.
pub(super) fn ratio(archive: u64, text: u64) -> String {
    if text == 0 { "---".to_string() } else { format!("{:.2}%", 100.0 * archive as f64 / text as f64) }
}

/// The `-v` line for one input.
fn report(mode: Mode, source: &Source, sink: &Sink, s: &Summary, seconds: f64) {
    let bits = if s.stats.plies == 0 { String::new() } else { format!(", {:.3} bits/ply", s.bits_per_ply()) };
    let what = format!("{}, {}{bits}, {seconds:.2} s", counted(s.stats.games, "game"), counted(s.stats.plies, "ply"));
    match mode {
        Mode::Compress(opts, _) => say!(
            "{}: {} -> {} bytes ({}), level {}, {what} -> {}",
            source.name(),
            s.text_bytes,
            s.archive_bytes,
            ratio(s.archive_bytes, s.text_bytes),
            opts.level,
            sink.name()
        ),
        Mode::Expand | Mode::ExpandMovetext | Mode::Salvage => {
            say!("{}: {} -> {} bytes, {what} -> {}", source.name(), s.archive_bytes, s.text_bytes, sink.name())
        }
        Mode::Test => say!("{}: OK, {} bytes of text, {what}", source.name(), s.text_bytes),
    }
}

/// What an input that should be an archive looks like instead, from its first bytes `head`
/// (as many as one read gave): `None` if it starts like an archive (or is empty, or is
/// nothing recognisable: the library then says what is wrong).
pub fn not_an_archive(head: &[u8], source: &Source) -> Option<String> {
    let starts = |magic: &[u8]| {
        let n = head.len().min(magic.len());
        head[..n] == magic[..n]
    };
    // The block container's magic, or the whole-input raw form's.
    if head.is_empty() || starts(&chesszip::container::format::MAGIC) || starts(&chesszip::container::raw::RAW_MAGIC) {
        return None;
    }
    let compressed = chesszip::compressed::Compression::detect(head).or(match head {
        // bzip2's stricter signature needs 10 bytes; a short read may give fewer.
        [b'B', b'Z', b'h', b'1'..=b'9', ..] => Some(chesszip::compressed::Compression::Bzip2),
        _ => None,
    });
    if let Some(c) = compressed {
        return Some(format!("it looks like {} data: try `{} -d`", c.name(), c.name()));
    }
    if looks_like_text(head) {
        let file = match source {
            Source::File(p) => p.display().to_string(),
            Source::Stdin => "FILE".into(),
        };
        return Some(format!("it looks like text: compress it with `chesszip {file}`"));
    }
    None
}

/// Whether `head` is UTF-8 text (a character cut at its end allowed) without control
/// characters other than tab, line feed, form feed and carriage return.
fn looks_like_text(head: &[u8]) -> bool {
    let head = &head[..head.len().min(4096)];
    let valid = match std::str::from_utf8(head) {
        Ok(s) => s,
        // A character cut by the end of the read.
        Err(e) if e.error_len().is_none() && e.valid_up_to() > 0 => std::str::from_utf8(&head[..e.valid_up_to()]).expect("valid prefix"),
        Err(_) => return false,
    };
    valid.chars().all(|c| !c.is_control() || matches!(c, '\t' | '\n' | '\x0c' | '\r'))
}

/// Reads all of standard input (for commands that need to seek in an archive), after
/// [`read_stream_archive`]'s check of its first bytes.
pub fn read_stdin_archive(force: bool) -> Result<io::Cursor<Vec<u8>>> {
    if io::stdin().is_terminal() && !force {
        return Err(anyhow!("refusing to read an archive from a terminal"));
    }
    read_stream_archive(io::stdin().lock(), &Source::Stdin, "reading (stdin)")
}

/// Bytes of a stream [`read_stream_archive`] checks before reading the rest: as many as
/// [`not_an_archive`] looks at, and more than any file header (24 bytes for the block
/// container, at most 29 for the raw form).
const STREAM_HEAD_LEN: usize = 4096;

/// Reads a stream that cannot seek (standard input, a FIFO, a device) into memory for the
/// commands that seek in an archive (`info`, `-l`, `extract`), refusing it after its first
/// [`STREAM_HEAD_LEN`] bytes when they are no archive's start: `yes | chesszip -l` or
/// `chesszip info /dev/zero` fail at once, as `-t` does, instead of reading until memory runs
/// out. `context` names the reads in their errors (`reading (stdin)`).
///
/// # Errors
/// The reads' errors; "not a chesszip archive (...)" as [`not_an_archive`] says; the library's
/// error for a file header that is wrong (magic, checksum, version), as `-t` reports it.
pub fn read_stream_archive(mut input: impl Read, source: &Source, context: &str) -> Result<io::Cursor<Vec<u8>>> {
    let mut bytes = Vec::new();
    input.by_ref().take(STREAM_HEAD_LEN as u64).read_to_end(&mut bytes).context(context.to_string())?;
    check_stream_head(&bytes, source)?;
    input.read_to_end(&mut bytes).context(context.to_string())?;
    Ok(io::Cursor::new(bytes))
}

/// Refuses a stream whose first bytes `head` are no archive's start. A `head` shorter than
/// [`STREAM_HEAD_LEN`] is the whole input: only [`not_an_archive`] looks at it, and the library
/// then says what is wrong, as before.
fn check_stream_head(head: &[u8], source: &Source) -> Result<()> {
    use chesszip::container::{format::FileHeader, raw::RAW_MAGIC, raw::RawHeader};
    if let Some(what) = not_an_archive(head, source) {
        bail!("not a chesszip archive ({what})");
    }
    if head.len() < STREAM_HEAD_LEN {
        return Ok(());
    }
    if head.starts_with(&RAW_MAGIC) {
        RawHeader::read(&mut &head[..])?;
    } else {
        let header: &[u8; FileHeader::LEN] = head[..FileHeader::LEN].try_into().expect("a full head holds a file header");
        FileHeader::parse(header)?;
    }
    Ok(())
}
