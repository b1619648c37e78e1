//! The fast searcher against its test oracle, the reference implementation
//! (tests/it/reference.rs): exactly the same scores on positions of `data/Chess_Games.txt`,
//! tricky positions and Chess960 positions, for many search configurations.

use shakmaty::{CastlingMode, Chess, fen::Fen};

use super::reference;
use chesszip::engine::{SearchConfig, Searcher};

#[path = "../support/positions.rs"]
mod positions;
use positions::{CHESS960, legal, position, position960, sample_positions};

/// Compares fast and reference scores on `positions` for each config; returns total nodes of
/// (fast, reference).
fn assert_same_as_reference(positions: &[Chess], configs: &[SearchConfig]) -> (u64, u64) {
    let mut fast = Searcher::new();
    let mut slow = reference::Searcher::new();
    let (mut a, mut b) = (Vec::new(), Vec::new());
    for cfg in configs {
        for (k, pos) in positions.iter().enumerate() {
            let moves = legal(pos);
            fast.score_moves(pos, &moves, cfg, &mut a);
            slow.score_moves(pos, &moves, cfg, &mut b);
            if a != b {
                let fen = Fen::from_position(pos, shakmaty::EnPassantMode::Legal);
                let diffs: Vec<String> = moves
                    .iter()
                    .zip(a.iter().zip(&b))
                    .filter(|(_, (x, y))| x != y)
                    .map(|(m, (x, y))| format!("{}: fast {x} reference {y}", m.to_uci(CastlingMode::Standard)))
                    .collect();
                panic!("position {k} {fen} {cfg:?}: {diffs:?}");
            }
        }
    }
    (fast.nodes, slow.nodes)
}

fn q(depth: u8, margin: i32) -> SearchConfig {
    SearchConfig { depth, quiescence: true, margin, qdepth: 0 }
}

/// Quiescence limited to `qdepth` capture plies.
fn ql(depth: u8, margin: i32, qdepth: u8) -> SearchConfig {
    SearchConfig { depth, quiescence: true, margin, qdepth }
}

/// Without quiescence.
fn nq(depth: u8, margin: i32) -> SearchConfig {
    SearchConfig { depth, quiescence: false, margin, qdepth: 0 }
}

#[test]
fn same_scores_as_reference_depth0() {
    let positions = sample_positions(3, 1, 6000);
    assert!(positions.len() == 6000);
    assert_same_as_reference(&positions, &[q(0, 300), q(0, 600), q(0, 10_000)]);
    // One capture ply, the configuration of the released levels 3 to 9 (the searcher's root
    // exchange shortcut).
    assert_same_as_reference(&positions, &[ql(0, 300, 1), ql(0, 600, 1)]);
}

#[test]
fn same_scores_as_reference_depth1() {
    let positions = sample_positions(3, 2, 5000);
    assert!(positions.len() == 5000);
    assert_same_as_reference(&positions, &[q(1, 300), q(1, 600), q(1, 10_000)]);
}

#[test]
fn same_scores_as_reference_depth2_margin300() {
    let positions = sample_positions(5, 0, 3000);
    assert!(positions.len() == 3000);
    assert_same_as_reference(&positions, &[q(2, 300)]);
}

#[test]
fn same_scores_as_reference_depth2_margin10000() {
    let positions = sample_positions(5, 3, 3000);
    assert!(positions.len() == 3000);
    assert_same_as_reference(&positions, &[q(2, 10_000)]);
}

#[test]
fn same_scores_as_reference_qdepth_depth0() {
    let positions = sample_positions(3, 0, 6000);
    assert!(positions.len() == 6000);
    let configs: Vec<SearchConfig> = [1, 2, 3].into_iter().flat_map(|k| [ql(0, 300, k), ql(0, 600, k), ql(0, 10_000, k)]).collect();
    assert_same_as_reference(&positions, &configs);
}

#[test]
fn same_scores_as_reference_qdepth_depth1() {
    let positions = sample_positions(4, 1, 4000);
    assert!(positions.len() == 4000);
    let configs: Vec<SearchConfig> = [1, 2, 3].into_iter().flat_map(|k| [ql(1, 300, k), ql(1, 600, k), ql(1, 10_000, k)]).collect();
    assert_same_as_reference(&positions, &configs);
}

