//! Duplicate games ([`Coding::Duplicates`], coding 2): a movetext line that already occurred
//! earlier in the input, anywhere, is coded in its block as a reference to the first
//! occurrence (its global line number) instead of with the move model.
//!
//! # The rule both sides follow
//! Lines are numbered across the whole text from 0: line `g` starts after the `g`-th line
//! feed. A *kept* line is a complete line (it ends with a line feed and starts in its
//! block, not continuing the previous block's last line) of at least [`MIN_LEN`] bytes that is
//! not itself a reference; the kept lines are the most recent ones within [`WINDOW`] bytes
//! (each counted with [`ENTRY_COST`] bytes more). The compressor compares each complete line
//! with the kept line after the previous line's reference, if any (copies come in runs), and
//! otherwise, if it has at least [`START_LEN`] bytes, looks it up among the kept lines by
//! hash, then by its bytes: a line equal to a kept one becomes a reference to it. A hash
//! collision can cost a missed duplicate, never a wrong one. The expander keeps the same lines by the same rule (a
//! superset when it skips damaged blocks, which is harmless since references name global line
//! numbers) and copies them; random access ([`resolve_indexed`]) decodes the block holding the
//! referenced line instead, through the index.
//!
//! # In the block
//! A coding-2 movetext block codes only its other lines, as coding 1 does, and its references
//! go in front of the raw-line stream: when that stream is not empty, it is the reference
//! section followed by the zstd frame of the raw lines (if any). An empty stream means no
//! reference and no raw line, so a block without duplicates is coded as in coding 1. The
//! section is varints (LEB128): the number of runs, then per run the lines since the end of the
//! previous run (or the block's start), the run's length (at least 1) and the zigzag-coded
//! difference between its first target and the one predicted, the previous run's last target
//! plus one (0 for the block's first run): copies come in runs, so a run of a whole block of
//! copies costs a few bytes. The block header counts every line (`lines`, `text_len`,
//! `text_crc32` are those of the whole text), but `games`, `plies` and `raw_lines` count only
//! the lines coded in the block: a movetext block's references are its `lines - games -
//! raw_lines`.
//!
//! # PGN games ([`Coding::PgnDuplicates`], coding 7)
//! A PGN archive of coding 7 has the same references, lines and rule, but the compressor
//! copies whole games: it cuts a block into games as the PGN codec does
//! ([`split_games`]), and a game whose every line is complete, equal byte for byte to as many
//! kept lines from a global line on, becomes the references to those lines. It looks a game up
//! by the 64-bit hash of its whole text (games of at least [`START_LEN`] bytes; the kept games
//! are indexed by their first line, and a game leaves the index when its first line leaves the
//! window), or by comparing it with the kept lines after the previous game's copy (copies come
//! in runs), or with an earlier game of its own block. The other games are coded as in coding
//! 6, in one text; a block copies games only where the games of that text are the block's
//! other games (the games the codec finds in it plus the copies are the block's games, which
//! a game's start depending on the line before it could otherwise change), so the block
//! header's `games` counts every game of the block, copies included (`copied_games`), as in
//! coding 6, while `plies` and `raw_lines` count the coded games' only. The expander is the
//! line rule's, unchanged: it does not need to know what a game is.

use std::borrow::Cow;
use std::collections::{HashMap, VecDeque};
use std::hash::{BuildHasher, BuildHasherDefault, DefaultHasher};
use std::io::{Read, Seek};

use super::block::{block_format, check_counts, expand_one, model_for};
use super::limits::DecodeLimits;
use crate::container::{BlockHeader, BlockStats, Coding, EncodedBlock, FileHeader, IndexedReader, InputFormat};
use crate::error::Error;
use crate::model::Model;
use crate::pgn::lexer::split_games;

/// Shortest line (line feed included) that is kept.
pub const MIN_LEN: usize = 1;

/// Shortest line (line feed included) that the compressor looks up by its hash, to start a
/// run of references: a run costs a few bytes, about what the model spends on a game of
/// fifteen plies. A line that goes on the previous line's run is a reference whatever its
/// length. (This is the compressor's choice; the expander follows any reference.)
pub const START_LEN: usize = 64;

/// Bytes of stored lines kept (the compressor's and the expander's memory for duplicates,
/// beyond a round's blocks): a duplicate further back than that is coded as a new game.
pub const WINDOW: usize = 64 << 20;

/// Bytes each kept line counts beyond its own, towards [`WINDOW`].
pub const ENTRY_COST: usize = 64;

/// A run of references: `len` lines of a block from its line `at` copy the lines from global
/// line `target` on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Run {
    /// The run's first line, in the block (from 0).
    pub at: u32,
    /// Lines in the run (at least 1).
    pub len: u32,
    /// The global number of the line the run's first line copies.
    pub target: u64,
}

/// Whether blocks of `format` coded in `coding` carry references: movetext from coding 2,
/// PGN from coding 7.
pub(crate) fn has_refs(format: InputFormat, coding: Coding) -> bool {
    match format {
        InputFormat::Movetext => coding >= Coding::Duplicates,
        InputFormat::Pgn => coding >= Coding::PgnDuplicates,
    }
}

