//! Real exports with check marks and extra disambiguation (`Rfe1` where `Re1` is unambiguous)
//! cost almost nothing more than the same games in canonical SAN: the marks and spellings
//! are predicted from the position.

use chesszip::container::InputFormat;
use chesszip::text::{Spelling, parse_game, render_game};
use chesszip::{CompressOptions, ExpandOptions, compress_bytes, expand_bytes};

const MARKED: &[u8] = include_bytes!("../data/lichess_san_with_checks.txt");

/// The same games with canonical spellings: no check marks, least disambiguation.
fn canonical(text: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    for line in text.split_inclusive(|&b| b == b'\n') {
        let content = line.strip_suffix(b"\n").unwrap_or(line);
        let mut game = parse_game(content).expect("every line of the file is a game");
        let mut pos = shakmaty::Chess::default();
        for (m, s) in game.moves.iter().zip(game.spellings.iter_mut()) {
            let san = shakmaty::san::San::from_move(&pos, *m);
            let (file, rank) = match san {
                shakmaty::san::San::Normal { file, rank, .. } => (file.is_some(), rank.is_some()),
                _ => (false, false),
            };
            *s = Spelling::new(file, rank, None);
            shakmaty::Position::play_unchecked(&mut pos, *m);
        }
        render_game(&game, &mut out);
        out.push(b'\n');
    }
    out
}

#[test]
fn check_marks_and_extra_disambiguation_cost_under_three_percent() {
    let canonical = canonical(MARKED);
    assert_ne!(canonical, MARKED);
    for level in [1, 2] {
        let opts = CompressOptions {
            level: chesszip::Level::new(level).unwrap(),
            format: Some(InputFormat::Movetext),
            ..CompressOptions::default()
        };
        let marked = compress_bytes(MARKED, &opts);
        assert_eq!(expand_bytes(&marked, &ExpandOptions::default()).unwrap(), MARKED);
        let plain = compress_bytes(&canonical, &opts);
        let ratio = marked.len() as f64 / plain.len() as f64;
        println!("level {level}: marked {} bytes, canonical {} bytes, ratio {ratio:.4}", marked.len(), plain.len());
        assert!(ratio <= 1.03, "level {level}: {} vs {} bytes", marked.len(), plain.len());
    }
}
