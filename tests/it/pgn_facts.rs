//! PGN coding 3 ([`Coding::PgnFacts`]): every shared PGN file round-trips in it and is at most
//! 1% larger than in coding 1 (block by block as compress cuts them, level 1); the lichess
//! files with clocks, ratings and openings get at least 1% smaller; and edge cases (missing tags, odd
//! clocks, no `TimeControl`, clocks at 0, rating diffs and times not as lichess writes them).

use crate::common;

use std::path::{Path, PathBuf};

use chesszip::container::{Coding, MAX_BLOCK_TEXT};
use chesszip::model::Model;
use chesszip::pgn::{self, BlockReader};

fn files(dir: &Path, out: &mut Vec<PathBuf>) {
    let mut entries: Vec<PathBuf> = std::fs::read_dir(dir).unwrap().map(|e| e.unwrap().path()).collect();
    entries.sort();
    for p in entries {
        if p.is_dir() {
            files(&p, out);
        } else {
            out.push(p);
        }
    }
}

/// Bytes of `data` coded as PGN in `coding` (range and side streams), checking that coding 3
/// decodes back.
fn coded_size(model: &Model, data: &[u8], coding: Coding) -> usize {
    let mut reader = BlockReader::new();
    let mut input = data;
    let mut total = 0;
    loop {
        let mut block = Vec::new();
        reader.read_block(&mut input, 1000, MAX_BLOCK_TEXT, &mut block).unwrap();
        if block.is_empty() {
            return total;
        }
        let (coded, _, _) = pgn::encode_block_in(model, coding, &block);
        if coding == Coding::PgnFacts {
            let mut back = Vec::new();
            pgn::decode_block(model, coding, &coded, block.len(), &mut back).unwrap();
            assert!(back == block, "coding 3 round trip differs");
        }
        total += coded.range.len() + coded.raw.len();
    }
}

#[test]
fn shared_pgn_files_round_trip_and_never_grow_by_more_than_one_percent() {
    let model = Model::builtin(chesszip::Level::MIN);
    let mut list = Vec::new();
    files(&common::shared_data("pgn"), &mut list);
    assert!(list.len() > 10);
    for path in &list {
        let data = std::fs::read(path).unwrap();
        let (old, new) = (coded_size(model, &data, Coding::Notations), coded_size(model, &data, Coding::PgnFacts));
        eprintln!("{}: {old} -> {new}", path.display());
        // A few bytes of slack for tiny files (the range coder's last bytes).
        assert!(new * 100 <= old * 101 + 400, "{}: {old} -> {new} bytes", path.display());
        let name = path.file_name().unwrap().to_str().unwrap();
        if name == "2017-05.pgn" || path.parent().unwrap().ends_with("exports-2021") {
            assert!(new * 100 < old * 99, "{}: {old} -> {new} bytes", path.display());
        }
    }
}

#[test]
fn edge_cases_round_trip_in_coding_3() {
    let model = Model::builtin(chesszip::Level::MIN);
    let games: [&[u8]; 6] = [
        // No tags at all, clocks without a time control, a clock at 0 and a clock that goes up.
        b"1. e4 { [%clk 0:00:10] } e5 { [%clk 0:00:00] } 2. Nf3 { [%clk 0:00:15] } Nc6 { [%clk 0:00:00] } *\n\n",
        // Tenths and milliseconds, four hour digits, a correspondence control.
        b"[TimeControl \"-\"]\n\n1. d4 { [%clk 0:00:09.5] } d5 { [%clk 1000:00:00.123] } 2. c4 { [%clk 0:00:00.0] } *\n\n",
        // Rating diffs not as lichess writes them, no ratings, an unknown result.
        b"[UTCTime \"23:59:59\"]\n[White \"a\"]\n[Black \"b\"]\n[WhiteRatingDiff \"8\"]\n[BlackRatingDiff \"-0\"]\n[ECO \"?\"]\n[Result \"*\"]\n\n1. e4 *\n\n",
        // Lichess-style: diffs, ECO, Opening, then the same opening again with other values.
        b"[Event \"Rated Blitz game\"]\n[UTCTime \"00:00:01\"]\n[White \"a\"]\n[Black \"b\"]\n[Result \"1-0\"]\n[WhiteElo \"1500\"]\n[BlackElo \"1600\"]\n\
          [WhiteRatingDiff \"+9\"]\n[BlackRatingDiff \"-9\"]\n[TimeControl \"180+2\"]\n[ECO \"C20\"]\n[Opening \"King's Pawn Game\"]\n\n\
          1. e4 { [%clk 0:03:00] } e5 { [%clk 0:03:00] } 2. Qh5 { [%clk 0:03:01] } Nc6 { [%clk 0:02:59] } 1-0\n\n",
        b"[Event \"Rated Blitz game\"]\n[UTCTime \"24:00:00\"]\n[White \"b\"]\n[Black \"a\"]\n[Result \"1/2-1/2\"]\n[WhiteElo \"1591\"]\n[BlackElo \"1509\"]\n\
          [WhiteRatingDiff \"+0\"]\n[BlackRatingDiff \"+1\"]\n[TimeControl \"180+2\"]\n[ECO \"C20\"]\n[Opening \"Other\"]\n\n\
          1. e4 { [%clk 0:03:00] } e5 { [%clk 0:03:00] } 2. Qh5 { [%clk 0:00:00] } 1/2-1/2\n\n",
        // Chess960 from a FEN, and a clock in a variation.
        b"[UTCTime \"1:02:03\"]\n[Variant \"Chess960\"]\n[FEN \"bbqnnrkr/pppppppp/8/8/8/8/PPPPPPPP/BBQNNRKR w KQkq - 0 1\"]\n[SetUp \"1\"]\n\n\
          1. e4 { [%clk 0:01:00] } (1. d4 { [%clk 0:00:59] }) 1... e5 { [%clk 0:01:00] } *\n",
    ];
    let text: Vec<u8> = games.concat();
    for block in [&text[..], games[0], games[1], games[2]] {
        let (coded, counts, _) = pgn::encode_block_in(model, Coding::PgnFacts, block);
        let mut back = Vec::new();
        let decoded = pgn::decode_block(model, Coding::PgnFacts, &coded, block.len(), &mut back).unwrap();
        assert_eq!(String::from_utf8_lossy(&back), String::from_utf8_lossy(block));
        assert_eq!(decoded.games, counts.games);
        assert_eq!(counts.raw_lines, 0, "every game is coded structurally");
    }
}
