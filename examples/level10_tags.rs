//! Level 10 on PGN games with rating tags (model version 10, `docs/notes-elo10.md`).
//!
//! - `level10_tags coder WEIGHTS.onnx N FILE...`: the first `N` games of each file as one block,
//!   coded as archives code them (PGN coding 6) with level 10's model version 9 (Elo 1500 for
//!   both sides) and version 10 (the Elo inputs from the rating tags by the release's rule),
//!   and with any extra rules `RULES="min,max,shrink,o0,o1,o2,o3,o4;..."` (see
//!   `chesszip::model::elo::EloRule`): bits per ply of the move choices
//!   (`PgnStats::move_choice_bits`, the stream split of `examples/pgn_bench.rs`); with
//!   `ONLY_RULES` set, only the `RULES`.
//! - `level10_tags grid WEIGHTS.onnx FILE FIRST COUNT [STEP]`: games `FIRST, FIRST + STEP, ...`
//!   (`COUNT` of them, standard start only): per game and side, the bits of that side's moves
//!   (plain softmax of the integer logits over the legal moves, no floor or book) with both
//!   Elo inputs at each of `GRID` (default `700,900,...,2300`): one tab-separated line per
//!   game side, `game side rating speed plies bits...`, for fitting a rule offline (on training
//!   games only).
use chesszip::container::Coding;
use chesszip::model::elo::{EloRule, SPEEDS, Speed};
use chesszip::model::transformer::Weights;
use chesszip::model::transformer::int::Recipe;
use chesszip::model::transformer::tokens::{History, move_logits};
use chesszip::model::{Level, Model};
use chesszip::pgn::{self, BlockReader};
use rayon::prelude::*;
use shakmaty::{Chess, Position};

fn main() {
    let a: Vec<String> = std::env::args().skip(1).collect();
    let w = Weights::load(a[1].as_ref()).expect("weights");
    match a[0].as_str() {
        "coder" => coder(w, a[2].parse().expect("N"), &a[3..]),
        "grid" => {
            grid(w, &a[2], a[3].parse().expect("FIRST"), a[4].parse().expect("COUNT"), a.get(5).map_or(1, |s| s.parse().expect("STEP")))
        }
        m => panic!("unknown mode {m}: coder or grid"),
    }
}

/// The first `n` games of `path` as one block of text.
fn first_games(path: &str, n: usize) -> Vec<u8> {
    let data = std::fs::read(path).expect("read input");
    let mut reader = BlockReader::new();
    let mut block = Vec::new();
    reader.read_block(&mut &data[..], n as u32, chesszip::container::MAX_BLOCK_TEXT, &mut block).expect("read block");
    block
}

/// A rule from `min,max,shrink,o0,o1,o2,o3,o4`.
fn parse_rule(s: &str) -> EloRule {
    let v: Vec<i32> = s.split(',').map(|x| x.trim().parse().expect("integer")).collect();
    assert_eq!(v.len(), 3 + SPEEDS, "min,max,shrink and {SPEEDS} offsets");
    EloRule { tags: true, min: v[0], max: v[1], shrink: v[2], offset: v[3..].try_into().unwrap() }
}

