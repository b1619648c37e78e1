//! Level 10's Elo inputs without rating tags (movetext), measured on the first games of a
//! file; analysis only (choose on heldout games, never on the benchmark). `docs/notes-elo10.md`.
//!
//! `level10_elo WEIGHTS.onnx GAMES.txt FIRST COUNT [MIX9]`: games `FIRST..FIRST + COUNT` of a
//! movetext file. Every ply is evaluated with both Elo inputs at each of `ELOS` (default
//! `1100,1500,1900`; model version 9's integers, plain softmax over the legal moves, no floor
//! or book), and the bits per ply of the played moves are printed for:
//! - each fixed Elo;
//! - the per-side posterior mixture: each side's moves coded with `sum_e w_s(e) p_e`, `w_s`
//!   the posterior over `ELOS` (uniform prior) from that side's earlier moves of the game
//!   (every setting evaluated at every ply);
//! - follow the leader after `N` plies (`N` in `LEAD`, default `4,8,16,32`): the joint mixture
//!   (both sides one posterior) for the first `N` plies, then the setting with the largest
//!   posterior alone (one evaluation a ply from there); and per side (`per-side leader`: each
//!   side's own posterior's leader after its first `N/2` moves);
//! - the per-side mixture pruned: a setting whose weight falls below `t` (`PRUNE`, in 1/1000,
//!   default `1,3,10,30`) is dropped for the rest of the game;
//! - the oracle: the best fixed setting per game, chosen knowing the game;
//! - with the evaluations per ply each needs.
//!
//! With `MIX9` = `1`: also the geometric mixture of level 10's integer logits (Elo 1500) with
//! level 9's move logits (model version 7's ensemble, before the book) at weights `W9`
//! (default `0,32,64`, in 1/256), `z = ((256 - w) z10 + w z9) >> 8`, through level 10's floor
//! (`softmax_with_max`, no book): bits per ply of each.
use chesszip::entropy::{CdfBuf, TOTAL};
use chesszip::model::softmax::softmax_with_max;
use chesszip::model::transformer::Weights;
use chesszip::model::transformer::int::Recipe;
use chesszip::model::transformer::tokens::{History, move_logits};
use chesszip::model::{GameState, Level, Model, Predictor};
use rayon::prelude::*;
use shakmaty::{Chess, Position};

/// Numbers from an environment variable `name` (comma-separated), or `default`.
fn list(name: &str, default: &[i32]) -> Vec<i32> {
    std::env::var(name).map(|v| v.split(',').map(|x| x.trim().parse().unwrap()).collect()).unwrap_or_else(|_| default.to_vec())
}

/// One played ply: the mover (0 White, 1 Black) and the played move's probability under each Elo.
struct Ply {
    side: usize,
    p: Vec<f64>,
}

