//! The checks of the `salvage` fuzz target, shared with `tests/it/fuzz_cases.rs` (which
//! replays the seeds and the findings with them).
//!
//! The input's first byte chooses how the stream is read and whether a small memlimit run is
//! made; the rest is the archive. Checked, as docs/robustness.md promises:
//! - neither `expand_salvage` (a file) nor `expand_salvage_stream` (a stream, read in chunks
//!   of 1-64 bytes or whole) panics, with the default limits or with a small memlimit;
//! - with the default limits (no memlimit: the stream holds up to 256 MiB of a member, far
//!   more than a fuzz input) the two agree: both `Ok` with the same output bytes, or both
//!   `Err`, and the same `Salvage` (parts, member numbers, archive byte ranges, summary), as
//!   `expand_salvage_stream`'s documentation promises (both find members by a walk from the
//!   start, `members::scan_from_start`; the findings that told them apart are in
//!   `tests/fuzz_cases/salvage_known/`, replayed by `tests/it/fuzz_cases.rs`);
//! - when `expand_bytes` succeeds, both salvages write exactly its bytes and report nothing
//!   damaged.
//!
//! Under a small memlimit the two may differ by design (the stream's hold cap), so only the
//! absence of panics is checked there.

use std::io::{Cursor, Read};

use chesszip::{DecodeLimits, ExpandOptions, Salvage};

/// A reader that gives at most `chunk` bytes per `read`, so that the stream salvage sees
/// members arrive in pieces.
pub struct Chunked<'a> {
    data: &'a [u8],
    chunk: usize,
}

impl Read for Chunked<'_> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = buf.len().min(self.chunk).min(self.data.len());
        buf[..n].copy_from_slice(&self.data[..n]);
        self.data = &self.data[n..];
        Ok(n)
    }
}

/// One salvage's outcome: its `Salvage` (or the error's message) and the bytes it wrote.
pub type Outcome = (Result<Salvage, String>, Vec<u8>);

fn as_file(archive: &[u8], opts: &ExpandOptions) -> Outcome {
    let mut out = Vec::new();
    let r = chesszip::expand_salvage(Cursor::new(archive), &mut out, opts, &|_| {});
    (r.map_err(|e| e.to_string()), out)
}

fn as_stream(archive: &[u8], chunk: usize, opts: &ExpandOptions) -> Outcome {
    let mut out = Vec::new();
    let r = chesszip::expand_salvage_stream(Chunked { data: archive, chunk }, &mut out, opts, &|_| {});
    (r.map_err(|e| e.to_string()), out)
}

/// The stream's read size that the setting byte `cfg` chooses: bit 7 whole reads, else reads
/// of 1..=64 bytes (bits 0-5).
fn chunk(cfg: u8) -> usize {
    if cfg & 0x80 != 0 { usize::MAX } else { 1 + (cfg & 0x3f) as usize }
}

/// The fuzz input `data` salvaged with the default limits as a file and as a stream; `None`
/// for an empty input.
pub fn both(data: &[u8]) -> Option<(Outcome, Outcome)> {
    let [cfg, archive @ ..] = data else {
        return None;
    };
    let opts = ExpandOptions { threads: 1, ..Default::default() };
    Some((as_file(archive, &opts), as_stream(archive, chunk(*cfg), &opts)))
}

/// Runs every check on the fuzz input `data`; panics on a failure.
pub fn check(data: &[u8]) {
    let Some((file, stream)) = both(data) else {
        return;
    };
    let (cfg, archive) = (data[0], &data[1..]);
    let opts = ExpandOptions { threads: 1, ..Default::default() };
    assert_eq!(file.0.is_ok(), stream.0.is_ok(), "file and stream salvage disagree on success: {:?} / {:?}", file.0, stream.0);
    if let (Ok(f), Ok(s)) = (&file.0, &stream.0) {
        assert_eq!(f, s, "file and stream salvage report differently");
    }
    assert!(file.1 == stream.1, "file and stream salvage wrote different bytes ({} / {})", file.1.len(), stream.1.len());

    if let Ok(text) = chesszip::expand_bytes(archive, &opts) {
        for (how, (r, out)) in [("file", &file), ("stream", &stream)] {
            let s = r.as_ref().unwrap_or_else(|e| panic!("{how} salvage fails where expand succeeds: {e}"));
            assert!(s.is_complete(), "{how} salvage reports damage where expand succeeds: {:?}", s.damaged);
            assert!(*out == text, "{how} salvage wrote other bytes than expand ({} / {})", out.len(), text.len());
        }
    }

    // Bit 6: a small memlimit (64 B .. 2 MiB, from bits 0-4): no panic, whatever the outcome.
    if cfg & 0x40 != 0 {
        let memlimit = 64u64 << (cfg & 0x1f).min(15);
        let small = ExpandOptions { threads: 1, limits: DecodeLimits { memlimit: Some(memlimit), ..DecodeLimits::default() } };
        let _ = as_file(archive, &small);
        let _ = as_stream(archive, chunk(cfg), &small);
    }
}
