//! An archive's text one block or one game at a time: in order, with bounded memory and the
//! blocks decoded ahead in parallel ([`Blocks`], [`Games`]), or game `n` on its own through the
//! block index ([`Games::seek`]). This is what language bindings iterate over.
//!
//! A *game* is one line in a movetext archive (with its line end; a line that is not a game
//! counts too), and one PGN game in a PGN archive: its tags, movetext and the blank lines after
//! it, cut where [`crate::pgn::lexer::GameSplitter`] says a game starts (text before the first
//! game belongs to it; a UTF-8 BOM at the start of the input, or of an archive member, belongs to game
//! 1 and does not make a game of its own: [`GameSplitter::reading`]). Concatenating all games in order gives back the archive's text byte for
//! byte, wherever the compressor cut it into blocks.

use std::collections::{BTreeMap, VecDeque};
use std::io::{BufRead, BufReader, Read, Seek, SeekFrom};
use std::sync::mpsc;

use crate::archive::dups::{BlockCache, Decoded, expand_block, has_refs, resolve_indexed_with, round_bytes_beside_cache, without_refs};
use crate::archive::limits::Meter;
use crate::archive::{DecodeLimits, ExpandOptions, ROUND_TEXT_BYTES, model_for, worker_pool};
use crate::container::members::{self, MemberKind, Window};
use crate::container::raw::{self, MAX_HELD, RawReader};
use crate::container::{BlockHeader, Coding, EncodedBlock, FileHeader, IndexEntry, IndexedReader, InputFormat};
use crate::error::Error;
use crate::pgn::codec::scan_tags;
use crate::pgn::game::Tag;
use crate::pgn::lexer::{GameSplitter, split_games_reading};

/// Blocks decoded ahead per worker thread when reading in order: enough to keep every thread
/// busy while the caller consumes one block, few enough to bound memory (this many blocks of
/// text per thread).
const AHEAD_PER_THREAD: usize = 4;

/// Bytes of text per block of a raw archive read through [`Blocks`].
const RAW_CHUNK: usize = MAX_HELD;

/// Where [`Blocks`] reads: a block container through its index, or a raw archive.
enum Source<R: Read + Seek> {
    Container(IndexedReader<R>),
    Raw(RawBlocks<R>),
}

/// The text of a raw archive in blocks of [`RAW_CHUNK`] bytes, for [`Blocks`]: opening
/// decodes (and checks) it once to list the blocks; reading them in order decodes it once
/// more, and going back starts over.
struct RawBlocks<R: Read + Seek> {
    /// `None` only if starting over failed.
    reader: Option<RawReader<BufReader<R>>>,
    /// The block the reader is at; `usize::MAX` after an error.
    at: usize,
    header: FileHeader,
    entries: Vec<IndexEntry>,
}

fn read_chunk<R: BufRead>(reader: &mut RawReader<R>, chunk: &mut Vec<u8>) -> Result<(), Error> {
    chunk.clear();
    chunk.resize(RAW_CHUNK, 0);
    let mut filled = 0;
    while filled < RAW_CHUNK {
        let n = reader.read(&mut chunk[filled..])?;
        if n == 0 {
            break;
        }
        filled += n;
    }
    chunk.truncate(filled);
    Ok(())
}

impl<R: Read + Seek> RawBlocks<R> {
    /// Opens the raw archive `input`.
    ///
    /// # Errors
    /// As [`RawReader::read`], for the whole archive.
    fn open(mut input: R, limits: &DecodeLimits) -> Result<Self, Error> {
        input.seek(SeekFrom::Start(0))?;
        let mut reader = RawReader::new(BufReader::new(input))?;
        limits.check_raw(raw::decoder_window(reader.header()), reader.header().held.map(|t| t.text_len))?;
        let mut entries = Vec::new();
        let mut chunk = Vec::new();
        loop {
            read_chunk(&mut reader, &mut chunk)?;
            if chunk.is_empty() {
                break;
            }
            limits.check_raw(0, Some(reader.text_bytes()))?;
            let lines = crate::pgn::codec::count_lines(&chunk) as u32;
            entries.push(IndexEntry {
                offset: 0,
                lines,
                text_len: chunk.len() as u32,
                plies: 0,
                raw_lines: lines,
                partial_line: chunk.last() != Some(&b'\n'),
                games: 0,
            });
        }
        let header = FileHeader { format: reader.header().format, level: 0, model_id: 0, coding: Coding::NEWEST, weights: None };
        let mut input = reader.into_inner().into_inner();
        input.seek(SeekFrom::Start(0))?;
        Ok(RawBlocks { reader: Some(RawReader::new(BufReader::new(input))?), at: 0, header, entries })
    }

    /// The header the archive's text is read with: its format, level 0, model id 0.
    fn header(&self) -> &FileHeader {
        &self.header
    }

    /// One entry per block (offsets 0).
    fn entries(&self) -> &[IndexEntry] {
        &self.entries
    }

    /// The text of block `k` (below the number of entries).
    ///
    /// # Errors
    /// As [`RawReader::read`].
    fn read(&mut self, k: usize) -> Result<Vec<u8>, Error> {
        if k < self.at
            && let Some(reader) = self.reader.take()
        {
            let mut input = reader.into_inner().into_inner();
            input.seek(SeekFrom::Start(0))?;
            self.reader = Some(RawReader::new(BufReader::new(input))?);
            self.at = 0;
        }
        let reader = self.reader.as_mut().ok_or_else(|| Error::Io(std::io::Error::other("the raw archive could not be read again")))?;
        let mut chunk = Vec::new();
        while self.at <= k {
            if let Err(e) = read_chunk(reader, &mut chunk) {
                self.at = usize::MAX;
                return Err(e);
            }
            self.at += 1;
        }
        Ok(chunk)
    }
}

