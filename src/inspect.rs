//! Reading an archive without expanding all of it: its statistics from the index alone
//! ([`info`]), chosen lines of the input by decoding only the blocks that hold them
//! ([`extract_lines`]), and chosen games ([`extract_games`], [`count_games`]).
//!
//! # Games of a PGN archive
//! A game is what [`crate::pgn::lexer::split_games`] cuts from the whole input: from a line
//! that starts a game (a tag line after moves, or moves after a result) to the next one, the
//! blank lines after it included, so that the games of an input, put together, are the input.
//! The first game starts at the first byte; a UTF-8 BOM there belongs to it and does not make a
//! game of its own ([`crate::pgn::lexer::GameSplitter::reading`]), although the compressor,
//! which cuts by the older rule, coded and counted its line as one. Only the text tells, but its
//! first piece is enough ([`crate::pgn::codec::may_start_with_bom`], one game's decode): when
//! the text starts with a BOM, the first run is decoded in a round of its own, and holds the
//! second block too when the first holds one piece only (the BOM's line alone, whose game goes
//! on in the second block); otherwise the views cut as the compressor did. The index does
//! not record where games start, but it tells enough to skip most blocks without decoding them: a block of PGN is cut before a
//! line that starts a game once it holds enough games ([`crate::pgn::BlockReader`]), or at its
//! byte limit. A block shorter than the longest one (the last block aside) was cut by games,
//! so the next block starts a game; and a block that starts a game and holds no raw piece
//! holds exactly its index's `games` games. Other blocks are decoded to count their games.
//! Blocks decoded to print games are checked against the index.
//!
//! [`info`] counts the games the views read too, from the index's counts: it reads the head of
//! block 0's first piece (a few symbols, no model) to see whether the text may start with a
//! BOM, and where it may (a game, whatever its tags, or a raw piece that starts like a BOM)
//! decodes the first piece as the views do (the heads of block 0's pieces and one game), and
//! block 0 whole only where that piece starts like a BOM. A block that holds raw pieces (lines
//! between games that are no game, a game that did not code) is decoded to count them, since
//! the index counts their lines only; block 0 is decoded whole at most once for both. A PGN
//! member in the raw form is decoded to count its games.

use std::collections::VecDeque;
use std::io::{BufReader, Read, Seek, SeekFrom, Write};
use std::ops::{Range, RangeInclusive};

use rayon::prelude::*;

use crate::archive::dups::{self, BlockCache, Decoded, expand_block, resolve_indexed_with};
use crate::archive::limits::Meter;
use crate::archive::{DecodeLimits, ExpandOptions, ROUND_TEXT_BYTES, model_for, round_len_within, worker_pool};
use crate::container::members::{self, MemberKind, Window};
use crate::container::raw::{self, Codec, RawHeader, RawReader, TRAILER_LEN};
use crate::container::{BlockHeader, Coding, EncodedBlock, FileHeader, IndexEntry, IndexedReader, InputFormat};
use crate::error::Error;
use crate::games::Games;
use crate::model::Model;
use crate::pgn::codec::FirstHead;
use crate::pgn::lexer::{BOM, split_games, split_games_reading};

/// What an archive holds, from its header and index.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ArchiveInfo {
    /// The file header (format, level, model id).
    pub header: FileHeader,
    /// Whether this build embeds the model the archive needs to be expanded.
    pub model_available: bool,
    /// Blocks in the archive.
    pub blocks: u64,
    /// Lines of the input (a last line without line feed counts).
    pub lines: u64,
    /// Games: lines coded as moves, and (coding 2) lines coded as references to an earlier
    /// copy of the same line ([`Self::references`]); in PGN coding 7 also the games coded as
    /// references. For PGN, the games the game views read ([`count_games`]; see the module's
    /// documentation): in the raw form those of its text, and at a leading UTF-8 BOM one fewer
    /// than the compressor coded where it made the BOM's line a game of its own.
    pub games: u64,
    /// Of [`Self::games`], those coded as references to an earlier copy (movetext coding 2,
    /// [`crate::archive::dups`]; PGN coding 7 does not count them apart, this is 0); their plies
    /// are not in [`Self::plies`].
    pub references: u64,
    /// Lines stored raw (not games).
    pub raw_lines: u64,
    /// Plies of the games coded as moves.
    pub plies: u64,
    /// Bytes of the input.
    pub text_bytes: u64,
    /// Bytes of the archive.
    pub archive_bytes: u64,
    /// The codec of an archive of the whole-input raw form ([`crate::container::raw`]), whose header
    /// then has level 0 and model id 0 and which has no blocks; `None` for a block container.
    pub raw: Option<Codec>,
    /// Members of the archive (archives concatenated, [`crate::container::members`]): 1 for
    /// one archive. The other fields of a concatenation's info are its members' sums, with the
    /// first member's header, `raw` `None` and `model_available` when it is for all;
    /// [`info_members`] has each member's.
    pub members: u64,
}