#[test]
fn same_scores_as_reference_qdepth_other_configs() {
    // Deeper limits, depth 2, zero margin; a limit beyond any capture chain is unlimited.
    let positions = sample_positions(11, 4, 600);
    let configs = [ql(0, 0, 1), ql(1, 0, 2), ql(0, 300, 4), ql(0, 300, 6), ql(1, 300, 5), ql(2, 300, 1), ql(2, 300, 2), ql(2, 10_000, 3)];
    assert_same_as_reference(&positions, &configs);
    let mut fast = Searcher::new();
    let (mut a, mut b) = (Vec::new(), Vec::new());
    for pos in &positions {
        let moves = legal(pos);
        for (limited, unlimited) in [(ql(0, 10_000, 255), q(0, 10_000)), (ql(1, 300, 255), q(1, 300))] {
            fast.score_moves(pos, &moves, &limited, &mut a);
            fast.score_moves(pos, &moves, &unlimited, &mut b);
            assert_eq!(a, b);
        }
    }
}

#[test]
fn same_scores_as_reference_other_configs() {
    // No quiescence, zero, other and huge margins, depth 3 on a few positions.
    let positions = sample_positions(11, 5, 400);
    let configs = [nq(0, 300), nq(1, 300), nq(2, 10_000), q(0, 0), q(1, 0), q(2, 400), q(2, 800), q(0, 1_000_000), q(1, 1_000_000)];
    assert_same_as_reference(&positions, &configs);
    assert_same_as_reference(&positions[..60], &[q(3, 400), q(3, 800)]);
}

#[test]
fn same_scores_as_reference_tricky_positions() {
    // Castling through attacked squares, en passant pins, promotions, checks, mates.
    let fens = [
        "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
        "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R b KQkq - 0 1",
        "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",
        "r3k2r/Pppp1ppp/1b3nbN/nP6/BBP1P3/q4N2/Pp1P2PP/R2Q1RK1 w kq - 0 1",
        "rnbq1k1r/pp1Pbppp/2p5/8/2B5/8/PPP1NnPP/RNBQK2R w KQ - 1 8",
        "r4rk1/1pp1qppp/p1np1n2/2b1p1B1/2B1P1b1/P1NP1N2/1PP1QPPP/R4RK1 w - - 0 10",
        "8/8/8/2k5/2pP4/8/B7/4K3 b - d3 0 3",
        "8/8/3k4/8/KPp4r/8/8/8 b - b3 0 1",
        "r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1",
        "r3k2r/8/8/8/8/8/8/R3K2R b KQkq - 0 1",
        "1r2k2r/8/8/8/8/8/8/R3K2R w KQk - 0 1",
        "4k3/1P6/8/8/8/8/6p1/4K2R w K - 0 1",
        "n1n5/PPPk4/8/8/8/8/4Kppp/5N1N b - - 0 1",
        "6k1/5ppp/8/8/8/8/5PPP/R5K1 w - - 0 1",
        "7k/8/8/8/8/8/8/K4Q2 w - - 0 1",
        "3k4/3P4/3K4/8/8/8/8/8 b - - 0 1",
        "rnb1kbnr/pppp1ppp/8/4p3/6Pq/5P2/PPPPP2P/RNBQKBNR w KQkq - 1 3",
    ];
    let mut positions: Vec<Chess> = fens.iter().map(|f| position(f)).collect();
    positions.extend(CHESS960.iter().map(|f| position960(f)));
    let configs = [q(0, 300), q(1, 300), q(2, 300), q(0, 10_000), q(1, 10_000), q(2, 10_000), q(3, 10_000)];
    assert_same_as_reference(&positions, &configs);
    let configs = [ql(0, 300, 1), ql(0, 10_000, 2), ql(1, 10_000, 1), ql(1, 300, 3), ql(2, 10_000, 2), ql(3, 10_000, 1)];
    assert_same_as_reference(&positions, &configs);
}
