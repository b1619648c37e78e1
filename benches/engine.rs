//! Engine benchmarks: `Searcher::score_moves` per position at the compression levels' configs,
//! for the fast searcher and for the reference implementation it replaced (same scores).
//!
//! Positions: a fixed, deterministic sample of 1000 positions (every 9th ply, from ply 4, of
//! every 7th game) replayed from `data/Chess_Games.txt`. Each benchmark scores all legal moves
//! of every sampled position once per iteration, so criterion's time per iteration divided by
//! 1000 is the time per position (criterion also prints it as throughput).
//!
//! Before criterion runs, a pre-pass prints per config the nodes per position (positions
//! reached by a move, counted the same way by both implementations) and a quick timing: median
//! and minimum over several passes (the minimum is robust to other processes on the cores).
//!
//! Config names: `d{depth}q{qdepth}_m{margin}`, quiescence always on, no `{qdepth}` for
//! unlimited quiescence (`d0q2_m300` = depth 0, at most 2 capture plies, margin 300).
//!
//! Run with `cargo bench --bench engine`. Environment variables for the pre-pass:
//! `ENGINE_BENCH_CONFIGS=d0q_m300,...` restricts it to some configs, `ENGINE_BENCH_PASSES=k`
//! sets its number of timed passes (0 = node counts only, e.g. under a profiler),
//! `ENGINE_BENCH_REFERENCE=0` skips the reference implementation in it.
//!
//! Instruction counts (stable on a busy machine), one config at a time, criterion skipped by a
//! filter that matches nothing, only the scoring passes counted:
//!
//! ```text
//! ENGINE_BENCH_CONFIGS=d0q_m300 ENGINE_BENCH_PASSES=0 ENGINE_BENCH_REFERENCE=0 \
//!   valgrind --tool=callgrind --toggle-collect='*engine*pass*' target/release/deps/engine-* --bench none
//! ```

use std::hint::black_box;
use std::time::Instant;

use chesszip::chess::{Threats, see, static_eval};
use chesszip::engine::{SearchConfig, Searcher};

/// The reference searcher, the test oracle of the fast one.
#[path = "../tests/it/reference.rs"]
mod reference;
use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use shakmaty::{Chess, Move, Position, san::San};

const POSITIONS: usize = 1000;

/// Replays games of `data/Chess_Games.txt` and keeps every 9th ply (from ply 4) of every 7th
/// game, up to [`POSITIONS`] positions.
fn sample_positions() -> Vec<(Chess, Vec<Move>)> {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/data/Chess_Games.txt");
    let text = std::fs::read_to_string(path).expect("read data/Chess_Games.txt");
    let mut out = Vec::with_capacity(POSITIONS);
    'games: for line in text.lines().step_by(7) {
        let mut pos = Chess::default();
        for (ply, token) in line.split_ascii_whitespace().enumerate() {
            let Ok(san) = San::from_ascii(token.as_bytes()) else { break };
            let Ok(m) = san.to_move(&pos) else { break };
            if ply % 9 == 4 {
                let moves: Vec<Move> = pos.legal_moves().into_iter().collect();
                if !moves.is_empty() {
                    out.push((pos.clone(), moves));
                    if out.len() == POSITIONS {
                        break 'games;
                    }
                }
            }
            pos.play_unchecked(m);
        }
    }
    out
}

const fn q(depth: u8, margin: i32, qdepth: u8) -> SearchConfig {
    SearchConfig { depth, quiescence: true, margin, qdepth }
}

const CONFIGS: [(&str, SearchConfig); 18] = [
    ("d0q_m300", q(0, 300, 0)),
    ("d0q1_m300", q(0, 300, 1)),
    ("d0q2_m300", q(0, 300, 2)),
    ("d0q3_m300", q(0, 300, 3)),
    ("d0q_m600", q(0, 600, 0)),
    ("d0q1_m600", q(0, 600, 1)),
    ("d0q2_m600", q(0, 600, 2)),
    ("d0q3_m600", q(0, 600, 3)),
    ("d1q_m300", q(1, 300, 0)),
    ("d1q1_m300", q(1, 300, 1)),
    ("d1q2_m300", q(1, 300, 2)),
    ("d1q_m600", q(1, 600, 0)),
    ("d2q_m300", q(2, 300, 0)),
    ("d2q2_m300", q(2, 300, 2)),
    ("d2q_m600", q(2, 600, 0)),
    ("d0q_m10000", q(0, 10_000, 0)),
    ("d1q_m10000", q(1, 10_000, 0)),
    ("d2q_m10000", q(2, 10_000, 0)),
];

/// Either implementation behind one interface.
trait Scorer {
    fn score(&mut self, pos: &Chess, moves: &[Move], cfg: &SearchConfig, scores: &mut Vec<i32>);
    fn nodes(&self) -> u64;
}