impl ArchiveInfo {
    /// The info of a concatenation of archives of infos `members` (at least one): their sums,
    /// with the first one's header (see [`ArchiveInfo::members`]); a single member's info
    /// unchanged. The sums saturate at `u64::MAX`: a forged member may claim any count (a
    /// streamed raw form's text length and lines are read from its header, checked only once
    /// it is decoded), and `info` reads them without decoding.
    ///
    /// # Panics
    /// If `members` is empty.
    pub fn sum(members: &[ArchiveInfo]) -> ArchiveInfo {
        if let [one] = members {
            return *one;
        }
        let mut total = ArchiveInfo { members: members.len() as u64, raw: None, ..members[0] };
        for m in &members[1..] {
            total.model_available &= m.model_available;
            for (sum, add) in [
                (&mut total.blocks, m.blocks),
                (&mut total.lines, m.lines),
                (&mut total.games, m.games),
                (&mut total.raw_lines, m.raw_lines),
                (&mut total.references, m.references),
                (&mut total.plies, m.plies),
                (&mut total.text_bytes, m.text_bytes),
                (&mut total.archive_bytes, m.archive_bytes),
            ] {
                *sum = sum.saturating_add(add);
            }
        }
        total
    }

    /// Archive bits per ply, all overhead included (0 without plies).
    pub fn bits_per_ply(&self) -> f64 {
        if self.plies == 0 { 0.0 } else { 8.0 * self.archive_bytes as f64 / self.plies as f64 }
    }
}

/// Lines of the input in an archive with this index: each line feed ends one, and a last
/// piece without line feed is one more.
fn input_lines(reader: &IndexedReader<impl Read + Seek>) -> u64 {
    let entries = reader.entries();
    let feeds: u64 = entries.iter().map(|e| e.line_feeds()).sum();
    feeds + entries.last().is_some_and(|e| e.partial_line) as u64
}

/// Reads an archive's statistics from its header and index, checking every block header
/// against its index entry but without decoding any block (so the blocks' contents, and the
/// counts that only decoding can confirm, are not checked: use [`crate::archive::expand`] with a sink
/// for that). Two exceptions, so that a PGN archive's `games` are those the game views read
/// ([`count_games`], [`extract_games`]): a PGN member in the raw form is decoded to count its
/// games (nothing in it counts them), a PGN block that holds raw pieces to count them, and where
/// the text may start with a UTF-8 BOM the start of block 0 is decoded (see the module's
/// documentation).
///
/// # Errors
/// As [`IndexedReader::open`].
pub fn info<R: Read + Seek>(input: R) -> Result<ArchiveInfo, Error> {
    info_within(input, None)
}

/// [`info`] under a memory ceiling of `memlimit` bytes ([`DecodeLimits::memlimit`]): the
/// raw members walked to find where they end ([`members::scan_within`]), and a PGN member in the
/// raw form decoded to count its games, are decoded only where their decoder's window fits.
///
/// # Errors
/// As [`info`]; [`Error::DecodeLimit`] for a raw member whose window exceeds `memlimit`.
pub fn info_within<R: Read + Seek>(input: R, memlimit: Option<u64>) -> Result<ArchiveInfo, Error> {
    Ok(ArchiveInfo::sum(&info_members_within(input, memlimit)?))
}

/// The [`info`] of each member of an archive (one for a single archive), without decoding
/// moves: a raw member after the first is decoded to find where it ends
/// ([`crate::container::members::scan`]).
///
/// # Errors
/// As [`info`], naming the member after the first; data after a member that starts no
/// archive is [`Error::Corrupt`].
pub fn info_members<R: Read + Seek>(input: R) -> Result<Vec<ArchiveInfo>, Error> {
    info_members_within(input, None)
}

/// [`info_members`] under a memory ceiling, as [`info_within`].
///
/// # Errors
/// As [`info_within`].
pub fn info_members_within<R: Read + Seek>(mut input: R, memlimit: Option<u64>) -> Result<Vec<ArchiveInfo>, Error> {
    if members::single_within(&mut input, memlimit)? {
        return Ok(vec![info_one(input, memlimit)?]);
    }
    let mut infos = Vec::new();
    for (m, (member, window)) in Window::members_within(input, memlimit)?.into_iter().enumerate() {
        if member.kind == MemberKind::Garbage {
            return Err(members::in_member(m, members::trailing_garbage()));
        }
        infos.push(info_one(window, memlimit).map_err(|e| members::in_member(m, e))?);
    }
    Ok(infos)
}

