//! [`expand_salvage`]: expanding what can be expanded of a damaged archive, every sound block
//! written and every damaged part reported ([`Salvage`], [`DamagedBlock`]), member by member
//! in a concatenated archive.

use std::io::{Read, Seek, SeekFrom, Write};
use std::ops::Range;
use std::sync::{Arc, Mutex};

use super::form;
use super::limits::Meter;
use super::options::{ExpandOptions, Progress, Summary};
use super::rounds::{Round, Rounds, round_len_within};
use crate::container::format::index_lines;
use crate::container::members;
use crate::container::raw;
use crate::container::{BlockHeader, EncodedBlock, IndexedReader, Reader};
use crate::error::Error;

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
    /// What is wrong, as the error of [`expand`](super::expand) says it.
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

    /// The archive (or member) of `archive_range` failed for the reason `error` after the text
    /// `written` (none, or that of the rounds of blocks or of the raw form before the failure)
    /// was written: that text counted in the summary, and the archive one damaged part, block
    /// 0, reaching the end, lost from the first line not written whole.
    pub(super) fn failed(archive_range: Range<u64>, error: String, written: Written) -> Salvage {
        let lost = DamagedBlock {
            member: 0,
            block: 0,
            lines: None,
            games: None,
            first_line: Some(written.line_feeds),
            archive_range,
            to_end: true,
            error,
        };
        let mut summary = Summary { text_bytes: written.bytes, ..Summary::default() };
        summary.stats.lines = written.line_feeds + written.partial_line as u64;
        Salvage { summary, damaged: vec![lost] }
    }
}

/// What a [`Counted`] writer has written: bytes, line feeds, and whether it ends inside a line.
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct Written {
    bytes: u64,
    line_feeds: u64,
    partial_line: bool,
}

/// A writer that counts what it writes ([`Written`]), so that the text a failed part wrote
/// before its failure is counted ([`Salvage::failed`]).
pub(super) struct Counted<W> {
    inner: W,
    /// What was written so far.
    pub(super) written: Written,
}

impl<W: Write> Counted<W> {
    /// `inner`, counted from now on.
    pub(super) fn new(inner: W) -> Self {
        Counted { inner, written: Written::default() }
    }
}

impl<W: Write> Write for Counted<W> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        let n = self.inner.write(buf)?;
        if n > 0 {
            let w = &mut self.written;
            w.bytes += n as u64;
            w.line_feeds += memchr::memchr_iter(b'\n', &buf[..n]).count() as u64;
            w.partial_line = buf[n - 1] != b'\n';
        }
        Ok(n)
    }

    fn flush(&mut self) -> std::io::Result<()> {
        self.inner.flush()
    }
}

/// Expands what can be expanded of a damaged archive: every block that checks out (its
/// header, index entry, checksums and counts, as [`expand`](super::expand) checks them) is written, in
/// order, and every damaged one is left out and listed in [`Salvage::damaged`]. An undamaged
/// archive gives what [`expand`](super::expand) gives.
///
/// The blocks are found through the index, so damage to one block does not hide the next. If
/// the footer or index is damaged, the blocks are read in order from the start instead, up to
/// the first damaged one: what follows cannot be located, and is reported as one part
/// reaching the end ([`DamagedBlock::to_end`]). The whole-input raw form has no blocks: its
/// text up to the damage is written (it is checked only as a whole), and the archive is
/// reported as one damaged part. Blocks are decoded in parallel rounds, as by [`expand`](super::expand).
///
/// The members of a concatenated archive are found by a walk from the start
/// ([`members::scan_from_start`]), never from the footer at the end, as
/// [`expand_salvage_stream`](super::expand_salvage_stream) must find them: a file and the same
/// bytes from a pipe give the same output and the same parts. Each member is salvaged as
/// above, its own index locating its blocks.
///
/// ```
/// use chesszip::{CompressOptions, ExpandOptions, Level, compress_bytes, expand_salvage};
///
/// let text = b"e4 e5 Nf3 1-0\nd4 d5 0-1\nc4 1/2-1/2\n";
/// let opts = CompressOptions { level: Level::MIN, block_lines: 1, raw_form: false, ..CompressOptions::default() };
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
/// nothing can be expanded (the file header is damaged, or names a model this build lacks);
/// [`Error::Weights`] or [`Error::Model`] when a level-10 archive, or member, needs transformer
/// weights that were not given or do not load (no damage: a salvage with them reads it).
pub fn expand_salvage<R: Read + Seek, W: Write>(
    mut input: R,
    mut output: W,
    opts: &ExpandOptions,
    progress: Progress<'_>,
) -> Result<Salvage, Error> {
    // The members a walk from the start finds, as a stream finds them: not the footer at the
    // end, which a stream reaches last.
    // Raw members are walked only where their decoder's window fits --memlimit.
    let found = members::scan_from_start_within(&mut input, opts.limits.memlimit)?;
    if found.len() == 1 {
        return salvage_member(input, output, opts, progress);
    }
    let mut salvage = Salvage::default();
    let mut lines_before = Some(0u64);
    let shared = Arc::new(Mutex::new(input));
    for (m, member) in found.iter().enumerate() {
        let mut window = members::Window::new(Arc::clone(&shared), member.range.clone());
        let start = member.range.start;
        if member.kind == members::MemberKind::Garbage {
            if m + 1 == found.len() && members::rest_is_zeros(&mut std::io::BufReader::new(&mut window))? {
                break; // zero padding after the last member, ignored as by the other readers
            }
            add_garbage(&mut salvage, m as u64, member.range.clone(), &mut lines_before);
            continue;
        }
        let base = salvage.summary.text_bytes;
        let mut out = Counted::new(&mut output);
        let part = match salvage_member(&mut window, &mut out, opts, &|n| progress(base + n)) {
            Ok(part) => part,
            Err(e) if not_damage(&e) => return Err(e),
            Err(e) => Salvage::failed(0..member.range.end - start, inner_message(e), out.written),
        };
        let lines = member_lines(&mut window, &part);
        add_member(&mut salvage, part, m as u64, start, lines, &mut lines_before);
    }
    salvage.summary.archive_bytes = found.last().map_or(0, |m| m.range.end);
    output.flush()?;
    Ok(salvage)
}

