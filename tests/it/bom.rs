//! A UTF-8 byte order mark at the start of a PGN file belongs to game 1 in every game view
//! (`extract --game`, `extract --tags`, `count_games`, `Games`, `GameTags`): it does not make
//! a game of its own, as it did when the views cut games by the compressor's rule (which reads
//! `<BOM>[Event "..."]` as a line that is not a tag line, so the next tag line started a game).
//! The archive is unchanged: the compressor still cuts and counts by its own rule, so an
//! archive written before the fix reads the same. Real file: a lichess export (289 games, as
//! python-chess reads it) with a BOM prepended.

use crate::common;

use std::io::Cursor;

use chesszip::pgn::codec::scan_tags;
use chesszip::pgn::lexer::split_games;
use chesszip::{CompressOptions, GameTags, Games, Level, count_games, extract_games, info};
use common::{chesszip, fast, round_trip_with, shared_data};

const BOM: &[u8] = b"\xef\xbb\xbf";

/// The lichess export, without and with a BOM before its first byte.
fn texts() -> (Vec<u8>, Vec<u8>) {
    let path = shared_data("pgn/lichess/exports-2021/lichess_manwithavan_2021-07-25.pgn");
    let plain = std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    assert!(!plain.starts_with(BOM));
    (plain.clone(), [BOM, &plain[..]].concat())
}

/// The games the views must give: those of the file without its BOM, the BOM put back in
/// front of the first.
fn expected(plain: &[u8]) -> Vec<Vec<u8>> {
    let mut games: Vec<Vec<u8>> = split_games(plain).into_iter().map(<[u8]>::to_vec).collect();
    games[0].splice(0..0, BOM.iter().copied());
    games
}

fn settings() -> Vec<(&'static str, CompressOptions)> {
    vec![
        ("level 1, 50-line blocks", fast()),
        (
            "level 2, one block",
            CompressOptions { level: Level::new(2).unwrap(), threads: 2, raw_form: false, ..CompressOptions::default() },
        ),
        ("blocks cut inside games", CompressOptions { block_bytes: 700, ..fast() }),
        // Block 0 is the BOM's line alone (the compressor's first game): game 1 goes on in block 1.
        ("one game per block", CompressOptions { block_lines: 1, ..fast() }),
    ]
}

#[test]
fn a_bom_belongs_to_game_one_in_the_library_views() {
    let (plain, bom) = texts();
    let want = expected(&plain);
    assert_eq!(want.len(), 289);
    for (what, opts) in settings() {
        let archive = round_trip_with(&bom, &opts);
        assert_eq!(count_games(Cursor::new(&archive), 2).unwrap(), 289, "{what}");
        for i in [1u64, 2, 3, 150, 289] {
            let mut out = Vec::new();
            assert_eq!(extract_games(Cursor::new(&archive), i..=i, &mut out, 2).unwrap(), 1, "{what}: game {i}");
            assert!(out == want[i as usize - 1], "{what}: game {i}");
        }
        let games: Vec<Vec<u8>> = Games::open(Cursor::new(&archive), 2).unwrap().collect::<Result<_, _>>().unwrap();
        assert!(games == want, "{what}: Games");
        let mut games = Games::open(Cursor::new(&archive), 2).unwrap();
        games.seek(5).unwrap();
        games.seek(0).unwrap();
        assert!(games.next_game().unwrap().as_ref() == Some(&want[0]), "{what}: seek back to game 0");
        // Tags: the BOM's game has all its tags; every game's tags are those of the file
        // without the BOM where blocks are cut at games (a game cut across blocks counts once
        // per piece, and the BOM shifts where small blocks cut; with one game per block, the
        // BOM's line is a block of its own).
        let tags: Vec<_> = GameTags::open(Cursor::new(&archive), 2).unwrap().collect::<Result<_, _>>().unwrap();
        let plain_tags: Vec<_> = GameTags::open(Cursor::new(round_trip_with(&plain, &opts)), 2).unwrap().collect::<Result<_, _>>().unwrap();
        assert_eq!(tags[0][0], (b"Event".to_vec(), b"Titled Arena April '20".to_vec()), "{what}");
        if opts.block_bytes >= 1 << 16 && opts.block_lines > 1 {
            assert!(tags == plain_tags, "{what}: tags");
            assert!(tags[0].len() > 5 && tags[0].iter().any(|(n, _)| n == b"Site"), "{what}: {:?}", tags[0]);
        }
    }
}

