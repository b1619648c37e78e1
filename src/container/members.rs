//! Concatenated archives: `cat a.chz b.chz > ab.chz` is an archive that expands to the text
//! of `a` and then that of `b`, as with gzip, bzip2, xz and zstd. Each archive in such a file
//! is a *member*, of either form (block container or whole-input raw form) and either format;
//! members are numbered from 0 as blocks are, and messages about a member after the first
//! name it (`member 1: block 3: ...`), while those about the first read as those of a
//! single archive.
//!
//! [`scan`] finds the members of a seekable archive without decoding a move: a block
//! container is walked from its header through its block headers (one small read per block)
//! to its index and footer, which must point back to where the walk found the index; a raw
//! member's stream is self-delimiting, so it is decoded (zstd or LZMA2, no model) to find its
//! end. A single archive is recognised from its footer and index alone, as before; salvage
//! ([`scan_from_start`]) walks from the start even then, as a stream must.
//!
//! Data after a member that does not start with either form's magic bytes is an error
//! ("unexpected data after the end of the archive"), as `xz` makes it: unlike `gzip`, which
//! warns of "trailing garbage" and ignores it, chesszip never ignores bytes it cannot read,
//! but for zero bytes after the last member, up to the end of the input: padding (a file
//! written to a tape or disk block), ignored as `gzip -d` ignores it and as the xz format
//! allows stream padding. [`scan`] and [`crate::expand`] end there; [`scan_from_start`] and a
//! stream's walk still find the zeros as bytes that start no member, and salvage drops them
//! when they are the last part.
//! Readers open each member through a [`Window`] on the one input.
//!
//! A stream that cannot seek (salvage of a pipe) is delimited the same way as it comes,
//! member by member (`stream_member`), over a [`Spool`] that holds only the member at hand.

use std::io::{BufReader, Read, Seek, SeekFrom};
use std::ops::Range;
use std::sync::{Arc, Mutex};

use super::format::{BlockHeader, FileHeader, Footer, MAGIC, index_count, index_len, index_lines, parse_index};
use super::indexed::IndexedReader;
use super::raw::{self, RAW_MAGIC, RawReader};
use super::reader::{read_exact_or, read_vec};
use super::spool::Spool;
use crate::error::Error;

/// What [`scan`] found at a member's place.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MemberKind {
    /// A block container.
    Container,
    /// The whole-input raw form.
    Raw,
    /// Bytes that start neither form (after a member): an error for every reader.
    Garbage,
}

impl MemberKind {
    /// The kind of member whose first bytes (up to 4) are `head`.
    fn of_head(head: &[u8]) -> Self {
        if raw::is_raw(head) {
            MemberKind::Raw
        } else if starts_member(head) {
            MemberKind::Container
        } else {
            MemberKind::Garbage
        }
    }
}

/// One member of an archive: where it lies, and whether its walk found it whole.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Member {
    /// Its bytes in the archive.
    pub range: Range<u64>,
    /// Its form, from its first bytes.
    pub kind: MemberKind,
    /// Whether the walk through it found damage (its end then is where the next member's
    /// magic bytes and header were found, or the end of the file); reading it reports the
    /// damage.
    pub damaged: bool,
}

/// `e` as an error of member `m`: unchanged for the first member, else its message prefixed
/// with `member m: `.
pub(crate) fn in_member(m: usize, e: Error) -> Error {
    if m == 0 {
        return e;
    }
    match e {
        Error::Corrupt(s) => Error::Corrupt(format!("member {m}: {s}")),
        Error::LimitExceeded(s) => Error::LimitExceeded(format!("member {m}: {s}")),
        Error::Unsupported(s) => Error::Unsupported(format!("member {m}: {s}")),
        other => other,
    }
}

/// The error of bytes after a member that start no archive.
pub(crate) fn trailing_garbage() -> Error {
    Error::Corrupt("unexpected data after the end of the archive".into())
}

/// Zero padding after the last member: the same test as after compressed input's data.
pub(crate) use crate::compressed::rest_is_zeros;

/// Whether `prefix` (the first 4 bytes at least, when there are that many) starts a member of
/// either form. An input whose first 4 bytes start none is no archive for any reader,
/// [`crate::expand_salvage`] included, whatever follows them ([`scan`] looks for no member
/// after it).
pub fn starts_member(prefix: &[u8]) -> bool {
    raw::is_raw(prefix) || (prefix.len() >= 4 && prefix[..4] == MAGIC[..4])
}

