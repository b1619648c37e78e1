//! `info` and `extract`: reading archives through their index.

use std::fs::File;
use std::io::{self, BufWriter, Read, Seek, Write};
use std::path::Path;

use anyhow::{Context, Result, bail};

use chesszip::ArchiveInfo;

use super::args::{ExtractArgs, InfoArgs};
use super::codec::read_stdin_archive;
use super::labeled::Labeled;
use super::status::{self, Status, describe, error, is_broken_pipe, warning};
use super::target::Source;

/// An archive opened for seeking: a regular file, or standard input, a FIFO or a device read
/// into memory (they cannot seek).
fn open(source: &Source) -> Result<Box<dyn ReadSeek>> {
    Ok(match source {
        Source::Stdin => Box::new(read_stdin_archive(false)?),
        Source::File(path) => {
            let mut file = open_file(path)?;
            if file.metadata().is_ok_and(|m| m.is_file()) {
                Box::new(file)
            } else {
                let mut bytes = Vec::new();
                file.read_to_end(&mut bytes).context("reading")?;
                Box::new(io::Cursor::new(bytes))
            }
        }
    })
}

fn open_file(path: &Path) -> Result<File> {
    if path.is_dir() {
        bail!("is a directory");
    }
    File::open(path).context("cannot open")
}

/// What [`open`] returns.
trait ReadSeek: Read + Seek {}
impl<T: Read + Seek> ReadSeek for T {}

/// Prints the statistics of each archive.
pub fn info(args: &InfoArgs) -> Status {
    let mut status = Status::Success;
    let mut out = status::stdout();
    for (i, file) in args.files.iter().enumerate() {
        let source = Source::from_arg(file);
        match open(&source).and_then(|f| Ok(chesszip::info(f)?)) {
            Ok(info) => {
                let written = if i > 0 { writeln!(out) } else { Ok(()) };
                match written.and_then(|()| write_info(&mut out, &source.name(), &info)) {
                    Ok(()) => {}
                    Err(e) if e.kind() == io::ErrorKind::BrokenPipe => return status,
                    // The output is lost: no use going on.
                    Err(e) => return error(format_args!("writing (stdout): {e}")),
                }
            }
            Err(e) => status = status.max(error(format_args!("{}: {}", source.name(), describe(&e)))),
        }
    }
    status
}

fn write_info(out: &mut impl Write, name: &str, i: &ArchiveInfo) -> io::Result<()> {
    let model = if i.model_available { "included in this build" } else { "NOT included in this build: cannot expand" };
    writeln!(out, "file:           {name}")?;
    if i.raw.is_some() {
        // The raw form stores the text as it is: nothing was coded as games (extract counts them).
        writeln!(out, "games:          {} (raw form: none coded as moves)", i.games)?;
    } else {
        writeln!(out, "games:          {}", i.games)?;
    }
    writeln!(out, "raw lines:      {}", i.raw_lines)?;
    writeln!(out, "lines:          {}", i.lines)?;
    writeln!(out, "plies:          {}", i.plies)?;
    writeln!(out, "blocks:         {}", i.blocks)?;
    if let Some(codec) = i.raw {
        writeln!(out, "form:           raw ({}), the whole input as one stream", codec.name())?;
    } else {
        writeln!(out, "level:          {}", i.header.level)?;
        writeln!(out, "model id:       {:016x} ({model})", i.header.model_id)?;
        writeln!(out, "coding:         {}", i.header.coding as u8)?;
    }
    writeln!(out, "text bytes:     {}", i.text_bytes)?;
    writeln!(out, "archive bytes:  {}", i.archive_bytes)?;
    writeln!(out, "ratio:          {:.2}%", 100.0 * i.archive_bytes as f64 / i.text_bytes.max(1) as f64)?;
    if i.plies == 0 {
        writeln!(out, "bits per ply:   - (no plies)")?;
    } else {
        writeln!(out, "bits per ply:   {:.4}", i.bits_per_ply())?;
    }
    out.flush()
}

/// Prints the chosen lines of an archive.
pub fn extract(args: &ExtractArgs) -> Status {
    let source = Source::from_arg(&args.file);
    match extract_one(args, &source) {
        Ok(status) => status,
        Err(e) if is_broken_pipe(&e) => Status::Success,
        Err(e) => error(format_args!("{}: {}", source.name(), describe(&e))),
    }
}

fn extract_one(args: &ExtractArgs, source: &Source) -> Result<Status> {
    let mut archive = open(source)?;
    let out = Labeled::new(BufWriter::with_capacity(1 << 16, status::stdout()), "writing (stdout)".into());
    let (spec, what, written, total) = match (args.games, args.lines) {
        (Some(spec), _) => {
            let last = spec.last.unwrap_or(u64::MAX);
            let written = chesszip::extract_games(&mut archive, spec.first..=last, out, args.threads)?;
            let wanted = last - spec.first + 1;
            // Fewer games than asked: the archive ends at game first + written - 1, unless it
            // holds none of them (then count them).
            let total = match written {
                0 => chesszip::count_games(&mut archive, args.threads)?,
                _ if written < wanted => spec.first + written - 1,
                _ => return Ok(Status::Success),
            };
            (spec, "games", written, total)
        }
        (None, Some(spec)) => {
            let lines = chesszip::info(&mut archive)?.lines;
            let last = spec.last.unwrap_or(lines);
            if spec.first > lines {
                bail!("cannot extract line {}: the archive holds {lines} lines", spec.first);
            }
            let written = chesszip::extract_lines(&mut archive, spec.first..=last, out, args.threads)?;
            if last <= lines {
                return Ok(Status::Success);
            }
            (spec, "lines", written, lines)
        }
        (None, None) => bail!("say which games (--game) or lines (--line) to print"),
    };
    if written == 0 {
        bail!("cannot extract {} {}: the archive holds {total} {what}", &what[..what.len() - 1], spec.first);
    }
    if spec.last.is_none() {
        return Ok(Status::Success);
    }
    Ok(warning(args.quiet, format_args!("{}: the archive holds {total} {what}; printed {what} {}..{total}", source.name(), spec.first)))
}
