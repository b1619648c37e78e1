//! Crafted archives: every checksum valid, around range-coder streams chosen to make a decoder
//! run on (a game that never ends, "first legal move, game not over" at every ply). Every
//! command must stop quickly with the typed [`Error::LimitExceeded`], within the work budget
//! that the archive's real size allows, whatever its headers claim.

use crate::common;

use std::io::Cursor;
use std::time::{Duration, Instant};

use chesszip::container::EncodedBlock;
use chesszip::container::{BlockHeader, Coding, FileHeader, InputFormat, MAX_BLOCK_TEXT, Writer};
use chesszip::entropy::{Cdf, CdfBuf, Encoder, TOTAL};
use chesszip::model::Model;
use chesszip::{Error, ExpandOptions, expand_bytes, extract_lines};

/// A range-coded stream that decodes `prefix` (each symbol under its table's weights), then
/// puts the decoder's point at the very bottom of its range with `bottom` symbols of
/// probability 2^-24, so that from there on every table decodes its first symbol; the zero
/// words the decoder reads past the end keep it there.
fn crafted_stream(prefix: &[(&[u64], usize)], bottom: usize) -> Vec<u8> {
    let mut enc = Encoder::new();
    for &(weights, symbol) in prefix {
        enc.encode(CdfBuf::from_weights(weights).cdf(), symbol);
    }
    let cum = [0, 1, TOTAL];
    for _ in 0..bottom {
        enc.encode(Cdf::new(&cum), 0);
    }
    enc.finish()
}

/// The prefix that opens a PGN block on a game without tags: more pieces (a fresh [`Bit`] at
/// 1/2), structured, no CRLF, no tag. From there the first symbol of every table is "not the
/// end" and "the first legal move".
///
/// [`Bit`]: chesszip::entropy::binary::Bit
const PGN_PREFIX: [(&[u64], usize); 4] = [(&[1, 1], 1), (&[1, 1], 1), (&[1, 1], 0), (&[1, 1], 0)];

/// The prefix that opens a movetext line that is a game (a fresh kind model at 1/2); then the
/// first terminator (LF) and, at every ply, "not the end", "the first legal move".
const MOVETEXT_PREFIX: [(&[u64], usize); 1] = [(&[32, 32], 1)];

/// An archive of one block of `format` holding `range`, whose header claims the largest text
/// a block may have; all checksums valid.
fn crafted_archive(format: InputFormat, range: Vec<u8>) -> Vec<u8> {
    crafted_archive_in(format, Coding::First, range)
}

/// [`crafted_archive`] in `coding`.
fn crafted_archive_in(format: InputFormat, coding: Coding, range: Vec<u8>) -> Vec<u8> {
    let header = FileHeader { format, level: 1, model_id: Model::builtin(chesszip::Level::MIN).id(), coding, weights: None };
    let mut writer = Writer::new(Vec::new(), &header).unwrap();
    let text_len = MAX_BLOCK_TEXT as u32;
    let block = BlockHeader { lines: 1, text_len, text_crc: 0, plies: text_len / 2, games: 1, ..BlockHeader::default() };
    writer.write_block(&block, &EncodedBlock { range, raw: Vec::new() }).unwrap();
    writer.finish().unwrap().0
}

/// Runs `f`, checks it fails with [`Error::LimitExceeded`] naming block 0 within `limit`, and
/// returns how long it took.
#[track_caller]
fn fails_fast(what: &str, limit: Duration, f: impl FnOnce() -> Result<(), Error>) -> Duration {
    let started = Instant::now();
    let result = f();
    let took = started.elapsed();
    match result {
        Err(Error::LimitExceeded(m)) => assert!(m.starts_with("block 0: "), "{what}: {m}"),
        other => panic!("{what}: expected a work-budget error, got {other:?}"),
    }
    assert!(took < limit, "{what}: took {took:?}");
    took
}

/// Every reader of `archive` stops with the typed error.
fn every_reader_fails_fast(archive: &[u8], limit: Duration) {
    let opts = ExpandOptions { threads: 1, ..Default::default() };
    fails_fast("expand", limit, || expand_bytes(archive, &opts).map(drop));
    fails_fast("extract", limit, || extract_lines(Cursor::new(archive), 1..=1, std::io::sink(), 1).map(drop));
    fails_fast("convert", limit, || chesszip::convert::convert(archive, std::io::sink(), &opts, &|_| {}).map(drop));
}

#[test]
fn a_pgn_game_that_never_ends_stops_fast() {
    let archive = crafted_archive(InputFormat::Pgn, crafted_stream(&PGN_PREFIX, 20));
    // The size of the archive of the issue (140 bytes) give or take a word.
    assert!(archive.len() < 200, "{} bytes", archive.len());
    every_reader_fails_fast(&archive, Duration::from_secs(5));
}