/// [`info`] of an archive of one member, under a memory ceiling of `memlimit` bytes.
fn info_one<R: Read + Seek>(mut input: R, memlimit: Option<u64>) -> Result<ArchiveInfo, Error> {
    if raw::starts_raw(&mut input)? {
        let mut info = raw_info(&mut input)?;
        if info.header.format == InputFormat::Pgn {
            // Nothing was coded as games: the text's games, as the game views cut them.
            input.seek(SeekFrom::Start(0))?;
            let limits = DecodeLimits { memlimit, ..DecodeLimits::default() };
            let mut games = Games::open_with(input, &ExpandOptions { limits, ..ExpandOptions::default() })?;
            games.seek(u64::MAX)?;
            info.games = games.position();
        }
        return Ok(info);
    }
    let mut reader = IndexedReader::open(input)?;
    let header = *reader.header();
    // PGN: the games as the views cut them, which differ from the compressor's only at a
    // leading BOM (see the module's documentation).
    let (excess, raw_games) = if header.format == InputFormat::Pgn { pgn_uncounted(&mut reader)? } else { (0, 0) };
    let entries = reader.entries();
    let sum = |f: fn(&crate::container::IndexEntry) -> u64| entries.iter().map(f).sum::<u64>();
    let lines = input_lines(&reader);
    let raw_pieces = sum(|e| e.raw_lines as u64);
    let coded = (sum(|e| e.games as u64) + raw_games).saturating_add_signed(-excess);
    // Movetext coding 2: every line is a coded game, a raw line or a reference. (PGN coding 7
    // counts its copied games among the index's games, and does not say how many they are.)
    let references = if header.format == InputFormat::Movetext && dups::has_refs(header.format, header.coding) {
        lines.saturating_sub(coded + raw_pieces)
    } else {
        0
    };
    Ok(ArchiveInfo {
        header,
        model_available: model_for(reader.header()).is_ok(),
        blocks: entries.len() as u64,
        lines,
        games: coded + references,
        references,
        raw_lines: raw_pieces,
        plies: sum(|e| e.plies as u64),
        text_bytes: sum(|e| e.text_len as u64),
        archive_bytes: reader.file_len(),
        raw: None,
        members: 1,
    })
}

/// What a PGN archive's index does not tell of the games the views read ([`count_games`]):
/// the games the index counts at the start beyond those the views cut there
/// ([`leading_bom_excess`]), and the raw pieces, each a game for the views ([`raw_pieces`]).
/// Block 0 is decoded at most once for both (its first piece may be decoded before, to see
/// whether it needs to be); without the archive's model the index's counts stand (0, 0).
///
/// # Errors
/// As [`IndexedReader::read_block`] and [`expand_block`], for the blocks decoded.
fn pgn_uncounted<R: Read + Seek>(reader: &mut IndexedReader<R>) -> Result<(i64, u64), Error> {
    let mut refs = BlockCache::default();
    let mut block0 = None;
    let excess = leading_bom_excess(reader, &mut refs, &mut block0)?;
    Ok((excess, raw_pieces(reader, &mut refs, block0)?))
}

/// Games the index counts at the start of a PGN archive beyond those the game views cut there
/// ([`crate::pgn::lexer::GameSplitter::reading`]): 1 where the input starts with a UTF-8 BOM on
/// a line that the views read as blank or as a tag line (a BOM's line alone, or a BOM before
/// tags) and the next line that is not blank starts a game for the compressor
/// (the compressor made the BOM's line a game of its own, the views make it the start of game
/// 1), else 0 (-1 in an odd case: a BOM before a lone result token, then moves). The two rules
/// judge the first line alone differently, so they cut alike from the next line that is not
/// blank on: the difference is that of their games in the text up to that line.
///
/// Only the text tells, and its first piece is enough to rule a BOM out. Where block 0 holds
/// raw pieces it is decoded whole at once (its raw pieces are counted from the same text,
/// `block0`). Otherwise block 0's first head is read alone ([`crate::pgn::codec::first_head`],
/// a few symbols, no model): a block without pieces, or a raw piece that does not start like a
/// BOM, gives 0. Otherwise (a game, whatever its tags: `<BOM>[A "1"] [B "2"]` is a game of two
/// tags; and in codings before 5, whose heads are between their moves) block 0's first piece
/// is decoded ([`crate::games::first_block_may_start_with_bom`]: the heads of the block's
/// pieces, tags only, and one game), and only where it starts like a BOM is block 0 decoded
/// whole (and block 1 when block 0 holds one piece only). Without the archive's model the
/// index's count stands (0).
///
/// # Errors
/// As [`IndexedReader::read_block`] and [`expand_block`], for the blocks decoded.
fn leading_bom_excess<R: Read + Seek>(
    reader: &mut IndexedReader<R>,
    refs: &mut BlockCache,
    block0: &mut Option<Vec<u8>>,
) -> Result<i64, Error> {
    let header = *reader.header();
    let Some(first) = reader.entries().first() else { return Ok(0) };
    let text = if first.raw_lines > 0 {
        let Ok(model) = model_for(&header) else { return Ok(0) };
        let (h, b) = reader.read_block(0)?;
        block0.insert(decoded_text(reader, model, 0, &h, &b, refs)?)
    } else {
        let (h, b) = reader.read_block(0)?;
        let coded = dups::coded_part(header, &h, &b)?;
        match crate::pgn::codec::first_head(header.coding, &coded, h.text_len as usize)? {
            Some(FirstHead::None) => return Ok(0),
            Some(FirstHead::Raw(bytes)) if !starts_like_bom(&bytes) => return Ok(0),
            _ => {}
        }
        let Ok(model) = model_for(&header) else { return Ok(0) };
        if !crate::games::first_block_may_start_with_bom(header, model, &h, &b) {
            return Ok(0);
        }
        block0.insert(decoded_text(reader, model, 0, &h, &b, refs)?)
    };
    if !starts_like_bom(text) {
        return Ok(0);
    }
    let mut text = std::borrow::Cow::Borrowed(&text[..]);
    if split_games(&text).len() < 2 && reader.entries().len() > 1 {
        let model = model_for(&header).expect("block 0 was decoded with it");
        let (h, b) = reader.read_block(1)?;
        text.to_mut().extend(decoded_text(reader, model, 1, &h, &b, refs)?);
    }
    Ok(split_games(&text).len() as i64 - split_games_reading(&text, true).len() as i64)
}