fn coder(w: &'static Weights, n: usize, files: &[String]) {
    let level = Level::new(10).unwrap();
    let v10 = Model::builtin(level);
    let v9 = chesszip::model::RELEASES.iter().find(|r| r.name == "v9/level10.txt").unwrap();
    let v9 = Model::released(level, v9.id).unwrap();
    let mut models: Vec<(String, Model)> = vec![
        ("v9 (1500)".into(), Model { transformer: Some(w), ..v9.clone() }),
        (format!("v10 {:?}", v10.transformer_elo), Model { transformer: Some(w), ..v10.clone() }),
    ];
    if std::env::var("ONLY_RULES").is_ok() {
        models.clear();
    }
    if let Ok(rules) = std::env::var("RULES") {
        for r in rules.split(';').filter(|r| !r.trim().is_empty()) {
            let rule = parse_rule(r);
            models.push((format!("rule {r}"), Model { transformer: Some(w), transformer_elo: rule, ..v10.clone() }));
        }
    }
    let blocks: Vec<Vec<u8>> = files.iter().map(|f| first_games(f, n)).collect();
    let jobs: Vec<(usize, usize)> = (0..files.len()).flat_map(|f| (0..models.len()).map(move |m| (f, m))).collect();
    let out: Vec<(usize, usize, u64, u64, f64)> = jobs
        .par_iter()
        .map(|&(f, m)| {
            let (_, stats, p) = pgn::encode_block_in(&models[m].1, Coding::PgnPredicted, &blocks[f]);
            (f, m, p.games, stats.plies, p.move_choice_bits)
        })
        .collect();
    for (f, path) in files.iter().enumerate() {
        println!("{path}");
        for &(_, m, games, plies, bits) in out.iter().filter(|o| o.0 == f) {
            println!("  {:<70} {games} games {plies} plies: {:.4} bits/ply of move choice", models[m].0, bits / plies as f64);
        }
    }
}

fn grid(w: &'static Weights, path: &str, first: usize, count: usize, step: usize) {
    let grid: Vec<i32> = std::env::var("GRID")
        .map(|g| g.split(',').map(|x| x.parse().unwrap()).collect())
        .unwrap_or_else(|_| (0..9).map(|i| 700 + 200 * i).collect());
    let data = std::fs::read(path).expect("read input");
    let pieces = pgn::lexer::split_games(&data);
    let games: Vec<(usize, pgn::game::Game)> = pieces
        .iter()
        .enumerate()
        .skip(first)
        .step_by(step)
        .filter_map(|(i, p)| pgn::game::parse(p).map(|g| (i, g)))
        .filter(|(_, g)| g.tag(b"FEN").is_none() && !g.lines.is_empty())
        .take(count)
        .collect();
    let model = w.model(Recipe::ALL8);
    let lines: Vec<String> = games
        .par_iter()
        .map(|(i, g)| {
            let mut bits = [vec![0.0f64; grid.len()], vec![0.0f64; grid.len()]];
            let mut plies = [0u32; 2];
            let mut board = Chess::default();
            let mut hist = History::new(&board);
            for &m in &g.lines[0].moves {
                let side = board.turn().is_black() as usize;
                let legal: Vec<_> = board.legal_moves().into_iter().collect();
                let Some(k) = legal.iter().position(|x| *x == m) else { break };
                for (j, &e) in grid.iter().enumerate() {
                    let z = move_logits(&model.forward(&hist.input(), e, e), &legal, board.turn());
                    let mx = *z.iter().max().unwrap() as f64 / 256.0;
                    let s: f64 = z.iter().map(|&v| (v as f64 / 256.0 - mx).exp()).sum();
                    bits[side][j] += (mx + s.ln() - z[k] as f64 / 256.0) / std::f64::consts::LN_2;
                }
                plies[side] += 1;
                board.play_unchecked(m);
                hist.push(&board);
            }
            let speed = Speed::of(g.tag(b"TimeControl").and_then(pgn::clock::time_control)) as usize;
            let mut out = String::new();
            for (side, tag) in [b"WhiteElo", b"BlackElo"].iter().enumerate() {
                let rating = g.tag(&tag[..]).map_or("-".to_string(), |v| String::from_utf8_lossy(v).into_owned());
                let b: Vec<String> = bits[side].iter().map(|x| format!("{x:.4}")).collect();
                out += &format!("{i}\t{side}\t{rating}\t{speed}\t{}\t{}\n", plies[side], b.join("\t"));
            }
            out
        })
        .collect();
    println!("# grid {}", grid.iter().map(i32::to_string).collect::<Vec<_>>().join(","));
    for l in lines {
        print!("{l}");
    }
}
