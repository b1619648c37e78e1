//! A stream that cannot seek (standard input, a pipe), made seekable over a window of the
//! bytes it has given: the readers that walk a member ([`super::members`]) seek in it as in a
//! file, while only the bytes from [`Spool::forget_before`]'s mark on are held, and never more
//! than a bound. Salvage of a stream ([`crate::archive::expand_salvage_stream`]) holds one
//! member at a time this way.

use std::io::{self, Read, Seek, SeekFrom};

/// Bytes read from the stream per refill (1 MiB).
const CHUNK: usize = 1 << 20;

/// Most bytes a spool that forgets as it seeks ([`Spool::forgetting`]) may hold, whatever its
/// cap: a scan for the next member reads a chunk and a file header at each place, and so
/// needs a little more than [`CHUNK`] (under a smaller cap, such a scan stopped at once).
const FORGETTING_HOLD: usize = 2 * CHUNK;

/// `input`'s bytes from offset [`Spool::held_from`] to those read so far, readable and seekable
/// by their offsets in the whole stream (from 0). Reading past the bytes held reads on from
/// `input`; seeking before the first byte held, from the end, or holding more than `cap` bytes
/// is an error ([`Spool::over_cap`] tells the last one apart).
pub struct Spool<R> {
    input: R,
    /// The bytes held, from offset `base`.
    held: Vec<u8>,
    base: u64,
    /// The offset the next read starts at.
    pos: u64,
    /// Most bytes held at once.
    cap: usize,
    eof: bool,
    over_cap: bool,
    /// Whether a seek forgets the bytes before its target ([`Spool::forgetting`]).
    forgetting: bool,
    /// The offset after the last byte read from `input` that is not zero, 0 if none.
    nonzero_end: u64,
}

impl<R: Read> Spool<R> {
    /// `input` from its start, holding at most `cap` bytes.
    pub fn new(input: R, cap: usize) -> Self {
        Spool { input, held: Vec::new(), base: 0, pos: 0, cap, eof: false, over_cap: false, forgetting: false, nonzero_end: 0 }
    }

    /// The offset of the first byte held.
    pub fn held_from(&self) -> u64 {
        self.base
    }

    /// Whether every byte read so far from offset `from` on is zero (held or forgotten): zero
    /// padding, when the stream ends there.
    pub fn zeros_from(&self, from: u64) -> bool {
        self.nonzero_end <= from
    }

    /// The offset after the last byte read so far.
    pub fn read_end(&self) -> u64 {
        self.base + self.held.len() as u64
    }

    /// The bytes held from offset `from` (at least [`Spool::held_from`]) to `to` (at most
    /// the end of those read so far).
    pub fn held_bytes(&self, from: u64, to: u64) -> &[u8] {
        &self.held[(from - self.base) as usize..(to - self.base) as usize]
    }

    /// Forgets the bytes before offset `at` (no further than those read so far).
    pub fn forget_before(&mut self, at: u64) {
        let n = (at.saturating_sub(self.base) as usize).min(self.held.len());
        self.held.drain(..n);
        self.base += n as u64;
    }

    /// From now on (`on`) or no longer, a seek forgets the bytes before its target, and a
    /// seek past the bytes read reads on to its target without holding what it passes: for a
    /// reader that only seeks forward (a scan for the next member, a walk through a member's
    /// headers), whatever it passes. Meanwhile the spool holds up to 2 MiB (`FORGETTING_HOLD`),
    /// should its cap be less.
    pub fn forgetting(&mut self, on: bool) {
        self.forgetting = on;
    }

    /// The most bytes held at once now.
    fn hold(&self) -> usize {
        if self.forgetting { self.cap.max(FORGETTING_HOLD) } else { self.cap }
    }

    /// Reads and drops `input`'s bytes up to offset `at` that are not read yet (a spool that
    /// forgets holds none of them then), so that the next read starts there.
    fn skip_to(&mut self, at: u64) -> io::Result<()> {
        let end = self.read_end();
        if at > end && !self.eof {
            self.held.clear();
            let skipped = io::copy(&mut (&mut self.input).take(at - end), &mut io::sink())?;
            self.base = end + skipped;
            self.eof = skipped < at - end;
        }
        Ok(())
    }

    /// Whether the last read failed because it would have held more than the cap.
    pub fn over_cap(&self) -> bool {
        self.over_cap
    }

    /// Whether the stream ends at offset `at`: no byte there (reads on to know; the one byte
    /// after the cap too, so that the bytes held may then be one more than the cap).
    ///
    /// # Errors
    /// From reading `input`, or holding more than the cap (and one).
    pub fn ends_at(&mut self, at: u64) -> io::Result<bool> {
        self.fill_to(at + 1, 1)?;
        Ok(self.base + (self.held.len() as u64) <= at)
    }

    /// Reads on from `input` until the bytes held reach offset `end` or the stream ends, in
    /// reads of [`CHUNK`] bytes at least (fewer at the cap, which `extra` bytes may pass).
    fn fill_to(&mut self, end: u64, extra: usize) -> io::Result<()> {
        self.over_cap = false;
        let cap = self.hold().saturating_add(extra);
        while !self.eof && self.base + (self.held.len() as u64) < end {
            let len = self.held.len();
            if len >= cap {
                self.over_cap = true;
                return Err(io::Error::other("salvage of a stream: past the bytes it may hold of one member"));
            }
            let want = ((end - self.base) as usize - len).max(CHUNK).min(cap - len);
            // Doubling (few copies of what is held), but never past the cap: the bytes held are
            // what the cap bounds, not twice that.
            let room = (len + want).max(len.saturating_mul(2).min(cap));
            self.held.reserve_exact(room - len);
            let got = (&mut self.input).take(want as u64).read_to_end(&mut self.held)?;
            if let Some(i) = self.held[len..].iter().rposition(|&b| b != 0) {
                self.nonzero_end = self.base + (len + i + 1) as u64;
            }
            self.eof = got < want;
        }
        Ok(())
    }
}