/// The text of block `k` (read: header `h`, bytes `b`) of a PGN archive, decoded with `model`,
/// its references (coding 7) resolved through `refs`.
///
/// # Errors
/// As [`expand_block`] and [`resolve_indexed_with`].
fn decoded_text<R: Read + Seek>(
    reader: &mut IndexedReader<R>,
    model: &Model,
    k: usize,
    h: &BlockHeader,
    b: &EncodedBlock,
    refs: &mut BlockCache,
) -> Result<Vec<u8>, Error> {
    match expand_block(*reader.header(), model, k as u64, h, b)? {
        Decoded::Text(t) => Ok(t),
        Decoded::Refs(p) => resolve_indexed_with(reader, &p, refs),
    }
}

/// The pieces of a PGN archive's text stored raw (lines between games that are no game, a
/// BOM's line after the first game, a game that did not code), each a game for the game views
/// ([`count_games`], `extract --game`) as for the compressor, which cut each block's text into
/// games and raw pieces alike ([`split_games`]). The index counts a block's coded games, and
/// only the lines of its raw pieces: a block that holds raw lines is decoded to count them
/// (its pieces less its games), block 0 not again where its text is given (`block0`). An
/// archive without raw lines (real exports) decodes nothing; without the archive's model the
/// index's count stands (0).
///
/// # Errors
/// As [`decoded_text`], for the blocks decoded.
fn raw_pieces<R: Read + Seek>(reader: &mut IndexedReader<R>, refs: &mut BlockCache, mut block0: Option<Vec<u8>>) -> Result<u64, Error> {
    let with_raw: Vec<(usize, u64)> =
        reader.entries().iter().enumerate().filter(|(_, e)| e.raw_lines > 0).map(|(k, e)| (k, e.games as u64)).collect();
    if with_raw.is_empty() {
        return Ok(0);
    }
    let Ok(model) = model_for(reader.header()) else { return Ok(0) };
    let mut pieces = 0;
    for (k, games) in with_raw {
        let text = match if k == 0 { block0.take() } else { None } {
            Some(text) => text,
            None => {
                let (h, b) = reader.read_block(k)?;
                decoded_text(reader, model, k, &h, &b, refs)?
            }
        };
        pieces += (split_games(&text).len() as u64).saturating_sub(games);
    }
    Ok(pieces)
}

/// Whether `bytes` start with a UTF-8 BOM, or are a start of one.
fn starts_like_bom(bytes: &[u8]) -> bool {
    let n = bytes.len().min(BOM.len());
    bytes[..n] == BOM[..n]
}

/// Writes lines `range` (1-based, inclusive, as numbered in the input) of the archive to
/// `output`, each with its line end, decoding only the blocks that hold them. Lines past the
/// end of the input are not written: the number of lines written is returned.
///
/// # Errors
/// [`Error::Corrupt`] or [`Error::Unsupported`] as for [`crate::archive::expand`], for the archive's
/// header and index and for the blocks decoded; [`Error::Io`] from reading or writing.
pub fn extract_lines<R: Read + Seek, W: Write>(input: R, range: RangeInclusive<u64>, output: W, threads: usize) -> Result<u64, Error> {
    extract_lines_with(input, range, output, &ExpandOptions { threads, ..ExpandOptions::default() })
}

/// [`extract_lines`] with the threads and limits of `opts`: every block decoded is admitted
/// under [`ExpandOptions::limits`] first, and rounds of blocks fit [`DecodeLimits::memlimit`].
///
/// # Errors
/// As [`extract_lines`]; [`Error::DecodeLimit`] when a limit would be exceeded.
pub fn extract_lines_with<R: Read + Seek, W: Write>(
    mut input: R,
    range: RangeInclusive<u64>,
    mut output: W,
    opts: &ExpandOptions,
) -> Result<u64, Error> {
    if members::single_within(&mut input, opts.limits.memlimit)? {
        return extract_lines_one(input, range, output, opts);
    }
    let (first, last) = (*range.start(), *range.end());
    let (mut before, mut written) = (0u64, 0u64);
    for (m, (member, mut window)) in Window::members_within(input, opts.limits.memlimit)?.into_iter().enumerate() {
        if first == 0 || last < first || before >= last {
            break;
        }
        if member.kind == MemberKind::Garbage {
            return Err(members::in_member(m, members::trailing_garbage()));
        }
        let lines = info_one(&mut window, opts.limits.memlimit).map_err(|e| members::in_member(m, e))?.lines;
        if before + lines >= first {
            let local = first.saturating_sub(before).max(1)..=last - before;
            written += extract_lines_one(window, local, &mut output, opts).map_err(|e| members::in_member(m, e))?;
        }
        before += lines;
    }
    output.flush()?;
    Ok(written)
}

