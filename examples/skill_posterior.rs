//! Would a posterior over the network's skill classes beat their inference from the average
//! centipawn loss? Codes every game of a movetext file with an embedded model five more times,
//! with both players' skill class fixed at 0, 1, 2, 3 and 4 in turn ([`chesszip::tune::trace`]
//! with a fixed class), and prints bits per ply of:
//! - the inferred classes (as archives are coded);
//! - each fixed class over the whole file;
//! - the best fixed class per game (an oracle: it knows the game's moves);
//! - a Bayesian mixture over the five fixed-class models per game (one class for both
//!   players) with a uniform prior,
//!   `-log2(sum_k 2^-bits_k / 5)`: what a posterior over the classes, updated identically by
//!   the encoder and the decoder move by move, codes a game to.
//!
//! Each game is coded as a block of its own (a fresh online book), so the inferred classes'
//! figure differs a little from `tune trace`'s, which codes blocks of 1,000 games.
//!
//! Usage: `cargo run --release --example skill_posterior -- FILE LEVEL` (for instance the
//! heldout games, `../shared/data/heldout/lichess_heldout.txt`, level 3). Analysis only.

use chesszip::model::Model;

fn main() {
    let mut args = std::env::args().skip(1);
    let (Some(path), Some(level)) = (args.next(), args.next().and_then(|l| l.parse::<u8>().ok())) else {
        eprintln!("usage: skill_posterior FILE LEVEL");
        std::process::exit(2);
    };
    let text = std::fs::read(&path).unwrap_or_else(|e| panic!("reading {path}: {e}"));
    let model = Model::builtin(chesszip::Level::new(level).expect("LEVEL: a level"));
    let (mut plies, mut inferred, mut oracle, mut mixture) = (0u64, 0.0, 0.0, 0.0);
    let mut fixed = [0.0f64; 5];
    for line in text.split_inclusive(|&b| b == b'\n') {
        let cost = |class: Option<usize>| {
            let t = chesszip::tune::trace(model, line, 1, class);
            t.by_ply.iter().fold((0u64, 0.0), |a, b| (a.0 + b.0, a.1 + b.1))
        };
        let (n, bits) = cost(None);
        let classes: Vec<f64> = (0..5).map(|c| cost(Some(c)).1).collect();
        let best = classes.iter().copied().fold(f64::INFINITY, f64::min);
        plies += n;
        inferred += bits;
        oracle += best;
        mixture += best - (classes.iter().map(|b| (best - b).exp2()).sum::<f64>() / 5.0).log2();
        for (f, b) in fixed.iter_mut().zip(&classes) {
            *f += b;
        }
    }
    let per = |x: f64| x / plies.max(1) as f64;
    println!("{path}, level {level}, {plies} plies; bits per ply:");
    println!("inferred classes      {:.4}", per(inferred));
    for (c, f) in fixed.iter().enumerate() {
        println!("class {c} fixed         {:.4}", per(*f));
    }
    println!("best class per game   {:.4} (oracle)", per(oracle));
    println!("mixture over classes  {:.4}", per(mixture));
}