/// The games a PGN block's references copy: the games of its whole `text` less those of its
/// coded `inner` text, both cut as the PGN codec cuts a block ([`split_games`]); `None` when
/// `inner` has more (no compressor wrote that). The compressor copies games only where this
/// is the number of games it copied ([`Store::dedup`]).
pub(crate) fn copied_games(text: &[u8], inner: &[u8]) -> Option<u64> {
    (split_games(text).len() as u64).checked_sub(split_games(inner).len() as u64)
}

fn put_varint(out: &mut Vec<u8>, mut v: u64) {
    while v >= 0x80 {
        out.push(v as u8 | 0x80);
        v >>= 7;
    }
    out.push(v as u8);
}

fn get_varint(b: &[u8], at: &mut usize) -> Result<u64, Error> {
    let mut v = 0u64;
    for shift in (0..64).step_by(7) {
        let byte = *b.get(*at).ok_or_else(|| Error::Corrupt("reference section: truncated".into()))?;
        *at += 1;
        v |= ((byte & 0x7f) as u64).checked_shl(shift).filter(|x| x >> shift == (byte & 0x7f) as u64).ok_or_else(overflow)?;
        if byte & 0x80 == 0 {
            return Ok(v);
        }
    }
    Err(overflow())
}

fn overflow() -> Error {
    Error::Corrupt("reference section: number out of range".into())
}

/// The reference section of `runs` (in block order), as the block's raw stream starts.
pub(crate) fn write_runs(runs: &[Run], out: &mut Vec<u8>) {
    put_varint(out, runs.len() as u64);
    let (mut end, mut predicted) = (0u32, 0u64);
    for r in runs {
        put_varint(out, (r.at - end) as u64);
        put_varint(out, r.len as u64);
        let d = r.target.wrapping_sub(predicted) as i64;
        put_varint(out, ((d << 1) ^ (d >> 63)) as u64);
        end = r.at + r.len;
        predicted = r.target + r.len as u64;
    }
}

/// Splits a coding-2 movetext block's raw stream into its runs and the raw-line stream, for a
/// block of `lines` lines.
///
/// # Errors
/// [`Error::Corrupt`] for a section that no compressor wrote.
pub(crate) fn read_runs(raw: &[u8], lines: u64) -> Result<(Vec<Run>, &[u8]), Error> {
    if raw.is_empty() {
        return Ok((Vec::new(), raw));
    }
    let mut at = 0;
    let count = get_varint(raw, &mut at)?;
    if count > lines {
        return Err(Error::Corrupt("reference section: more runs than lines".into()));
    }
    let mut runs = Vec::with_capacity(count as usize);
    let (mut end, mut predicted) = (0u64, 0u64);
    for _ in 0..count {
        let start = end.checked_add(get_varint(raw, &mut at)?).ok_or_else(overflow)?;
        let len = get_varint(raw, &mut at)?;
        let z = get_varint(raw, &mut at)?;
        let d = ((z >> 1) as i64) ^ -((z & 1) as i64);
        let target = predicted.wrapping_add(d as u64);
        if len == 0 || start.checked_add(len).is_none_or(|e| e > lines) || target.checked_add(len).is_none() {
            return Err(Error::Corrupt("reference section: a run outside the block".into()));
        }
        runs.push(Run { at: start as u32, len: len as u32, target });
        end = start + len;
        predicted = target + len;
    }
    Ok((runs, &raw[at..]))
}

/// The lines of `text`: pieces ended by a line feed, and a last one without.
fn pieces(text: &[u8]) -> impl Iterator<Item = &[u8]> {
    text.split_inclusive(|&b| b == b'\n')
}

/// A block decoded but for its references.
#[derive(Clone, Debug)]
pub struct Partial {
    /// The block's number, for messages.
    pub n: u64,
    /// Its header.
    pub header: BlockHeader,
    /// The text of the lines coded in the block.
    pub inner: Vec<u8>,
    /// What decoding them found.
    pub found: BlockStats,
    /// The references, in block order.
    pub runs: Vec<Run>,
    /// The archive's block format: a PGN block's `games` count its copied games too.
    pub format: InputFormat,
}

impl Partial {
    /// Checks the whole text against the header, as `expand_one` (the archive module's) does.
    fn finish(&self, text: Vec<u8>) -> Result<Vec<u8>, Error> {
        let (n, h) = (self.n, &self.header);
        if text.len() != h.text_len as usize || crc32fast::hash(&text) != h.text_crc {
            return Err(Error::Corrupt(format!("block {n}: checksum mismatch, the block is damaged")));
        }
        let mut found = self.found;
        if self.format == InputFormat::Pgn && !self.runs.is_empty() {
            found.games += copied_games(&text, &self.inner)
                .ok_or_else(|| Error::Corrupt(format!("block {n}: the coded games are more than the block's")))?;
        }
        check_counts(n, h, &found, &text)?;
        Ok(text)
    }

