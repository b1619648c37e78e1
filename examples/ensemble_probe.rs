//! Which models would make a good ensemble ([`chesszip::model::Member`])? Codes the games of a
//! movetext file with each of N models alone (each with its own online book and game state,
//! blocks of `BLOCK` games, default 1,000) and prints each model's bits per ply of move choice
//! and that of their geometric mixture, `p ~ prod_k p_k^(w_k)`, of the coded tables (after each
//! model's book; weights `WS`, default equal). The shipped ensemble mixes the logits before the
//! book instead, which `tune trace` measures; on the heldout games the two differ by 0.0001.
//!
//! Usage: `[WS=0.4,0.4,0.2] cargo run --release --example ensemble_probe -- FILE MODEL.txt
//! MODEL.net [MODEL.txt MODEL.net ...]`, for instance the heldout games with
//! `models/v6/level5.txt models/v6/search.net models/v6/level9.txt models/v6/search.net`.
//! Analysis only; choose on heldout games, never on the benchmark.
use chesszip::model::network::Network;
use chesszip::model::{GameState, Model, Predictor};
use rayon::prelude::*;
use std::sync::Arc;

fn load(txt: &str, net: &str) -> Model {
    let m = Model::parse(txt, &std::fs::read_to_string(txt).unwrap()).unwrap();
    m.with_network(Arc::new(Network::parse(net, &std::fs::read(net).unwrap()).unwrap()))
}

fn main() {
    let a: Vec<String> = std::env::args().skip(1).collect();
    let text = std::fs::read_to_string(&a[0]).unwrap();
    let models: Vec<Model> = a[1..].chunks(2).map(|c| load(&c[0], &c[1])).collect();
    let k = models.len();
    let ws: Vec<f64> = std::env::var("WS").map(|v| v.split(',').map(|x| x.parse().unwrap()).collect()).unwrap_or(vec![1.0 / k as f64; k]);
    let block: usize = std::env::var("BLOCK").map(|v| v.parse().unwrap()).unwrap_or(1000);
    let lines: Vec<&str> = text.lines().collect();
    let res: Vec<(u64, Vec<f64>, f64)> = lines
        .par_chunks(block)
        .map(|chunk| {
            let mut ps: Vec<Predictor> = models.iter().map(Predictor::new).collect();
            let mut n = 0u64;
            let mut own = vec![0.0; k];
            let mut mix = 0.0;
            let mut f: Vec<Vec<f64>> = vec![Vec::new(); k];
            for line in chunk {
                let Some(game) = chesszip::text::parse_game(line.as_bytes()) else { continue };
                let mut ss: Vec<GameState> = (0..k).map(|_| GameState::new()).collect();
                for m in game.moves {
                    let mut idx = 0;
                    for j in 0..k {
                        ps[j].prepare(&ss[j]);
                        idx = ps[j].index_of(&m).unwrap();
                        let t = ps[j].move_table(&ss[j]);
                        f[j].clear();
                        f[j].extend((0..t.len()).map(|i| t.frequency(i) as f64 / chesszip::entropy::TOTAL as f64));
                        own[j] -= f[j][idx].log2();
                    }
                    let g = |i: usize| (0..k).map(|j| ws[j] * f[j][i].ln()).sum::<f64>().exp();
                    let z: f64 = (0..f[0].len()).map(g).sum();
                    mix -= (g(idx) / z).log2();
                    n += 1;
                    for j in 0..k {
                        ps[j].observe(&mut ss[j], idx);
                        ss[j].play(m);
                    }
                }
            }
            (n, own, mix)
        })
        .collect();
    let n: u64 = res.iter().map(|r| r.0).sum();
    for j in 0..k {
        print!("{:.4} ", res.iter().map(|r| r.1[j]).sum::<f64>() / n as f64);
    }
    println!("mix {:.4} weights {ws:?}", res.iter().map(|r| r.2).sum::<f64>() / n as f64);
}