impl Scorer for Searcher {
    fn score(&mut self, pos: &Chess, moves: &[Move], cfg: &SearchConfig, scores: &mut Vec<i32>) {
        self.score_moves(pos, moves, cfg, scores);
    }
    fn nodes(&self) -> u64 {
        self.nodes
    }
}

impl Scorer for reference::Searcher {
    fn score(&mut self, pos: &Chess, moves: &[Move], cfg: &SearchConfig, scores: &mut Vec<i32>) {
        self.score_moves(pos, moves, cfg, scores);
    }
    fn nodes(&self) -> u64 {
        self.nodes
    }
}

/// Scores every position once; returns a checksum of the scores.
#[inline(never)]
fn pass(s: &mut impl Scorer, positions: &[(Chess, Vec<Move>)], cfg: &SearchConfig, scores: &mut Vec<i32>) -> i64 {
    let mut sum = 0i64;
    for (pos, moves) in positions {
        s.score(black_box(pos), black_box(moves), cfg, scores);
        sum += scores.iter().map(|&x| x as i64).sum::<i64>();
    }
    sum
}

/// The pre-pass for one implementation and config: nodes per position, and the median and
/// minimum ns per position over `passes` timed passes.
fn quick(label: &str, mut s: impl Scorer, positions: &[(Chess, Vec<Move>)], cfg: &SearchConfig, passes: usize) -> i64 {
    let n = positions.len() as f64;
    let mut scores = Vec::new();
    let checksum = pass(&mut s, positions, cfg, &mut scores);
    let nodes = s.nodes() as f64 / n;
    if passes == 0 {
        println!("engine bench: {label}: {nodes:.1} nodes per position");
        return checksum;
    }
    let mut times: Vec<f64> = (0..passes)
        .map(|_| {
            let start = Instant::now();
            black_box(pass(&mut s, positions, cfg, &mut scores));
            start.elapsed().as_nanos() as f64 / n
        })
        .collect();
    times.sort_by(f64::total_cmp);
    println!(
        "engine bench: {label}: {nodes:.1} nodes per position, {:.0} ns per position (median of {passes}), {:.0} (min)",
        times[passes / 2],
        times[0]
    );
    checksum
}

fn bench_engine(c: &mut Criterion) {
    let positions = sample_positions();
    let n = positions.len();
    let avg_moves = positions.iter().map(|(_, m)| m.len()).sum::<usize>() as f64 / n as f64;
    println!("engine bench: {n} positions, {avg_moves:.1} legal moves per position");

    let only = std::env::var("ENGINE_BENCH_CONFIGS").ok();
    let passes_env = std::env::var("ENGINE_BENCH_PASSES").ok().and_then(|s| s.parse::<usize>().ok());
    let with_reference = std::env::var("ENGINE_BENCH_REFERENCE").map_or(true, |v| v != "0");
    for (name, cfg) in &CONFIGS {
        if only.as_ref().is_some_and(|o| !o.split(',').any(|x| x == *name)) {
            continue;
        }
        let passes = passes_env.unwrap_or(if cfg.depth >= 2 { 5 } else { 15 });
        let fast = quick(&format!("fast {name}"), Searcher::new(), &positions, cfg, passes);
        if with_reference {
            let slow = quick(&format!("reference {name}"), reference::Searcher::new(), &positions, cfg, passes.min(3));
            assert_eq!(fast, slow, "{name}: fast and reference scores differ");
        }
    }

    for (group_name, fast) in [("score_moves", true), ("score_moves_reference", false)] {
        let mut group = c.benchmark_group(group_name);
        group.throughput(Throughput::Elements(n as u64));
        for (name, cfg) in &CONFIGS {
            group.sample_size(if fast { 20 } else { 10 });
            let mut scores = Vec::new();
            if fast {
                let mut s = Searcher::new();
                group.bench_function(*name, |b| b.iter(|| pass(&mut s, &positions, cfg, &mut scores)));
            } else {
                let mut s = reference::Searcher::new();
                group.bench_function(*name, |b| b.iter(|| pass(&mut s, &positions, cfg, &mut scores)));
            }
        }
        group.finish();
    }

    let mut group = c.benchmark_group("helpers");
    group.throughput(Throughput::Elements(n as u64));
    group.bench_function("static_eval", |b| b.iter(|| positions.iter().map(|(pos, _)| static_eval(black_box(pos)) as i64).sum::<i64>()));
    group.bench_function("see_all_moves", |b| {
        b.iter(|| positions.iter().map(|(pos, moves)| moves.iter().map(|m| see(black_box(pos), m) as i64).sum::<i64>()).sum::<i64>())
    });
    group.bench_function("threats", |b| {
        b.iter(|| positions.iter().map(|(pos, _)| Threats::new(black_box(pos)).hanging().count()).sum::<usize>())
    });
    group.finish();
}

criterion_group!(benches, bench_engine);
criterion_main!(benches);
