//! Every kind of input comes back byte for byte: one test per kind of oddity. Lines that are
//! games in the benchmark format are coded with the model; everything else is kept raw.

use crate::common;

use chesszip::CompressOptions;
use chesszip::container::InputFormat;
use common::{fast, first_games, game_line, info_of, round_trip, round_trip_with};

/// Round trip of `input`, checking how many lines were coded as games.
#[track_caller]
fn round_trip_games(input: &[u8], games: u64) {
    // Game counts are those of the movetext format, whatever format detection would pick.
    let opts = CompressOptions { format: Some(InputFormat::Movetext), ..fast() };
    let archive = round_trip_with(input, &opts);
    assert_eq!(info_of(&archive).games, games, "games in {:?}", String::from_utf8_lossy(input));
}

#[test]
fn empty_input() {
    let archive = round_trip(b"");
    let info = info_of(&archive);
    assert_eq!((info.lines, info.blocks, info.text_bytes), (0, 0, 0));
}

#[test]
fn no_trailing_newline() {
    round_trip_games(b"e4 e5 1-0", 1);
    round_trip_games(b"e4 e5 1-0\nd4 d5 0-1", 2);
    round_trip_games(b"e4 e5 1-0\nnot a game", 1);
    round_trip(b"x");
}

#[test]
fn crlf_line_ends() {
    round_trip_games(b"e4 e5 1-0\r\nd4 d5 0-1\r\n", 2);
    round_trip_games(b"e4 e5 1-0\r\nd4 d5 0-1\n", 2);
    let mut crlf = Vec::new();
    for line in first_games(20).split(|&b| b == b'\n').filter(|l| !l.is_empty()) {
        crlf.extend_from_slice(line);
        crlf.extend_from_slice(b"\r\n");
    }
    round_trip(&crlf);
}

#[test]
fn lone_cr() {
    round_trip(b"e4 e5 1-0\r");
    round_trip(b"e4 e5 1-0\rd4 d5 0-1\n");
    round_trip(b"\r\r\n\r\n\r\r");
    round_trip(b"e4 e5 1-0\r\r\n");
    round_trip(b"\r");
}

#[test]
fn blank_lines() {
    round_trip(b"\n");
    round_trip(b"\n\n\n");
    round_trip_games(b"\ne4 e5 1-0\n\n\nd4 d5 0-1\n\n", 2);
    round_trip(b"\r\n\r\n");
}

#[test]
fn byte_order_mark() {
    round_trip_games(b"\xEF\xBB\xBFe4 e5 1-0\nd4 d5 0-1\n", 1);
    round_trip(b"\xEF\xBB\xBF");
    round_trip(b"\xFF\xFEe\x004\x00\n");
}

#[test]
fn trailing_and_leading_spaces() {
    round_trip_games(b"e4 e5 1-0 \n e4 e5 1-0\ne4  e5 1-0\n", 0);
    round_trip(b" \n  \n\t\n");
}

#[test]
fn tabs() {
    round_trip_games(b"e4\te5\t1-0\ne4 e5\t1-0\n\t\n", 0);
}

#[test]
fn non_utf8_bytes() {
    let all: Vec<u8> = (0..=255u8).collect();
    round_trip(&all);
    round_trip(b"e4 e5 1-0\n\xC3\x28\n\xFF\xFE\xFD\ne4 e5 1-0\x00\n\x00\x00\x00");
    let noise: Vec<u8> = (0..20_000u32).map(|i| (i.wrapping_mul(2_654_435_761) >> 13) as u8).collect();
    round_trip(&noise);
}

#[test]
fn lines_that_are_not_games() {
    round_trip_games(b"[Event \"Casual\"]\n[Site \"?\"]\n\ne4 e5 1-0\nhello world\n1-0\n", 2);
}

#[test]
fn illegal_moves() {
    round_trip_games(b"e4 e4 1-0\ne5 1-0\nKe2 1-0\ne4 e5 Ke2 Ke7 Ke3 Ke6 Kf5 1-0\nNf3 Nf6 Nxf6 1-0\n", 0);
}

#[test]
fn moves_after_the_result() {
    round_trip_games(b"e4 e5 1-0 Nf3\ne4 1-0 e5 0-1\n1-0 1-0\n", 0);
}

#[test]
fn check_and_mate_marks() {
    round_trip_games(b"f3 e5 g4 Qh4# 0-1\ne4 f5 Qh5+ g6 1-0\ne4 e5 Qh5 Nc6 Bc4 Nf6 Qxf7# 1-0\n", 3);
    // Marks where there is no check, or missing where there is, are still exact.
    round_trip(b"e4+ e5 1-0\nf3 e5 g4 Qh4+ 0-1\nf3 e5 g4 Qh4 0-1\ne4 e5# 1-0\ne4!? e5?? 1-0\n");
}

#[test]
fn move_numbers() {
    round_trip_games(b"1. e4 e5 2. Nf3 Nc6 1-0\n1.e4 e5 2.Nf3 1-0\n1... e5 0-1\n", 0);
}