/// One member of the archive ([`crate::container::members`]) read by [`Blocks`].
struct Member<R: Read + Seek> {
    source: Source<Window<R>>,
    /// The number of its first block among all the archive's blocks.
    first: usize,
    header: FileHeader,
    /// The limits, and the member's blocks admitted under them.
    meter: Meter,
    /// The blocks decoded to resolve references (coding 2, PGN coding 7), for the next ones.
    refs: BlockCache,
}

/// A block being decoded on the pool, or a failure to read it.
enum Slot {
    Pending(mpsc::Receiver<Result<Decoded, Error>>),
    Failed(Error),
}

/// An archive's blocks expanded in order. Up to a few blocks per thread are decoded ahead on a
/// pool of worker threads, without waiting for each other; the caller gets them one at a time,
/// each checked against its checksums.
pub struct Blocks<R: Read + Seek> {
    /// The archive's members, in order (one for a single archive).
    members: Vec<Member<R>>,
    /// Every member's index, one after the other.
    entries: Vec<IndexEntry>,
    pool: rayon::ThreadPool,
    /// Blocks handed to the pool or failed, in order, starting with block `position`.
    slots: VecDeque<Slot>,
    /// The block [`Blocks::next_text`] returns next.
    position: usize,
    /// How many blocks to keep in `slots` now: the pool's size after opening or a seek, then
    /// doubling with each block taken up to `max_ahead`, so that reading one block after a
    /// seek decodes few others.
    ahead: usize,
    max_ahead: usize,
    /// The limits each member is read under.
    limits: DecodeLimits,
    /// [`GameTags`] reads through these blocks: each block's text is replaced by its games'
    /// tags ([`pack_tags`]).
    tags: bool,
}

impl<R: Read + Seek> Blocks<R> {
    /// Opens an archive for reading with `threads` worker threads (0: one per core).
    ///
    /// # Errors
    /// As [`IndexedReader::open`]; [`Error::Unsupported`] if this build lacks the archive's
    /// model; [`Error::Io`] if the threads cannot be started.
    pub fn open(input: R, threads: usize) -> Result<Self, Error> {
        Self::open_with(input, &ExpandOptions { threads, ..ExpandOptions::default() })
    }

    /// Opens an archive for reading with the threads and limits of `opts`: every block is
    /// admitted under [`ExpandOptions::limits`] before it is decoded (a block decoded again
    /// after a seek back counts again: the limits bound work), and rounds of blocks decoded
    /// ahead hold no more than [`DecodeLimits::memlimit`] allows. Each member of a
    /// concatenated archive is admitted under the limits on its own.
    ///
    /// # Errors
    /// As [`Blocks::open`]; [`Error::DecodeLimit`] if a raw archive exceeds a limit.
    pub fn open_with(input: R, opts: &ExpandOptions) -> Result<Self, Error> {
        let mut members = Vec::new();
        let mut entries = Vec::new();
        for (m, (member, window)) in Window::members_within(input, opts.limits.memlimit)?.into_iter().enumerate() {
            let open = |mut window: Window<R>| -> Result<Source<Window<R>>, Error> {
                if m > 0 && member.kind == MemberKind::Garbage {
                    return Err(members::trailing_garbage());
                }
                if raw::starts_raw(&mut window)? {
                    return Ok(Source::Raw(RawBlocks::open(window, &opts.limits)?));
                }
                let reader = IndexedReader::open(window)?;
                model_for(reader.header())?;
                Ok(Source::Container(reader))
            };
            let source = open(window).map_err(|e| members::in_member(m, e))?;
            let (header, index) = match &source {
                Source::Container(r) => (*r.header(), r.entries()),
                Source::Raw(r) => (*r.header(), r.entries()),
            };
            entries.extend_from_slice(index);
            members.push(Member {
                first: entries.len() - index.len(),
                header,
                source,
                meter: Meter::new(opts.limits),
                refs: BlockCache::within(&opts.limits),
            });
        }
        let pool = worker_pool(opts.threads)?;
        let threads = pool.current_num_threads();
        Ok(Blocks {
            members,
            entries,
            pool,
            slots: VecDeque::new(),
            position: 0,
            ahead: threads,
            max_ahead: threads * AHEAD_PER_THREAD,
            limits: opts.limits,
            tags: false,
        })
    }

    /// The archive's file header: its first member's in a concatenated archive
    /// ([`Blocks::member_header`] has each member's).
    pub fn header(&self) -> &FileHeader {
        &self.members[0].header
    }

    /// The archive's block index: in a concatenated archive, each member's one after the
    /// other (block numbers count across members; offsets are from the member's start).
    pub fn entries(&self) -> &[IndexEntry] {
        &self.entries
    }

    /// The number of members (archives concatenated; 1 for a single archive).
    pub fn members(&self) -> usize {
        self.members.len()
    }

    /// The file header of member `m` (a raw member's: its format, level 0, model id 0).
    ///
    /// # Panics
    /// If `m` is not below [`Blocks::members`].
    pub fn member_header(&self, m: usize) -> &FileHeader {
        &self.members[m].header
    }