/// [`extract_lines`] of an archive of one member.
fn extract_lines_one<R: Read + Seek, W: Write>(
    mut input: R,
    range: RangeInclusive<u64>,
    mut output: W,
    opts: &ExpandOptions,
) -> Result<u64, Error> {
    if raw::starts_raw(&mut input)? {
        return raw_extract_lines(input, range, output, &opts.limits);
    }
    let mut reader = IndexedReader::open(input)?;
    let model: &Model = model_for(reader.header())?;
    let header = *reader.header();
    let (first, last) = (*range.start(), *range.end());
    if first == 0 || last < first {
        return Ok(0);
    }
    // Block k starts inside line `starts[k]`; it holds lines starts[k] ..= starts[k] + lines - 1.
    let mut starts = Vec::with_capacity(reader.entries().len());
    let mut line = 1u64;
    for e in reader.entries() {
        starts.push(line);
        line += e.line_feeds();
    }
    let entries = reader.entries().to_vec();
    let wanted: Vec<usize> = (0..entries.len()).filter(|&k| starts[k] <= last && starts[k] + entries[k].lines as u64 > first).collect();
    let pool = worker_pool(opts.threads)?;
    let batch = pool.current_num_threads() * 2;
    let mut meter = Meter::new(opts.limits);
    // The blocks decoded to resolve references (coding 2, PGN coding 7), for the next ones.
    let mut refs = BlockCache::within(&opts.limits);
    let round_max = dups::round_bytes_beside_cache(&opts.limits, ROUND_TEXT_BYTES, dups::has_refs(header.format, header.coding));
    let mut written = 0;
    let mut rest = &wanted[..];
    while !rest.is_empty() {
        let (chunk, after) = rest.split_at(round_len_within(rest.iter().map(|&k| entries[k].text_len), batch, round_max));
        rest = after;
        let mut blocks = Vec::with_capacity(chunk.len());
        for &k in chunk {
            let b = reader.read_block(k)?;
            meter.admit(k as u64, &b.0, reader.block_range(k).end)?;
            blocks.push(b);
        }
        let texts: Vec<Result<Decoded, Error>> =
            pool.install(|| chunk.par_iter().zip(&blocks).map(|(&k, (h, b))| expand_block(header, model, k as u64, h, b)).collect());
        for (&k, text) in chunk.iter().zip(texts) {
            // A reference copies its line from the block that holds it (coding 2).
            let text = match text? {
                Decoded::Text(text) => text,
                Decoded::Refs(p) => resolve_indexed_with(&mut reader, &p, &mut refs)?,
            };
            let mut line = starts[k];
            for piece in text.split_inclusive(|&b| b == b'\n') {
                if (first..=last).contains(&line) {
                    output.write_all(piece)?;
                }
                if piece.ends_with(b"\n") {
                    if (first..=last).contains(&line) {
                        written += 1;
                    }
                    line += 1;
                }
            }
            // A last line without line feed at the end of the input.
            if k + 1 == entries.len() && entries[k].partial_line && (first..=last).contains(&line) {
                written += 1;
            }
        }
    }
    output.flush()?;
    Ok(written)
}

/// Consecutive blocks of a PGN archive whose text starts at the start of a game and ends at
/// the start of the next block's first game (or at the end of the input): a run holds whole
/// games.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Run {
    /// The blocks.
    blocks: Range<usize>,
    /// Games in the run, when the index tells: a run of one block without raw pieces, not the
    /// input's first block when its text may start with a BOM (whose index count includes the
    /// BOM's line as a game).
    games: Option<u64>,
    /// At most this many games start in the run (a bound from the index).
    most: u64,
}

/// Cuts the blocks of a PGN archive into [`Run`]s, from the index alone. Block `k > 0` starts
/// a run when block `k - 1` was certainly cut before a game's first line: it is shorter than
/// the longest block but the last, ends with a line feed, and does not start inside a line (a
/// line cut across blocks is seen in pieces when blocks are cut, so the cut after it may
/// differ from the whole input's game starts); but where the text may start with a BOM (`bom`),
/// block 1 does not when block 0 holds at most one piece, and block 0's games are not taken
/// from the index (see the module's documentation on a BOM).
fn pgn_runs(entries: &[IndexEntry], bom: bool) -> Vec<Run> {
    let longest = entries.iter().rev().skip(1).map(|e| e.text_len).max().unwrap_or(0);
    // Block 0 may hold one piece only: a leading BOM's line, whose game goes on in block 1.
    let one_piece = bom && entries.first().is_some_and(|e| e.games == 0 || (e.games == 1 && e.raw_lines == 0));
    let starts_run = |k: usize| {
        k == 0
            || (!(k == 1 && one_piece) && {
                let before = &entries[k - 1];
                !before.partial_line && before.text_len < longest && (k == 1 || !entries[k - 2].partial_line)
            })
    };
    let mut runs: Vec<Run> = Vec::new();
    for (k, e) in entries.iter().enumerate() {
        // Each piece of a block's text is a structured game or raw lines (at least one line).
        // Besides those pieces, a game can start at most at the block's first and last lines,
        // which the block may hold in part only.
        let most = e.games as u64 + e.raw_lines as u64 + 2;
        match runs.last_mut() {
            Some(run) if !starts_run(k) => {
                run.blocks.end = k + 1;
                run.games = None;
                run.most += most;
            }
            _ => runs.push(Run { blocks: k..k + 1, games: ((k > 0 || !bom) && e.raw_lines == 0).then_some(e.games as u64), most }),
        }
    }
    for run in &mut runs {
        if let Some(g) = run.games {
            run.most = g;
        }
    }
    runs
}

