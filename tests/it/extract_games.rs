//! `extract_games` and `count_games`: game N of a PGN archive is the N-th game of the input,
//! byte for byte, whatever the blocks (games per block, byte limits that cut lines, raw games
//! the index does not count); game N of a movetext archive is line N. Also: archives made
//! before games were counted (the golden archive) give their games, and blocks the index
//! counts are not decoded.

use crate::common;

use std::io::Cursor;

use chesszip::container::{BlockHeader, IndexedReader};
use chesszip::pgn::lexer::split_games;
use chesszip::{CompressOptions, Error, count_games, extract_games, extract_lines};
use common::{fast, first_games, round_trip_with};

fn read(relative: &str) -> Vec<u8> {
    let path = format!("{}/{relative}", env!("CARGO_MANIFEST_DIR"));
    std::fs::read(&path).unwrap_or_else(|e| panic!("{path}: {e}"))
}

/// The first 300 games of the lichess May 2016 export.
fn lichess() -> Vec<u8> {
    read("tests/data/pgn/lichess/2016-05-first300.pgn")
}

fn extract(archive: &[u8], first: u64, last: u64) -> (Vec<u8>, u64) {
    let mut out = Vec::new();
    let n = extract_games(Cursor::new(archive), first..=last, &mut out, 2).expect("extract");
    (out, n)
}

/// Compresses `text` with `opts` and checks every `step`-th game and the last, ranges across
/// blocks, ranges past the end and the count against the games of the whole input.
#[track_caller]
fn check(text: &[u8], opts: &CompressOptions, step: usize) {
    let archive = round_trip_with(text, opts);
    let games = split_games(text);
    let n = games.len() as u64;
    assert_eq!(count_games(Cursor::new(&archive), 2).unwrap(), n);
    for i in (1..n).step_by(step).chain([n]) {
        assert!(extract(&archive, i, i) == (games[i as usize - 1].to_vec(), 1), "game {i} of {n}");
    }
    for (first, last) in [(1, n), (2, n / 2), (n / 3, n / 3 + 11), (n - 3, n + 5)] {
        let want = games[first as usize - 1..last.min(n) as usize].concat();
        assert!(extract(&archive, first, last) == (want, last.min(n) - first + 1), "games {first}..={last}");
    }
    assert_eq!(extract(&archive, n + 1, n + 10), (Vec::new(), 0));
    assert_eq!(extract(&archive, 0, 3), (Vec::new(), 0));
}

#[test]
fn the_games_of_a_small_pgn_file_byte_for_byte() {
    let pgn: &[u8] = b"\n[Event \"a\"]\n[Site \"x\"]\n\n1. e4 e5 2. Nf3 1-0\n\n\n\
        [Event \"b\"]\r\n\r\n1. d4 { a comment\nover two lines } d5 *\r\n\r\n\
        1. c4 c5 0-1\n\
        [Event \"d\"]\n\n1. e2-e4 e5 *\n";
    let game = |i: u64| extract(&round_trip_with(pgn, &fast()), i, i).0;
    assert_eq!(game(1), b"\n[Event \"a\"]\n[Site \"x\"]\n\n1. e4 e5 2. Nf3 1-0\n\n\n");
    assert_eq!(game(2), b"[Event \"b\"]\r\n\r\n1. d4 { a comment\nover two lines } d5 *\r\n\r\n");
    assert_eq!(game(3), b"1. c4 c5 0-1\n");
    // Kept raw (a spelling the model does not reproduce), still a game.
    assert_eq!(game(4), b"[Event \"d\"]\n\n1. e2-e4 e5 *\n");
    for block_lines in [1, 2, 3] {
        check(pgn, &CompressOptions { block_lines, format: Some(chesszip::container::InputFormat::Pgn), ..fast() }, 1);
    }
}