#[test]
fn star_and_missing_results() {
    round_trip_games(b"e4 e5 *\n*\ne4 e5\ne4\n1/2-1/2\n", 3);
    round_trip_games(b"e4 e5 1/2\ne4 e5 0-0\ne4 e5 \xBD-\xBD\n", 0);
}

#[test]
fn over_disambiguated_san() {
    round_trip_games(b"Ngf3 d5 1-0\ne2e4 e7e5 1-0\nNg1f3 Ng8f6 Nb1c3 *\n", 3);
    round_trip(b"Ng1-f3 1-0\ne2-e4 1-0\nPe4 1-0\n");
}

#[test]
fn castling_spellings() {
    let base = "e4 e5 Nf3 Nc6 Bc4 Bc5";
    let mut input = Vec::new();
    for castle in ["O-O", "0-0", "o-o", "O-O-O", "OO", "O-O+", "Kg1"] {
        input.extend_from_slice(format!("{base} {castle} Nf6 1-0\n").as_bytes());
    }
    round_trip(&input);
    round_trip(b"nf3 nf6 1-0\nNF3 1-0\ne4 e5 nF3 *\n");
}

#[test]
fn promotions_and_en_passant() {
    round_trip_games(b"e4 d5 e5 f5 exf6 e6 fxg7 Ke7 gxh8=Q Nf6 Qxh7 *\ne4 Nf6 e5 d5 exd6 1-0\n", 2);
    round_trip(b"e4 d5 e5 f5 exf6 e6 fxg7 Ke7 gxh8Q *\ne4 d5 e5 f5 exf6 e6 fxg7 Ke7 gxh8=K *\n");
}

#[test]
fn very_long_game() {
    let mut line = String::new();
    for _ in 0..2_500 {
        line.push_str("Nf3 Nf6 Ng1 Ng8 ");
    }
    line.push_str("1/2-1/2\n");
    let archive = round_trip(line.as_bytes());
    assert_eq!(info_of(&archive).plies, 10_000);
}

#[test]
fn very_long_lines_are_cut_across_blocks() {
    let small = CompressOptions { block_bytes: 1000, ..common::fast() };
    // A long raw line, a long game line, and a CR LF split by a block boundary.
    let mut input = vec![b'x'; 10_500];
    input.push(b'\n');
    for i in 0..8 {
        input.extend_from_slice(&game_line(i));
        input.push(b' ');
    }
    input.extend_from_slice(b"1-0\n");
    // Blocks are 1000 bytes while they hold fewer than 50 lines: put the CR last in one.
    let pad = (1999 - input.len() % 1000) % 1000;
    input.extend(std::iter::repeat_n(b'y', pad));
    assert_eq!(input.len() % 1000, 999);
    input.extend_from_slice(b"\r\n");
    input.extend_from_slice(&first_games(10));
    let archive = round_trip_with(&input, &small);
    let info = info_of(&archive);
    assert!(info.blocks > 10, "{} blocks", info.blocks);
    assert_eq!(info.lines, input.iter().filter(|&&b| b == b'\n').count() as u64);
    // Every cut position of a game line, and a block of one byte.
    let game = [game_line(0), b"\n".to_vec()].concat();
    for block_bytes in [1, 2, 3, 7, 64, 255] {
        round_trip_with(&game, &CompressOptions { block_bytes, ..common::fast() });
    }
}

#[test]
fn many_short_lines_over_many_blocks() {
    let input: Vec<u8> = (0..3000).flat_map(|i| if i % 7 == 0 { b"e4 *\n".to_vec() } else { b"\n".to_vec() }).collect();
    let archive = round_trip_with(&input, &CompressOptions { block_lines: 1, ..common::fast() });
    assert_eq!(info_of(&archive).blocks, 3000);
}

#[test]
fn blocks_default_to_the_levels_size_and_an_explicit_size_wins() {
    // 6,000 two-ply games: cheap at any level.
    let text: Vec<u8> = (0..6000).flat_map(|i| if i % 2 == 0 { b"e4 e5 1-0\n".to_vec() } else { b"d4 d5 0-1\n".to_vec() }).collect();
    let blocks = |level: u8, block_lines: u32| {
        // The block container, whatever the raw form (zstd) would make of so repetitive a text.
        let opts = CompressOptions {
            level: chesszip::Level::new(level).unwrap(),
            block_lines,
            threads: 2,
            raw_form: false,
            ..CompressOptions::default()
        };
        info_of(&round_trip_with(&text, &opts)).blocks
    };
    // Blocks of 1,000 lines below level 4, of 5,000 from level 4 on; 0 is the level's default.
    assert_eq!(chesszip::archive::default_block_lines(chesszip::Level::new(3).unwrap()), 1000);
    assert_eq!(chesszip::archive::default_block_lines(chesszip::Level::new(4).unwrap()), 5000);
    assert_eq!(blocks(3, 0), 6);
    assert_eq!(blocks(4, 0), 2);
    assert_eq!(blocks(4, 1000), 6);
    assert_eq!(blocks(1, 2500), 3);
}