/// Writes games `range` (1-based, inclusive) of the archive to `output`, byte for byte as in
/// the input, decoding only the blocks needed to find and print them (see the module's
/// documentation for what a game of a PGN archive is). In a movetext archive game N is line
/// N, as in [`extract_lines`]. Games past the end of the input are not written: the number
/// of games written is returned.
///
/// # Errors
/// As [`extract_lines`]; also [`Error::Corrupt`] if a decoded block does not hold the games
/// its index entry counts.
pub fn extract_games<R: Read + Seek, W: Write>(input: R, range: RangeInclusive<u64>, output: W, threads: usize) -> Result<u64, Error> {
    extract_games_with(input, range, output, &ExpandOptions { threads, ..ExpandOptions::default() })
}

/// [`extract_games`] with the threads and limits of `opts`. The blocks are decoded in rounds
/// and each game is written once complete, so that a game longer than many blocks is never
/// held whole: a game of `range` past [`DecodeLimits::max_game_bytes`] (or
/// [`DecodeLimits::memlimit`]) is refused before any of it is written; the games read past
/// to reach them are bounded by [`DecodeLimits::memlimit`] only. Every block decoded is
/// admitted under the limits first.
///
/// # Errors
/// As [`extract_games`]; [`Error::DecodeLimit`] when a limit would be exceeded.
pub fn extract_games_with<R: Read + Seek, W: Write>(
    input: R,
    range: RangeInclusive<u64>,
    output: W,
    opts: &ExpandOptions,
) -> Result<u64, Error> {
    walk_games(input, range, output, opts).map(|(written, _)| written)
}

/// Counts the games of an archive: lines in a movetext archive, games as [`extract_games`]
/// cuts them in a PGN archive (decoding the blocks the index does not count).
///
/// # Errors
/// As [`extract_games`].
pub fn count_games<R: Read + Seek>(input: R, threads: usize) -> Result<u64, Error> {
    count_games_with(input, &ExpandOptions { threads, ..ExpandOptions::default() })
}

/// [`count_games`] with the threads and limits of `opts` (see [`extract_games_with`]).
///
/// # Errors
/// As [`extract_games_with`].
pub fn count_games_with<R: Read + Seek>(input: R, opts: &ExpandOptions) -> Result<u64, Error> {
    walk_games(input, u64::MAX..=u64::MAX, std::io::sink(), opts).map(|(_, total)| total)
}

/// [`extract_games`], also returning the games before the end of the walk (all games of the
/// archive when no game past `range` was reached).
fn walk_games<R: Read + Seek, W: Write>(
    mut input: R,
    range: RangeInclusive<u64>,
    mut output: W,
    opts: &ExpandOptions,
) -> Result<(u64, u64), Error> {
    if members::single_within(&mut input, opts.limits.memlimit)? {
        return walk_games_one(input, range, output, opts);
    }
    let (first, last) = (*range.start(), *range.end());
    let (mut before, mut written) = (0u64, 0u64);
    for (m, (member, window)) in Window::members_within(input, opts.limits.memlimit)?.into_iter().enumerate() {
        if first == 0 || last < first || before >= last {
            break;
        }
        if member.kind == MemberKind::Garbage {
            return Err(members::in_member(m, members::trailing_garbage()));
        }
        let local = first.saturating_sub(before).max(1)..=last - before;
        let (w, games) = walk_games_one(window, local, &mut output, opts).map_err(|e| members::in_member(m, e))?;
        written += w;
        before += games;
    }
    output.flush()?;
    Ok((written, before))
}