    /// The blocks of member `m`, numbered across members.
    ///
    /// # Panics
    /// If `m` is not below [`Blocks::members`].
    pub fn member_blocks(&self, m: usize) -> std::ops::Range<usize> {
        self.members[m].first..self.members.get(m + 1).map_or(self.entries.len(), |n| n.first)
    }

    /// The member that holds block `k` (the last member for `k` past the end).
    pub fn member_of(&self, k: usize) -> usize {
        self.members.partition_point(|m| m.first <= k).saturating_sub(1)
    }

    /// The number of the block [`Blocks::next_text`] returns next (the number of blocks at
    /// the end).
    pub fn position(&self) -> usize {
        self.position
    }

    /// Makes block `k` the next one returned (past the end: none is). Blocks already decoded
    /// from `k` on are kept.
    pub fn seek(&mut self, k: usize) {
        if k >= self.position && k < self.position + self.slots.len() {
            self.slots.drain(..k - self.position);
        } else {
            self.slots.clear();
            self.ahead = self.pool.current_num_threads();
        }
        self.position = k;
    }

    /// Hands blocks to the pool until `ahead` are in flight or the archive ends; stops after
    /// a block that cannot be read.
    fn refill(&mut self) {
        let count = self.entries.len();
        // Text in flight, bounded like a round of `expand` whatever the thread count.
        let entries = &self.entries;
        let mut bytes: usize = (self.position..self.position + self.slots.len()).map(|k| entries[k].text_len as usize).sum();
        let refs = self.members.iter().any(|m| matches!(m.source, Source::Container(_)) && has_refs(m.header.format, m.header.coding));
        let round_max = round_bytes_beside_cache(&self.limits, ROUND_TEXT_BYTES, refs);
        while self.slots.len() < self.ahead && !matches!(self.slots.back(), Some(Slot::Failed(_))) {
            let k = self.position + self.slots.len();
            if k >= count || (!self.slots.is_empty() && bytes >= round_max) {
                break;
            }
            let m = self.member_of(k);
            let member = &mut self.members[m];
            let Source::Container(reader) = &mut member.source else {
                // A raw member's blocks are decoded in order by `next_text`.
                break;
            };
            let (header, local) = (member.header, k - member.first);
            let model = model_for(&header).expect("checked when opened");
            bytes += self.entries[k].text_len as usize;
            let end = reader.block_range(local).end;
            let meter = &mut member.meter;
            let slot = match reader.read_block(local).and_then(|b| meter.admit(local as u64, &b.0, end).map(|()| b)) {
                Ok((h, block)) => {
                    let (tx, rx) = mpsc::sync_channel(1);
                    let tags = self.tags;
                    self.pool.spawn(move || {
                        let decoded = if tags {
                            expand_tags(header, model, local as u64, &h, &block)
                        } else {
                            expand_block(header, model, local as u64, &h, &block)
                        };
                        let _ = tx.send(decoded.map_err(|e| members::in_member(m, e)));
                    });
                    Slot::Pending(rx)
                }
                Err(e) => Slot::Failed(members::in_member(m, e)),
            };
            self.slots.push_back(slot);
        }
    }

    /// The text of the next block, `None` after the last one.
    ///
    /// # Errors
    /// [`Error::Corrupt`] naming the block if it is damaged, [`Error::Io`] from reading. The
    /// blocks after it are not returned (a [`Blocks::seek`] may try them).
    pub fn next_text(&mut self) -> Result<Option<Vec<u8>>, Error> {
        let count = self.entries.len();
        let m = self.member_of(self.position);
        if self.position < count
            && let Member { source: Source::Raw(raw), first, .. } = &mut self.members[m]
        {
            let format = raw.header().format;
            return match raw.read(self.position - *first) {
                Ok(text) => {
                    let input_start = self.position == *first;
                    let text = if self.tags { pack_tags(&text_tags(format, &text, input_start)) } else { text };
                    self.position += 1;
                    Ok(Some(text))
                }
                Err(e) => {
                    self.position = count;
                    Err(members::in_member(m, e))
                }
            };
        }
        self.refill();
        let Some(slot) = self.slots.pop_front() else {
            return Ok(None);
        };
        let result = match slot {
            Slot::Pending(rx) => rx.recv().unwrap_or_else(|_| Err(Error::Io(std::io::Error::other("a decoding thread stopped")))),
            Slot::Failed(e) => Err(e),
        };
        // A reference copies its line from the block of its member that holds it (coding 2);
        // references never cross members, so that one member's cache is kept at a time (the
        // limits' share of memory is for one).
        if matches!(result, Ok(Decoded::Refs(_))) {
            for (i, other) in self.members.iter_mut().enumerate() {
                if i != m {
                    other.refs.clear();
                }
            }
        }
        let Member { source, refs, .. } = &mut self.members[m];
        let result = match (result, source) {
            (Ok(Decoded::Refs(p)), Source::Container(reader)) => {
                let (format, input_start) = (reader.header().format, p.n == 0);
                resolve_indexed_with(reader, &p, refs)
                    .map(|text| if self.tags { pack_tags(&text_tags(format, &text, input_start)) } else { text })
                    .map_err(|e| members::in_member(m, e))
            }
            (result, _) => result.and_then(Decoded::into_text),
        };
        match result {
            Ok(text) => {
                self.position += 1;
                self.ahead = (self.ahead * 2).min(self.max_ahead);
                Ok(Some(text))
            }
            Err(e) => {
                self.slots.clear();
                self.position = self.entries().len();
                Err(e)
            }
        }
    }
}