fn main() {
    let a: Vec<String> = std::env::args().skip(1).collect();
    let w = Weights::load(a[0].as_ref()).unwrap();
    let text = std::fs::read_to_string(&a[1]).unwrap();
    let (first, count): (usize, usize) = (a[2].parse().unwrap(), a[3].parse().unwrap());
    let mix9 = a.get(4).is_some_and(|s| s == "1");
    let elos = list("ELOS", &[1100, 1500, 1900]);
    let lines: Vec<&str> = text.lines().skip(first).take(count).collect();
    let model = w.model(Recipe::ALL8);
    let games: Vec<Vec<Ply>> = lines
        .par_iter()
        .map(|line| {
            let game = chesszip::text::parse_game(line.as_bytes()).unwrap();
            let mut board = Chess::default();
            let mut hist = History::new(&board);
            let mut out = Vec::new();
            for m in game.moves {
                let legal: Vec<_> = board.legal_moves().into_iter().collect();
                let i = legal.iter().position(|x| *x == m).unwrap();
                let p = elos
                    .iter()
                    .map(|&e| {
                        let z = move_logits(&model.forward(&hist.input(), e, e), &legal, board.turn());
                        let mx = *z.iter().max().unwrap() as f64 / 256.0;
                        let s: f64 = z.iter().map(|&v| (v as f64 / 256.0 - mx).exp()).sum();
                        (z[i] as f64 / 256.0 - mx).exp() / s
                    })
                    .collect();
                out.push(Ply { side: board.turn().is_black() as usize, p });
                board.play_unchecked(m);
                hist.push(&board);
            }
            out
        })
        .collect();
    let plies: usize = games.iter().map(Vec::len).sum();
    let k = elos.len();
    println!("games {first}..{} of {}: {} games, {plies} plies", first + count, a[1], games.len());
    let report = |name: &str, bits: f64, evals: f64| {
        println!("{name:<46} {:.4} bits/ply  {:.2} evaluations/ply", bits / plies as f64, evals / plies as f64);
    };
    for (j, e) in elos.iter().enumerate() {
        let bits: f64 = games.iter().flatten().map(|p| -p.p[j].log2()).sum();
        report(&format!("fixed Elo {e}"), bits, plies as f64);
    }
    // Per-side posterior mixture.
    let mixture = |joint: bool, lead: Option<usize>| -> (f64, f64) {
        let (mut bits, mut evals) = (0.0, 0.0);
        for g in &games {
            let mut post = [vec![1.0 / k as f64; k], vec![1.0 / k as f64; k]];
            let mut chosen: [Option<usize>; 2] = [None, None];
            let mut seen = [0usize; 2];
            for (t, ply) in g.iter().enumerate() {
                let s = if joint { 0 } else { ply.side };
                let done = match (lead, joint) {
                    (Some(n), true) => t >= n,
                    (Some(n), false) => seen[s] >= n.div_ceil(2),
                    (None, _) => false,
                };
                if done {
                    let c = *chosen[s].get_or_insert_with(|| (0..k).max_by(|&x, &y| post[s][x].total_cmp(&post[s][y])).unwrap());
                    bits -= ply.p[c].log2();
                    evals += 1.0;
                } else {
                    let q: f64 = (0..k).map(|j| post[s][j] * ply.p[j]).sum();
                    bits -= q.log2();
                    evals += k as f64;
                    for (w, &p) in post[s].iter_mut().zip(&ply.p) {
                        *w *= p / q;
                    }
                }
                seen[s] += 1;
            }
        }
        (bits, evals)
    };
    let (b, e) = mixture(false, None);
    report("per-side posterior mixture", b, e);
    let (b, e) = mixture(true, None);
    report("joint posterior mixture (both sides one Elo)", b, e);
    for n in list("LEAD", &[4, 8, 16, 32]) {
        let (b, e) = mixture(true, Some(n as usize));
        report(&format!("joint mixture, then the leader after {n} plies"), b, e);
        let (b, e) = mixture(false, Some(n as usize));
        report(&format!("per-side leader after {n} plies"), b, e);
    }
    // Pruned per-side mixture: a setting whose posterior weight falls below `t` is dropped for
    // the rest of the game (the others renormalised), so that the evaluations per ply fall as
    // the posterior concentrates.
    for t in list("PRUNE", &[1, 3, 10, 30]) {
        let t = t as f64 / 1000.0;
        let (mut bits, mut evals) = (0.0, 0.0);
        for g in &games {
            let mut post = [vec![1.0 / k as f64; k], vec![1.0 / k as f64; k]];
            for ply in g {
                let s = ply.side;
                let live = post[s].iter().filter(|&&w| w > 0.0).count();
                let q: f64 = (0..k).filter(|&j| post[s][j] > 0.0).map(|j| post[s][j] * ply.p[j]).sum();
                bits -= q.log2();
                evals += live as f64;
                for (w, &p) in post[s].iter_mut().zip(&ply.p) {
                    *w *= p / q;
                }
                let cut: Vec<usize> = (0..k).filter(|&j| post[s][j] > 0.0 && post[s][j] < t).collect();
                if cut.len() < live {
                    for j in cut {
                        post[s][j] = 0.0;
                    }
                    let z: f64 = post[s].iter().sum();
                    post[s].iter_mut().for_each(|w| *w /= z);
                }
            }
        }
        report(&format!("per-side mixture pruned below {t}"), bits, evals);
    }
    let oracle: f64 =
        games.iter().map(|g| (0..k).map(|j| g.iter().map(|p| -p.p[j].log2()).sum::<f64>()).fold(f64::INFINITY, f64::min)).sum();
    report("oracle: best fixed Elo per game", oracle, (k * plies) as f64);
    let oracle_side: f64 = games
        .iter()
        .map(|g| {
            (0..2)
                .map(|s| {
                    (0..k).map(|j| g.iter().filter(|p| p.side == s).map(|p| -p.p[j].log2()).sum::<f64>()).fold(f64::INFINITY, f64::min)
                })
                .sum::<f64>()
        })
        .sum();
    report("oracle: best fixed Elo per game and side", oracle_side, (k * plies) as f64);
    if mix9 {
        mixture_with_level9(w, &lines);
    }
}

/// Bits per ply of level 10 (Elo 1500, model version 9's integers) mixed with level 9's move
/// logits at the weights `W9` (see the module documentation).
fn mixture_with_level9(w: &'static Weights, lines: &[&str]) {
    let weights = list("W9", &[0, 32, 64]);
    let l10 = Model { transformer: Some(w), ..Model::builtin(Level::new(10).unwrap()).clone() };
    let l9 = Model::builtin(Level::new(9).unwrap());
    let res: Vec<(usize, Vec<f64>)> = lines
        .par_iter()
        .map(|line| {
            let game = chesszip::text::parse_game(line.as_bytes()).unwrap();
            let (mut p10, mut p9) = (Predictor::new(&l10), Predictor::new(l9));
            let (mut s10, mut s9) = (GameState::new(), GameState::new());
            let (mut z10, mut z9, mut z) = (Vec::new(), Vec::new(), Vec::new());
            let (mut weights_buf, mut table) = (Vec::new(), CdfBuf::new());
            let mut bits = vec![0.0; weights.len()];
            let mut n = 0;
            for m in game.moves {
                p10.prepare(&s10);
                p9.prepare(&s9);
                let idx = p10.index_of(&m).unwrap();
                p10.move_logits_before_book(&s10, &mut z10);
                p9.move_logits_before_book(&s9, &mut z9);
                for (b, &wt) in bits.iter_mut().zip(&weights) {
                    z.clear();
                    z.extend(z10.iter().zip(&z9).map(|(&a, &b)| (((256 - wt) as i64 * a as i64 + wt as i64 * b as i64) >> 8) as i32));
                    let mx = *z.iter().max().unwrap();
                    softmax_with_max(&z, mx, l10.move_floor, &mut weights_buf, &mut table);
                    *b -= (table.cdf().frequency(idx) as f64 / TOTAL as f64).log2();
                }
                p10.observe(&mut s10, idx);
                p9.observe(&mut s9, idx);
                s10.play(m);
                s9.play(m);
                n += 1;
            }
            (n, bits)
        })
        .collect();
    let plies: usize = res.iter().map(|r| r.0).sum();
    for (j, wt) in weights.iter().enumerate() {
        let b: f64 = res.iter().map(|r| r.1[j]).sum();
        println!(
            "level 10 (1500) + level 9 at weight {wt}/256: {:.4} bits/ply over {plies} plies (floor {}, no book)",
            b / plies as f64,
            l10.move_floor
        );
    }
}