/// The members of the archive `input`, in order, covering the whole file (see the
/// [module](self)); a single archive (or a file that is none) is one member of the whole
/// file. Leaves `input` at its start.
///
/// # Errors
/// [`Error::Io`] only: damage is recorded in [`Member::damaged`] (or left for the readers of a
/// single archive to find), so that salvage can read the other members.
pub fn scan<R: Read + Seek>(input: &mut R) -> Result<Vec<Member>, Error> {
    scan_with(input, false, None)
}

/// The members of the archive `input` as salvage finds them, in a file as in a stream
/// ([`crate::expand_salvage`], [`crate::expand_salvage_stream`]): by [`scan`]'s walk from
/// the start, member by member, never from the footer at the end. They differ from [`scan`]'s
/// only where the footer and index at the end check out but the walk from the start does not
/// reach them: where a member's bytes hold another member's magic bytes and file header (a
/// damaged block that does, a small archive written over the start of a larger one), which a
/// stream, that cannot see the footer before it has read the bytes before it, cuts there.
/// Leaves `input` at its start.
///
/// # Errors
/// As [`scan`].
pub fn scan_from_start<R: Read + Seek>(input: &mut R) -> Result<Vec<Member>, Error> {
    scan_with(input, true, None)
}

/// [`scan_from_start`] under a memory ceiling of `memlimit` bytes (`--salvage --memlimit`): a
/// raw member whose decoder's window does not fit is not walked but passed over as a damaged
/// one is, to the next member's magic bytes, so that memory stays within the ceiling and the
/// members after it are still found.
///
/// # Errors
/// As [`scan`].
pub fn scan_from_start_within<R: Read + Seek>(input: &mut R, memlimit: Option<u64>) -> Result<Vec<Member>, Error> {
    scan_with(input, true, memlimit)
}

/// [`scan`] under a memory ceiling of `memlimit` bytes (`--memlimit`,
/// [`crate::DecodeLimits::memlimit`]): a raw member is walked only where its decoder's window
/// fits (`raw::check_window`), as its readers decode it; one that does not is refused
/// rather than walked with a window of up to 128 MiB.
///
/// # Errors
/// As [`scan`]; [`Error::DecodeLimit`] for a raw member whose window exceeds `memlimit`.
pub fn scan_within<R: Read + Seek>(input: &mut R, memlimit: Option<u64>) -> Result<Vec<Member>, Error> {
    scan_with(input, false, memlimit)
}

/// Whether the archive `input` is read as a single one: [`scan_within`] finds one member,
/// and no zero padding after it. Leaves `input` at its start.
///
/// # Errors
/// As [`scan_within`].
pub(crate) fn single_within<R: Read + Seek>(input: &mut R, memlimit: Option<u64>) -> Result<bool, Error> {
    let found = scan_within(input, memlimit)?;
    let len = input.seek(SeekFrom::End(0))?;
    input.seek(SeekFrom::Start(0))?;
    Ok(found.len() == 1 && found[0].range.end == len)
}

/// [`scan_within`], from the start as [`scan_from_start`] if `from_start`.
fn scan_with<R: Read + Seek>(input: &mut R, from_start: bool, memlimit: Option<u64>) -> Result<Vec<Member>, Error> {
    let len = input.seek(SeekFrom::End(0))?;
    input.seek(SeekFrom::Start(0))?;
    let whole = |kind| vec![Member { range: 0..len, kind, damaged: false }];
    if !from_start && !raw::starts_raw(input)? {
        // A single block container, known from its footer and index: the common case, as fast
        // as before.
        match IndexedReader::open_index(&mut *input) {
            Ok(_) => {
                input.seek(SeekFrom::Start(0))?;
                return Ok(whole(MemberKind::Container));
            }
            Err(Error::Io(e)) => return Err(Error::Io(e)),
            Err(_) => {}
        }
    }
    let mut members = Vec::new();
    let mut pos = 0;
    while pos < len || members.is_empty() {
        let mut head = [0u8; 4];
        input.seek(SeekFrom::Start(pos))?;
        let got = raw::read_up_to(input, &mut head)?;
        let kind = MemberKind::of_head(&head[..got]);
        if pos == 0 && kind == MemberKind::Garbage {
            // Not an archive: its readers say so.
            input.seek(SeekFrom::Start(0))?;
            return Ok(whole(MemberKind::Garbage));
        }
        if !from_start && kind == MemberKind::Garbage && head[..got].iter().all(|&b| b == 0) {
            input.seek(SeekFrom::Start(pos))?;
            if rest_is_zeros(&mut BufReader::new(&mut *input))? {
                break; // zero padding after the last member
            }
        }
        let walked = match kind {
            MemberKind::Raw => walk_raw(input, pos, memlimit),
            MemberKind::Container => walk_container(input, pos, len).map(|(end, _)| end),
            MemberKind::Garbage => Err(trailing_garbage()),
        };
        let (end, damaged) = match walked {
            Ok(end) => (end, false),
            Err(Error::Io(e)) => return Err(Error::Io(e)),
            // Salvage (from the start) passes over a raw member too large for the ceiling as
            // over a damaged one, to the next member's magic bytes, and reports it with the
            // limit's message when it reads it; the other readers refuse it.
            Err(e @ Error::DecodeLimit { .. }) if !from_start => return Err(e),
            Err(_) => (next_member(input, pos + 1, len)?.unwrap_or(len), true),
        };
        if pos == 0 && end == len {
            // One archive (damaged, or raw): read as a single one.
            input.seek(SeekFrom::Start(0))?;
            return Ok(vec![Member { range: 0..len, kind, damaged }]);
        }
        members.push(Member { range: pos..end, kind, damaged });
        pos = end;
    }
    input.seek(SeekFrom::Start(0))?;
    Ok(members)
}

