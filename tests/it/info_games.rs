//! `info`'s (and `-l`'s) game count of a PGN archive is the number of games the game views
//! read (`extract --game N` for N up to it, `count_games`, `Games`): at a leading UTF-8 BOM the
//! compressor's index counts the BOM's line as a game of its own where the views make it the
//! start of game 1, and a member in the raw form codes no games but holds them in its text.
//! Real file: a lichess export of 289 games (as python-chess reads it).

use crate::common;

use std::io::Cursor;

use chesszip::inspect::info_members;
use chesszip::{CompressOptions, Games, Level, count_games, extract_games, info};
use common::{chesszip, fast, round_trip_with, shared_data};

const BOM: &[u8] = b"\xef\xbb\xbf";

fn plain() -> Vec<u8> {
    let path = shared_data("pgn/lichess/exports-2021/lichess_manwithavan_2021-07-25.pgn");
    std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// `info`'s games of `archive`, checked against every view's count; returned.
#[track_caller]
fn agreed_games(what: &str, archive: &[u8]) -> u64 {
    let n = info(Cursor::new(archive)).unwrap().games;
    assert!(n > 0, "{what}");
    assert_eq!(count_games(Cursor::new(archive), 2).unwrap(), n, "{what}: count_games");
    assert_eq!(Games::open(Cursor::new(archive), 2).unwrap().count() as u64, n, "{what}: Games");
    let extract = |i: u64| extract_games(Cursor::new(archive), i..=i, &mut Vec::new(), 2).unwrap();
    assert_eq!((extract(1), extract(n), extract(n + 1)), (1, 1, 0), "{what}: extract --game 1, N, N + 1");
    n
}

#[test]
fn info_counts_the_games_the_views_read() {
    let plain = plain();
    let bom_line = [BOM, b"\n", &plain[..]].concat();
    let bom_tag = [BOM, &plain[..]].concat();
    // A BOM before two tags on one line, then a tag line: the compressor codes that line as a
    // game of two tags (no tag line, for it, with the BOM), the views make it game 1's start.
    let (event, rest) = plain.split_at(plain.iter().position(|&b| b == b'\n').expect("a line"));
    let bom_two_tags = [BOM, event, b" ", &rest[1..]].concat();
    assert!(bom_two_tags.starts_with(b"\xef\xbb\xbf[Event \"Titled Arena April '20\"] [Site "));
    let one_block =
        CompressOptions { level: Level::new(2).unwrap(), threads: 2, raw_form: false, block_lines: 5000, ..CompressOptions::default() };
    for (what, text) in [
        ("plain", &plain),
        ("BOM line", &bom_line),
        ("BOM before the first tag", &bom_tag),
        ("BOM before two tags on a line", &bom_two_tags),
    ] {
        for (how, opts) in [
            ("50-line blocks", fast()),
            ("one game per block", CompressOptions { block_lines: 1, ..fast() }),
            ("one block, level 2", one_block),
        ] {
            let archive = round_trip_with(text, &opts);
            assert_eq!(agreed_games(&format!("{what}, {how}"), &archive), 289, "{what}, {how}");
        }
    }
}

/// A BOM's line before more than a region's worth of games can be a region of its own, written
/// in the raw form (with small blocks, where the two members are smaller than one): its member
/// holds one game for the views (the BOM's line), which `info` counts now, as it counts the
/// games of a PGN archive in the raw form.
#[test]
fn info_counts_the_games_of_raw_members() {
    let plain = plain();
    let opts = CompressOptions { level: Level::MIN, threads: 2, ..CompressOptions::default() };
    let archive = round_trip_with(&[BOM, b"\n", &plain[..]].concat(), &CompressOptions { block_lines: 3, ..opts });
    let members = info_members(Cursor::new(&archive)).unwrap();
    assert_eq!(members.iter().map(|m| (m.raw.is_some(), m.games)).collect::<Vec<_>>(), [(true, 1), (false, 289)]);
    assert_eq!(agreed_games("regions", &archive), 290);
    // One member in the raw form: the first game of the golden PGN sample, which the raw form
    // wins (as in tests/it/concat.rs).
    let golden = std::fs::read(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/golden/lichess.pgn")).expect("golden input");
    let one = chesszip::pgn::lexer::split_games(&golden)[0].to_vec();
    let raw = round_trip_with(&one, &opts);
    assert!(info(Cursor::new(&raw)).unwrap().raw.is_some(), "raw form");
    assert_eq!(agreed_games("raw form", &raw), 1);
    // A raw member in a concatenation.
    let both = [&raw[..], &archive[..]].concat();
    assert_eq!(agreed_games("concatenation", &both), 291);
}

/// The command line: `info` prints the games `extract --game N` reads: game N is there, game
/// N + 1 is not (as one archive member, and as two, the BOM's line a region of its own).
#[test]
fn info_on_the_command_line_counts_what_extract_reads() {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("bom.pgn");
    std::fs::write(&input, [BOM, b"\n", &plain()[..]].concat()).unwrap();
    let archive = dir.path().join("bom.pgn.chz");
    for (block_lines, members, want) in [("3", "2", 290), ("1000", "1", 289)] {
        let out = chesszip().args(["compress", "-q", "-1", "-f", "--block-lines", block_lines]).arg(&input).output().unwrap();
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        let info = chesszip().arg("info").arg(&archive).output().unwrap();
        let info = String::from_utf8(info.stdout).unwrap();
        let games: u64 =
            info.lines().find_map(|l| l.strip_prefix("games:")).and_then(|v| v.split_whitespace().next()?.parse().ok()).unwrap();
        let extract = |n: u64| chesszip().args(["extract", "--game", &n.to_string()]).arg(&archive).output().unwrap().status.success();
        assert!(info.contains(&format!("members:        {members}\n")) || members == "1", "--block-lines {block_lines}: {info}");
        assert_eq!((games, extract(games), extract(games + 1)), (want, true, false), "--block-lines {block_lines}: {info}");
    }
}

/// Lines between games that are no game are stored raw, and the game views serve each as a
/// game of its own: `info` counts them too (before: the index's coded games only, one less for
/// each), by decoding the blocks that hold raw lines.
#[test]
fn info_counts_the_lines_between_games_that_are_no_game() {
    let plain = plain();
    let games = chesszip::pgn::lexer::split_games(&plain);
    let (first, rest) = (games[0], &games[1..]);
    let join = |between: &[&[u8]]| -> Vec<u8> {
        let mut text = first.to_vec();
        for (i, game) in rest.iter().enumerate() {
            if i == 100 {
                between.iter().for_each(|b| text.extend_from_slice(b));
            }
            text.extend_from_slice(game);
        }
        text
    };
    // (A BOM's line alone is coded as a game of no tags, counted by the index; `y` after
    // `x` and a blank line goes on the piece `x` starts.)
    let cases: [(&str, Vec<u8>, u64, bool); 3] = [
        ("a stray line", join(&[b"x\n"]), 290, true),
        ("a BOM's line after the first game", [first, BOM, b"\n", &join(&[])[first.len()..]].concat(), 290, false),
        ("two stray lines and a BOM's line", [first, BOM, b"\n", &join(&[b"x\n", b"\n", b"y\n"])[first.len()..]].concat(), 291, true),
    ];
    for (what, text, want, raw) in cases {
        for (how, opts) in [("50-line blocks", fast()), ("one game per block", CompressOptions { block_lines: 1, ..fast() })] {
            let archive = round_trip_with(&text, &opts);
            let raw_lines = info(Cursor::new(&archive)).unwrap().raw_lines;
            assert_eq!(raw_lines > 0, raw, "{what}, {how}: the case at hand: raw lines");
            assert_eq!(agreed_games(&format!("{what}, {how}"), &archive), want, "{what}, {how}");
        }
    }
}