/// Adds `part`, the salvage of member `m` starting at archive byte `start` and holding
/// `lines` lines of text when known, to `salvage`: its parts numbered and placed in the whole
/// input, and `lines_before` (the lines of the members before, when known) moved past it.
pub(super) fn add_member(salvage: &mut Salvage, part: Salvage, m: u64, start: u64, lines: Option<u64>, lines_before: &mut Option<u64>) {
    for mut d in part.damaged {
        d.member = m;
        d.archive_range = d.archive_range.start + start..d.archive_range.end + start;
        d.first_line = d.first_line.zip(*lines_before).map(|(a, b)| a + b);
        salvage.damaged.push(d);
    }
    salvage.summary.add_member(&part.summary);
    *lines_before = lines_before.zip(lines).map(|(a, b)| a + b);
}

/// Adds the bytes of `range`, member `m`'s place, which start no member, to `salvage` as one
/// damaged part; the lines after it are no longer known.
pub(super) fn add_garbage(salvage: &mut Salvage, m: u64, range: Range<u64>, lines_before: &mut Option<u64>) {
    salvage.damaged.push(DamagedBlock {
        member: m,
        block: 0,
        lines: None,
        games: None,
        first_line: *lines_before,
        archive_range: range,
        to_end: false,
        error: members::trailing_garbage().to_string(),
    });
    *lines_before = None;
}

/// Lines of text in the member read by `window`, when known: from a container's index, or
/// from a raw member expanded whole.
pub(super) fn member_lines<R: Read + Seek>(window: &mut R, part: &Salvage) -> Option<u64> {
    if raw::starts_raw(window).ok()? {
        return part.is_complete().then_some(part.summary.stats.lines);
    }
    Some(index_lines(IndexedReader::open_index(window).ok()?.entries()))
}

/// [`expand_salvage`] of an archive of one member.
pub(super) fn salvage_member<R: Read + Seek, W: Write>(
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
        // Its text up to the damage is written (and counted).
        let mut out = Counted::new(output);
        return match form::expand(std::io::BufReader::new(input), &mut out, &opts.limits, progress) {
            Err(e @ Error::DecodeLimit { .. }) => Err(e),
            Ok(summary) => Ok(Salvage { summary, damaged: Vec::new() }),
            Err(Error::Io(e)) => Err(Error::Io(e)),
            Err(e) => Ok(Salvage::failed(0..file_len, e.to_string(), out.written)),
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
    let mut rounds = Rounds::new(*reader.header(), opts)?;
    let count = reader.entries().len();
    let mut salvage = Salvage::default();
    salvage.summary.archive_bytes = file_len;
    let mut first_line = 0u64;
    let mut n = 0;
    let mut meter = Meter::new(opts.limits);
    while n < count {
        let len = round_len_within(reader.entries()[n..].iter().map(|e| e.text_len), rounds.batch, rounds.round_max);
        let blocks: Vec<Result<(BlockHeader, EncodedBlock), Error>> = (n..n + len).map(|i| reader.read_block(i)).collect();
        // A limit is the caller's, not damage: it stops the salvage as it stops `expand`.
        for (i, b) in blocks.iter().enumerate() {
            if let Ok((h, _)) = b {
                meter.admit((n + i) as u64, h, reader.block_range(n + i).end)?;
            }
        }
        let texts = rounds.decode_round(n as u64, &blocks, |b| b.as_ref().map_err(|e| Error::Corrupt(e.to_string())));
        for (i, (block, text)) in blocks.into_iter().zip(texts).enumerate() {
            let b = n + i;
            let entry = reader.entries()[b];
            let text = rounds.resolve(text);
            if text.is_err() {
                rounds.skip(entry.line_feeds(), entry.partial_line);
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

/// Whether `e`, met salvaging a member of a concatenation, is no damage of the archive but the
/// caller's to mend, so that it stops the salvage as it stops [`super::expand`] (and a salvage
/// of a single archive): reading or writing failed, or a level-10 member's transformer weights
/// were not given or do not load. Left out as "damaged", such a member was reported as damage
/// that no archive had.
pub(super) fn not_damage(e: &Error) -> bool {
    matches!(e, Error::Io(_) | Error::Weights(_) | Error::Model { .. })
}

/// The message of `e` without the "corrupt archive: " its display starts with (the messages
/// of read errors carried into a decoding error would repeat it).
pub(super) fn inner_message(e: Error) -> String {
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
    let mut rounds = Rounds::new(header, opts)?;
    let mut salvage = Salvage::default();
    let mut offset = header.encoded_len() as u64;
    let mut first_line = 0u64;
    let mut meter = Meter::new(opts.limits);
    loop {
        let first = reader.blocks_read();
        let Round { blocks, mut failed } = rounds.read_round(&mut reader, &mut meter)?;
        let texts = rounds.decode_round(first, &blocks, |b| Ok(b));
        for ((h, b), text) in blocks.iter().zip(texts) {
            let text = match rounds.resolve(text) {
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