/// The end of the raw member at `start`, found by decoding its stream, where its decoder's
/// window fits `memlimit` (`raw::check_window`).
fn walk_raw<R: Read + Seek>(input: &mut R, start: u64, memlimit: Option<u64>) -> Result<u64, Error> {
    input.seek(SeekFrom::Start(start))?;
    let mut reader = RawReader::member(BufReader::new(&mut *input))?;
    raw::check_window(reader.header(), memlimit)?;
    reader.copy_to(&mut std::io::sink())?;
    Ok(start + reader.archive_bytes())
}

/// The end of the block container at `start`, walked through its block headers to its index
/// and footer, which must agree with the walk, and the lines of text its index records.
fn walk_container<R: Read + Seek>(input: &mut R, start: u64, len: u64) -> Result<(u64, u64), Error> {
    input.seek(SeekFrom::Start(start))?;
    let mut h = [0u8; FileHeader::LEN];
    read_exact_or(input, &mut h, "file header")?;
    let header = FileHeader::read_from(input, &h)?;
    let mut pos = start + header.encoded_len() as u64;
    let mut n = 0u64;
    loop {
        input.seek(SeekFrom::Start(pos))?;
        let mut head = [0u8; 8];
        read_exact_or(input, &mut head, &format!("block {n} header or index"))?;
        if !BlockHeader::is_block(&head) {
            let count = index_count(&head)?;
            if count as u64 != n {
                return Err(Error::Corrupt(format!("index lists {count} blocks but {n} were found (truncated or damaged archive)")));
            }
            let mut index = head.to_vec();
            index.extend(read_vec(input, index_len(count) - 8, "index")?);
            let lines = index_lines(&parse_index(&index)?);
            let mut f = [0u8; Footer::LEN];
            read_exact_or(input, &mut f, "footer")?;
            if Footer::parse(&f)?.index_offset != pos - start {
                return Err(Error::Corrupt("footer points to the wrong index offset".into()));
            }
            return Ok((pos + (index_len(count) + Footer::LEN) as u64, lines));
        }
        let mut b = [0u8; BlockHeader::LEN];
        b[..8].copy_from_slice(&head);
        read_exact_or(input, &mut b[8..], &format!("block {n} header"))?;
        let bh = BlockHeader::parse(&b, n)?;
        pos += (BlockHeader::LEN as u64) + bh.range_len as u64 + bh.raw_len as u64;
        if pos > len {
            return Err(Error::Corrupt(format!("truncated archive: block {n} is cut off")));
        }
        n += 1;
    }
}

