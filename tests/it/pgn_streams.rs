//! PGN coding 4 ([`Coding::PgnStreams`]): every shared PGN file round-trips in it and is at most
//! 1% larger than in coding 3 (block by block as compress cuts them, level 1); the clocks of
//! the lichess files with clocks cost less once the move model's view of each move is a context.

use crate::common;

use std::path::{Path, PathBuf};

use chesszip::container::{Coding, MAX_BLOCK_TEXT};
use chesszip::model::Model;
use chesszip::pgn::{self, BlockReader, PgnStats, Stream};

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

/// Bytes of `data` coded as PGN in `coding` (range and side streams) and the stream split,
/// checking that coding 4 decodes back.
fn coded(model: &Model, data: &[u8], coding: Coding) -> (usize, PgnStats) {
    let mut reader = BlockReader::new();
    let mut input = data;
    let (mut total, mut stats) = (0, PgnStats::default());
    loop {
        let mut block = Vec::new();
        reader.read_block(&mut input, 1000, MAX_BLOCK_TEXT, &mut block).unwrap();
        if block.is_empty() {
            return (total, stats);
        }
        let (coded, _, s) = pgn::encode_block_in(model, coding, &block);
        if coding == Coding::PgnStreams {
            let mut back = Vec::new();
            pgn::decode_block(model, coding, &coded, block.len(), &mut back).unwrap();
            assert!(back == block, "coding 4 round trip differs");
        }
        total += coded.range.len() + coded.raw.len();
        stats += s;
    }
}

#[test]
fn shared_pgn_files_round_trip_in_coding_4_and_never_grow_by_more_than_one_percent() {
    let model = Model::builtin(chesszip::Level::MIN);
    let mut list = Vec::new();
    files(&common::shared_data("pgn"), &mut list);
    assert!(list.len() > 10);
    let (mut all_old, mut all_new) = (0, 0);
    for path in &list {
        let data = std::fs::read(path).unwrap();
        let ((old, s3), (new, s4)) = (coded(model, &data, Coding::PgnFacts), coded(model, &data, Coding::PgnStreams));
        eprintln!("{}: {old} -> {new}", path.display());
        (all_old, all_new) = (all_old + old, all_new + new);
        // A few bytes of slack for tiny files (the range coder's last bytes).
        assert!(new * 100 <= old * 101 + 400, "{}: {old} -> {new} bytes", path.display());
        if path.file_name().unwrap() == "2017-05.pgn" {
            let clocks = |s: &PgnStats| s.bits[Stream::Clocks as usize] / 8.0;
            assert!(clocks(&s4) < clocks(&s3) * 0.995, "2017-05 clocks {} -> {} bytes", clocks(&s3), clocks(&s4));
        }
    }
    eprintln!("all: {all_old} -> {all_new}");
}