    /// The whole text: the block's `lines` lines, the coded ones from `inner` and each
    /// reference's line (global line `g`, for the `i`-th line) from `lookup(i, g, text so far)`.
    /// `first` is the global number of the block's first line, when known: a reference to a
    /// line of the block itself (before it) is then copied from the text so far.
    fn assemble(&self, first: Option<u64>, mut lookup: impl FnMut(u64, u64, &[u8]) -> Result<Vec<u8>, Error>) -> Result<Vec<u8>, Error> {
        let n = self.n;
        let mut out = Vec::with_capacity(self.header.text_len as usize);
        // Where each line of `out` starts.
        let mut starts: Vec<usize> = Vec::with_capacity(self.header.lines as usize);
        let mut inner = pieces(&self.inner);
        let mut line = 0u64;
        let mut next_inner = |out: &mut Vec<u8>, starts: &mut Vec<usize>, count: u64| -> Result<(), Error> {
            for _ in 0..count {
                let p = inner.next().ok_or_else(|| Error::Corrupt(format!("block {n}: fewer coded lines than the header says")))?;
                starts.push(out.len());
                out.extend_from_slice(p);
            }
            Ok(())
        };
        for r in &self.runs {
            next_inner(&mut out, &mut starts, r.at as u64 - line)?;
            for k in 0..r.len as u64 {
                let (i, g) = (r.at as u64 + k, r.target + k);
                let own = first.filter(|&f| g >= f && g < f + i).map(|f| (g - f) as usize);
                let piece = match own {
                    Some(j) => out[starts[j]..starts.get(j + 1).copied().unwrap_or(out.len())].to_vec(),
                    None => lookup(i, g, &out)?,
                };
                starts.push(out.len());
                if out.len() + piece.len() > self.header.text_len as usize {
                    return Err(Error::Corrupt(format!("block {n}: references give more text than the header says")));
                }
                out.extend_from_slice(&piece);
            }
            line = (r.at + r.len) as u64;
        }
        next_inner(&mut out, &mut starts, self.header.lines as u64 - line)?;
        Ok(out)
    }
}

impl Partial {
    /// The compressor's check: the whole text of `p` with each reference's line taken from
    /// `text`, the block's own text (equal to the referenced line, which the compressor
    /// compared byte for byte), checked against the header.
    ///
    /// # Errors
    /// [`Error::Corrupt`] if the coded lines and references do not make `text`.
    pub(crate) fn check_against(&self, text: &[u8]) -> Result<Vec<u8>, Error> {
        let lines: Vec<&[u8]> = pieces(text).collect();
        let n = self.n;
        let back = self.assemble(None, |i, _, _| {
            lines.get(i as usize).map(|l| l.to_vec()).ok_or_else(|| Error::Corrupt(format!("block {n}: a reference past the text")))
        })?;
        self.finish(back)
    }
}

/// A decoded block: its text, or (coding 2) its coded lines and references to resolve.
#[derive(Clone, Debug)]
pub enum Decoded {
    /// The whole text, checked against the header.
    Text(Vec<u8>),
    /// Lines to copy from elsewhere.
    Refs(Partial),
}

impl Decoded {
    /// The text of a block without references.
    ///
    /// # Errors
    /// [`Error::Corrupt`] for a block with references (the caller cannot resolve them).
    pub(crate) fn into_text(self) -> Result<Vec<u8>, Error> {
        match self {
            Decoded::Text(t) => Ok(t),
            Decoded::Refs(p) => Err(Error::Corrupt(format!("block {}: references to earlier games where none can be", p.n))),
        }
    }
}

/// Decodes block `n` of an archive with file header `file` as far as it can alone: see
/// `expand_one` (the archive module's), which this is for blocks that may hold references.
///
/// # Errors
/// As `expand_one` (the archive module's).
pub fn expand_block(file: FileHeader, model: &Model, n: u64, h: &BlockHeader, block: &EncodedBlock) -> Result<Decoded, Error> {
    if !has_refs(file.format, file.coding) {
        return expand_one(file, model, n, h, block).map(Decoded::Text);
    }
    let named = |e: Error| match e {
        Error::Corrupt(m) => Error::Corrupt(format!("block {n}: {m}")),
        Error::LimitExceeded(m) => Error::LimitExceeded(format!("block {n}: {m}")),
        other => other,
    };
    let (runs, raw) = read_runs(&block.raw, h.lines as u64).map_err(named)?;
    let copied: u64 = runs.iter().map(|r| r.len as u64).sum();
    let inner_block = EncodedBlock { range: block.range.clone(), raw: raw.to_vec() };
    let mut inner = Vec::new();
    let found = block_format(file.format)
        .decode(model, file.coding, &inner_block, h.lines as u64 - copied, h.text_len as usize, &mut inner)
        .map_err(named)?;
    let mut p = Partial { n, header: *h, inner, found, runs, format: file.format };
    if p.runs.is_empty() {
        let text = std::mem::take(&mut p.inner);
        return p.finish(text).map(Decoded::Text);
    }
    Ok(Decoded::Refs(p))
}

/// Block `block` (header `h`) as its format's codec reads it when it copies nothing: where
/// blocks of `file` carry references ([`has_refs`]), without its reference section, which is
/// then empty; `None` when it holds references (it is decoded and resolved whole, with
/// [`expand_block`]). For the readers that decode only part of a block (its heads, its first
/// piece).
///
/// # Errors
/// [`Error::Corrupt`] for a reference section that no compressor wrote.
pub(crate) fn without_refs<'a>(file: FileHeader, h: &BlockHeader, block: &'a EncodedBlock) -> Result<Option<Cow<'a, EncodedBlock>>, Error> {
    if !has_refs(file.format, file.coding) {
        return Ok(Some(Cow::Borrowed(block)));
    }
    let (runs, raw) = read_runs(&block.raw, h.lines as u64)?;
    Ok(runs.is_empty().then(|| Cow::Owned(EncodedBlock { range: block.range.clone(), raw: raw.to_vec() })))
}