/// Where the next member starts at or after `from`: the first place with a block container's
/// magic bytes and a valid file header (its checksum), or a raw archive's magic bytes and a
/// header that reads; `None` if there is none before `len`.
fn next_member<R: Read + Seek>(input: &mut R, from: u64, len: u64) -> Result<Option<u64>, Error> {
    const CHUNK: usize = 1 << 20;
    let mut at = from;
    let mut buf = vec![0u8; CHUNK + FileHeader::LEN];
    while at < len {
        input.seek(SeekFrom::Start(at))?;
        let got = raw::read_up_to(input, &mut buf)?;
        let scan = got.min(CHUNK);
        for i in memchr::memchr_iter(0x89, &buf[..scan]) {
            let here = &buf[i..got];
            let found = if here.starts_with(&MAGIC) && here.len() >= FileHeader::LEN {
                FileHeader::parse(here[..FileHeader::LEN].try_into().expect("header length")).is_ok()
            } else if here.starts_with(&RAW_MAGIC) {
                input.seek(SeekFrom::Start(at + i as u64))?;
                raw::RawHeader::read(&mut BufReader::new(&mut *input)).is_ok()
            } else {
                false
            };
            if found {
                return Ok(Some(at + i as u64));
            }
        }
        if got <= CHUNK {
            break;
        }
        at += CHUNK as u64;
    }
    Ok(None)
}

/// Whether the stream `spool` ends at archive byte `at` (at most the end of the bytes read so
/// far): reads one byte on to know, past the spool's cap if need be ([`Spool::ends_at`]), so that
/// a member exactly as long as the cap is known to be the last as in a file.
///
/// # Errors
/// [`Error::Io`] from reading the stream.
pub(crate) fn stream_ends_at<R: Read>(spool: &mut Spool<R>, at: u64) -> Result<bool, Error> {
    Ok(spool.ends_at(at)?)
}

/// Where the next member starts at or after archive byte `from`, among the bytes `spool` holds
/// (from `from` or the first held, whichever is later): what [`next_member`] finds in a file
/// when that lies there. `None` when there is none, or when the first candidate is too close
/// to the last byte held for its header ([`FileHeader::LEN`] bytes, more than a raw header's
/// 17) to be read: the file may then hold a member there.
fn next_member_held<R: Read>(spool: &Spool<R>, from: u64) -> Result<Option<u64>, Error> {
    let (start, end) = (from.max(spool.held_from()), spool.read_end());
    if start >= end {
        return Ok(None);
    }
    let held = spool.held_bytes(start, end);
    let found = next_member(&mut std::io::Cursor::new(held), 0, held.len() as u64)?;
    Ok(found.filter(|&i| i + FileHeader::LEN as u64 <= held.len() as u64).map(|i| start + i))
}

/// The kind and end of the member at archive byte `pos` of the stream `spool`, found as
/// [`scan_from_start`] finds them in a file (its walk, or for damage the next member's start, or the end
/// of the stream), as the stream comes: the member's bytes are held in `spool` (for its
/// salvage), bytes that start no member are not. A walk or scan that reaches the spool's cap
/// looks for the next member's start among the bytes held (so a damaged member, such as one
/// whose block header claims more bytes than the cap, ends there as in a file); `None` when
/// there is none there, and the member needs more bytes held than the cap.
///
/// # Errors
/// [`Error::Io`] from reading the stream: damage is the member's, found by its salvage.
pub(crate) fn stream_member<R: Read>(spool: &mut Spool<R>, pos: u64) -> Result<Option<(MemberKind, u64)>, Error> {
    let mut head = [0u8; 4];
    spool.seek(SeekFrom::Start(pos))?;
    let got = match raw::read_up_to(spool, &mut head) {
        Err(_) if spool.over_cap() => return Ok(None),
        other => other?,
    };
    let kind = MemberKind::of_head(&head[..got]);
    if pos == 0 && kind == MemberKind::Garbage {
        // No archive: the bytes read so far say so, as the whole input would.
        return Ok(Some((kind, spool.read_end())));
    }
    let walked = match kind {
        MemberKind::Raw => walk_raw(spool, pos, None),
        MemberKind::Container => walk_container(spool, pos, u64::MAX).map(|(end, _)| end),
        MemberKind::Garbage => Err(trailing_garbage()),
    };
    match walked {
        Ok(end) => return Ok(Some((kind, end))),
        Err(_) if spool.over_cap() => return Ok(next_member_held(spool, pos + 1)?.map(|next| (kind, next))),
        Err(Error::Io(e)) => return Err(Error::Io(e)),
        Err(_) => {}
    }
    // Damage, or bytes that start no member: on to the next member's start. Bytes that start
    // none are not kept (the scan only seeks forward); a damaged member's are.
    spool.forgetting(kind == MemberKind::Garbage);
    let next = next_member(spool, pos + 1, u64::MAX);
    spool.forgetting(false);
    match next {
        Ok(next) => Ok(Some((kind, next.unwrap_or_else(|| spool.read_end())))),
        Err(_) if spool.over_cap() => Ok(next_member_held(spool, pos + 1)?.map(|next| (kind, next))),
        Err(e) => Err(e),
    }
}

