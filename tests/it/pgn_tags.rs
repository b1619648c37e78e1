//! PGN coding 5 ([`Coding::PgnTagStream`]): every shared PGN file round-trips in it, is at most
//! 1% larger than in coding 4 (block by block as compress cuts them, level 1), and the tags read
//! from the tag stream alone ([`pgn::codec::decode_tags`]) are those of the decoded games.

use crate::common;

use std::path::{Path, PathBuf};

use chesszip::container::{Coding, MAX_BLOCK_TEXT};
use chesszip::model::Model;
use chesszip::pgn::game::Tag;
use chesszip::pgn::lexer::split_games;
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

/// What a full decode says a block's games' tags are: each piece of its text parsed, or
/// scanned if it does not parse.
fn full_tags(text: &[u8]) -> Vec<Vec<Tag>> {
    split_games(text).into_iter().map(pgn::codec::scan_tags).collect()
}

/// Bytes of `data` coded as PGN in coding 4 and in coding 5, checking that coding 5 decodes
/// back and that its tag streams give the games' tags; also the blocks whose tags the tag
/// stream gave.
fn coded(model: &Model, data: &[u8]) -> (usize, usize, usize, usize) {
    let mut reader = BlockReader::new();
    let mut input = data;
    let (mut old, mut new, mut blocks, mut fast) = (0, 0, 0, 0);
    loop {
        let mut block = Vec::new();
        reader.read_block(&mut input, 1000, MAX_BLOCK_TEXT, &mut block).unwrap();
        if block.is_empty() {
            return (old, new, blocks, fast);
        }
        let (c4, _, _) = pgn::encode_block_in(model, Coding::PgnStreams, &block);
        let (c5, counts, _) = pgn::encode_block_in(model, Coding::PgnTagStream, &block);
        let mut back = Vec::new();
        pgn::decode_block(model, Coding::PgnTagStream, &c5, block.len(), &mut back).unwrap();
        assert!(back == block, "coding 5 round trip differs");
        blocks += 1;
        if let Some((tags, games)) = pgn::codec::decode_tags(Coding::PgnTagStream, &c5, block.len()).unwrap() {
            fast += 1;
            assert_eq!(games, counts.games, "structured games");
            let full = full_tags(&block);
            assert_eq!(tags.len(), full.len(), "games in the block");
            for (ours, theirs) in tags.into_iter().zip(full) {
                assert_eq!(ours, theirs, "a game's tags");
            }
        }
        assert_eq!(pgn::codec::decode_tags(Coding::PgnStreams, &c4, block.len()).unwrap(), None);
        old += c4.range.len() + c4.raw.len();
        new += c5.range.len() + c5.raw.len();
    }
}

#[test]
fn shared_pgn_files_round_trip_in_coding_5_with_their_tags_alone_and_never_grow_by_more_than_one_percent() {
    let model = Model::builtin(chesszip::Level::MIN);
    let mut list = Vec::new();
    files(&common::shared_data("pgn"), &mut list);
    assert!(list.len() > 10);
    let (mut all_old, mut all_new, mut all_fast) = (0, 0, 0);
    for path in &list {
        let data = std::fs::read(path).unwrap();
        let (old, new, blocks, fast) = coded(model, &data);
        eprintln!("{}: {old} -> {new} bytes, tags alone in {fast} of {blocks} blocks", path.display());
        (all_old, all_new, all_fast) = (all_old + old, all_new + new, all_fast + fast);
        // A few bytes of slack for tiny files (the range coder's last bytes, the tag stream's).
        assert!(new * 100 <= old * 101 + 400, "{}: {old} -> {new} bytes", path.display());
        assert_eq!(fast, blocks, "{}: every block reads its tags alone", path.display());
    }
    eprintln!("all: {all_old} -> {all_new}, {all_fast} blocks with tags alone");
}

fn golden(name: &str) -> Vec<u8> {
    std::fs::read(format!("{}/tests/golden/{name}", env!("CARGO_MANIFEST_DIR"))).unwrap()
}

/// Every game's tags as the library reads them without the moves.
fn game_tags(archive: &[u8]) -> Vec<chesszip::TagPairs> {
    chesszip::GameTags::open(std::io::Cursor::new(archive), 2).unwrap().collect::<Result<_, _>>().unwrap()
}