impl<R: Read + Seek> Iterator for Blocks<R> {
    type Item = Result<Vec<u8>, Error>;

    fn next(&mut self) -> Option<Self::Item> {
        self.next_text().transpose()
    }
}

/// One game's tags: its `(name, value)` pairs in order, each value as written between the
/// quotes (escapes kept).
pub type TagPairs = Vec<(Vec<u8>, Vec<u8>)>;

/// Whether block 0's text may start with a UTF-8 BOM, from its first piece alone
/// ([`crate::pgn::codec::may_start_with_bom`]): `false` only when that piece shows it does not.
/// A block with references (PGN coding 7), or one whose first piece fails to decode, gives
/// `true`, so that the caller takes the careful way (block 0 decoded whole, which reports any
/// damage).
pub(crate) fn first_block_may_start_with_bom(file: FileHeader, model: &crate::model::Model, h: &BlockHeader, block: &EncodedBlock) -> bool {
    match without_refs(file, h, block) {
        Ok(Some(block)) => crate::pgn::codec::may_start_with_bom(model, file.coding, &block, h.text_len as usize).unwrap_or(true),
        _ => true,
    }
}

/// Block `n`'s games' tags, packed ([`pack_tags`]): for a PGN block of coding 5 (or 6 without
/// `ECO`, `Opening` or `UTCTime` tags) read from its heads alone, without decoding a move
/// ([`crate::pgn::codec::decode_tags`]); for other
/// blocks from the text that decoding gives ([`text_tags`]). A block with references
/// (movetext coding 2, PGN coding 7) is left to the caller: its heads hold only the games it
/// codes. A member's first block (`n == 0`) is decoded
/// whole when its text may start with a UTF-8 BOM: its heads hold the games as the compressor
/// cut them, and there that is one game more than the views count ([`GameSplitter::reading`]);
/// only the text tells, and its first piece is enough
/// ([`crate::pgn::codec::may_start_with_bom`]: one game decoded besides the heads).
///
/// # Errors
/// As [`expand_block`].
fn expand_tags(file: FileHeader, model: &crate::model::Model, n: u64, h: &BlockHeader, block: &EncodedBlock) -> Result<Decoded, Error> {
    if file.format == InputFormat::Pgn {
        let named = |e: Error| match e {
            Error::Corrupt(m) => Error::Corrupt(format!("block {n}: {m}")),
            Error::LimitExceeded(m) => Error::LimitExceeded(format!("block {n}: {m}")),
            other => other,
        };
        // Coding 7: the heads hold every game of a block without references.
        let Some(coded) = without_refs(file, h, block).map_err(named)? else {
            return expand_block(file, model, n, h, block);
        };
        let block = &*coded;
        if let Some((tags, games)) = crate::pgn::codec::decode_tags(file.coding, block, h.text_len as usize).map_err(named)?
            // A block that fails to decode here is decoded whole below, which reports it.
            && (n > 0 || !crate::pgn::codec::may_start_with_bom(model, file.coding, block, h.text_len as usize).unwrap_or(true))
        {
            if games != h.games as u64 {
                return Err(Error::Corrupt(format!("block {n}: header records {} games, the block holds {games}", h.games)));
            }
            return Ok(Decoded::Text(pack_tags(&tags)));
        }
    }
    Ok(match expand_block(file, model, n, h, block)? {
        Decoded::Text(text) => Decoded::Text(pack_tags(&text_tags(file.format, &text, n == 0))),
        refs => refs,
    })
}

/// The tags of the games of a block's `text`: in PGN one list per piece of
/// [`crate::pgn::lexer::split_games_reading`] (`input_start`: the block is its member's first)
/// ([`crate::pgn::codec::scan_tags`]); in movetext an
/// empty list per line.
fn text_tags(format: InputFormat, text: &[u8], input_start: bool) -> Vec<Vec<Tag>> {
    match format {
        InputFormat::Pgn => split_games_reading(text, input_start).into_iter().map(scan_tags).collect(),
        InputFormat::Movetext => vec![Vec::new(); crate::pgn::codec::count_lines(text) as usize],
    }
}

fn put_len(out: &mut Vec<u8>, v: usize) {
    out.extend_from_slice(&(v as u64).to_le_bytes());
}

/// Games' tags as bytes, to travel as a block's text: per game its tag count, then per tag the
/// name's and the value's lengths and bytes (counts and lengths as 8-byte little-endian).
fn pack_tags(games: &[Vec<Tag>]) -> Vec<u8> {
    let mut out = Vec::new();
    for tags in games {
        put_len(&mut out, tags.len());
        for t in tags {
            put_len(&mut out, t.name.len());
            out.extend_from_slice(&t.name);
            put_len(&mut out, t.value.len());
            out.extend_from_slice(&t.value);
        }
    }
    out
}

/// The games' tags that [`pack_tags`] packed.
fn unpack_tags(mut b: &[u8], out: &mut VecDeque<TagPairs>) {
    fn take<'a>(b: &mut &'a [u8], n: usize) -> &'a [u8] {
        let (head, rest) = b.split_at(n);
        *b = rest;
        head
    }
    fn len(b: &mut &[u8]) -> usize {
        u64::from_le_bytes(take(b, 8).try_into().expect("8 bytes")) as usize
    }
    while !b.is_empty() {
        let count = len(&mut b);
        let mut tags = Vec::with_capacity(count);
        for _ in 0..count {
            let n = len(&mut b);
            let name = take(&mut b, n).to_vec();
            let n = len(&mut b);
            tags.push((name, take(&mut b, n).to_vec()));
        }
        out.push_back(tags);
    }
}