#[test]
fn a_movetext_game_that_never_ends_stops_fast() {
    let archive = crafted_archive(InputFormat::Movetext, crafted_stream(&MOVETEXT_PREFIX, 20));
    assert!(archive.len() < 200, "{} bytes", archive.len());
    every_reader_fails_fast(&archive, Duration::from_secs(5));
}

#[test]
fn a_game_in_another_notation_that_never_ends_stops_fast() {
    // Coding 1: the block's notation flag set (one bit), a line that is a game, the first
    // terminator and convention, and "the game uses another notation" (a fresh model at 1/2);
    // from there the first symbol of every table (the first notation, no null moves, "not the
    // end", the first legal move).
    let terminators = vec![32; chesszip::text::Terminator::ALL.len()];
    let prefix: [(&[u64], usize); 5] = [(&[1, 1], 1), (&[32, 32], 1), (&terminators, 0), (&[32; 4], 0), (&[32, 32], 1)];
    let archive = crafted_archive_in(InputFormat::Movetext, Coding::Notations, crafted_stream(&prefix, 20));
    assert!(archive.len() < 200, "{} bytes", archive.len());
    every_reader_fails_fast(&archive, Duration::from_secs(5));
    // The same for a PGN block: notation flag, then the PGN prefix.
    let prefix: Vec<(&[u64], usize)> = std::iter::once((&[1u64, 1][..], 1)).chain(PGN_PREFIX).collect();
    let archive = crafted_archive_in(InputFormat::Pgn, Coding::Notations, crafted_stream(&prefix, 20));
    every_reader_fails_fast(&archive, Duration::from_secs(5));
}

#[test]
fn the_work_grows_with_the_stream_not_the_claimed_length() {
    // The same game that never ends, with 64 times more stream: the decoder goes on longer
    // (its budget is the stream's information), and still stops with the typed error. Both
    // claim the same 16 MiB of text.
    for format in [InputFormat::Pgn, InputFormat::Movetext] {
        let prefix: &[(&[u64], usize)] = if format == InputFormat::Pgn { &PGN_PREFIX } else { &MOVETEXT_PREFIX };
        let small = crafted_archive(format, crafted_stream(prefix, 20));
        let large = crafted_archive(format, crafted_stream(prefix, 20 * 64));
        let opts = ExpandOptions { threads: 1, ..Default::default() };
        let t_small = fails_fast("small", Duration::from_secs(5), || expand_bytes(&small, &opts).map(drop));
        let t_large = fails_fast("large", Duration::from_secs(60), || expand_bytes(&large, &opts).map(drop));
        eprintln!("{format:?}: {} bytes {t_small:?}, {} bytes {t_large:?}", small.len(), large.len());
    }
}

// --- Forged counts: header and index re-signed, so that only decoding can tell ---

use chesszip::container::format::{IndexEntry, index_to_bytes};
use chesszip::container::{Footer, IndexedReader};
use chesszip::{CompressOptions, compress_bytes};

/// `archive` with block `n`'s header edited by `edit` and, if `index_too`, its index entry
/// made to match; every checksum recomputed.
fn forge(archive: &[u8], n: usize, index_too: bool, edit: impl Fn(&mut BlockHeader)) -> Vec<u8> {
    let reader = IndexedReader::open(Cursor::new(archive)).unwrap();
    let mut entries: Vec<IndexEntry> = reader.entries().to_vec();
    let at = entries[n].offset as usize;
    let mut bad = archive.to_vec();
    let mut h = BlockHeader::parse(bad[at..at + BlockHeader::LEN].try_into().unwrap(), n as u64).unwrap();
    edit(&mut h);
    bad[at..at + BlockHeader::LEN].copy_from_slice(&h.to_bytes());
    if index_too {
        entries[n] = IndexEntry::new(entries[n].offset, &h);
        let index = index_to_bytes(&entries);
        let start = bad.len() - Footer::LEN - index.len();
        bad[start..start + index.len()].copy_from_slice(&index);
    }
    bad
}

/// `archive` with only block `n`'s index entry edited (index checksum recomputed).
fn forge_index(archive: &[u8], n: usize, edit: impl Fn(&mut IndexEntry)) -> Vec<u8> {
    let reader = IndexedReader::open(Cursor::new(archive)).unwrap();
    let mut entries: Vec<IndexEntry> = reader.entries().to_vec();
    edit(&mut entries[n]);
    let index = index_to_bytes(&entries);
    let mut bad = archive.to_vec();
    let start = bad.len() - Footer::LEN - index.len();
    bad[start..start + index.len()].copy_from_slice(&index);
    bad
}