/// Without a BOM (the common case) the views cut games as the compressor did: only the first
/// piece of block 0 is decoded to tell, and the index counts block 0's games again, as before the
/// BOM fix. Every game of a multi-block archive is the file's game, wherever the blocks are cut,
/// and so are the games' tags where blocks are cut at games.
#[test]
fn without_a_bom_the_games_are_the_files() {
    let (plain, _) = texts();
    let want: Vec<Vec<u8>> = split_games(&plain).into_iter().map(<[u8]>::to_vec).collect();
    assert_eq!(want.len(), 289);
    for (what, opts) in settings() {
        let archive = round_trip_with(&plain, &opts);
        assert_eq!(count_games(Cursor::new(&archive), 2).unwrap(), 289, "{what}");
        for i in [1u64, 2, 3, 4, 5, 6, 49, 50, 51, 150, 288, 289] {
            let mut out = Vec::new();
            assert_eq!(extract_games(Cursor::new(&archive), i..=i, &mut out, 2).unwrap(), 1, "{what}: game {i}");
            assert!(out == want[i as usize - 1], "{what}: game {i}");
        }
        for (a, b) in [(1u64, 289u64), (2, 7), (3, 200)] {
            let mut out = Vec::new();
            assert_eq!(extract_games(Cursor::new(&archive), a..=b, &mut out, 2).unwrap(), b - a + 1, "{what}: games {a}..={b}");
            assert!(out == want[a as usize - 1..b as usize].concat(), "{what}: games {a}..={b}");
        }
        let mut out = Vec::new();
        assert_eq!(extract_games(Cursor::new(&archive), 290..=290, &mut out, 2).unwrap(), 0, "{what}");
        let games: Vec<Vec<u8>> = Games::open(Cursor::new(&archive), 2).unwrap().collect::<Result<_, _>>().unwrap();
        assert!(games == want, "{what}: Games");
        if opts.block_bytes >= 1 << 16 {
            let tags: Vec<_> = GameTags::open(Cursor::new(&archive), 2).unwrap().collect::<Result<_, _>>().unwrap();
            let file_tags: Vec<_> = want.iter().map(|g| scan_tags(g).into_iter().map(|t| (t.name, t.value)).collect::<Vec<_>>()).collect();
            assert!(tags == file_tags, "{what}: tags");
            assert!(tags[0].len() > 5, "{what}: {:?}", tags[0]);
        }
    }
}

#[test]
fn a_bom_game_is_kept_in_a_concatenation() {
    let (plain, bom) = texts();
    let archive = round_trip_with(&bom, &fast());
    let both = [&archive[..], &archive[..]].concat();
    let want: Vec<Vec<u8>> = [expected(&plain), expected(&plain)].concat();
    assert_eq!(count_games(Cursor::new(&both), 2).unwrap(), 578);
    let games: Vec<Vec<u8>> = Games::open(Cursor::new(&both), 2).unwrap().collect::<Result<_, _>>().unwrap();
    assert!(games == want);
    let mut out = Vec::new();
    extract_games(Cursor::new(&both), 290..=290, &mut out, 2).unwrap();
    assert!(out == want[289]);
}

#[test]
fn a_bom_belongs_to_game_one_on_the_command_line() {
    let (plain, bom) = texts();
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("bom.pgn");
    std::fs::write(&input, &bom).unwrap();
    let out = chesszip().args(["compress", "-q", "-1", "-c"]).arg(&input).output().unwrap();
    assert!(out.status.success());
    let archive = dir.path().join("bom.chz");
    std::fs::write(&archive, &out.stdout).unwrap();
    let want = expected(&plain);
    let game = |n: &str| chesszip().args(["extract", "--game", n]).arg(&archive).output().unwrap();
    let first = game("1");
    assert!(first.status.success());
    assert!(first.stdout == want[0], "{}", String::from_utf8_lossy(&first.stdout[..first.stdout.len().min(200)]));
    assert!(game("289").stdout == want[288]);
    assert!(!game("290").status.success());
    let tags = chesszip().args(["extract", "--tags", "--game", "1"]).arg(&archive).output().unwrap();
    assert!(tags.status.success());
    let tags = String::from_utf8(tags.stdout).unwrap();
    assert!(tags.starts_with("[Event \"Titled Arena April '20\"]\n[Site "), "{tags}");
}

/// A block that is a BOM's line alone (one game per block: the compressor's first game is the
/// BOM's line) is coded as a game, not stored raw: the PGN decoder of codings 5-7 used to charge
/// such a game one byte more than its text and refuse it, so the compressor's check stored the
/// block raw. The archive round-trips and every view still reads 289 games.
#[test]
fn a_block_of_a_bom_line_alone_is_coded() {
    let (plain, _) = texts();
    for bom_line in [&b"\xef\xbb\xbf\n"[..], b"\xef\xbb\xbf\r\n"] {
        let input = [bom_line, &plain[..]].concat();
        let archive = round_trip_with(&input, &CompressOptions { block_lines: 1, ..fast() });
        let info = info(Cursor::new(&archive)).unwrap();
        assert_eq!((info.members, info.raw_lines), (1, 0), "{bom_line:?}: the BOM's block is coded, not stored");
        assert_eq!(count_games(Cursor::new(&archive), 2).unwrap(), 289, "{bom_line:?}");
        let mut first = Vec::new();
        assert_eq!(extract_games(Cursor::new(&archive), 1..=1, &mut first, 2).unwrap(), 1);
        assert!(first.starts_with(bom_line) && first[bom_line.len()..] == split_games(&plain)[0][..], "{bom_line:?}");
    }
}