/// The tags of an archive's games, in order, without their moves: what filtering or counting
/// games by their tags needs. A PGN archive of coding 5
/// ([`crate::container::Coding::PgnTagStream`]) codes each block's tags before its moves, and
/// its tags are read without decoding a move (over 10 times faster than [`Games`]); so does
/// coding 6 ([`crate::container::Coding::PgnPredicted`]) except for `ECO`, `Opening` and
/// `UTCTime`, coded after the moves: its blocks with such tags, blocks of earlier codings, and
/// a member's first block whose text may start with a UTF-8 BOM (its first piece, decoded
/// alone, tells), are decoded whole and their games' tags read from the text. The blocks are
/// read ahead in parallel as [`Blocks`] reads them.
///
/// A *game* here is a piece of a block as [`crate::pgn::lexer::split_games_reading`] cuts it: the
/// games of [`Games`], except that a game longer than a block (cut into pieces by the
/// compressor) counts once per piece. A game's tags are those of its tag section (see
/// [`crate::pgn::codec::scan_tags`]); a game without tags has an empty list, and so has every
/// line of a movetext archive.
///
/// The tags read from a coding-5 block's heads are checked by the block's stream checksum and
/// its header's game count, not by its text checksum (which needs the whole text).
///
/// ```
/// use std::io::Cursor;
/// use chesszip::{CompressOptions, GameTags, compress_bytes};
///
/// let pgn = b"[White \"A\"]\n[Result \"1-0\"]\n\n1. e4 e5 1-0\n\n[White \"B\"]\n\n1. d4 *\n";
/// let archive = compress_bytes(pgn, &CompressOptions { level: chesszip::Level::MIN, ..CompressOptions::default() });
/// let tags: Vec<_> = GameTags::open(Cursor::new(archive), 1)?.collect::<Result<_, _>>()?;
/// assert_eq!(tags[1], vec![(b"White".to_vec(), b"B".to_vec())]);
/// # Ok::<(), chesszip::Error>(())
/// ```
pub struct GameTags<R: Read + Seek> {
    blocks: Blocks<R>,
    ready: VecDeque<TagPairs>,
    /// Games returned so far.
    next: u64,
}

impl<R: Read + Seek> GameTags<R> {
    /// Opens an archive for reading its games' tags with `threads` worker threads (0: one per
    /// core).
    ///
    /// # Errors
    /// As [`Blocks::open`].
    pub fn open(input: R, threads: usize) -> Result<Self, Error> {
        Self::open_with(input, &ExpandOptions { threads, ..ExpandOptions::default() })
    }

    /// Opens an archive for reading its games' tags with the threads and limits of `opts` (as
    /// [`Blocks::open_with`]; a block is admitted under the limits by its header's plies, even
    /// where its moves are not decoded).
    ///
    /// # Errors
    /// As [`Blocks::open_with`].
    pub fn open_with(input: R, opts: &ExpandOptions) -> Result<Self, Error> {
        let mut blocks = Blocks::open_with(input, opts)?;
        blocks.tags = true;
        Ok(GameTags { blocks, ready: VecDeque::new(), next: 0 })
    }

    /// The number of the game [`GameTags::next_tags`] returns next (0-based).
    pub fn position(&self) -> u64 {
        self.next
    }

    /// The next game's tags, `None` after the last game.
    ///
    /// # Errors
    /// As [`Blocks::next_text`].
    pub fn next_tags(&mut self) -> Result<Option<TagPairs>, Error> {
        loop {
            if let Some(tags) = self.ready.pop_front() {
                self.next += 1;
                return Ok(Some(tags));
            }
            match self.blocks.next_text()? {
                Some(packed) => unpack_tags(&packed, &mut self.ready),
                None => return Ok(None),
            }
        }
    }
}

impl<R: Read + Seek> Iterator for GameTags<R> {
    type Item = Result<TagPairs, Error>;

    fn next(&mut self) -> Option<Self::Item> {
        self.next_tags().transpose()
    }
}

/// An archive's games (see the [module](self) for what a game is) in order, and game `n`
/// through the index: [`Games::seek`] starts decoding at the block holding game `n` when it
/// knows that block. For movetext the index says where every line starts; for PGN, where
/// games are not counted in the index, it knows the blocks that the games read so far started
/// (so game `n` of a PGN archive first costs decoding the blocks before it, once).
///
/// ```
/// use std::io::Cursor;
/// use chesszip::{CompressOptions, Games, Level, compress_bytes};
///
/// let text = b"e4 e5 1-0\nd4 d5 0-1\nc4 *\n";
/// let archive = compress_bytes(text, &CompressOptions { level: Level::MIN, block_lines: 1, ..CompressOptions::default() });
/// let mut games = Games::open(Cursor::new(archive), 1)?;
/// games.seek(2)?;
/// assert_eq!(games.next_game()?, Some(b"c4 *\n".to_vec()));
/// # Ok::<(), chesszip::Error>(())
/// ```
pub struct Games<R: Read + Seek> {
    blocks: Blocks<R>,
    format: InputFormat,
    splitter: GameSplitter,
    /// The first line completed from now on starts a game, whatever the splitter says.
    fresh: bool,
    /// The open line: text after the last line feed fed.
    line: Vec<u8>,
    /// The PGN game being collected: its complete lines.
    game: Vec<u8>,
    /// Games started so far, counted from game 0 (the one being collected included).
    started: u64,
    /// Games cut and not yet returned; the first is game `next`.
    ready: VecDeque<Vec<u8>>,
    next: u64,
    /// Game number and block of a block that began with no line open: if the next line
    /// completed starts a game, that game starts at the block's first byte.
    pending: Option<(u64, usize)>,
    /// Game number -> block whose first byte starts that game, for every such block known.
    checkpoints: BTreeMap<u64, usize>,
    /// Every block has been fed and the last game cut.
    done: bool,
    /// A block failed to decode: the games after it are only reached through a checkpoint.
    broken: bool,
    /// Games in the archive, when the index tells (movetext).
    total: Option<u64>,
    /// The game ceiling.
    limits: DecodeLimits,
    /// Games numbered below this are read past by [`Games::seek`]: never returned, they are
    /// held under [`DecodeLimits::memlimit`] only, not [`DecodeLimits::max_game_bytes`].
    skip: u64,
}

