//! Archives with valid checksums around fuzzed range-coder streams: the input chooses the
//! format, the header's claims and the stream (raw bytes, or fresh binary decisions followed
//! by the bottom of the range, which reaches deep into a game). Every reader must stop on its
//! own, quickly (the work budget of `chesszip::entropy::budget`), never panic; an expansion that
//! succeeds must give the recorded length. `tests/it/hostile.rs` runs the same construction from
//! a seeded generator.
#![no_main]

use std::io::Cursor;

use chesszip::container::{Coding, EncodedBlock};
use chesszip::entropy::{Cdf, CdfBuf, Encoder, TOTAL};
use chesszip::container::{BlockHeader, FileHeader, InputFormat, MAX_BLOCK_TEXT, Writer};
use chesszip::model::Model;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let [mode, claims, lines, decisions, bottom, rest @ ..] = data else {
        return;
    };
    let format = if mode & 1 == 0 { InputFormat::Pgn } else { InputFormat::Movetext };
    let range = if mode & 2 == 0 {
        let mut enc = Encoder::new();
        let halves = CdfBuf::from_weights(&[1, 1]);
        for i in 0..(*decisions as usize % 64) {
            let bit = rest.get(i / 8).map_or(0, |b| (b >> (i % 8)) & 1);
            enc.encode(halves.cdf(), bit as usize);
        }
        let cum = [0, 1, TOTAL];
        for _ in 0..(*bottom % 16) {
            enc.encode(Cdf::new(&cum), 0);
        }
        enc.finish()
    } else {
        rest[..rest.len() / 4 * 4].to_vec()
    };
    let raw = if mode & 4 != 0 { rest.to_vec() } else { Vec::new() };
    let text_len = [1u32, 16, 300, 4096, MAX_BLOCK_TEXT as u32][*claims as usize % 5];
    let lines = 1 + (*lines as u32 % text_len.min(16));
    let h = BlockHeader { lines, text_len, plies: text_len / 2, games: lines, ..BlockHeader::default() };
    // Bit 3 of `mode` picks the coding: archives of both must expand safely.
    let coding = if mode & 8 != 0 { Coding::First } else { Coding::NEWEST };
    let header = FileHeader { format, level: 1, model_id: Model::builtin(chesszip::Level::MIN).id(), coding, weights: None };
    let mut writer = Writer::new(Vec::new(), &header).unwrap();
    writer.write_block(&h, &EncodedBlock { range, raw }).unwrap();
    let archive = writer.finish().unwrap().0;
    let opts = chesszip::ExpandOptions { threads: 1, ..Default::default() };
    if let Ok(text) = chesszip::expand_bytes(&archive, &opts) {
        assert_eq!(text.len(), text_len as usize);
    }
    let _ = chesszip::extract_lines(Cursor::new(&archive), 1..=2, std::io::sink(), 1);
    let _ = chesszip::convert::convert(&archive[..], std::io::sink(), &opts, &|_| {});
});
