//! Duplicate PGN games (coding 7): a game equal byte for byte to an earlier one of the input is
//! coded as a reference to its lines, and every reader gives the text back: expand, salvage,
//! concatenated archives, `extract --game`, `count_games`, `Games` and `GameTags`. Real file: a
//! lichess export (289 games) repeated, in part, shuffled.

use crate::common;

use std::io::Cursor;

use chesszip::archive::dups::{CACHE_SHARE, ENTRY_COST};
use chesszip::container::Coding;
use chesszip::pgn::codec::scan_tags;
use chesszip::pgn::lexer::split_games;
use chesszip::{CompressOptions, ExpandOptions, GameTags, Games, TagPairs, compress_bytes, count_games, expand_bytes, extract_games};
use common::{fast, info_of, round_trip_with, shared_data};

const BOM: &[u8] = b"\xef\xbb\xbf";

/// The lichess export: 289 games, each ending with a blank line.
fn export() -> Vec<u8> {
    let path = shared_data("pgn/lichess/exports-2021/lichess_manwithavan_2021-07-25.pgn");
    std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// The export, games 11 to 60 again, 100 games drawn across it, and the export again.
fn repeated(plain: &[u8]) -> Vec<u8> {
    let games = split_games(plain);
    assert_eq!(games.len(), 289);
    let mut text = plain.to_vec();
    text.extend(games[10..60].concat());
    for i in 0..100 {
        text.extend_from_slice(games[(i * 37) % games.len()]);
    }
    text.extend_from_slice(plain);
    text
}

fn tags_of(game: &[u8]) -> TagPairs {
    scan_tags(game).into_iter().map(|t| (t.name, t.value)).collect()
}

#[test]
fn repeated_pgn_games_cost_little_more_than_one_copy_and_read_back() {
    let plain = export();
    let text = repeated(&plain);
    let want: Vec<&[u8]> = split_games(&text);
    assert_eq!(want.len(), 289 + 50 + 100 + 289);
    let opts = fast();
    let single = compress_bytes(&plain, &opts).len();
    let archive = round_trip_with(&text, &opts);
    // Each block of copies costs its headers, index entry and a few bytes of references.
    assert!(archive.len() < single + 1500, "{} bytes vs {single} for one copy", archive.len());
    let info = info_of(&archive);
    assert_eq!((info.header.coding, info.games, info.raw_lines), (Coding::PgnDuplicates, want.len() as u64, 0), "{info:?}");
    assert_eq!(count_games(Cursor::new(&archive), 2).unwrap(), want.len() as u64);

    // Random access: copies one by one (in blocks of copies only, and mixed), and a range.
    for i in [1u64, 289, 290, 339, 340, 400, 439, 440, 600, 728] {
        let mut out = Vec::new();
        assert_eq!(extract_games(Cursor::new(&archive), i..=i, &mut out, 2).unwrap(), 1, "game {i}");
        assert!(out == want[i as usize - 1], "game {i}");
    }
    let mut out = Vec::new();
    extract_games(Cursor::new(&archive), 280..=460, &mut out, 2).unwrap();
    assert!(out == want[279..460].concat());
    // Games, in order and after a seek into the copies; tags.
    let games: Vec<Vec<u8>> = Games::open(Cursor::new(&archive), 2).unwrap().collect::<Result<_, _>>().unwrap();
    assert!(games.iter().map(Vec::as_slice).eq(want.iter().copied()));
    let mut g = Games::open(Cursor::new(&archive), 2).unwrap();
    g.seek(600).unwrap();
    assert!(g.next_game().unwrap().unwrap() == want[600]);
    let tags: Vec<TagPairs> = GameTags::open(Cursor::new(&archive), 2).unwrap().collect::<Result<_, _>>().unwrap();
    assert!(tags == want.iter().map(|g| tags_of(g)).collect::<Vec<_>>());
    // Salvage of an undamaged archive, one thread.
    let mut back = Vec::new();
    let s =
        chesszip::expand_salvage(Cursor::new(&archive), &mut back, &ExpandOptions { threads: 1, ..Default::default() }, &|_| {}).unwrap();
    assert!(s.is_complete());
    assert!(back == text);

    // Two members: references stay in their member, games are numbered across both.
    let both = [&archive[..], &archive[..]].concat();
    assert!(expand_bytes(&both, &ExpandOptions::default()).unwrap() == [&text[..], &text[..]].concat());
    assert_eq!(count_games(Cursor::new(&both), 2).unwrap(), 2 * want.len() as u64);
    for i in [want.len() as u64 + 1, want.len() as u64 + 400] {
        let mut out = Vec::new();
        extract_games(Cursor::new(&both), i..=i, &mut out, 2).unwrap();
        assert!(out == want[(i - 1) as usize % want.len()], "game {i} of two members");
    }
    let tags2: Vec<TagPairs> = GameTags::open(Cursor::new(&both), 2).unwrap().collect::<Result<_, _>>().unwrap();
    assert!(tags2 == [tags.clone(), tags].concat());
}

#[test]
fn copies_across_blocks_cut_inside_games_and_without_final_line_feed() {
    let plain = export();
    let games = split_games(&plain);
    let part = games[..30].concat();
    let mut text = [&part[..], &part[..], games[3], &part[..]].concat();
    // The last game without its line feeds: not complete, so coded, not copied.
    text.extend_from_slice(games[5].strip_suffix(b"\n\n").unwrap());
    for opts in [
        CompressOptions { block_bytes: 700, ..fast() },
        CompressOptions { block_lines: 1, ..fast() },
        CompressOptions { block_lines: 7, block_bytes: 5000, ..fast() },
    ] {
        let archive = round_trip_with(&text, &opts);
        let want = split_games(&text);
        assert_eq!(count_games(Cursor::new(&archive), 2).unwrap(), want.len() as u64);
        let mut out = Vec::new();
        extract_games(Cursor::new(&archive), 50..=70, &mut out, 2).unwrap();
        assert!(out == want[49..70].concat());
    }
}

#[test]
fn a_bom_file_with_copies_and_a_file_without_round_trip() {
    let plain = export();
    // A BOM belongs to game 1 in the views; the copies of the export after it have none.
    let bom = [BOM, &plain[..], &plain[..]].concat();
    let archive = round_trip_with(&bom, &fast());
    assert!(archive.len() < compress_bytes(&[BOM, &plain[..]].concat(), &fast()).len() + 1000);
    let games: Vec<Vec<u8>> = Games::open(Cursor::new(&archive), 2).unwrap().collect::<Result<_, _>>().unwrap();
    let mut want: Vec<Vec<u8>> = [split_games(&plain), split_games(&plain)].concat().into_iter().map(<[u8]>::to_vec).collect();
    want[0].splice(0..0, BOM.iter().copied());
    assert!(games == want);
    let mut out = Vec::new();
    extract_games(Cursor::new(&archive), 290..=290, &mut out, 2).unwrap();
    assert!(out == want[289]);
    // A file without duplicate games: 2017-05 (298 games, clocks, comments).
    let path = shared_data("pgn/lichess/2017-05.pgn");
    let text = std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let archive = round_trip_with(&text, &fast());
    let info = info_of(&archive);
    assert_eq!((info.header.coding, info.games), (Coding::PgnDuplicates, split_games(&text).len() as u64));
}

#[test]
fn a_damaged_original_damages_its_copies_in_salvage_only() {
    let plain = export();
    let games = split_games(&plain);
    let part = games[..100].concat();
    let text = [&part[..], &part[..]].concat();
    let mut archive = compress_bytes(&text, &fast());
    // Damage the first block's range stream: blocks 0 and 2 (its copy) are lost, 1 and 3 kept.
    archive[24 + 48 + 10] ^= 0x40;
    assert!(expand_bytes(&archive, &ExpandOptions::default()).is_err());
    let mut back = Vec::new();
    let s = chesszip::expand_salvage(Cursor::new(&archive), &mut back, &ExpandOptions::default(), &|_| {}).unwrap();
    let damaged: Vec<u64> = s.damaged.iter().map(|d| d.block).collect();
    assert_eq!(damaged, [0, 2]);
    assert!(back == [games[50..100].concat(), games[50..100].concat()].concat());
}

#[test]
fn random_access_under_a_small_memlimit_gives_the_same_text() {
    // The blocks kept to copy games from take a share of `--memlimit`: under a limit whose
    // share holds less than one block, every source block is decoded again for each block of
    // copies, and the output is the same.
    let text = repeated(&export());
    let archive = compress_bytes(&text, &fast());
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("repeated.pgn.chz");
    std::fs::write(&path, &archive).unwrap();
    // The most one block needs (twice its text and its coded bytes, as `--memlimit` counts it).
    let entries = chesszip::Blocks::open(Cursor::new(&archive), 1).unwrap().entries().to_vec();
    let need = (0..entries.len())
        .map(|k| {
            let coded = entries.get(k + 1).map_or(archive.len() as u64, |e| e.offset) - entries[k].offset;
            2 * entries[k].text_len as u64 + coded
        })
        .max()
        .unwrap();
    // The cache's share of that limit holds no block but the last (a short one) whole: every
    // block of copies decodes its sources again.
    let counted = |e: &chesszip::container::IndexEntry| e.text_len as u64 + (ENTRY_COST as u64) * e.lines as u64;
    let smallest = entries[..entries.len() - 1].iter().map(counted).min().unwrap();
    assert!(need / CACHE_SHARE < smallest, "the cache's share ({}) must hold less than a block ({smallest})", need / CACHE_SHARE);
    let run = |args: &[&str]| {
        let o = common::chesszip().arg("extract").arg(&path).args(args).output().unwrap();
        assert!(o.status.success(), "{args:?}: {}", common::stderr_of(&o));
        o.stdout
    };
    let memlimit = need.to_string();
    for args in [&["--tags"][..], &["--game", "250..728"], &["--game", "700"], &["--tags", "--game", "280..460"]] {
        let plain = run(args);
        assert!(!plain.is_empty(), "{args:?}");
        let limited = run(&[args, &["--memlimit", &memlimit]].concat());
        assert!(limited == plain, "{args:?}: {} bytes under --memlimit, {} without", limited.len(), plain.len());
    }
    let games = split_games(&text);
    assert!(run(&["--game", "250..728", "--memlimit", &memlimit]) == games[249..].concat());
    // A limit too small for one block is refused as before.
    let o = common::chesszip().arg("extract").arg(&path).args(["--tags", "--memlimit", &(need / 8).to_string()]).output().unwrap();
    assert_eq!(o.status.code(), Some(1));
    assert!(common::stderr_of(&o).contains("--memlimit"), "{}", common::stderr_of(&o));
}
