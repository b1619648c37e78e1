//! Damaged PGN archives are reported as errors: no panic, no hang, no unbounded allocation.

use chesszip::container::InputFormat;
use chesszip::{CompressOptions, ExpandOptions, compress_bytes, expand_bytes};

const PGN: &[u8] = b"[Event \"Rated Blitz game\"]\n[Site \"https://lichess.org/abcdefgh\"]\n[White \"a\"]\n[Black \"b\"]\n[Result \"1-0\"]\n[WhiteElo \"1500\"]\n[BlackElo \"1490\"]\n[TimeControl \"300+3\"]\n\n\
1. e4 { [%eval 0.2] [%clk 0:05:00] } 1... e5 { [%clk 0:05:00] } 2. Nf3 $1 (2. f4 exf4 (2... d5) 3. Nf3) 2... Nc6?! { A comment. } 3. Bb5 ; rest\n 1-0\n\n\
[Event \"Casual\"]\n[Variant \"Antichess\"]\n\n1. e3 b5 2. Bxb5 *\n\n\
[Event \"Rated Blitz game\"]\n[Site \"https://lichess.org/abcdefgx\"]\n[White \"b\"]\n[Black \"a\"]\n[Result \"0-1\"]\n\n1.d4  d5\r\n2.c4 0-1\n";

#[test]
fn every_damaged_byte_is_an_error() {
    let opts = CompressOptions {
        level: chesszip::Level::MIN,
        block_lines: 2,
        threads: 1,
        format: Some(InputFormat::Pgn),
        block_bytes: chesszip::container::MAX_BLOCK_TEXT,
        raw_form: false,
        verify: true,
        weights: None,
    };
    let archive = compress_bytes(PGN, &opts);
    assert_eq!(expand_bytes(&archive, &ExpandOptions::default()).unwrap(), PGN);
    let mut errors = 0;
    for i in 0..archive.len() {
        for flip in [0x01u8, 0x80, 0xff] {
            let mut bad = archive.clone();
            bad[i] ^= flip;
            match expand_bytes(&bad, &ExpandOptions { threads: 1, ..Default::default() }) {
                Ok(text) => assert_eq!(text, PGN, "byte {i} flipped by {flip:#x} expanded to other text"),
                Err(_) => errors += 1,
            }
        }
    }
    assert!(errors > archive.len());
    for len in 0..archive.len() {
        assert!(expand_bytes(&archive[..len], &ExpandOptions { threads: 1, ..Default::default() }).is_err());
    }
}

#[test]
fn random_streams_do_not_panic() {
    let model = chesszip::model::Model::builtin(chesszip::Level::MIN);
    let mut x: u64 = 0x9e37_79b9_7f4a_7c15;
    for n in 0..300 {
        let mut range = Vec::new();
        for _ in 0..(4 * (1 + n % 16)) {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            range.push(x as u8);
        }
        let block = chesszip::container::EncodedBlock { range, raw: Vec::new() };
        let mut out = Vec::new();
        for coding in [chesszip::container::Coding::First, chesszip::container::Coding::NEWEST] {
            let _ = chesszip::pgn::decode_block(model, coding, &block, 4096, &mut out);
        }
        assert!(out.len() <= 4096);
    }
}