#[test]
fn lichess_games_whatever_the_blocks() {
    let text = lichess();
    assert_eq!(split_games(&text).len(), 300);
    for (block_lines, step) in [(7, 1), (50, 3), (1000, 37)] {
        check(&text, &CompressOptions { block_lines, ..fast() }, step);
    }
}

#[test]
fn blocks_cut_inside_games_and_lines() {
    // Byte limits cut some games, and lines, across blocks; other blocks are cut by games.
    let text = lichess();
    check(&text, &CompressOptions { block_lines: 3, block_bytes: 1800, ..fast() }, 1);
    let few: Vec<u8> = split_games(&text)[..8].concat();
    check(&few, &CompressOptions { block_lines: 3, block_bytes: 97, ..fast() }, 1);
}

/// Games of 20-byte lines: `A` (two tags, 4 lines), `B` (moves only, 1 line), `C` (five tags,
/// 7 lines), so that byte limits that are multiples of 20 cut blocks at line ends inside games.
fn twenty_byte_lines(pattern: &str) -> Vec<u8> {
    let tags: [&[u8]; 5] = [
        b"[Event \"aaaaaaaaa\"]\n",
        b"[Site \"bbbbbbbbbb\"]\n",
        b"[Date \"2017.05.29\"]\n",
        b"[White \"abcdefghi\"]\n",
        b"[Black \"abcdefghi\"]\n",
    ];
    let (blank, moves): (&[u8], &[u8]) = (b"                   \n", b"1. e4 e5 2. Nf3 1-0\n");
    let mut text = Vec::new();
    for kind in pattern.bytes() {
        let n = match kind {
            b'A' => 2,
            b'B' => 0,
            _ => 5,
        };
        text.extend(tags[..n].concat());
        if n > 0 {
            text.extend_from_slice(blank);
        }
        text.extend_from_slice(moves);
    }
    assert!(text.split_inclusive(|&b| b == b'\n').all(|l| l.len() == 20));
    text
}

#[test]
fn blocks_cut_at_line_ends_inside_games() {
    // A block cut by its byte limit at a line end inside a game has no partial line: only
    // its length (that of the longest block) says that the next block may not start a game.
    let text = twenty_byte_lines(&"AABBABAABCBBAC".repeat(4));
    let opts = CompressOptions { block_lines: 2, block_bytes: 100, ..fast() };
    let archive = round_trip_with(&text, &opts);
    let entries = IndexedReader::open(Cursor::new(&archive)).unwrap().entries().to_vec();
    assert!(entries.iter().all(|e| e.raw_lines == 0 && !e.partial_line), "structured games, whole lines");
    let cut_by_bytes = entries.iter().filter(|e| e.text_len == 100).count();
    assert!(cut_by_bytes >= 5 && cut_by_bytes + 5 <= entries.len(), "{cut_by_bytes} of {} blocks cut by bytes", entries.len());
    check(&text, &opts, 1);
}

#[test]
fn blocks_cut_inside_tag_lines() {
    // A block that starts inside a tag line sees the line's end as a line of its own, and
    // takes the next tag line for the start of a game: the block after it starts inside a
    // game although it follows a short block.
    let text = twenty_byte_lines("CCCCCC");
    let opts = CompressOptions { block_lines: 1, block_bytes: 50, ..fast() };
    let archive = round_trip_with(&text, &opts);
    let entries = IndexedReader::open(Cursor::new(&archive)).unwrap().entries().to_vec();
    assert!(entries.iter().any(|e| e.text_len < 20 && !e.partial_line), "a block holds the end of a tag line only");
    check(&text, &opts, 1);
}