/// The part of block `block` (header `h`) that its format's codec coded: without its
/// reference section where blocks of `file` carry references ([`has_refs`]), whatever the
/// section holds. For a reader of a block's first piece's head, which no reference replaces
/// in a member's first block (a reference copies an earlier piece).
///
/// # Errors
/// [`Error::Corrupt`] for a reference section that no compressor wrote.
pub(crate) fn coded_part<'a>(file: FileHeader, h: &BlockHeader, block: &'a EncodedBlock) -> Result<Cow<'a, EncodedBlock>, Error> {
    if !has_refs(file.format, file.coding) {
        return Ok(Cow::Borrowed(block));
    }
    let (_, raw) = read_runs(&block.raw, h.lines as u64)?;
    Ok(Cow::Owned(EncodedBlock { range: block.range.clone(), raw: raw.to_vec() }))
}

/// The stored lines of an archive, read (or written) in order: the expander's side of the
/// [module](self)'s rule, and with an index by hash the compressor's.
#[derive(Debug, Default)]
pub struct Store {
    /// Kept lines by global number, oldest first.
    lines: VecDeque<(u64, Box<[u8]>)>,
    /// Their bytes, with [`ENTRY_COST`] each.
    bytes: usize,
    /// Global number of the next block's first line.
    next_line: u64,
    /// Whether the next block's first line continues the previous block's last.
    continued: bool,
    /// The compressor's index: line hash to global number (movetext), or game hash to the
    /// global number of its first line (PGN).
    index: Option<HashMap<u64, u64>>,
    /// PGN (the compressor's): the indexed games, as (first line, hash), oldest first.
    games: Option<VecDeque<(u64, u64)>>,
}

type Hasher = BuildHasherDefault<DefaultHasher>;

fn hash(line: &[u8]) -> u64 {
    Hasher::default().hash_one(line)
}

impl Store {
    /// The compressor's store for blocks of `format`: movetext copies lines, PGN whole games.
    pub fn compressor(format: InputFormat) -> Store {
        let games = (format == InputFormat::Pgn).then(VecDeque::new);
        Store { index: Some(HashMap::new()), games, ..Store::default() }
    }

    /// The expander's store.
    pub fn expander() -> Store {
        Store::default()
    }

    fn get(&self, g: u64) -> Option<&[u8]> {
        self.lines.binary_search_by_key(&g, |e| e.0).ok().map(|i: usize| &*self.lines[i].1)
    }

    /// Keeps line `g` if the rule says so (it is not a reference; `complete`).
    fn keep(&mut self, g: u64, line: &[u8], complete: bool) {
        if !complete || line.len() < MIN_LEN {
            return;
        }
        let by_line = self.games.is_none();
        if let Some(index) = self.index.as_mut().filter(|_| by_line) {
            index.entry(hash(line)).or_insert(g);
        }
        self.bytes += line.len() + ENTRY_COST;
        self.lines.push_back((g, line.into()));
        while self.bytes > WINDOW {
            let Some((old, text)) = self.lines.pop_front() else { break };
            self.bytes -= text.len() + ENTRY_COST;
            if let Some(index) = self.index.as_mut().filter(|_| by_line) {
                let h = hash(&text);
                if index.get(&h) == Some(&old) {
                    index.remove(&h);
                }
            }
        }
        // A game leaves the index with its first line.
        if let (Some(games), Some(index)) = (&mut self.games, &mut self.index) {
            let oldest = self.lines.front().map_or(u64::MAX, |e| e.0);
            while let Some(&(start, h)) = games.front().filter(|e| e.0 < oldest) {
                games.pop_front();
                if index.get(&h) == Some(&start) {
                    index.remove(&h);
                }
            }
        }
    }

    /// Whether the kept lines from global line `t` on are the lines of `game`, one by one.
    fn holds(&self, t: u64, game: &[u8]) -> bool {
        let Ok(start) = self.lines.binary_search_by_key(&t, |e| e.0) else { return false };
        let mut kept = self.lines.range(start..);
        pieces(game).enumerate().all(|(k, line)| kept.next().is_some_and(|(g, l)| *g == t + k as u64 && **l == *line))
    }

    /// Moves on past a block of `text` (of `line_feeds` line feeds, `partial` if its last line
    /// goes on).
    fn advance(&mut self, text: &[u8]) {
        self.next_line += memchr::memchr_iter(b'\n', text).count() as u64;
        self.continued = text.last().is_some_and(|&b| b != b'\n');
    }