/// The end of the member at archive byte `pos` of the stream `spool` that [`stream_member`]
/// found to need more bytes held than the spool's cap, found without holding it, and the lines
/// of text its index records when its walk reads it. A block container is walked again from
/// its start as [`scan`] walks it, through its block headers to its index and footer, passing
/// over its blocks without holding them: the end a file gives. A raw member (whose stream
/// only its decoder delimits, with a window that may pass the cap), or damage found by the
/// walk, goes on to the next member's start (or the end of the stream), scanned for as bytes
/// that start no member are ([`stream_member`]). The spool holds none of the member's bytes
/// after it (the caller salvages those held before).
///
/// # Errors
/// [`Error::Io`] from reading the stream.
pub(crate) fn stream_member_past_hold<R: Read>(spool: &mut Spool<R>, pos: u64) -> Result<(u64, Option<u64>), Error> {
    spool.forgetting(true);
    let found = member_end_unheld(spool, pos);
    spool.forgetting(false);
    found
}

/// [`stream_member_past_hold`], `spool` forgetting.
fn member_end_unheld<R: Read>(spool: &mut Spool<R>, pos: u64) -> Result<(u64, Option<u64>), Error> {
    let mut head = [0u8; 4];
    spool.seek(SeekFrom::Start(pos))?;
    let got = raw::read_up_to(spool, &mut head)?;
    if MemberKind::of_head(&head[..got]) == MemberKind::Container {
        match walk_container(spool, pos, u64::MAX) {
            Ok((end, lines)) => return Ok((end, Some(lines))),
            // A read error stops the salvage; damage, or a walk past what may be held, goes
            // on to the next member's start.
            Err(Error::Io(e)) if !spool.over_cap() => return Err(Error::Io(e)),
            Err(_) => {}
        }
    }
    let from = (pos + 1).max(spool.held_from());
    Ok((next_member(spool, from, u64::MAX)?.unwrap_or_else(|| spool.read_end()), None))
}

/// A member's bytes as a file of their own: a window on an input shared by the windows of
/// every member (each keeps its own position, and seeks the input before each read).
pub struct Window<R> {
    input: Arc<Mutex<R>>,
    range: Range<u64>,
    pos: u64,
}

impl<R: Read + Seek> Window<R> {
    /// The bytes `range` of the shared `input`.
    pub fn new(input: Arc<Mutex<R>>, range: Range<u64>) -> Self {
        Window { input, range, pos: 0 }
    }

    /// Every member of `input` ([`scan`]), each in a window.
    ///
    /// # Errors
    /// As [`scan`].
    pub fn members(input: R) -> Result<Vec<(Member, Window<R>)>, Error> {
        Self::members_within(input, None)
    }

    /// [`Window::members`] under a memory ceiling ([`scan_within`]).
    ///
    /// # Errors
    /// As [`scan_within`].
    pub fn members_within(mut input: R, memlimit: Option<u64>) -> Result<Vec<(Member, Window<R>)>, Error> {
        let members = scan_within(&mut input, memlimit)?;
        let shared = Arc::new(Mutex::new(input));
        Ok(members.into_iter().map(|m| (m.clone(), Window::new(Arc::clone(&shared), m.range))).collect())
    }
}

impl<R: Read + Seek> Read for Window<R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let len = self.range.end - self.range.start;
        let left = len.saturating_sub(self.pos);
        let want = (buf.len() as u64).min(left) as usize;
        if want == 0 {
            return Ok(0);
        }
        let mut input = self.input.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        input.seek(SeekFrom::Start(self.range.start + self.pos))?;
        let n = input.read(&mut buf[..want])?;
        self.pos += n as u64;
        Ok(n)
    }
}

impl<R: Read + Seek> Seek for Window<R> {
    fn seek(&mut self, pos: SeekFrom) -> std::io::Result<u64> {
        let len = (self.range.end - self.range.start) as i128;
        let to = match pos {
            SeekFrom::Start(p) => p as i128,
            SeekFrom::End(d) => len + d as i128,
            SeekFrom::Current(d) => self.pos as i128 + d as i128,
        };
        if to < 0 {
            return Err(std::io::Error::new(std::io::ErrorKind::InvalidInput, "seek before the start of an archive member"));
        }
        self.pos = to as u64;
        Ok(self.pos)
    }
}
