//! Round trips of real games from the benchmark file.

use crate::common;

use chesszip::CompressOptions;
use chesszip::model::{MAX_LEVEL, MIN_LEVEL};
use common::{GAMES, fast, first_games, game_line, info_of, round_trip_with};

#[test]
fn a_few_hundred_games_at_level_1() {
    let text = first_games(300);
    let archive = round_trip_with(&text, &fast());
    let info = info_of(&archive);
    assert_eq!(info.lines, 300);
    assert_eq!(info.games + info.raw_lines, 300);
    assert!(info.games >= 290, "{} of 300 lines coded as games", info.games);
    assert!(info.bits_per_ply() < 8.0, "{} bits per ply", info.bits_per_ply());
    assert!(archive.len() * 4 < text.len(), "{} -> {} bytes", text.len(), archive.len());
}

#[test]
fn games_from_the_middle_and_end_of_the_file() {
    let lines: Vec<&[u8]> = GAMES.split_inclusive(|&b| b == b'\n').collect();
    let n = lines.len();
    let text: Vec<u8> = lines[n / 2..n / 2 + 60].iter().chain(&lines[n - 60..]).flat_map(|l| l.iter().copied()).collect();
    round_trip_with(&text, &fast());
}

#[test]
fn every_level_on_a_handful_of_games() {
    // Short prefixes of real games keep the slow levels quick.
    let mut text = Vec::new();
    for (i, result) in [(0, "*"), (1, "1-0"), (2, "1/2-1/2")] {
        let line = game_line(i);
        let moves: Vec<&[u8]> = line.split(|&b| b == b' ').take(12).collect();
        text.extend_from_slice(&moves.join(&b' '));
        text.extend_from_slice(format!(" {result}\n").as_bytes());
    }
    for level in MIN_LEVEL..=MAX_LEVEL {
        // Level 10 with our own random Chessformer (tests/data/level10/).
        let weights = (level == 10).then(|| {
            let path = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/level10/random.onnx");
            chesszip::model::transformer::Weights::load(std::path::Path::new(path)).expect("loads")
        });
        let archive = round_trip_with(&text, &CompressOptions { level: chesszip::Level::new(level).unwrap(), weights, ..fast() });
        let info = info_of(&archive);
        assert_eq!((info.header.level, info.games, info.plies), (level, 3, 36), "level {level}");
    }
}

#[test]
fn thread_counts_and_block_sizes_do_not_change_the_text() {
    let text = first_games(120);
    let reference = round_trip_with(&text, &fast());
    for (threads, block_lines) in [(1, 50), (3, 50), (0, 50)] {
        let archive = round_trip_with(&text, &CompressOptions { threads, block_lines, ..fast() });
        assert_eq!(archive, reference, "archives do not depend on the thread count");
    }
    for block_lines in [1, 7, 1000] {
        round_trip_with(&text, &CompressOptions { block_lines, ..fast() });
    }
}

#[test]
fn the_archive_does_not_depend_on_the_thread_count() {
    // Blocks are cut by lines, not by threads, and coded independently: any number of
    // workers writes the same bytes (so the online book's gain depends on the block size only).
    let text = first_games(400);
    let archives: Vec<Vec<u8>> =
        [1, 2, 3].iter().map(|&threads| chesszip::compress_bytes(&text, &CompressOptions { threads, block_lines: 60, ..fast() })).collect();
    assert!(archives[0] == archives[1] && archives[1] == archives[2]);
}