/// Every game's tags from the whole text.
fn text_tags(text: &[u8]) -> Vec<chesszip::TagPairs> {
    full_tags(text).into_iter().map(|tags| tags.into_iter().map(|t| (t.name, t.value)).collect()).collect()
}

#[test]
fn game_tags_are_those_of_the_text_in_every_coding() {
    let text = golden("lichess.pgn");
    let expected = text_tags(&text);
    assert!(expected.len() > 3 && expected.iter().all(|t| t.len() > 5));
    // Coding 5 reads them from the heads; codings 1-4 decode the blocks.
    for archive in
        ["lichess.pgn.l1.c5.chz", "lichess.pgn.l2.c5.chz", "lichess.pgn.l2.c4.chz", "lichess.pgn.l1.c1.chz", "lichess.pgn.l1.chz"]
    {
        assert_eq!(game_tags(&golden(archive)), expected, "{archive}");
    }
    let text = golden("notations.pgn");
    assert_eq!(game_tags(&golden("notations.pgn.l2.c5.chz")), text_tags(&text));
    // A movetext archive: one game per line, without tags.
    assert_eq!(game_tags(&golden("movetext.l1.chz")), vec![Vec::new(); 44]);
}

#[test]
fn game_tags_of_a_lichess_month_in_small_blocks() {
    let text = std::fs::read(common::shared_data("pgn/lichess/2017-05.pgn")).unwrap();
    let opts =
        chesszip::CompressOptions { level: chesszip::Level::MIN, block_lines: 50, threads: 2, ..chesszip::CompressOptions::default() };
    let archive = chesszip::compress_bytes(&text, &opts);
    let info = chesszip::info(std::io::Cursor::new(&archive)).unwrap();
    assert!(info.blocks > 3, "{info:?}");
    let tags = game_tags(&archive);
    assert_eq!(tags.len() as u64, info.games);
    assert_eq!(tags, text_tags(&text));
}

#[test]
fn extract_tags_prints_tag_sections() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("lichess.pgn.chz");
    std::fs::write(&path, golden("lichess.pgn.l1.c5.chz")).unwrap();
    let out = common::chesszip().args(["extract", "--tags"]).arg(&path).output().unwrap();
    assert!(out.status.success());
    let mut expected = Vec::new();
    for tags in text_tags(&golden("lichess.pgn")) {
        for (name, value) in tags {
            expected.extend_from_slice(&[&b"["[..], &name, b" \"", &value, b"\"]\n"].concat());
        }
        expected.push(b'\n');
    }
    assert_eq!(String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&expected));
    let out = common::chesszip().args(["extract", "--tags", "--game", "2"]).arg(&path).output().unwrap();
    assert!(out.status.success() && out.stdout.starts_with(b"[Site \"https://lichess.org/wH87b5Mh\"]") && out.stdout.ends_with(b"\"]\n\n"));
    let sections = out.stdout.windows(2).filter(|w| w == b"\n\n").count();
    assert_eq!(sections, 1);
}

/// The lichess files' blocks at level 2 (as `compress -2` cuts them) in codings 4 and 5, for
/// docs/notes-tags.md: `cargo test --test it -- --ignored pgn_tags::sizes --nocapture`.
#[test]
#[ignore]
fn sizes_of_the_lichess_months_at_level_2() {
    let model = Model::builtin(chesszip::Level::new(2).unwrap());
    for name in ["2016-05.pgn", "2017-05.pgn"] {
        let data = std::fs::read(common::shared_data(&format!("pgn/lichess/{name}"))).unwrap();
        let mut reader = BlockReader::new();
        let mut input = &data[..];
        let (mut c4, mut c5) = (0, 0);
        loop {
            let mut block = Vec::new();
            reader.read_block(&mut input, chesszip::archive::DEFAULT_BLOCK_LINES, MAX_BLOCK_TEXT, &mut block).unwrap();
            if block.is_empty() {
                break;
            }
            let size = |coding| {
                let (b, _, _) = pgn::encode_block_in(model, coding, &block);
                b.range.len() + b.raw.len()
            };
            c4 += size(Coding::PgnStreams);
            c5 += size(Coding::PgnTagStream);
        }
        eprintln!("{name}: level 2 blocks, coding 4 {c4} bytes, coding 5 {c5} bytes ({:+.2}%)", (c5 as f64 / c4 as f64 - 1.0) * 100.0);
    }
}