/// Archives of both formats with several blocks, and the line that block 1 starts with.
fn archives() -> Vec<(&'static str, Vec<u8>)> {
    let golden = |name: &str| std::fs::read(format!("{}/tests/golden/{name}", env!("CARGO_MANIFEST_DIR"))).unwrap();
    let movetext = compress_bytes(&common::first_games(12), &CompressOptions { block_lines: 4, ..common::fast() });
    let pgn = compress_bytes(&golden("lichess.pgn"), &CompressOptions { block_lines: 2, format: Some(InputFormat::Pgn), ..common::fast() });
    vec![("movetext", movetext), ("pgn", pgn)]
}

/// A named change to one field of a header or index entry.
type Edit<T> = (&'static str, Box<dyn Fn(&mut T)>);

#[test]
fn a_forged_index_count_is_an_error_for_every_reader() {
    for (name, archive) in archives() {
        let info = chesszip::info(Cursor::new(&archive)).unwrap();
        assert!(info.blocks >= 3, "{name}: {} blocks", info.blocks);
        let edits: [Edit<IndexEntry>; 5] = [
            ("lines", Box::new(|e| e.lines += 1)),
            ("games", Box::new(|e| e.games -= 1)),
            ("plies", Box::new(|e| e.plies += 1)),
            ("raw lines", Box::new(|e| e.raw_lines += 1)),
            ("partial line", Box::new(|e| e.partial_line = !e.partial_line)),
        ];
        for (what, edit) in edits {
            let bad = forge_index(&archive, 0, edit);
            let what = format!("{name}, index {what}");
            assert!(matches!(chesszip::info(Cursor::new(&bad)), Err(Error::Corrupt(_))), "{what}: info");
            // A line in the last block: block 0 itself is not decoded.
            let last = info.lines;
            let mut out = Vec::new();
            assert!(extract_lines(Cursor::new(&bad), last..=last, &mut out, 1).is_err(), "{what}: extract");
            assert!(expand_bytes(&bad, &common::expand_opts()).is_err(), "{what}: expand");
        }
    }
}

#[test]
fn forged_header_counts_are_caught_by_decoding() {
    for (name, archive) in archives() {
        let edits: [Edit<BlockHeader>; 5] = [
            ("lines", Box::new(|h| h.lines += 1)),
            ("games", Box::new(|h| h.games -= 1)),
            ("plies", Box::new(|h| h.plies -= 1)),
            ("raw lines", Box::new(|h| h.raw_lines += 1)),
            ("partial line", Box::new(|h| h.partial_line = !h.partial_line)),
        ];
        for (what, edit) in edits {
            let what = format!("{name}, header and index {what}");
            let bad = forge(&archive, 1, true, &edit);
            match expand_bytes(&bad, &common::expand_opts()) {
                Err(Error::Corrupt(m) | Error::LimitExceeded(m)) => assert!(m.starts_with("block 1: "), "{what}: {m}"),
                other => panic!("{what}: {:?}", other.map(|t| t.len())),
            }
            // Extracting a line of that block decodes it: an error, not a wrong line.
            match chesszip::info(Cursor::new(&bad)) {
                Ok(info) => assert!(info.blocks >= 3),
                // `info` decodes a PGN block that records raw lines, to count its raw pieces.
                Err(Error::Corrupt(m)) if what.ends_with("raw lines") => assert!(m.starts_with("block 1: "), "{what}: {m}"),
                Err(e) => panic!("{what}: info: {e}"),
            }
            let reader = IndexedReader::open(Cursor::new(&bad)).unwrap();
            let first_of_block_1 = 1 + reader.entries()[0].line_feeds();
            let mut out = Vec::new();
            assert!(extract_lines(Cursor::new(&bad), first_of_block_1..=first_of_block_1, &mut out, 1).is_err(), "{what}: extract");
            // The header alone (index left as it was): every reader, info included, sees it.
            let bad = forge(&archive, 1, false, &edit);
            assert!(chesszip::info(Cursor::new(&bad)).is_err(), "{what}: info, header only");
        }
    }
}

// --- Randomised crafting: valid checksums around random coder streams ---

/// A small deterministic generator (xorshift64*).
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    fn below(&mut self, n: u64) -> u64 {
        self.next() % n.max(1)
    }
}