impl<R: Read> Read for Spool<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        if buf.is_empty() {
            return Ok(0);
        }
        self.fill_to(self.pos + 1, 0)?;
        let end = self.base + self.held.len() as u64;
        if self.pos >= end {
            return Ok(0);
        }
        let from = (self.pos - self.base) as usize;
        let n = buf.len().min(self.held.len() - from);
        buf[..n].copy_from_slice(&self.held[from..from + n]);
        self.pos += n as u64;
        Ok(n)
    }
}

impl<R: Read> Seek for Spool<R> {
    fn seek(&mut self, to: SeekFrom) -> io::Result<u64> {
        let to = match to {
            SeekFrom::Start(p) => p as i128,
            SeekFrom::Current(d) => self.pos as i128 + d as i128,
            SeekFrom::End(_) => return Err(io::Error::other("a stream has no known end to seek from")),
        };
        if to < self.base as i128 {
            return Err(io::Error::other("seek before the bytes held of a stream"));
        }
        self.pos = to as u64;
        if self.forgetting {
            self.forget_before(self.pos);
            self.skip_to(self.pos)?;
        }
        Ok(self.pos)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_seeks_and_forgets_by_stream_offsets() {
        let data: Vec<u8> = (0..=255u8).cycle().take(3 * CHUNK).collect();
        let mut s = Spool::new(&data[..], usize::MAX);
        let mut b = [0u8; 4];
        s.seek(SeekFrom::Start(CHUNK as u64 + 10)).unwrap();
        s.read_exact(&mut b).unwrap();
        assert_eq!(b[..], data[CHUNK + 10..CHUNK + 14]);
        s.forget_before(CHUNK as u64);
        assert_eq!(s.held_from(), CHUNK as u64);
        assert!(s.seek(SeekFrom::Start(5)).is_err());
        assert_eq!(s.held_bytes(CHUNK as u64, CHUNK as u64 + 3), &data[CHUNK..CHUNK + 3]);
        assert!(!s.ends_at(3 * CHUNK as u64 - 1).unwrap());
        assert!(s.ends_at(3 * CHUNK as u64).unwrap());
    }

    #[test]
    fn holding_more_than_the_cap_is_an_error() {
        let data = vec![7u8; 3 * CHUNK];
        let mut s = Spool::new(&data[..], CHUNK + 100);
        s.seek(SeekFrom::Start(CHUNK as u64 + 50)).unwrap();
        let mut b = [0u8; 10];
        s.read_exact(&mut b).unwrap();
        s.seek(SeekFrom::Start(2 * CHUNK as u64)).unwrap();
        assert!(s.read_exact(&mut b).is_err());
        assert!(s.over_cap());
        // Forgetting makes room.
        s.forget_before(2 * CHUNK as u64);
        s.seek(SeekFrom::Start(2 * CHUNK as u64)).unwrap();
        s.read_exact(&mut b).unwrap();
        assert!(!s.over_cap());
        // A spool that forgets as it seeks scans any length within the cap.
        let mut s2 = Spool::new(&data[..], CHUNK + 100);
        s2.forgetting(true);
        for at in (0..3 * CHUNK as u64).step_by(CHUNK / 2) {
            s2.seek(SeekFrom::Start(at)).unwrap();
            s2.read_exact(&mut b).unwrap();
        }
        assert!(!s2.over_cap());
    }

    #[test]
    fn a_forgetting_spool_passes_over_bytes_without_holding_them() {
        // Seeks far past the bytes read, under a cap much smaller than the stream: what is
        // passed over is read and dropped, and reads go on at the target.
        let data: Vec<u8> = (0..=255u8).cycle().take(8 * CHUNK + 77).collect();
        let mut s = Spool::new(&data[..], 1000);
        s.forgetting(true);
        let mut b = [0u8; 4];
        for at in [10, 3 * CHUNK as u64 + 5, 7 * CHUNK as u64 + 3] {
            s.seek(SeekFrom::Start(at)).unwrap();
            s.read_exact(&mut b).unwrap();
            assert_eq!(b[..], data[at as usize..at as usize + 4]);
            assert!(s.read_end() - s.held_from() <= FORGETTING_HOLD as u64);
        }
        // A scan's read of a chunk and more fits, whatever the cap.
        let mut chunk = vec![0u8; CHUNK + 32];
        s.read_exact(&mut chunk).unwrap();
        assert!(!s.over_cap());
        // Past the end: nothing to read, and the end is known.
        s.seek(SeekFrom::Start(9 * CHUNK as u64)).unwrap();
        assert_eq!(s.read(&mut b).unwrap(), 0);
        s.forgetting(false);
        assert!(s.ends_at(8 * CHUNK as u64 + 77).unwrap());
    }

    #[test]
    fn whether_a_stream_ends_at_the_cap_is_known() {
        // One byte past the cap is read to know, whether there is one or not.
        let data = [7u8; 100];
        let mut s = Spool::new(&data[..], 100);
        let mut b = [0u8; 100];
        s.read_exact(&mut b).unwrap();
        assert!(s.ends_at(100).unwrap());
        let longer = [7u8; 101];
        let mut s = Spool::new(&longer[..], 100);
        s.read_exact(&mut b).unwrap();
        assert!(!s.ends_at(100).unwrap());
        assert_eq!(s.read_end(), 101);
        // Past that, the cap holds.
        assert!(s.ends_at(101).is_err());
        assert!(s.over_cap());
    }
}