#[test]
fn raw_games_the_index_does_not_count() {
    let games = split_games(&lichess()).into_iter().take(120).map(<[u8]>::to_vec).collect::<Vec<_>>();
    let mut text = Vec::new();
    for (i, g) in games.iter().enumerate() {
        text.extend_from_slice(g);
        if i % 17 == 3 {
            text.extend_from_slice(b"[Event \"raw\"]\n\n1. e2-e4 e5 *\n\n");
        }
        if i % 29 == 5 {
            text.extend_from_slice(b"[Variant \"Antichess\"]\n\n1. e3 b5 2. Bxb5 *\n\n");
        }
    }
    for block_lines in [4, 25] {
        let archive = round_trip_with(&text, &CompressOptions { block_lines, ..fast() });
        assert!(common::info_of(&archive).raw_lines >= 14, "raw games are kept raw");
        check(&text, &CompressOptions { block_lines, ..fast() }, 2);
    }
}

#[test]
fn blocks_of_equal_length() {
    // Every block as long as the longest: the index cannot tell where games start, so the
    // blocks are decoded to count them.
    let game = b"[Event \"x\"]\n[Site \"y\"]\n\n1. e4 e5 2. Nf3 Nc6 1-0\n\n";
    let text: Vec<u8> = game.iter().copied().cycle().take(game.len() * 40).collect();
    check(&text, &CompressOptions { block_lines: 4, ..fast() }, 1);
}

#[test]
fn blocks_counted_by_the_index_are_not_decoded() {
    let text = lichess();
    let mut archive = round_trip_with(&text, &CompressOptions { block_lines: 10, ..fast() });
    let games = split_games(&text);
    let entries = IndexedReader::open(Cursor::new(&archive)).unwrap().entries().to_vec();
    assert_eq!(entries.len(), 30);
    assert!(entries.iter().all(|e| e.raw_lines == 0 && e.games == 10), "ten structured games per block");
    // Damage the stream of a block that is not the longest (the block after the longest one
    // must be decoded to find its first game) nor just after it.
    let longest = (0..entries.len() - 1).max_by_key(|&k| entries[k].text_len).unwrap();
    let damaged = (1..entries.len() - 1).find(|&k| k != longest && k != longest + 1 && k + 1 != longest).unwrap();
    let at = entries[damaged].offset as usize + BlockHeader::LEN + 3;
    archive[at] ^= 0x55;
    // Games of other blocks come out; those of the damaged block do not.
    for g in [1, 300, damaged as u64 * 10, damaged as u64 * 10 + 11] {
        assert!(extract(&archive, g, g).0 == games[g as usize - 1], "game {g}");
    }
    let err = extract_games(Cursor::new(&archive), damaged as u64 * 10 + 1..=damaged as u64 * 10 + 1, std::io::sink(), 1);
    assert!(matches!(err, Err(Error::Corrupt(ref m)) if m.contains(&format!("block {damaged}"))), "{err:?}");
}

#[test]
fn the_golden_pgn_archive_gives_its_games() {
    // An archive made before games were extracted by number.
    let text = read("tests/golden/lichess.pgn");
    let archive = read("tests/golden/lichess.pgn.l1.chz");
    let games = split_games(&text);
    assert_eq!(games.len(), 8);
    assert_eq!(count_games(Cursor::new(&archive), 1).unwrap(), 8);
    for (i, g) in games.iter().enumerate() {
        let i = i as u64 + 1;
        assert!(extract(&archive, i, i).0 == *g, "game {i}");
        assert!(g.starts_with(b"[Site \"https://lichess.org/"), "game {i}");
    }
}

#[test]
fn movetext_games_are_lines() {
    let text = [first_games(20), b"not a game\n".to_vec(), first_games(3)].concat();
    let archive = round_trip_with(&text, &CompressOptions { block_lines: 6, ..fast() });
    assert_eq!(count_games(Cursor::new(&archive), 2).unwrap(), 24);
    for (first, last) in [(1, 1), (20, 22), (21, 21), (5, 30)] {
        let mut lines = Vec::new();
        let n = extract_lines(Cursor::new(&archive), first..=last, &mut lines, 2).unwrap();
        assert_eq!(extract(&archive, first, last), (lines, n));
    }
    let golden = read("tests/golden/movetext.l1.chz");
    assert_eq!(count_games(Cursor::new(&golden), 1).unwrap(), 44);
}
