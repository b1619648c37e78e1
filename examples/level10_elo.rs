//! Bits per ply of the played moves under the integer transformer (softmax over the legal
//! moves, no floor, no book) at a few Elo inputs (the same for both sides), on the first games
//! of a file: `level10_elo WEIGHTS.onnx GAMES.txt N`.

use chesszip::model::transformer::Weights;
use chesszip::model::transformer::int::Recipe;
use chesszip::model::transformer::tokens::{History, move_logits};
use shakmaty::{Chess, Position};

fn main() {
    let a: Vec<String> = std::env::args().skip(1).collect();
    let w = Weights::load(a[0].as_ref()).unwrap();
    let text = std::fs::read_to_string(&a[1]).unwrap();
    let elos = [1100, 1500, 1900, 2300];
    let mut bits = [0.0f64; 4];
    let mut n = 0;
    for line in text.lines().take(a[2].parse().unwrap()) {
        let game = chesszip::text::parse_game(line.as_bytes()).unwrap();
        let mut board = Chess::default();
        let mut hist = History::new(&board);
        for m in game.moves {
            let legal: Vec<_> = board.legal_moves().into_iter().collect();
            let i = legal.iter().position(|x| *x == m).unwrap();
            for (k, &elo) in elos.iter().enumerate() {
                let z = move_logits(&w.model(Recipe::V8).forward(&hist.input(), elo, elo), &legal, board.turn());
                let mx = *z.iter().max().unwrap() as f64 / 256.0;
                let s: f64 = z.iter().map(|&v| (v as f64 / 256.0 - mx).exp()).sum();
                bits[k] += (mx + s.ln() - z[i] as f64 / 256.0) / std::f64::consts::LN_2;
            }
            n += 1;
            board.play_unchecked(m);
            hist.push(&board);
        }
    }
    for (e, b) in elos.iter().zip(bits) {
        println!("Elo {e}: {:.4} bits/ply over {n} plies", b / n as f64);
    }
}
