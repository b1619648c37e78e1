//! [`expand_salvage_stream`]: salvage of an archive that cannot seek (standard input, a pipe,
//! a FIFO), one member at a time, in bounded memory whatever follows the archive.

use std::io::{Cursor, Read, Write};

use super::options::{ExpandOptions, Progress};
use super::salvage::{DamagedBlock, Salvage, add_garbage, add_member, inner_message, member_lines, salvage_member};
use crate::container::members::{MemberKind, stream_ends_at, stream_member};
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
/// The members are found as [`crate::container::members::scan`] finds them in a file, as the
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
/// (an archive that large, or a damaged one that nothing but the end of the stream follows)
/// it is salvaged from the bytes held, as an archive cut there, and the rest of the input is
/// not read: one more damaged part, reaching the end, says so (a decoding error of the bytes
/// held, even of the first member, is that member's damaged part, not the result).
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
            // Past the cap: what is held, as an archive cut there, and the rest left unread.
            let held_end = spool.read_end();
            let base = salvage.summary.text_bytes;
            let mut window = Cursor::new(spool.held_bytes(pos, held_end));
            let part = match salvage_member(&mut window, &mut output, opts, &|n| progress(base + n)) {
                Ok(part) => part,
                Err(Error::Io(e)) => return Err(Error::Io(e)),
                // Even for the first member: the stream goes on, and a file may hold more.
                Err(e) => Salvage::nothing(0..held_end - pos, inner_message(e)),
            };
            add_member(&mut salvage, part, m, pos, None, &mut lines_before);
            let unread = format!(
                "the input after archive byte {held_end} was not read: salvage of a stream holds at most {cap} bytes of one member (salvage it from a file, or raise --memlimit)"
            );
            match salvage.damaged.last_mut() {
                // The part the cut reaches (a block cut off): its message says why.
                Some(last) if last.to_end && last.archive_range.end == held_end => last.error = format!("{}; {unread}", last.error),
                _ => salvage.damaged.push(DamagedBlock {
                    member: m,
                    block: 0,
                    lines: None,
                    games: None,
                    first_line: None,
                    archive_range: held_end..held_end,
                    to_end: true,
                    error: unread,
                }),
            }
            salvage.summary.archive_bytes = held_end;
            output.flush()?;
            return Ok(salvage);
        };
        if pos == 0 && (kind == MemberKind::Garbage || stream_ends_at(&mut spool, end)?) {
            // One archive (or none): read as a single one, as from a file.
            return salvage_member(Cursor::new(spool.held_bytes(0, end)), output, opts, progress);
        }
        if kind == MemberKind::Garbage {
            add_garbage(&mut salvage, m, pos..end, &mut lines_before);
        } else {
            let base = salvage.summary.text_bytes;
            let mut window = Cursor::new(spool.held_bytes(pos, end));
            let part = match salvage_member(&mut window, &mut output, opts, &|n| progress(base + n)) {
                Ok(part) => part,
                Err(Error::Io(e)) => return Err(Error::Io(e)),
                Err(e) => Salvage::nothing(0..end - pos, inner_message(e)),
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