    /// The compressor's side: finds the lines of the next block `text` kept earlier (in this
    /// block or before), keeps the others that qualify, and returns the text of the lines to
    /// code and the references; `None` if there is none. A PGN compressor's store copies whole
    /// games ([module](self)).
    pub fn dedup(&mut self, text: &[u8]) -> Option<(Vec<u8>, Vec<Run>)> {
        if self.games.is_some() {
            return self.dedup_games(text);
        }
        let first = self.next_line;
        let mut runs: Vec<Run> = Vec::new();
        let mut inner = Vec::new();
        for (i, line) in pieces(text).enumerate() {
            let g = first + i as u64;
            let complete = line.ends_with(b"\n") && !(i == 0 && self.continued);
            // A line that goes on the last run (copies come in runs, short lines among them
            // too), else a long enough line found by its hash.
            let next = runs.last().filter(|r| (r.at + r.len) as usize == i).map(|r| r.target + r.len as u64);
            let found = if !complete || line.len() < MIN_LEN {
                None
            } else if let Some(t) = next.filter(|&t| self.get(t) == Some(line)) {
                Some(t)
            } else if line.len() >= START_LEN {
                let index = self.index.as_ref().expect("the compressor's store");
                index.get(&hash(line)).copied().filter(|&t| self.get(t) == Some(line))
            } else {
                None
            };
            match found {
                Some(t) => match runs.last_mut() {
                    Some(r) if (r.at + r.len) as usize == i && r.target + r.len as u64 == t => r.len += 1,
                    _ => runs.push(Run { at: i as u32, len: 1, target: t }),
                },
                None => {
                    inner.extend_from_slice(line);
                    self.keep(g, line, complete);
                }
            }
        }
        self.advance(text);
        (!runs.is_empty()).then_some((inner, runs))
    }

    /// [`Store::dedup`] of a PGN block: whole games copied.
    fn dedup_games(&mut self, text: &[u8]) -> Option<(Vec<u8>, Vec<Run>)> {
        let first = self.next_line;
        let games = split_games(text);
        // Per game: its first line in the block, its lines, the global line it copies.
        let mut plan: Vec<(u32, u32, Option<u64>)> = Vec::with_capacity(games.len());
        // This block's games not copied, by hash: the global number of the first line, the game.
        let mut local: HashMap<u64, (u64, usize)> = HashMap::new();
        let index = self.index.as_ref().expect("the compressor's store");
        // A game is kept and copied only whole: ending with a line feed, not continuing the
        // previous block's last line.
        let continued = self.continued;
        let complete = |at: u32, game: &[u8]| game.ends_with(b"\n") && !(at == 0 && continued);
        let (mut at, mut next) = (0u32, None);
        for (j, game) in games.iter().enumerate() {
            let lines = pieces(game).count() as u32;
            let complete = complete(at, game);
            let mut target = None;
            if complete {
                target = next.filter(|&t| self.holds(t, game));
                if target.is_none() && game.len() >= START_LEN {
                    let h = hash(game);
                    target = index.get(&h).copied().filter(|&t| self.holds(t, game));
                    target = target.or_else(|| local.get(&h).filter(|&&(_, k)| games[k] == *game).map(|&(t, _)| t));
                    if target.is_none() {
                        local.entry(h).or_insert((first + at as u64, j));
                    }
                }
            }
            next = target.map(|t| t + lines as u64);
            plan.push((at, lines, target));
            at += lines;
        }
        let copied = plan.iter().filter(|p| p.2.is_some()).count();
        let mut inner = Vec::new();
        let mut runs: Vec<Run> = Vec::new();
        if copied > 0 {
            for (game, &(at, len, target)) in games.iter().zip(&plan) {
                match target {
                    None => inner.extend_from_slice(game),
                    Some(t) => match runs.last_mut() {
                        Some(r) if r.at + r.len == at && r.target + r.len as u64 == t => r.len += len,
                        _ => runs.push(Run { at, len, target: t }),
                    },
                }
            }
            // The codec must find the other games in `inner` (see `copied_games`).
            if split_games(&inner).len() + copied != games.len() {
                runs.clear();
            }
        }
        for (game, &(at, _, target)) in games.iter().zip(&plan) {
            if target.is_some() && !runs.is_empty() {
                continue;
            }
            for (k, line) in pieces(game).enumerate() {
                let i = at as u64 + k as u64;
                self.keep(first + i, line, line.ends_with(b"\n") && !(i == 0 && continued));
            }
            if complete(at, game) && game.len() >= START_LEN {
                let (h, start) = (hash(game), first + at as u64);
                if let (Some(index), Some(kept)) = (&mut self.index, &mut self.games) {
                    index.entry(h).or_insert(start);
                    kept.push_back((start, h));
                }
            }
        }
        self.advance(text);
        (!runs.is_empty()).then_some((inner, runs))
    }

    /// The expander's side: the whole text of the next block, decoded as `d`, its references
    /// copied from the kept lines; keeps its lines by the rule.
    ///
    /// # Errors
    /// [`Error::Corrupt`] for a reference to a line not kept, or a text that does not match
    /// its header.
    pub fn resolve(&mut self, d: Decoded) -> Result<Vec<u8>, Error> {
        let first = self.next_line;
        let continued = self.continued;
        let text = match d {
            Decoded::Text(text) => {
                for (i, line) in pieces(&text).enumerate() {
                    self.keep(first + i as u64, line, line.ends_with(b"\n") && !(i == 0 && continued));
                }
                text
            }
            Decoded::Refs(p) => {
                let n = p.n;
                let text = p.assemble(Some(first), |_, g, _| {
                    self.get(g)
                        .map(<[u8]>::to_vec)
                        .ok_or_else(|| Error::Corrupt(format!("block {n}: reference to line {g}, which is not kept")))
                })?;
                let text = p.finish(text)?;
                let mut runs = p.runs.iter().peekable();
                for (i, line) in pieces(&text).enumerate() {
                    while runs.next_if(|r| ((r.at + r.len) as usize) <= i).is_some() {}
                    let copied = runs.peek().is_some_and(|r| r.at as usize <= i);
                    if !copied {
                        self.keep(first + i as u64, line, line.ends_with(b"\n") && !(i == 0 && continued));
                    }
                }
                text
            }
        };
        self.advance(&text);
        Ok(text)
    }