/// [`walk_games`] of an archive of one member.
fn walk_games_one<R: Read + Seek, W: Write>(
    mut input: R,
    range: RangeInclusive<u64>,
    mut output: W,
    opts: &ExpandOptions,
) -> Result<(u64, u64), Error> {
    let (first, last) = (*range.start(), *range.end());
    if raw::starts_raw(&mut input)? {
        // The raw form's games are those of its text, cut as in the module's documentation.
        let mut games = Games::open_with(input, opts)?;
        if first == 0 || last < first {
            return Ok((0, 0));
        }
        games.seek(first - 1)?;
        let mut written = 0;
        while games.position() < last {
            let Some(game) = games.next_game()? else { break };
            output.write_all(&game)?;
            written += 1;
        }
        output.flush()?;
        return Ok((written, games.position()));
    }
    let mut reader = IndexedReader::open(&mut input)?;
    if first == 0 || last < first {
        return Ok((0, 0));
    }
    if reader.header().format == InputFormat::Movetext {
        let lines = input_lines(&reader);
        drop(reader);
        let written = extract_lines_with(input, range, output, opts)?;
        return Ok((written, lines));
    }
    let model: &Model = model_for(reader.header())?;
    let header = *reader.header();
    let entries = reader.entries().to_vec();
    let pool = worker_pool(opts.threads)?;
    let batch = pool.current_num_threads() * 2;
    let limits = opts.limits;
    let mut meter = Meter::new(limits);
    // Whether the text may start with a BOM (see the module's documentation), from block 0's
    // first piece. A BOM changes block 0's games by one at most: when they hold all the games
    // wanted, the first run is decoded first and is the last decoded either way, so that the
    // careful way costs no more.
    let first_admitted = !entries.is_empty() && last >= entries[0].games as u64;
    let bom = if first_admitted {
        // Block 0 is admitted here, once, as the first block decoded.
        let (h, b) = reader.read_block(0)?;
        meter.admit(0, &h, reader.block_range(0).end)?;
        // A block that fails to decode (or holds references) takes the careful way, where its
        // whole decode below reports any damage.
        crate::games::first_block_may_start_with_bom(header, model, &h, &b)
    } else {
        true
    };
    let runs = pgn_runs(&entries, bom);
    // The blocks decoded to resolve references (PGN coding 7), for the next ones.
    let mut refs = BlockCache::within(&limits);
    let round_max = dups::round_bytes_beside_cache(&limits, ROUND_TEXT_BYTES, dups::has_refs(header.format, header.coding));
    let (mut before, mut written) = (0u64, 0u64);
    let mut r = 0;
    while r < runs.len() && before < last {
        // The runs to decode now: those the index does not count, and those that may hold a
        // wanted game; with bounds on the games before each run.
        let mut chosen = Vec::new();
        let (mut blocks, mut bytes, mut least, mut most) = (0, 0, before, before);
        for (s, run) in runs.iter().enumerate().skip(r) {
            if least >= last {
                break;
            }
            if run.games.is_none() || most + run.most >= first {
                let text: usize = run.blocks.clone().map(|k| entries[k].text_len as usize).sum();
                if !chosen.is_empty() && (blocks + run.blocks.len() > batch || bytes + text > ROUND_TEXT_BYTES) {
                    break;
                }
                chosen.push(s);
                blocks += run.blocks.len();
                bytes += text;
            }
            least += run.games.unwrap_or(1);
            most += run.most;
            if s == 0 && bom {
                // The first run is decoded in a round of its own: how many games it holds
                // (one less than the index counts after a leading BOM) decides what comes next.
                break;
            }
        }
        let Some(&end) = chosen.last() else {
            // No run left holds a wanted game: count those the index counts.
            before += runs[r..].iter().map_while(|run| run.games).sum::<u64>();
            break;
        };
        let wanted: Vec<usize> = chosen.iter().flat_map(|&s| runs[s].blocks.clone()).collect();
        // The wanted blocks are decoded in rounds, as they are consumed (a run may span many).
        let mut decoded: VecDeque<Result<Vec<u8>, Error>> = VecDeque::new();
        let mut at = 0;
        let mut next_text = |decoded: &mut VecDeque<Result<Vec<u8>, Error>>| -> Result<Vec<u8>, Error> {
            if decoded.is_empty() {
                let len = round_len_within(wanted[at..].iter().map(|&k| entries[k].text_len), batch, round_max);
                let ks = &wanted[at..at + len];
                at += len;
                let mut coded = Vec::with_capacity(ks.len());
                for &k in ks {
                    let b = reader.read_block(k)?;
                    if k > 0 || !first_admitted {
                        meter.admit(k as u64, &b.0, reader.block_range(k).end)?;
                    }
                    coded.push(b);
                }
                let texts: Vec<Result<Decoded, Error>> =
                    pool.install(|| ks.par_iter().zip(&coded).map(|(&k, (h, b))| expand_block(header, model, k as u64, h, b)).collect());
                // A reference copies its game from the block that holds it (coding 7).
                for text in texts {
                    decoded.push_back(text.and_then(|d| match d {
                        Decoded::Text(t) => Ok(t),
                        Decoded::Refs(p) => resolve_indexed_with(&mut reader, &p, &mut refs),
                    }));
                }
            }
            decoded.pop_front().expect("one text per block")
        };
        for (s, run) in runs.iter().enumerate().take(end + 1).skip(r) {
            if !chosen.contains(&s) {
                before += run.games.expect("runs not decoded are counted");
                continue;
            }
            // The open game: text from the start of the last game seen; the games before it
            // are complete (a game's start depends only on the lines before it) and written.
            let mut text = Vec::new();
            // Whether `text` starts at the input's first byte (where a BOM belongs to game 1).
            let mut input_start = bom && run.blocks.start == 0;
            let mut found = 0u64;
            let mut take = |games: &[&[u8]], before: &mut u64, written: &mut u64| -> Result<(), Error> {
                for game in games {
                    *before += 1;
                    found += 1;
                    if (first..=last).contains(before) {
                        // Each game written is bounded, before any of it is written.
                        limits.check_game(game.len() as u64)?;
                        output.write_all(game)?;
                        *written += 1;
                    }
                }
                Ok(())
            };
            for _ in run.blocks.clone() {
                text.extend(next_text(&mut decoded)?);
                // Only complete lines decide where games start.
                let complete = memchr::memrchr(b'\n', &text).map_or(0, |i| i + 1);
                let games = split_games_reading(&text[..complete], input_start);
                // The open game's bytes in complete lines.
                let mut known = complete;
                if games.len() > 1 {
                    let open = games[games.len() - 1].as_ptr() as usize - text.as_ptr() as usize;
                    take(&games[..games.len() - 1], &mut before, &mut written)?;
                    text.drain(..open);
                    known = complete - open;
                    input_start = false;
                }
                // The open game, held until it ends: bounded by the game ceiling when it is
                // wanted (its complete lines, or without one the line it starts with; an open
                // line after them may start the next game), by the memory ceiling whatever it is.
                if (first..=last).contains(&(before + 1)) {
                    limits.check_game(if known > 0 { known } else { text.len() } as u64)?;
                }
                limits.check_held(text.len() as u64)?;
            }
            take(&split_games_reading(&text, input_start), &mut before, &mut written)?;
            if let Some(g) = run.games
                && g != found
            {
                return Err(Error::Corrupt(format!("block {}: the index counts {g} games, the block holds {found}", run.blocks.start)));
            }
        }
        r = end + 1;
    }
    output.flush()?;
    Ok((written, before))
}

