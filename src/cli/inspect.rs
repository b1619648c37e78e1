//! `info` and `extract`: reading archives through their index.

use std::fs::File;
use std::io::{self, BufWriter, Read, Seek, Write};
use std::path::{Path, PathBuf};

use anyhow::{Context, Result, bail};

use chesszip::{ArchiveInfo, InputFormat};

use super::args::{ExtractArgs, InfoArgs};
use super::codec::{not_an_archive, ratio, read_stdin_archive, read_stream_archive};
use super::labeled::Labeled;
use super::status::{self, Status, describe, error, is_broken_pipe, warning};
use super::target::Source;

/// An archive opened for seeking: a regular file, or standard input, a FIFO or a device read
/// into memory (they cannot seek) once their first bytes look like an archive's.
fn open(source: &Source) -> Result<Box<dyn ReadSeek>> {
    Ok(match source {
        Source::Stdin => Box::new(read_stdin_archive(false)?),
        Source::File(path) => {
            let file = open_file(path)?;
            if file.metadata().is_ok_and(|m| m.is_file()) {
                Box::new(file)
            } else {
                Box::new(read_stream_archive(file, source, "reading")?)
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

/// [`open`], for `info`, `-l` and `extract`: an input that is no archive is said to be what it
/// looks like (text, gzip data, ...), as `-d` and `-t` say, rather than only "wrong magic
/// bytes".
fn open_archive(source: &Source) -> Result<Box<dyn ReadSeek>> {
    let mut archive = open(source)?;
    let mut head = Vec::with_capacity(4096);
    archive.by_ref().take(4096).read_to_end(&mut head).context("reading")?;
    if let Some(what) = not_an_archive(&head, source) {
        bail!("not a chesszip archive ({what})");
    }
    archive.rewind().context("reading")?;
    Ok(archive)
}

/// A directory among `info`'s or `-l`'s inputs is skipped with a warning (exit status 2), as
/// `-d`, `-t`, `gzip -l` and `xz -l` skip one; `None` for anything else.
fn skip_directory(source: &Source, quiet: bool) -> Option<Status> {
    match source {
        Source::File(path) if path.is_dir() => Some(warning(quiet, format_args!("{}: is a directory -- ignored", path.display()))),
        _ => None,
    }
}

/// What [`open`] returns.
trait ReadSeek: Read + Seek {}
impl<T: Read + Seek> ReadSeek for T {}

/// Prints the statistics of each archive.
/// Reads level 10's weights, if given, before any archive: the library then finds them by the
/// sha256 an archive names.
fn load_weights(path: Option<&Path>) -> Result<(), chesszip::Error> {
    match path {
        Some(p) => chesszip::model::transformer::Weights::load(p).map(|_| ()),
        None => Ok(()),
    }
}

pub fn info(args: &InfoArgs) -> Status {
    if let Err(e) = load_weights(args.weights.as_deref()) {
        return error(e);
    }
    let mut status = Status::Success;
    let mut out = status::stdout();
    for (i, file) in args.files.iter().enumerate() {
        let source = Source::from_arg(file);
        if let Some(skipped) = skip_directory(&source, args.quiet) {
            status = status.max(skipped);
            continue;
        }
        match open_archive(&source).and_then(|f| Ok(chesszip::inspect::info_members_within(f, args.memlimit)?)) {
            Ok(members) => {
                let written = if i > 0 { writeln!(out) } else { Ok(()) };
                let info = ArchiveInfo::sum(&members);
                let written = written.and_then(|()| write_info(&mut out, &source.name(), &info, &members));
                match written.and_then(|()| write_members(&mut out, &members)) {
                    Ok(()) => {}
                    Err(e) if e.kind() == io::ErrorKind::BrokenPipe => status::broken_pipe(),
                    // The output is lost: no use going on.
                    Err(e) => return error(format_args!("writing (stdout): {e}")),
                }
            }
            Err(e) => status = status.max(error(format_args!("{}: {}", source.name(), describe(&e)))),
        }
    }
    status
}

/// `-l`: a line for each archive and, for several, a total, as `xz -l` prints; `memlimit` as
/// `info --memlimit`.
pub fn list(files: &[PathBuf], quiet: bool, memlimit: Option<u64>) -> Status {
    let stdin = [PathBuf::from("-")];
    let files = if files.is_empty() { &stdin[..] } else { files };
    let mut status = Status::Success;
    let mut out = status::stdout();
    let mut total = Totals::default();
    // The header comes with the first line: none when no file is an archive (as xz -l).
    let mut header = false;
    let mut result = Ok(());
    for file in files {
        if result.is_err() {
            break;
        }
        let source = Source::from_arg(file);
        if let Some(skipped) = skip_directory(&source, quiet) {
            status = status.max(skipped);
            continue;
        }
        match open_archive(&source).and_then(|f| Ok(chesszip::inspect::info_members_within(f, memlimit)?)) {
            Ok(members) => {
                let info = ArchiveInfo::sum(&members);
                let mut levels = members.iter().map(level_name);
                let first = levels.next().unwrap_or_default();
                let level = if levels.all(|l| l == first) { first } else { "-".to_string() };
                total.add(&level, &info);
                result = list_header(&mut out, &mut header);
                result = result.and_then(|()| {
                    list_line(&mut out, info.games, info.plies, &level, info.archive_bytes, info.text_bytes, &source.name())
                });
            }
            Err(e) => status = status.max(error(format_args!("{}: {}", source.name(), describe(&e)))),
        }
    }
    if files.len() > 1 && total.files > 0 && result.is_ok() {
        let name = format!("total ({} of {} files)", total.files, files.len());
        let name = if total.files == files.len() { format!("total ({} files)", files.len()) } else { name };
        let level = total.level.as_deref().unwrap_or("-");
        result = list_line(&mut out, total.games, total.plies, level, total.archive_bytes, total.text_bytes, &name);
    }
    match result.and_then(|()| out.flush()) {
        Ok(()) => status,
        Err(e) if e.kind() == io::ErrorKind::BrokenPipe => status::broken_pipe(),
        Err(e) => error(format_args!("writing (stdout): {e}")),
    }
}

/// The sums of `-l`'s total line.
#[derive(Default)]
struct Totals {
    files: usize,
    games: u64,
    plies: u64,
    archive_bytes: u64,
    text_bytes: u64,
    /// The level of every archive, or `-` where they differ.
    level: Option<String>,
}

impl Totals {
    fn add(&mut self, level: &str, i: &ArchiveInfo) {
        self.level = match (self.files, self.level.take()) {
            (0, _) => Some(level.to_string()),
            (_, Some(l)) if l == level => Some(l),
            _ => Some("-".into()),
        };
        self.files += 1;
        // Saturating, as `ArchiveInfo::sum`: a forged archive may claim any count.
        self.games = self.games.saturating_add(i.games);
        self.plies = self.plies.saturating_add(i.plies);
        self.archive_bytes = self.archive_bytes.saturating_add(i.archive_bytes);
        self.text_bytes = self.text_bytes.saturating_add(i.text_bytes);
    }
}

/// `-l`'s header line, once, before its first line.
fn list_header(out: &mut impl Write, written: &mut bool) -> io::Result<()> {
    if std::mem::replace(written, true) {
        return Ok(());
    }
    writeln!(out, "{:>10} {:>12} {:>5} {:>14} {:>14} {:>8}  file", "games", "plies", "level", "compressed", "uncompressed", "ratio")
}

fn list_line(out: &mut impl Write, games: u64, plies: u64, level: &str, archive: u64, text: u64, name: &str) -> io::Result<()> {
    let ratio = ratio(archive, text);
    writeln!(out, "{games:>10} {plies:>12} {level:>5} {archive:>14} {text:>14} {ratio:>8}  {name}")
}

/// The level column of `-l`: the level, or `raw` for the raw form.
fn level_name(i: &ArchiveInfo) -> String {
    match i.raw {
        Some(_) => "raw".to_string(),
        None => i.header.level.to_string(),
    }
}

/// `info`'s lines for the members of a concatenated archive (none for a single archive).
fn write_members(out: &mut impl Write, members: &[ArchiveInfo]) -> io::Result<()> {
    if members.len() < 2 {
        return Ok(());
    }
    writeln!(out, "members:        {}", members.len())?;
    for (m, i) in members.iter().enumerate() {
        let form = match i.raw {
            Some(codec) => format!("raw ({})", codec.name()),
            None => format!("level {}", i.header.level),
        };
        let format = match i.header.format {
            InputFormat::Pgn => "pgn",
            InputFormat::Movetext => "movetext",
        };
        let refs = if i.references > 0 { format!(" ({} references)", i.references) } else { String::new() };
        // A member that cannot be expanded says why (the header lines cannot: they describe all).
        let model = if i.raw.is_none() && !i.model_available {
            format!(", model {:016x}: {}", i.header.model_id, model_status(i))
        } else {
            String::new()
        };
        writeln!(
            out,
            "member {m}:{:pad$}{format}, {form}, {} games{refs}, {} plies, {} lines, {} blocks, {} text bytes, {} archive bytes{model}",
            "",
            i.games,
            i.plies,
            i.lines,
            i.blocks,
            i.text_bytes,
            i.archive_bytes,
            pad = 8usize.saturating_sub(m.to_string().len()),
        )?;
    }
    out.flush()
}

/// Whether the model of a block container's info `i` is there to expand it, and if not why.
fn model_status(i: &ArchiveInfo) -> String {
    match (i.model_available, i.header.weights) {
        (true, None) => "included in this build".to_string(),
        (true, Some(_)) => "level 10, with the transformer weights given".to_string(),
        (false, Some(w)) => format!(
            "level 10: needs the transformer weights of sha256 {} (of the .onnx bytes followed by its data file's: \
             `cat f.onnx f.onnx.data | sha256sum`; --weights FILE or CHESSZIP_WEIGHTS)",
            w.iter().map(|b| format!("{b:02x}")).collect::<String>()
        ),
        (false, None) => "NOT included in this build: cannot expand".to_string(),
    }
}

/// `values` (in order, each once): the one value, or `mixed: a, b` where they differ.
fn one_or_mixed(values: impl IntoIterator<Item = String>) -> String {
    let mut distinct: Vec<String> = Vec::new();
    for v in values {
        if !distinct.contains(&v) {
            distinct.push(v);
        }
    }
    match &distinct[..] {
        [one] => one.clone(),
        _ => format!("mixed: {}", distinct.join(", ")),
    }
}

/// `info`'s level, model and coding lines of a concatenation (`members`, at least two): the
/// value the members share, else each one once, "mixed" (the first member's header alone would
/// describe the others wrongly; the member lines say which is which).
fn write_members_header(out: &mut impl Write, members: &[ArchiveInfo]) -> io::Result<()> {
    let containers: Vec<&ArchiveInfo> = members.iter().filter(|m| m.raw.is_none()).collect();
    let Some(first) = containers.first() else {
        return writeln!(out, "form:           raw, each member the whole of its input as one stream");
    };
    let see = |v: String| if v.starts_with("mixed") { format!("{v} (see the members)") } else { v };
    writeln!(out, "level:          {}", see(one_or_mixed(members.iter().map(level_name))))?;
    let models = one_or_mixed(containers.iter().map(|m| format!("{:016x}", m.header.model_id)));
    let status = if containers.iter().all(|m| (m.header.model_id, m.header.weights) == (first.header.model_id, first.header.weights)) {
        model_status(first)
    } else if containers.iter().all(|m| m.model_available) {
        "all included in this build or given".to_string()
    } else {
        "not all there to expand them: see the members".to_string()
    };
    writeln!(out, "model id:       {models} ({status})")?;
    writeln!(out, "coding:         {}", see(one_or_mixed(containers.iter().map(|m| (m.header.coding as u8).to_string()))))
}

fn write_info(out: &mut impl Write, name: &str, i: &ArchiveInfo, members: &[ArchiveInfo]) -> io::Result<()> {
    let model = model_status(i);
    writeln!(out, "file:           {name}")?;
    if i.raw.is_some() {
        // The raw form stores the text as it is: its games are counted in the text (as extract
        // counts them), none was coded as moves.
        writeln!(out, "games:          {} (raw form: none coded as moves)", i.games)?;
    } else {
        writeln!(out, "games:          {}", i.games)?;
        if i.references > 0 {
            writeln!(out, "references:     {} (games coded as copies of earlier ones)", i.references)?;
        }
    }
    writeln!(out, "raw lines:      {}", i.raw_lines)?;
    writeln!(out, "lines:          {}", i.lines)?;
    if i.references > 0 {
        writeln!(out, "plies:          {} (of the games coded as moves)", i.plies)?;
    } else {
        writeln!(out, "plies:          {}", i.plies)?;
    }
    writeln!(out, "blocks:         {}", i.blocks)?;
    if members.len() > 1 {
        write_members_header(out, members)?;
    } else if let Some(codec) = i.raw {
        writeln!(out, "form:           raw ({}), the whole input as one stream", codec.name())?;
    } else {
        writeln!(out, "level:          {}", i.header.level)?;
        writeln!(out, "model id:       {:016x} ({model})", i.header.model_id)?;
        writeln!(out, "coding:         {}", i.header.coding as u8)?;
    }
    writeln!(out, "text bytes:     {}", i.text_bytes)?;
    writeln!(out, "archive bytes:  {}", i.archive_bytes)?;
    writeln!(out, "ratio:          {}", ratio(i.archive_bytes, i.text_bytes))?;
    // Every byte of the archive over the plies: in a PGN archive that includes the tags,
    // comments and layout, which the archive does not record apart from the moves.
    let whole = match i.header.format {
        InputFormat::Pgn if i.raw.is_none() => "whole archive: tags, comments and layout included",
        _ => "whole archive",
    };
    if i.plies == 0 {
        writeln!(out, "bits per ply:   - (no plies)")?;
    } else {
        writeln!(out, "bits per ply:   {:.4} ({whole})", i.bits_per_ply())?;
    }
    if i.games > 0 && i.raw.is_none() {
        writeln!(out, "bits per game:  {:.1} ({whole})", 8.0 * i.archive_bytes as f64 / i.games as f64)?;
    }
    out.flush()
}

/// Prints the chosen lines of an archive.
pub fn extract(args: &ExtractArgs) -> Status {
    if let Err(e) = load_weights(args.weights.as_deref()) {
        return error(e);
    }
    let source = Source::from_arg(&args.file);
    match extract_one(args, &source) {
        Ok(status) => status,
        Err(e) if is_broken_pipe(&e) => status::broken_pipe(),
        Err(e) => error(format_args!("{}: {}", source.name(), describe(&e))),
    }
}

/// `extract --tags`: the tag sections of every game, or of the games `--game` names.
fn extract_tags(args: &ExtractArgs, archive: Box<dyn ReadSeek>, mut out: impl Write) -> Result<Status> {
    let opts = chesszip::ExpandOptions { threads: args.threads, limits: args.limits.limits() };
    let (first, last) = args.games.map_or((1, u64::MAX), |s| (s.first, s.last.unwrap_or(u64::MAX)));
    let mut tags = chesszip::GameTags::open_with(archive, &opts)?;
    let mut n = 0;
    while let Some(game) = tags.next_tags()? {
        n += 1;
        if n < first {
            continue;
        }
        for (name, value) in &game {
            out.write_all(b"[")?;
            out.write_all(name)?;
            out.write_all(b" \"")?;
            out.write_all(value)?;
            out.write_all(b"\"]\n")?;
        }
        out.write_all(b"\n")?;
        if n == last {
            break;
        }
    }
    out.flush()?;
    if n < first && args.games.is_some() {
        bail!("cannot extract game {first}: the archive holds {n} games");
    }
    Ok(Status::Success)
}

fn extract_one(args: &ExtractArgs, source: &Source) -> Result<Status> {
    let mut archive = open_archive(source)?;
    let out = Labeled::new(BufWriter::with_capacity(1 << 16, status::stdout()), "writing (stdout)".into());
    if args.tags {
        return extract_tags(args, archive, out);
    }
    let (spec, what, written, total) = match (args.games, args.lines) {
        (Some(spec), _) => {
            let last = spec.last.unwrap_or(u64::MAX);
            let opts = chesszip::ExpandOptions { threads: args.threads, limits: args.limits.limits() };
            let written = chesszip::extract_games_with(&mut archive, spec.first..=last, out, &opts)?;
            let wanted = last - spec.first + 1;
            // Fewer games than asked: the archive ends at game first + written - 1, unless it
            // holds none of them (then count them).
            let total = match written {
                0 => chesszip::count_games_with(&mut archive, &opts)?,
                _ if written < wanted => spec.first + written - 1,
                _ => return Ok(Status::Success),
            };
            (spec, "games", written, total)
        }
        (None, Some(spec)) => {
            let opts = chesszip::ExpandOptions { threads: args.threads, limits: args.limits.limits() };
            let lines = chesszip::inspect::info_within(&mut archive, opts.limits.memlimit)?.lines;
            let last = spec.last.unwrap_or(lines);
            if spec.first > lines {
                bail!("cannot extract line {}: the archive holds {lines} lines", spec.first);
            }
            let written = chesszip::extract_lines_with(&mut archive, spec.first..=last, out, &opts)?;
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