impl<R: Read + Seek> Games<R> {
    /// Opens an archive for reading its games with `threads` worker threads (0: one per core).
    ///
    /// # Errors
    /// As [`Blocks::open`].
    pub fn open(input: R, threads: usize) -> Result<Self, Error> {
        Self::open_with(input, &ExpandOptions { threads, ..ExpandOptions::default() })
    }

    /// Opens an archive for reading its games with the threads and limits of `opts` (see
    /// [`Blocks::open_with`]); a game (or line) to be returned that is longer than
    /// [`DecodeLimits::max_game_bytes`] (or [`DecodeLimits::memlimit`]) is refused with
    /// [`Error::DecodeLimit`] before it is held whole. The games [`Games::seek`] reads past are
    /// bounded by [`DecodeLimits::memlimit`] only.
    ///
    /// # Errors
    /// As [`Blocks::open_with`].
    pub fn open_with(input: R, opts: &ExpandOptions) -> Result<Self, Error> {
        let blocks = Blocks::open_with(input, opts)?;
        let format = blocks.header().format;
        let mut checkpoints = BTreeMap::new();
        // Games before member `m`, while known: each member's games are cut on their own, so
        // a member's first block starts a game.
        let mut known = Some(0u64);
        for m in 0..blocks.members() {
            let range = blocks.member_blocks(m);
            let Some(before) = known else { break };
            if range.is_empty() {
                continue;
            }
            if blocks.member_header(m).format == InputFormat::Pgn {
                checkpoints.insert(before, range.start);
                known = None;
                continue;
            }
            // A line starts at a block's first byte unless the block before ends inside a line.
            let mut line = before;
            let mut open = false;
            for k in range {
                let e = blocks.entries()[k];
                if !open {
                    checkpoints.insert(line, k);
                }
                line += e.line_feeds();
                open = e.partial_line;
            }
            known = Some(line + open as u64);
        }
        let total = if blocks.members() == 1 && format == InputFormat::Pgn { None } else { known };
        let mut games = Games {
            blocks,
            format,
            splitter: GameSplitter::new(),
            fresh: true,
            line: Vec::new(),
            game: Vec::new(),
            started: 0,
            ready: VecDeque::new(),
            next: 0,
            pending: None,
            checkpoints,
            done: false,
            broken: false,
            total,
            limits: opts.limits,
            skip: 0,
        };
        games.restart(0, 0);
        Ok(games)
    }

    /// The archive's format.
    pub fn format(&self) -> InputFormat {
        self.format
    }

    /// The blocks read from.
    pub fn blocks(&self) -> &Blocks<R> {
        &self.blocks
    }

    /// The number of games in the archive when known without decoding it (movetext: its
    /// lines), or `None`.
    pub fn len_hint(&self) -> Option<u64> {
        self.total
    }

    /// The number of the game [`Games::next_game`] returns next (0-based).
    pub fn position(&self) -> u64 {
        self.next
    }

    /// Whether [`Games::next_game`] returns without decoding a block: a game is cut and
    /// waiting, or the archive has ended.
    pub fn next_is_ready(&self) -> bool {
        !self.ready.is_empty() || self.done
    }

    /// Starts cutting afresh at block `k`, whose first byte starts game `number`.
    fn restart(&mut self, number: u64, k: usize) {
        self.blocks.seek(k);
        let m = self.blocks.member_of(k);
        self.format = self.blocks.member_header(m).format;
        // Only a member's first byte may hold a BOM that belongs to its first game.
        self.splitter = if k == self.blocks.member_blocks(m).start { GameSplitter::reading() } else { GameSplitter::new() };
        self.fresh = true;
        self.line.clear();
        self.game.clear();
        self.started = number;
        self.ready.clear();
        self.next = number;
        self.pending = None;
        self.done = false;
        self.broken = false;
        self.checkpoints.insert(number, k);
    }