/// [`info`] of a raw archive: from its header (held) or trailer (streamed), without
/// decoding it.
fn raw_info<R: Read + Seek>(mut input: R) -> Result<ArchiveInfo, Error> {
    let file_len = input.seek(SeekFrom::End(0))?;
    input.seek(SeekFrom::Start(0))?;
    let header = RawHeader::read(&mut BufReader::new(&mut input))?;
    let totals = match header.held {
        Some(t) => t,
        None => {
            if file_len < (header.overhead()) as u64 {
                return Err(Error::Corrupt("truncated archive: the raw trailer is cut off".into()));
            }
            input.seek(SeekFrom::End(-(TRAILER_LEN as i64)))?;
            let mut t = [0u8; TRAILER_LEN];
            if raw::read_up_to(&mut input, &mut t)? != TRAILER_LEN {
                return Err(Error::Corrupt("truncated archive: the raw trailer is cut off".into()));
            }
            RawHeader::parse_trailer(&t)
        }
    };
    Ok(ArchiveInfo {
        header: FileHeader { format: header.format, level: 0, model_id: 0, coding: Coding::NEWEST, weights: None },
        model_available: true,
        blocks: 0,
        lines: totals.lines,
        games: 0,
        references: 0,
        raw_lines: totals.lines,
        plies: 0,
        text_bytes: totals.text_len,
        archive_bytes: file_len,
        raw: Some(header.codec),
        members: 1,
    })
}

/// Writes the lines of `range` (1-based, inclusive) of text given piece by piece.
struct LineFilter<W: Write> {
    out: W,
    range: RangeInclusive<u64>,
    /// Number of the line the next byte belongs to.
    line: u64,
    /// Whether the open line has bytes.
    open: bool,
    written: u64,
}

impl<W: Write> LineFilter<W> {
    fn feed(&mut self, text: &[u8]) -> Result<(), Error> {
        for piece in text.split_inclusive(|&b| b == b'\n') {
            let wanted = self.range.contains(&self.line);
            if wanted {
                self.out.write_all(piece)?;
            }
            if piece.ends_with(b"\n") {
                self.written += wanted as u64;
                self.line += 1;
                self.open = false;
            } else {
                self.open = true;
            }
        }
        Ok(())
    }

    /// Counts a last line without line feed; returns the lines written.
    fn finish(mut self) -> Result<u64, Error> {
        if self.open && self.range.contains(&self.line) {
            self.written += 1;
        }
        self.out.flush()?;
        Ok(self.written)
    }
}

/// [`extract_lines`] of a raw archive. A held archive is decoded and checked before
/// anything is written; a streamed one is written as it is decoded (and checked at its end).
fn raw_extract_lines<R: Read + Seek, W: Write>(
    mut input: R,
    range: RangeInclusive<u64>,
    output: W,
    limits: &DecodeLimits,
) -> Result<u64, Error> {
    input.seek(SeekFrom::Start(0))?;
    let mut reader = RawReader::new(BufReader::new(input))?;
    limits.check_raw(raw::decoder_window(reader.header()), reader.header().held.map(|t| t.text_len))?;
    if *range.start() == 0 || range.end() < range.start() {
        return Ok(0);
    }
    let mut filter = LineFilter { out: output, range, line: 1, open: false, written: 0 };
    if reader.header().held.is_some() {
        let mut text = Vec::new();
        reader.copy_to(&mut text)?;
        filter.feed(&text)?;
    } else {
        let mut buf = vec![0u8; 1 << 16];
        loop {
            let n = reader.read(&mut buf)?;
            if n == 0 {
                break;
            }
            limits.check_raw(0, Some(reader.text_bytes()))?;
            filter.feed(&buf[..n])?;
        }
    }
    filter.finish()
}
