//! Model benchmarks: the per-ply cost of the predictor at every level, outside `cargo test`.
//!
//! Positions: the first [`GAMES`] games of `data/Chess_Games.txt`, replayed ply by ply. One
//! iteration replays all of them with a fresh [`Predictor`] (empty online book, as at the start
//! of a block) and, per ply, does what the coder does around the move choice: `prepare` (legal
//! moves and engine scores), `move_table` (features, logits, softmax, book mixing), `observe`
//! and `GameState::play`. Criterion's throughput is plies per second; its time per iteration
//! divided by the plies printed at the start is the time per ply.
//!
//! Every embedded release of a level is measured (`v1-level2` is the linear model,
//! `v2-level2` the move network on top of it: their difference is the network's cost per ply).
//! Run with `cargo bench --bench model`; `MODEL_BENCH_LEVELS=1,2` restricts the levels.

use std::hint::black_box;
use std::time::Duration;

use chesszip::model::{GameState, MAX_EMBEDDED_LEVEL, MIN_LEVEL, Model, Predictor, RELEASES};
use chesszip::text::parse_game;
use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use shakmaty::Move;

/// Games replayed per iteration.
const GAMES: usize = 200;

/// The moves of the first [`GAMES`] games of the benchmark.
fn games() -> Vec<Vec<Move>> {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/data/Chess_Games.txt");
    let text = std::fs::read(path).expect("read data/Chess_Games.txt");
    text.split(|&b| b == b'\n').filter_map(parse_game).take(GAMES).map(|g| g.moves).collect()
}

/// One pass: every ply of `games` through a fresh predictor; returns a checksum of the tables.
fn replay(model: &Model, games: &[Vec<Move>]) -> u64 {
    let mut predictor = Predictor::new(model);
    let mut sum = 0u64;
    for moves in games {
        let mut st = GameState::new();
        for m in moves {
            predictor.prepare(&st);
            let index = predictor.index_of(m).expect("legal move");
            sum += predictor.move_table(&st).frequency(index) as u64;
            predictor.observe(&mut st, index);
            st.play(*m);
        }
    }
    sum
}

fn bench_model(c: &mut Criterion) {
    let games = games();
    let plies: usize = games.iter().map(Vec::len).sum();
    println!("model bench: {} games, {plies} plies per iteration", games.len());
    let levels: Vec<u8> = match std::env::var("MODEL_BENCH_LEVELS") {
        Ok(s) => s.split(',').map(|l| l.trim().parse().expect("MODEL_BENCH_LEVELS: levels 1-9")).collect(),
        Err(_) => (MIN_LEVEL..=MAX_EMBEDDED_LEVEL).collect(),
    };
    let mut group = c.benchmark_group("ply");
    group.throughput(Throughput::Elements(plies as u64));
    for release in RELEASES.iter().filter(|r| levels.contains(&r.level)) {
        let model = release.parse().expect("embedded models parse");
        // The search levels take up to seconds per iteration: fewer, longer samples.
        let slow = model.search.depth > 0;
        group.sample_size(10);
        group.measurement_time(Duration::from_secs(if slow { 30 } else { 5 }));
        let name = release.name.trim_end_matches(".txt").replace('/', "-");
        let version = if name.contains('-') { String::new() } else { "v1-".into() };
        group.bench_function(format!("{version}{name}"), |b| b.iter(|| replay(black_box(&model), &games)));
    }
    group.finish();
}

criterion_group!(benches, bench_model);
criterion_main!(benches);
