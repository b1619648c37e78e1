//! Every PGN file round-trips byte for byte: the files under `tests/data/pgn`, and those of the
//! project's shared data (`../shared/data/pgn` beside the repository, see
//! [`common::shared_data`]; the test fails when it is missing). Level 1 (the fast model).

use crate::common;

use std::path::{Path, PathBuf};

use chesszip::container::InputFormat;
use chesszip::{CompressOptions, ExpandOptions, compress_bytes, expand_bytes};

/// The `.pgn` and `.txt` files under `dir`, sorted; panics if `dir` cannot be read.
fn files(dir: &Path, out: &mut Vec<PathBuf>) {
    let entries = std::fs::read_dir(dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display()));
    let mut entries: Vec<PathBuf> = entries.map(|e| e.unwrap().path()).collect();
    entries.sort();
    for p in entries {
        if p.is_dir() {
            files(&p, out);
        } else if p.extension().is_some_and(|e| e == "pgn" || e == "txt") {
            out.push(p);
        }
    }
}

fn round_trip(data: &[u8], format: Option<InputFormat>, block_lines: u32) -> Vec<u8> {
    let opts = CompressOptions {
        level: chesszip::Level::MIN,
        block_lines,
        threads: 0,
        format,
        block_bytes: chesszip::container::MAX_BLOCK_TEXT,
        raw_form: false,
        verify: true,
        weights: None,
    };
    let archive = compress_bytes(data, &opts);
    let back = expand_bytes(&archive, &ExpandOptions::default()).expect("expands");
    assert!(back == data, "round trip differs");
    archive
}

/// xz -9e sizes of the big shared lichess files: the archive must be at most half of them.
const XZ_SIZES: [(&str, usize); 2] = [("2016-05.pgn", 427_356), ("2017-05.pgn", 73_936)];

fn check_dir(dir: &Path) -> usize {
    let mut list = Vec::new();
    files(dir, &mut list);
    for path in &list {
        let data = std::fs::read(path).unwrap();
        eprintln!("{}", path.display());
        // Detected format; for small files also forced PGN and tiny blocks (cuts between games).
        let archive = round_trip(&data, None, 1000);
        if data.len() < 1_000_000 {
            round_trip(&data, Some(InputFormat::Pgn), 1000);
        }
        if data.len() < 100_000 {
            round_trip(&data, Some(InputFormat::Pgn), 2);
        }
        let name = path.file_name().unwrap().to_str().unwrap();
        if let Some((_, xz)) = XZ_SIZES.iter().find(|(n, _)| *n == name && path.parent().unwrap().ends_with("lichess")) {
            assert!(archive.len() * 2 <= *xz, "{name}: {} bytes, xz -9e {xz}", archive.len());
        }
    }
    list.len()
}

#[test]
fn repository_pgn_files_round_trip() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/pgn");
    assert!(check_dir(&dir) > 150);
}

/// Also checks that the big lichess files compress to at most half of `xz -9e`.
#[test]
fn shared_pgn_files_round_trip() {
    assert!(check_dir(&common::shared_data("pgn")) > 150);
}

#[test]
fn pgn_is_detected_and_lichess_games_are_structured() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/pgn/lichess/2016-05-first300.pgn");
    let data = std::fs::read(path).unwrap();
    let mut archive = Vec::new();
    let opts = CompressOptions { level: chesszip::Level::MIN, ..CompressOptions::default() };
    let summary = chesszip::compress(&data[..], &mut archive, &opts, &|_| {}).unwrap();
    assert_eq!(chesszip::container::FileHeader::parse(archive[..24].try_into().unwrap()).unwrap().format, InputFormat::Pgn);
    assert_eq!(summary.stats.games, 300);
    assert_eq!(summary.stats.raw_lines, 0);
    // Far below the text (xz -9e: 30.6 kB on this slice).
    assert!(archive.len() < 13_000, "{} bytes", archive.len());
}

#[test]
fn movetext_conversion_of_an_archive() {
    let pgn = b"[Event \"x\"]\n\n1. e4 e5 2. Qh5 Nc6 3. Bc4 Nf6 4. Qxf7# 1-0\n\n[Event \"y\"]\n\n1. d4 { hm } d5 (1... Nf6) 2. c4 *\n";
    let archive = compress_bytes(pgn, &CompressOptions { level: chesszip::Level::MIN, ..CompressOptions::default() });
    let mut out = Vec::new();
    let s = chesszip::convert::convert(&archive[..], &mut out, &ExpandOptions::default(), &|_| {}).unwrap();
    assert_eq!(String::from_utf8(out).unwrap(), "e4 e5 Qh5 Nc6 Bc4 Nf6 Qxf7 1-0\nd4 d5 c4 *\n");
    assert_eq!(s.games, 2);
    // A movetext archive converts to itself.
    let mt = b"e4 e5 Nf3 1-0\nd4 d5 0-1\n";
    let archive = compress_bytes(mt, &CompressOptions { level: chesszip::Level::MIN, ..CompressOptions::default() });
    let mut out = Vec::new();
    chesszip::convert::convert(&archive[..], &mut out, &ExpandOptions::default(), &|_| {}).unwrap();
    assert_eq!(out, mt);
}

#[test]
fn thousands_of_distinct_tag_names_share_value_models() {
    // Beyond MAX_TAG_STATES names in a block (issue 15: memory per distinct name), the names
    // share one value model; every game still round-trips and is coded as a game.
    let mut pgn = String::new();
    for g in 0..4 {
        for i in 0..1_000 {
            pgn.push_str(&format!("[Tag{g}x{i} \"{}\"]\n", i % 13));
        }
        pgn.push_str("[FEN \"rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1\"]\n\n1... e5 2. Nf3 *\n\n");
    }
    let opts = CompressOptions { raw_form: false, ..common::fast() };
    let archive = common::round_trip_with(pgn.as_bytes(), &opts);
    let info = chesszip::info(std::io::Cursor::new(&archive)).unwrap();
    assert_eq!((info.header.format, info.games, info.raw_lines), (InputFormat::Pgn, 4, 0));
    const { assert!(chesszip::pgn::tags::MAX_TAG_STATES < 1_000) };
}
