//! Regression tests from fuzzing: every file in `tests/fuzz_cases/TARGET/` (crashes,
//! slow inputs and interesting finds of `fuzz/`) and `fuzz/seeds/TARGET/` goes through the
//! same checks as the fuzz target TARGET.

use std::io::Cursor;
use std::path::Path;

use chesszip::ExpandOptions;
use chesszip::container::{Coding, EncodedBlock};
use chesszip::model::Model;
use chesszip::movetext::block::decode_block;

#[path = "../../fuzz/roundtrip_input.rs"]
mod roundtrip_input;

#[path = "../../fuzz/salvage_check.rs"]
mod salvage_check;

#[path = "../../fuzz/random_access_check.rs"]
mod random_access_check;

/// The contents of the case files of `target`, with their names. `fuzz/seeds/TARGET` must
/// exist; `tests/fuzz_cases/TARGET` only once fuzzing has found something for TARGET.
fn cases(target: &str) -> Vec<(String, Vec<u8>)> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut cases = Vec::new();
    for (dir, required) in [(root.join("tests/fuzz_cases").join(target), false), (root.join("fuzz/seeds").join(target), true)] {
        let entries = match std::fs::read_dir(&dir) {
            Ok(entries) => entries,
            Err(e) if !required && e.kind() == std::io::ErrorKind::NotFound => continue,
            Err(e) => panic!("{}: {e}", dir.display()),
        };
        for entry in entries {
            let path = entry.unwrap().path();
            if path.is_file() {
                cases.push((path.display().to_string(), std::fs::read(&path).unwrap()));
            }
        }
    }
    cases.sort();
    assert!(!cases.is_empty(), "no cases for {target}");
    cases
}

/// As fuzz/fuzz_targets/expand.rs: any bytes, no panic.
#[test]
fn expand_cases() {
    for (name, data) in cases("expand") {
        let _ = chesszip::expand_bytes(&data, &ExpandOptions { threads: 1, ..Default::default() });
        let _ = chesszip::info(Cursor::new(&data));
        let _ = chesszip::extract_lines(Cursor::new(&data), 1..=3, std::io::sink(), 1);
        let _ = chesszip::extract_games(Cursor::new(&data), 1..=3, std::io::sink(), 1);
        eprintln!("{name}: ok");
    }
}

/// As fuzz/fuzz_targets/roundtrip.rs: the first two bytes choose the settings and the size
/// (fuzz/roundtrip_input.rs).
#[test]
fn roundtrip_cases() {
    for (name, data) in cases("roundtrip") {
        let (opts, input) = roundtrip_input::settings(&data);
        let archive = chesszip::compress_bytes(&input, &opts);
        let back = chesszip::expand_bytes(&archive, &ExpandOptions { threads: 1, ..Default::default() }).expect("own archive expands");
        assert!(back == input, "{name}: round trip differs");
    }
}

/// As fuzz/fuzz_targets/decode_block.rs: streams straight to the decoder.
#[test]
fn decode_block_cases() {
    for (name, data) in cases("decode_block") {
        let [lines, len, split, rest @ ..] = &data[..] else {
            continue;
        };
        let coding = if *lines & 0x80 != 0 { Coding::First } else { Coding::NEWEST };
        let lines = 1 + *lines as u64 % 16;
        let max_len = *len as usize * 16;
        let split = (*split as usize * 4).min(rest.len() / 4 * 4);
        let block = EncodedBlock { range: rest[..split].to_vec(), raw: rest[split..].to_vec() };
        let mut out = Vec::new();
        if decode_block(Model::builtin(chesszip::Level::MIN), coding, &block, lines, max_len, &mut out).is_ok() {
            assert!(out.len() <= max_len, "{name}: decoded past the limit");
        }
    }
}

/// As fuzz/fuzz_targets/salvage.rs: file and stream salvage agree (fuzz/salvage_check.rs).
#[test]
fn salvage_cases() {
    for (name, data) in cases("salvage") {
        salvage_check::check(&data);
        eprintln!("{name}: ok");
    }
}

/// As fuzz/fuzz_targets/random_access.rs: games, counts, tags and limits
/// (fuzz/random_access_check.rs).
#[test]
fn random_access_cases() {
    for (name, data) in cases("random_access") {
        random_access_check::check(&data);
        eprintln!("{name}: ok");
    }
}