    /// Takes one complete line (with its line feed, or the input's last piece without one).
    fn complete(&mut self, line: &[u8]) -> Result<(), Error> {
        let start = match self.format {
            InputFormat::Movetext => true,
            InputFormat::Pgn => {
                let content = line.strip_suffix(b"\n").unwrap_or(line);
                // The splitter sees every line, so that it knows the line before the next one.
                self.splitter.starts_game(content) | std::mem::take(&mut self.fresh)
            }
        };
        if let Some((number, k)) = self.pending.take()
            && start
        {
            self.checkpoints.insert(number, k);
        }
        if start {
            self.started += 1;
            if !self.game.is_empty() {
                self.ready.push_back(std::mem::take(&mut self.game));
            }
        }
        match self.format {
            InputFormat::Movetext => {
                self.limits.check_held(line.len() as u64)?;
                self.ready.push_back(line.to_vec());
            }
            InputFormat::Pgn => {
                self.limits.check_held((self.game.len() + line.len()) as u64)?;
                self.game.extend_from_slice(line);
            }
        }
        Ok(())
    }

    /// Cuts the text of block `k` into lines.
    fn feed(&mut self, k: usize, text: &[u8]) -> Result<(), Error> {
        let m = self.blocks.member_of(k);
        if k > 0 && m != self.blocks.member_of(k - 1) {
            // A new member: the last game of the one before ends here, and its own format cuts
            // the games of this one.
            self.end_games()?;
            self.splitter = GameSplitter::reading();
            self.fresh = true;
            self.format = self.blocks.member_header(m).format;
        }
        if self.line.is_empty() {
            self.pending = Some((self.started, k));
        }
        let mut at = 0;
        while at < text.len() {
            let Some(i) = memchr::memchr(b'\n', &text[at..]) else {
                let open = (self.line.len() + text.len() - at) as u64;
                let held = if self.format == InputFormat::Pgn { open + self.game.len() as u64 } else { open };
                self.limits.check_held(held)?;
                self.line.extend_from_slice(&text[at..]);
                break;
            };
            let end = at + i + 1;
            if self.line.is_empty() {
                self.complete(&text[at..end])?;
            } else {
                let mut line = std::mem::take(&mut self.line);
                line.extend_from_slice(&text[at..end]);
                self.complete(&line)?;
                line.clear();
                self.line = line;
            }
            at = end;
        }
        // The games cut are bounded when returned ([`Games::next_game`]); a game still open
        // that is returned next (none is waiting, and it is not read past) is bounded now,
        // before more blocks are fed to it: its complete lines, or without one its open line
        // (an open line after complete ones may start the game after it).
        if self.ready.is_empty() && self.next >= self.skip {
            let open = if self.format == InputFormat::Pgn && !self.game.is_empty() { self.game.len() } else { self.line.len() };
            self.limits.check_game(open as u64)?;
        }
        Ok(())
    }

    /// Cuts the last game after the last block.
    fn finish(&mut self) -> Result<(), Error> {
        self.end_games()?;
        self.done = true;
        Ok(())
    }

    /// Cuts the open line and game (at the end of the archive or of a member).
    fn end_games(&mut self) -> Result<(), Error> {
        if !self.line.is_empty() {
            let line = std::mem::take(&mut self.line);
            self.complete(&line)?;
        }
        if !self.game.is_empty() {
            self.ready.push_back(std::mem::take(&mut self.game));
        }
        Ok(())
    }

    /// The next game's text, `None` after the last one.
    ///
    /// # Errors
    /// As [`Blocks::next_text`]; after an error no more games are returned until a
    /// [`Games::seek`].
    pub fn next_game(&mut self) -> Result<Option<Vec<u8>>, Error> {
        while self.ready.is_empty() && !self.done {
            let k = self.blocks.position();
            let fed = match self.blocks.next_text() {
                Ok(Some(text)) => self.feed(k, &text),
                Ok(None) => self.finish(),
                Err(e) => Err(e),
            };
            match fed {
                Ok(()) => {}
                Err(e) => {
                    self.ready.clear();
                    self.done = true;
                    self.broken = true;
                    return Err(e);
                }
            }
        }
        if let Some(game) = self.ready.front()
            && self.next >= self.skip
            && let Err(e) = self.limits.check_game(game.len() as u64)
        {
            self.ready.clear();
            self.done = true;
            self.broken = true;
            return Err(e);
        }
        let game = self.ready.pop_front();
        if game.is_some() {
            self.next += 1;
        }
        Ok(game)
    }

    /// Makes game `n` (0-based) the next one [`Games::next_game`] returns (none if the archive
    /// has fewer games). Goes on from the current position when `n` is ahead and no known
    /// block start lies between (and no block failed); otherwise restarts at the last block
    /// known to start a game at or before `n`, and reads forward from there.
    ///
    /// # Errors
    /// As [`Games::next_game`], for the games read on the way.
    pub fn seek(&mut self, n: u64) -> Result<(), Error> {
        if let Some(total) = self.total
            && n >= total
        {
            self.ready.clear();
            self.blocks.seek(self.blocks.entries().len());
            self.next = total;
            self.done = true;
            return Ok(());
        }
        let (number, k) = self.checkpoints.range(..=n).next_back().map(|(&g, &k)| (g, k)).expect("game 0 starts at block 0");
        let here = self.next;
        if self.broken || n < here || (number > here && k >= self.blocks.position()) {
            self.restart(number, k);
        }
        // The games before `n` are read past, not returned: no game ceiling bounds them.
        self.skip = n;
        let read = (|| {
            while self.next < n {
                if self.next_game()?.is_none() {
                    break;
                }
            }
            Ok(())
        })();
        self.skip = 0;
        read
    }
}

impl<R: Read + Seek> Iterator for Games<R> {
    type Item = Result<Vec<u8>, Error>;

    fn next(&mut self) -> Option<Self::Item> {
        self.next_game().transpose()
    }
}