/// One crafted archive from `seed`: a random format, header claims within the format's limits
/// and a range stream that is random words, or a random prefix of fresh binary decisions then
/// the bottom of the range (deep into a game), or both; sometimes a random or real zstd side
/// stream. Every checksum is valid. As `fuzz/fuzz_targets/crafted.rs` builds them.
fn crafted_case(seed: u64) -> Vec<u8> {
    let mut rng = Rng(seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1);
    let format = if rng.below(2) == 0 { InputFormat::Pgn } else { InputFormat::Movetext };
    let mut enc = Encoder::new();
    let halves = CdfBuf::from_weights(&[1, 1]);
    for _ in 0..rng.below(24) {
        enc.encode(halves.cdf(), rng.below(2) as usize);
    }
    let cum = [0, 1, TOTAL];
    for _ in 0..rng.below(8) {
        enc.encode(Cdf::new(&cum), 0);
    }
    let mut range = enc.finish();
    if rng.below(3) == 0 {
        range = (0..rng.below(64) * 4).map(|_| rng.next() as u8).collect();
    }
    let raw = match rng.below(4) {
        0 => zstd::bulk::compress(&(0..rng.below(300)).map(|_| b"e4 \n[]\"{}"[rng.below(9) as usize]).collect::<Vec<u8>>(), 3).unwrap(),
        1 => (0..rng.below(40)).map(|_| rng.next() as u8).collect(),
        _ => Vec::new(),
    };
    let text_len = [1u32, 16, 300, 4096, MAX_BLOCK_TEXT as u32][rng.below(5) as usize];
    let lines = 1 + rng.below(text_len.min(16) as u64) as u32;
    let h = BlockHeader {
        lines,
        text_len,
        text_crc: rng.next() as u32,
        plies: rng.below(text_len as u64 / 2 + 1) as u32,
        games: rng.below(lines as u64 + 1) as u32,
        raw_lines: rng.below(lines as u64 + 1) as u32,
        partial_line: rng.below(2) == 0,
        ..BlockHeader::default()
    };
    let coding = if rng.below(2) == 0 { Coding::First } else { Coding::NEWEST };
    let header = FileHeader { format, level: 1, model_id: Model::builtin(chesszip::Level::MIN).id(), coding, weights: None };
    let mut writer = Writer::new(Vec::new(), &header).unwrap();
    writer.write_block(&h, &EncodedBlock { range, raw }).unwrap();
    writer.finish().unwrap().0
}

/// Runs every reader over `archive`: none may panic or take long; an expansion that succeeds
/// must give the recorded length. Returns the slowest reader's time.
fn check_crafted(archive: &[u8]) -> Duration {
    let opts = ExpandOptions { threads: 1, ..Default::default() };
    let started = Instant::now();
    if let Ok(text) = expand_bytes(archive, &opts) {
        assert_eq!(text.len() as u64, chesszip::info(Cursor::new(archive)).unwrap().text_bytes);
    }
    let mut slowest = started.elapsed();
    let started = Instant::now();
    let _ = extract_lines(Cursor::new(archive), 1..=2, std::io::sink(), 1);
    slowest = slowest.max(started.elapsed());
    let started = Instant::now();
    let _ = chesszip::convert::convert(archive, std::io::sink(), &opts, &|_| {});
    slowest.max(started.elapsed())
}

/// Executions of [`crafted_archives_never_run_away_long`]: `CHESSZIP_CRAFTED_EXECS`, else
/// 20,000.
fn long_run_execs() -> u64 {
    std::env::var("CHESSZIP_CRAFTED_EXECS").ok().and_then(|v| v.parse().ok()).unwrap_or(20_000)
}

#[test]
fn crafted_archives_never_run_away() {
    let mut slowest = Duration::ZERO;
    for seed in 0..300 {
        let t = check_crafted(&crafted_case(seed));
        assert!(t < Duration::from_secs(5), "seed {seed}: {t:?}");
        slowest = slowest.max(t);
    }
    eprintln!("300 crafted archives, slowest reader {slowest:?}");
}

/// The long run of the randomised crafting (`cargo test --release --test it hostile:: --
/// --ignored`): any case slower than 2 s is saved under `target/crafted-slow/` for a look.
#[test]
#[ignore]
fn crafted_archives_never_run_away_long() {
    let execs = long_run_execs();
    let mut slowest = (Duration::ZERO, 0);
    let started = Instant::now();
    for seed in 1000..1000 + execs {
        let archive = crafted_case(seed);
        let t = check_crafted(&archive);
        if t > Duration::from_secs(2) {
            let dir = format!("{}/target/crafted-slow", env!("CARGO_MANIFEST_DIR"));
            std::fs::create_dir_all(&dir).unwrap();
            std::fs::write(format!("{dir}/seed-{seed}.chz"), &archive).unwrap();
        }
        slowest = slowest.max((t, seed));
    }
    eprintln!("{execs} crafted archives in {:?}, slowest reader {:?} (seed {})", started.elapsed(), slowest.0, slowest.1);
    assert!(slowest.0 < Duration::from_secs(10));
}