    /// Moves past a block that could not be decoded (it keeps nothing), of `line_feeds` line
    /// feeds; `partial` if its last line goes on.
    pub fn skip(&mut self, line_feeds: u64, partial: bool) {
        self.next_line += line_feeds;
        self.continued = partial;
    }
}

/// Most text (with [`ENTRY_COST`] bytes per line) of the decoded blocks a [`BlockCache`] keeps
/// when no [`DecodeLimits::memlimit`] is given: 32 MiB.
pub const CACHE_BYTES: usize = 32 << 20;

/// Under a [`DecodeLimits::memlimit`], a [`BlockCache`] keeps at most this fraction of it
/// (1/`CACHE_SHARE`, and never more than [`CACHE_BYTES`]); the rounds of blocks decoded
/// beside the cache get the rest.
pub const CACHE_SHARE: u64 = 2;

/// The bytes of decoded blocks a [`BlockCache`] keeps to resolve references in random access
/// (coding 2, PGN coding 7) under `limits`: [`CACHE_BYTES`] (32 MiB) without a
/// [`DecodeLimits::memlimit`], and under one a 1/[`CACHE_SHARE`] share of it (at most
/// [`CACHE_BYTES`]).
pub fn cache_bytes(limits: &DecodeLimits) -> usize {
    match limits.memlimit {
        Some(m) => (m / CACHE_SHARE).min(CACHE_BYTES as u64) as usize,
        None => CACHE_BYTES,
    }
}

/// [`DecodeLimits::round_bytes`] for a reader that also holds a [`BlockCache`] of
/// [`cache_bytes`] when `cache` (an archive with references): the rounds share what the cache
/// leaves of [`DecodeLimits::memlimit`]. A block is still admitted against the whole memlimit
/// (`Meter::admit`): a round holds at least one block.
pub(crate) fn round_bytes_beside_cache(limits: &DecodeLimits, default: usize, cache: bool) -> usize {
    let rest = limits.memlimit.map(|m| if cache { m - cache_bytes(limits) as u64 } else { m });
    DecodeLimits { memlimit: rest, ..*limits }.round_bytes(default)
}

/// A decoded block's lines, each with its line feed; `None` for a line it copies.
type Lines = Vec<Option<Vec<u8>>>;

/// The blocks [`resolve_indexed_with`] decoded to copy lines from, kept for the next blocks
/// resolved through the same reader (the copies of a run of blocks come from the same few
/// blocks): the most recent ones within its capacity ([`CACHE_BYTES`], or its share of
/// [`DecodeLimits::memlimit`]: [`BlockCache::within`]). While one block's references are
/// resolved, the last block decoded for them is held even past the capacity (it is being
/// used, as the block being decoded is); once they are, the cache is back within it. A block
/// forgotten is decoded again when a later copy needs it: the capacity changes the work,
/// never the text.
#[derive(Debug)]
pub struct BlockCache {
    /// Per block: its number, its bytes as counted, its lines (`None` for a copied line).
    blocks: VecDeque<(usize, usize, Lines)>,
    bytes: usize,
    /// Most bytes kept between blocks (text, with [`ENTRY_COST`] per line).
    capacity: usize,
}

impl Default for BlockCache {
    /// A cache of [`CACHE_BYTES`].
    fn default() -> Self {
        BlockCache::new(CACHE_BYTES)
    }
}

impl BlockCache {
    /// A cache that keeps at most `capacity` bytes (text, with [`ENTRY_COST`] per line)
    /// between blocks.
    pub fn new(capacity: usize) -> Self {
        BlockCache { blocks: VecDeque::new(), bytes: 0, capacity }
    }

    /// A cache within `limits`: [`cache_bytes`].
    pub fn within(limits: &DecodeLimits) -> Self {
        BlockCache::new(cache_bytes(limits))
    }

    /// The lines of block `k`, if kept.
    fn get(&self, k: usize) -> Option<&[Option<Vec<u8>>]> {
        self.blocks.iter().find(|e| e.0 == k).map(|e| &e.2[..])
    }

    /// Keeps the lines of block `k`, forgetting the oldest blocks beyond the capacity (but
    /// this one).
    fn put(&mut self, k: usize, lines: Lines) -> &[Option<Vec<u8>>] {
        let bytes = lines.iter().map(|l| l.as_ref().map_or(0, Vec::len) + ENTRY_COST).sum::<usize>();
        self.bytes += bytes;
        self.blocks.push_back((k, bytes, lines));
        while self.bytes > self.capacity && self.blocks.len() > 1 {
            self.forget_oldest();
        }
        &self.blocks.back().expect("just kept").2
    }

