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
