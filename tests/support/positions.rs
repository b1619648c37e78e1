//! Chess positions for the tests of the searcher: the unit tests (`src/engine/search_tests.rs`)
//! and the oracle test (`tests/it/search.rs`) both include this file (`#[path]`), so the two
//! sample the same positions. Only shakmaty is used here.

#![allow(dead_code)]

use shakmaty::{CastlingMode, Chess, Move, Position, fen::Fen, san::San};

/// Replays the games of `data/Chess_Games.txt` and returns the position before every `step`-th
/// ply (starting at ply `offset`) that has legal moves, at most `max` of them.
pub fn sample_positions(step: usize, offset: usize, max: usize) -> Vec<Chess> {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/data/Chess_Games.txt");
    let text = std::fs::read_to_string(path).expect("read data/Chess_Games.txt");
    let mut out = Vec::new();
    for line in text.lines() {
        let mut pos = Chess::default();
        for (ply, token) in line.split_ascii_whitespace().enumerate() {
            let Ok(san) = San::from_ascii(token.as_bytes()) else {
                break;
            };
            let Ok(m) = san.to_move(&pos) else { break };
            if ply % step == offset && !pos.legal_moves().is_empty() {
                out.push(pos.clone());
                if out.len() == max {
                    return out;
                }
            }
            pos.play_unchecked(m);
        }
    }
    out
}

pub fn position(fen: &str) -> Chess {
    fen.parse::<Fen>().unwrap().into_position(CastlingMode::Standard).unwrap()
}

/// Chess960 positions with castling rights (perft suite), for the general castling code.
pub const CHESS960: [&str; 4] = [
    "bqnb1rkr/pp3ppp/3ppn2/2p5/5P2/P2P4/NPP1P1PP/BQ1BNRKR w HFhf - 2 9",
    "2nnrbkr/p1qppppp/8/1ppb4/6PP/3PP3/PPP2P2/BQNNRBKR w HEhe - 1 9",
    "b1q1rrkb/pppppppp/3nn3/8/P7/1PPP4/4PPPP/BQNNRKRB w GE - 1 9",
    "qbbnnrkr/2pp2pp/p7/1p2pp2/8/P3PP2/1PPP1KPP/QBBNNR1R w hf - 0 9",
];

pub fn position960(fen: &str) -> Chess {
    fen.parse::<Fen>().unwrap().into_position(CastlingMode::Chess960).unwrap()
}

pub fn legal(pos: &Chess) -> Vec<Move> {
    pos.legal_moves().into_iter().collect()
}