#[cfg(test)]
mod tests {
    use std::io::Cursor;

    use super::*;
    use crate::archive::{CompressOptions, compress_bytes};

    const MOVETEXT: &str = "e4 e5 Nf3 Nc6 Bb5 a6 1-0\nd4 d5 c4 e6 0-1\nnot a game\nNf3 Nf6 1/2-1/2\ne4 c5 Nf3 d6 d4 1-0\nc4 1-0";

    const PGN: &str = "\n[Event \"a\"]\n[Result \"1-0\"]\n\n1. e4 e5 2. Nf3 1-0\n\n[Event \"b\"]\n\n1. d4 d5 0-1\n\n\
        1. c4 *\n\n[Event \"c\"]\n[Result \"1/2-1/2\"]\n\n1. Nf3 Nf6\n2. g3 1/2-1/2\n";

    fn archive(text: &str, block_lines: u32, block_bytes: usize) -> Vec<u8> {
        compress_bytes(
            text.as_bytes(),
            &CompressOptions {
                level: crate::model::Level::MIN,
                block_lines,
                block_bytes,
                threads: 2,
                raw_form: false,
                ..CompressOptions::default()
            },
        )
    }

    fn all(a: &[u8]) -> Vec<String> {
        Games::open(Cursor::new(a), 2).unwrap().map(|g| String::from_utf8(g.unwrap()).unwrap()).collect()
    }

    #[test]
    fn blocks_give_back_the_text() {
        for (lines, bytes) in [(1, 1 << 20), (2, 1 << 20), (1000, 7)] {
            let a = archive(MOVETEXT, lines, bytes);
            let text: Vec<u8> = Blocks::open(Cursor::new(&a), 2).unwrap().flat_map(Result::unwrap).collect();
            assert_eq!(text, MOVETEXT.as_bytes());
        }
    }

    #[test]
    fn movetext_games_are_lines_wherever_blocks_are_cut() {
        let lines: Vec<String> = MOVETEXT.split_inclusive('\n').map(String::from).collect();
        for (block_lines, bytes) in [(1, 1 << 20), (2, 1 << 20), (1000, 1 << 20), (1000, 5), (3, 11)] {
            let a = archive(MOVETEXT, block_lines, bytes);
            assert_eq!(all(&a), lines, "{block_lines} lines, {bytes} bytes per block");
            let mut games = Games::open(Cursor::new(&a), 1).unwrap();
            assert_eq!(games.len_hint(), Some(6));
            for n in [4, 0, 5, 2, 3, 1, 1] {
                games.seek(n).unwrap();
                assert_eq!(games.next_game().unwrap().unwrap(), lines[n as usize].as_bytes(), "game {n}");
            }
            games.seek(6).unwrap();
            assert_eq!(games.next_game().unwrap(), None);
        }
    }

    #[test]
    fn pgn_games_and_random_access() {
        let expected = [
            "\n[Event \"a\"]\n[Result \"1-0\"]\n\n1. e4 e5 2. Nf3 1-0\n\n",
            "[Event \"b\"]\n\n1. d4 d5 0-1\n\n",
            "1. c4 *\n\n",
            "[Event \"c\"]\n[Result \"1/2-1/2\"]\n\n1. Nf3 Nf6\n2. g3 1/2-1/2\n",
        ];
        for (block_games, bytes) in [(1, 1 << 20), (2, 1 << 20), (1000, 1 << 20), (1, 9)] {
            let a = archive(PGN, block_games, bytes);
            assert_eq!(Blocks::open(Cursor::new(&a), 1).unwrap().header().format, InputFormat::Pgn);
            assert_eq!(all(&a), expected, "{block_games} games, {bytes} bytes per block");
            let mut games = Games::open(Cursor::new(&a), 2).unwrap();
            for n in [3, 1, 0, 2, 3, 4, 0] {
                games.seek(n).unwrap();
                assert_eq!(games.next_game().unwrap().as_deref(), expected.get(n as usize).map(|g| g.as_bytes()), "game {n}");
            }
        }
    }

    #[test]
    fn empty_archive_has_no_games() {
        let a = archive("", 1, 1 << 20);
        assert!(all(&a).is_empty());
        let mut games = Games::open(Cursor::new(&a), 1).unwrap();
        games.seek(3).unwrap();
        assert_eq!(games.next_game().unwrap(), None);
    }

    #[test]
    fn damage_names_the_block_after_the_good_ones() {
        let mut a = archive(MOVETEXT, 2, 1 << 20);
        let third = Blocks::open(Cursor::new(&a), 1).unwrap().entries()[2].offset as usize;
        // The last byte of block 1 (of 3).
        a[third - 1] ^= 0x40;
        let mut games = Games::open(Cursor::new(&a), 2).unwrap();
        for _ in 0..2 {
            games.next_game().unwrap().unwrap();
        }
        let e = games.next_game().unwrap_err().to_string();
        assert!(e.starts_with("corrupt archive: block 1"), "{e}");
        assert_eq!(games.next_game().unwrap(), None);
        // The blocks after the damage are still reached through the index.
        games.seek(4).unwrap();
        assert_eq!(games.next_game().unwrap().unwrap(), b"e4 c5 Nf3 d6 d4 1-0\n");
        games.seek(3).unwrap_err();
        games.seek(0).unwrap();
        assert_eq!(games.next_game().unwrap().unwrap(), b"e4 e5 Nf3 Nc6 Bb5 a6 1-0\n");
    }
}