    /// Forgets the oldest blocks until the cache is within its capacity (all of them if the
    /// last one alone is larger).
    fn trim(&mut self) {
        while self.bytes > self.capacity && !self.blocks.is_empty() {
            self.forget_oldest();
        }
    }

    /// Forgets every block.
    pub fn clear(&mut self) {
        self.blocks.clear();
        self.bytes = 0;
    }

    fn forget_oldest(&mut self) {
        let (_, b, _) = self.blocks.pop_front().expect("a block to forget");
        self.bytes -= b;
    }
}

/// Random access: the whole text of `p`, block of the archive that `reader` reads, each
/// reference copied from the block that holds its line (decoded here, on this thread).
///
/// # Errors
/// [`Error::Corrupt`] for a reference to no line, or to a copied one; as [`expand_block`]
/// for the blocks decoded.
pub fn resolve_indexed<R: Read + Seek>(reader: &mut IndexedReader<R>, p: &Partial) -> Result<Vec<u8>, Error> {
    resolve_indexed_with(reader, p, &mut BlockCache::default())
}

/// [`resolve_indexed`] with the blocks decoded for earlier blocks of the same `reader` kept in
/// `cache` (and this block's added to it).
///
/// # Errors
/// As [`resolve_indexed`].
pub fn resolve_indexed_with<R: Read + Seek>(reader: &mut IndexedReader<R>, p: &Partial, cache: &mut BlockCache) -> Result<Vec<u8>, Error> {
    let header = *reader.header();
    let model = model_for(&header)?;
    let mut starts = Vec::with_capacity(reader.entries().len() + 1);
    let mut line = 0u64;
    for e in reader.entries() {
        starts.push(line);
        line += e.line_feeds();
    }
    let n = p.n;
    let first = starts.get(n as usize).copied().ok_or_else(|| Error::Corrupt(format!("block {n}: not in the index")))?;
    let text = p.assemble(Some(first), |_, g, _| {
        let bad = || Error::Corrupt(format!("block {n}: reference to line {g}, which holds no game"));
        if g >= first {
            return Err(bad());
        }
        let k = starts.partition_point(|&s| s <= g) - 1;
        let lines = match cache.get(k) {
            Some(lines) => lines,
            None => {
                let (h, b) = reader.read_block(k)?;
                let lines = match expand_block(header, model, k as u64, &h, &b)? {
                    Decoded::Text(t) => pieces(&t).map(|l| Some(l.to_vec())).collect(),
                    Decoded::Refs(q) => {
                        let mut lines = vec![None; q.header.lines as usize];
                        let mut inner = pieces(&q.inner);
                        let mut runs = q.runs.iter().peekable();
                        for (i, slot) in lines.iter_mut().enumerate() {
                            while runs.next_if(|r| ((r.at + r.len) as usize) <= i).is_some() {}
                            if runs.peek().is_none_or(|r| r.at as usize > i) {
                                *slot = inner.next().map(<[u8]>::to_vec);
                            }
                        }
                        lines
                    }
                };
                cache.put(k, lines)
            }
        };
        lines.get((g - starts[k]) as usize).cloned().flatten().ok_or_else(bad)
    });
    // The block used last is no longer needed beyond the capacity.
    cache.trim();
    p.finish(text?)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn runs_round_trip() {
        let runs = vec![Run { at: 0, len: 3, target: 10_000 }, Run { at: 5, len: 1, target: 7 }, Run { at: 6, len: 994, target: 8 }];
        let mut b = Vec::new();
        write_runs(&runs, &mut b);
        b.extend_from_slice(b"zstd");
        let (back, rest) = read_runs(&b, 1000).unwrap();
        assert_eq!((back, rest), (runs, &b"zstd"[..]));
        assert!(read_runs(&b, 999).is_err(), "a run past the block's lines");
        assert!(read_runs(&[0x80, 0x80], 10).is_err());
    }

    #[test]
    fn the_expander_keeps_what_the_compressor_kept() {
        let game = |i: usize| format!("e4 e5 Nf3 Nc6 Bb5 a6 Ba4 Nf6 O-O Be7 Re1 b5 Bb3 d6 c3 O-O h3 game number {i} 1-0\n");
        let text: String = (0..30).map(|i| game([1, 2, 3, 1, 2, 3, 4, 9, 9, 1][i % 10] + i / 20)).collect();
        let blocks: Vec<&[u8]> = text.as_bytes().chunks(500).collect();
        let (mut enc, mut dec) = (Store::compressor(InputFormat::Movetext), Store::expander());
        let mut refs = 0;
        for b in blocks {
            let d = match enc.dedup(b) {
                None => Decoded::Text(b.to_vec()),
                Some((inner, runs)) => {
                    refs += runs.iter().map(|r| r.len).sum::<u32>();
                    let lines = pieces(b).count() as u32;
                    let header = BlockHeader {
                        lines,
                        text_len: b.len() as u32,
                        text_crc: crc32fast::hash(b),
                        partial_line: !b.ends_with(b"\n"),
                        ..BlockHeader::default()
                    };
                    let found = BlockStats { lines: pieces(&inner).count() as u64, ..BlockStats::default() };
                    Decoded::Refs(Partial { n: 0, header, inner, found, runs, format: InputFormat::Movetext })
                }
            };
            assert_eq!(dec.resolve(d).unwrap(), b);
        }
        assert_eq!(enc.lines, dec.lines);
        assert!(refs >= 15, "{refs} references");
    }

    #[test]
    fn the_block_cache_keeps_the_most_recent_blocks_within_its_bytes() {
        let mut cache = BlockCache::default();
        let block = |byte: u8| vec![Some(vec![byte; CACHE_BYTES / 3]), None];
        assert_eq!(cache.put(4, block(4))[0].as_ref().unwrap()[0], 4);
        cache.put(7, block(7));
        assert!(cache.get(4).is_some() && cache.get(7).is_some());
        // A third block goes past the bytes: the oldest is forgotten.
        cache.put(9, block(9));
        assert!(cache.get(4).is_none() && cache.get(7).is_some() && cache.get(9).is_some());
        // One block larger than the bytes is kept alone.
        cache.put(1, vec![Some(vec![1; CACHE_BYTES])]);
        assert_eq!(cache.blocks.len(), 1);
        assert_eq!(cache.get(1).unwrap()[0].as_ref().unwrap().len(), CACHE_BYTES);
        // Once its lines are used, it is forgotten: the cache is back within its bytes.
        cache.trim();
        assert!(cache.blocks.is_empty() && cache.bytes == 0);
    }

    #[test]
    fn the_block_cache_takes_its_share_of_the_memlimit() {
        let limits = |memlimit| DecodeLimits { memlimit, ..DecodeLimits::default() };
        assert_eq!(BlockCache::default().capacity, CACHE_BYTES);
        assert_eq!(BlockCache::within(&limits(None)).capacity, CACHE_BYTES);
        assert_eq!(BlockCache::within(&limits(Some(1 << 30))).capacity, CACHE_BYTES);
        assert_eq!(BlockCache::within(&limits(Some(16 << 20))).capacity, 8 << 20);
        // The rounds beside it share the rest, only where the archive has references.
        assert_eq!(round_bytes_beside_cache(&limits(Some(16 << 20)), usize::MAX, true), 4 << 20);
        assert_eq!(round_bytes_beside_cache(&limits(Some(16 << 20)), usize::MAX, false), 8 << 20);
        assert_eq!(round_bytes_beside_cache(&limits(None), 1234, true), 1234);
        let mut cache = BlockCache::within(&limits(Some(1000)));
        cache.put(1, vec![Some(vec![1; 200])]);
        cache.put(2, vec![Some(vec![2; 200])]);
        assert!(cache.get(1).is_none() && cache.get(2).is_some(), "500 bytes hold one block of 264");
        cache.trim();
        assert!(cache.get(2).is_some());
    }

    #[test]
    fn pgn_games_are_copied_whole_and_the_expander_keeps_what_the_compressor_kept() {
        let game = |i: usize| format!("[Event \"game {i}\"]\n[Result \"1-0\"]\n\n1. e4 e5 2. Nf3 Nc6 3. Bb5 a6 4. Ba4 Nf6 1-0\n\n");
        let order = [1, 2, 3, 1, 2, 3, 4, 9, 9, 1, 5, 2, 3, 4, 6, 6, 1];
        let games: Vec<String> = order.iter().map(|&i| game(i)).collect();
        // Blocks of whole games, the last one ending inside a game (not copied).
        let mut blocks: Vec<String> = games.chunks(4).map(|c| c.concat()).collect();
        blocks.push(game(1)[..30].to_string());
        let (mut enc, mut dec) = (Store::compressor(InputFormat::Pgn), Store::expander());
        let mut copied = 0;
        for b in &blocks {
            let b = b.as_bytes();
            let d = match enc.dedup(b) {
                None => Decoded::Text(b.to_vec()),
                Some((inner, runs)) => {
                    copied += copied_games(b, &inner).unwrap();
                    // Copies are whole games: every run starts at a game's start and ends at the next one's
                    // (or at the block's end).
                    let starts: Vec<usize> =
                        split_games(b).iter().scan(0, |line, g| Some(std::mem::replace(line, *line + pieces(g).count()))).collect();
                    let whole = |line: u32| line as usize == pieces(b).count() || starts.contains(&(line as usize));
                    assert!(runs.iter().all(|r| whole(r.at) && whole(r.at + r.len)), "{runs:?}");
                    let header = BlockHeader {
                        lines: pieces(b).count() as u32,
                        text_len: b.len() as u32,
                        text_crc: crc32fast::hash(b),
                        games: split_games(b).len() as u32,
                        ..BlockHeader::default()
                    };
                    let found = BlockStats {
                        lines: pieces(&inner).count() as u64,
                        games: split_games(&inner).len() as u64,
                        ..BlockStats::default()
                    };
                    Decoded::Refs(Partial { n: 0, header, inner, found, runs, format: InputFormat::Pgn })
                }
            };
            assert_eq!(dec.resolve(d).unwrap(), b);
        }
        assert_eq!(enc.lines, dec.lines);
        // Of the 17 games, the first 1, 2, 3, 4, 9, 5, 6 are coded.
        assert_eq!(copied, 10);
    }
}