/// The case `name` of `tests/fuzz_cases/salvage_known/`: a finding of the `salvage` target
/// (fixed since), replayed by its own test here rather than by `salvage_cases`.
fn salvage_known(name: &str) -> Vec<u8> {
    std::fs::read(Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fuzz_cases/salvage_known").join(name)).unwrap()
}

/// Found by the `salvage` target (2026-12-07; libFuzzer's `tmin` could not shrink it): an
/// archive of three one-game blocks whose block 0 holds, after damage, another member's magic
/// bytes and file header. As a file, `members::scan` finds one member and its index locates the
/// three (damaged) blocks; as a stream, the walk stops at block 0 (reported cut off at byte 88)
/// and takes the magic inside it for a second member. The output is the same (nothing), but
/// `expand_salvage_stream` promises the same `Salvage` as `expand_salvage`. Fixed the same day:
/// a file's salvage finds members by the stream's walk from the start
/// (`members::scan_from_start`), so both cut at the magic in block 0.
#[test]
fn salvage_stream_reports_parts_as_file() {
    let data = salvage_known("magic-in-damaged-block");
    let (file, stream) = salvage_check::both(&data).unwrap();
    assert!(file.1 == stream.1, "different output");
    assert_eq!(file.0, stream.0, "file and stream salvage report differently");
}

/// Found by the `salvage` target (2026-12-07; `tmin` could not shrink it): the 277-byte
/// archive of `fuzz/seeds/salvage/bom.b2.chz` (two movetext blocks; its index damaged) crossed
/// over the start of the three-game archive, whose blocks and footer follow. As a file,
/// `members::scan` reads the footer at the end, finds one member and reports its three blocks
/// damaged: nothing written. As a stream, the walk from the start finds the movetext member
/// (its first blocks sound: 493 bytes written) and a second member after it. Both exit 2, but
/// `expand_salvage_stream` promises the output of `expand_salvage` (`chesszip -d --salvage`
/// of the file and of `cat FILE |` differed the same way). Fixed the same day: both walk from
/// the start, and write the movetext member's 493 bytes (status 2).
#[test]
fn salvage_stream_writes_as_file() {
    let data = salvage_known("stream-writes-more");
    let (file, stream) = salvage_check::both(&data).unwrap();
    assert_eq!(file.0.is_ok(), stream.0.is_ok(), "different outcome");
    assert!(file.1 == stream.1, "different output: {} / {} bytes", file.1.len(), stream.1.len());
}

/// Found by the `salvage` target (2026-12-07) on 05dc479: salvage of a stream under a small
/// memlimit (64 bytes) panicked in `Spool::held_bytes` (src/container/spool.rs: `from -
/// self.base` underflowed, `pos` lying before the first byte held) when a member passed the
/// hold. Fixed the same day by the rework of the hold (a member past it is passed over, not
/// held): `cat CASE | chesszip -d --salvage --memlimit 64 -c` (CASE: the file without its first
/// byte) now gives the file's output and status 2, as from the file.
#[test]
fn salvage_stream_small_memlimit_does_not_panic() {
    let data = salvage_known("stream-memlimit-panics");
    let opts = ExpandOptions { threads: 1, limits: chesszip::DecodeLimits { memlimit: Some(64), ..Default::default() } };
    let _ = chesszip::expand_salvage_stream(&data[1..], std::io::sink(), &opts, &|_| {});
}

/// Found by the `expand` target (2026-12-07): two members, both streamed raw forms whose
/// headers claim some 2^63 and more bytes of text, and lines (read without decoding). `info`
/// summed the members' counts with `+`: a panic with overflow checks, a wrapped total without
/// (8,393,409,258,032,894,089 text bytes, less than member 0's alone). The sums now saturate.
#[test]
fn info_of_members_claiming_huge_counts_saturates() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let data = std::fs::read(root.join("tests/fuzz_cases/expand/info-sum-overflows")).unwrap();
    let members = chesszip::inspect::info_members(Cursor::new(&data)).unwrap();
    let info = chesszip::info(Cursor::new(&data)).unwrap();
    let most = members.iter().map(|m| m.text_bytes).max().unwrap();
    assert!(info.text_bytes >= most, "the members' text bytes wrapped: {} < {most}", info.text_bytes);
    assert_eq!(info.text_bytes, u64::MAX);
    let lines = members.iter().fold(0u64, |sum, m| sum.saturating_add(m.lines));
    assert_eq!(info.lines, lines, "the lines fit: their exact sum");
}
