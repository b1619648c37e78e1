//! [`expand_salvage_stream`]: salvage of an archive that cannot seek (standard input, a pipe,
//! a FIFO), one member at a time, in bounded memory whatever follows the archive.

use std::io::{Cursor, Read, Write};

use super::options::{ExpandOptions, Progress};
use super::salvage::{Counted, DamagedBlock, Salvage, add_garbage, add_member, inner_message, member_lines, not_damage, salvage_member};
use crate::container::members::{MemberKind, stream_ends_at, stream_member, stream_member_past_hold};
use crate::container::spool::Spool;
use crate::error::Error;

/// Most bytes of one member [`expand_salvage_stream`] holds when the caller sets no
/// [`DecodeLimits::memlimit`](super::limits::DecodeLimits::memlimit): 256 MiB, the archive
/// of some 5 GB of PGN. A larger archive is salvaged whole from a file (which seeks, and
/// holds none of it).
pub const STREAM_SALVAGE_HOLD: u64 = 256 << 20;

/// [`expand_salvage`](super::expand_salvage) of an archive read from a stream that cannot
/// seek, with the same output and the same [`Salvage`] (parts, member numbers, archive byte
/// ranges), in memory bounded whatever the stream holds after the archive.
///
/// The members are found as [`crate::container::members::scan_from_start`] finds them in a
/// file (which [`expand_salvage`](super::expand_salvage) follows), as the
/// stream comes: a member is held from its start until its own headers and sizes, walked as
/// they arrive, say where it ends (the block container's index and footer, the raw form's
/// self-delimiting stream); it is then salvaged from memory as from a file, written, and
/// dropped. Bytes that start no member are scanned for the next member's magic bytes and
/// header without being held (`cat a.chz /dev/zero` reads on in a few MiB), and reported as
/// one damaged part, as from a file. A damaged member is held up to the next member found
/// after it, or the end.
///
/// At most [`DecodeLimits::memlimit`](super::limits::DecodeLimits::memlimit) bytes of one
/// member are held, [`STREAM_SALVAGE_HOLD`] if it is not set (and one byte more, to know
/// whether the stream ends there). A member whose walk passes that ends, as in a file, at the
/// next member's start if that lies among the bytes held (it is damaged up to there). Else
/// (an archive that large, or a damaged one) it is salvaged from the bytes held, as an archive
/// cut there, and the rest of it is passed over without being held, to its end as a file
/// walks it (a block container's block headers, index and footer), or for damage or the raw
/// form to the next member's start, scanned for as the stream comes: the members after it are
/// salvaged. The damaged part the cut reaches then reaches the member's end and says why. A
/// member whose first blocks (or raw window) the memory limit refuses gives what a file
/// gives: left out whole with the limit's error (the error itself, for a single archive).
///
/// # Errors
/// As [`expand_salvage`](super::expand_salvage).
pub fn expand_salvage_stream<R: Read, W: Write>(
    input: R,
    mut output: W,
    opts: &ExpandOptions,
    progress: Progress<'_>,
) -> Result<Salvage, Error> {
    let cap = opts.limits.memlimit.unwrap_or(STREAM_SALVAGE_HOLD);
    let mut spool = Spool::new(input, usize::try_from(cap).unwrap_or(usize::MAX));
    let mut salvage = Salvage::default();
    let mut lines_before = Some(0u64);
    let mut pos = 0u64;
    for m in 0u64.. {
        spool.forget_before(pos);
        if m > 0 && stream_ends_at(&mut spool, pos)? {
            break;
        }
        let Some((kind, end)) = stream_member(&mut spool, pos)? else {
            // Past the cap: what is held, as an archive cut there; the rest of the member is
            // passed over unheld, to the members after it.
            let held_end = spool.read_end();
            let base = salvage.summary.text_bytes;
            let mut out = Counted::new(&mut output);
            let held = salvage_member(Cursor::new(spool.held_bytes(pos, held_end)), &mut out, opts, &|n| progress(base + n));
            let written = out.written;
            let (end, lines) = stream_member_past_hold(&mut spool, pos)?;
            let part = match held {
                Ok(part) => cut_at_hold(part, held_end - pos, end - pos, cap),
                Err(e) if not_damage(&e) => return Err(e),
                // A limit the member's first blocks (or raw window) pass, as in a file: the
                // error of a single archive, else the member left out whole.
                Err(e @ Error::DecodeLimit { .. }) if pos == 0 && stream_ends_at(&mut spool, end)? => return Err(e),
                Err(e @ Error::DecodeLimit { .. }) => Salvage::failed(0..end - pos, inner_message(e), written),
                Err(e) => cut_at_hold(Salvage::failed(0..held_end - pos, inner_message(e), written), held_end - pos, end - pos, cap),
            };
            add_member(&mut salvage, part, m, pos, lines, &mut lines_before);
            pos = end;
            continue;
        };
        if pos == 0 && (kind == MemberKind::Garbage || stream_ends_at(&mut spool, end)?) {
            // One archive (or none): read as a single one, as from a file.
            return salvage_member(Cursor::new(spool.held_bytes(0, end)), output, opts, progress);
        }
        if kind == MemberKind::Garbage && spool.zeros_from(pos) && stream_ends_at(&mut spool, end)? {
            // Zero padding after the last member, ignored as by the other readers.
            pos = end;
            break;
        }
        if kind == MemberKind::Garbage {
            add_garbage(&mut salvage, m, pos..end, &mut lines_before);
        } else {
            let base = salvage.summary.text_bytes;
            let mut window = Cursor::new(spool.held_bytes(pos, end));
            let mut out = Counted::new(&mut output);
            let part = match salvage_member(&mut window, &mut out, opts, &|n| progress(base + n)) {
                Ok(part) => part,
                Err(e) if not_damage(&e) => return Err(e),
                Err(e) => Salvage::failed(0..end - pos, inner_message(e), out.written),
            };
            let lines = member_lines(&mut window, &part);
            add_member(&mut salvage, part, m, pos, lines, &mut lines_before);
        }
        pos = end;
    }
    salvage.summary.archive_bytes = pos;
    output.flush()?;
    Ok(salvage)
}

/// `part`, the salvage of a member's first `held` bytes (all a stream's salvage holds of it,
/// `cap`), as the salvage of the whole member of `len` bytes: the damaged part the cut reaches
/// (a block cut off) reaches the member's end and says why (one is added if none does).
fn cut_at_hold(mut part: Salvage, held: u64, len: u64, cap: u64) -> Salvage {
    let why = format!(
        "salvage of a stream holds at most {cap} bytes of one member: the rest of it was passed over, not held (salvage it from a file, or raise --memlimit)"
    );
    match part.damaged.last_mut() {
        Some(last) if last.to_end && last.archive_range.end == held => {
            last.archive_range.end = len;
            last.error = format!("{}; {why}", last.error);
        }
        _ => part.damaged.push(DamagedBlock {
            member: 0,
            block: 0,
            lines: None,
            games: None,
            first_line: None,
            archive_range: held..len,
            to_end: true,
            error: why,
        }),
    }
    part.summary.archive_bytes = len;
    part
}
