//! Compares chesszip's integer Chessformer ([`chesszip::model::transformer`]) with onnxruntime's
//! float teacher on the same positions: the cross-entropy of the played moves (bits/ply, softmax
//! over the legal moves) of both, how far the logits differ, and the integer path's positions/s
//! on one thread. Optionally also runs the float reference of `weights.rs` on the first `REF`
//! positions (default 0), which follows the graph op for op. With `GAMES=FILE` (the games the
//! positions were dumped from) it first checks that chesszip's tokenisation
//! (`transformer::tokens`) gives the same planes and the same vocabulary indices of the legal
//! moves as `label.py` (and stops there with `TOKENS_ONLY=1`).
//!
//! `SCALAR=1` measures the portable code instead of the AVX2 copy (the same integers);
//! `LIMIT=N` keeps the first `N` positions (the notes pin the FNV-1a of the first 300).
//!
//! Usage: `[REF=20] cargo run --release --example level10_compare -- maia3-5m.onnx POSITIONS`,
//! with `POSITIONS` written by `scripts/teacher/dump_logits.py` (heldout games only: never the
//! benchmark). See `docs/notes-level10.md` and `scripts/teacher/level10-compare.sh`.
use chesszip::model::transformer::int::Recipe;
use chesszip::model::transformer::tokens::{History, vocab_index};
use chesszip::model::transformer::{FloatModel, IntModel};
use shakmaty::san::San;
use shakmaty::{Chess, Position};
use std::time::Instant;

struct Pos {
    elo: (i32, i32),
    played: usize,
    planes: Vec<u8>,
    legal: Vec<usize>,
    logits: Vec<f32>,
}

fn read_positions(bytes: &[u8]) -> Vec<Pos> {
    assert_eq!(&bytes[..4], b"L10P", "not a positions file");
    let n = u32::from_le_bytes(bytes[4..8].try_into().unwrap()) as usize;
    let mut at = 8;
    let mut out = Vec::with_capacity(n);
    for _ in 0..n {
        let u16_at = |i: usize| u16::from_le_bytes(bytes[i..i + 2].try_into().unwrap());
        let elo = (u16_at(at) as i32, u16_at(at + 2) as i32);
        let (nl, played) = (bytes[at + 4] as usize, bytes[at + 5] as usize);
        at += 6;
        let planes = (0..64 * 96).map(|b| (bytes[at + b / 8] >> (b % 8)) & 1).collect();
        at += 768;
        let legal = (0..nl).map(|i| u16_at(at + 2 * i) as usize).collect();
        at += 2 * nl;
        let logits = (0..nl).map(|i| f32::from_le_bytes(bytes[at + 4 * i..at + 4 * i + 4].try_into().unwrap())).collect();
        at += 4 * nl;
        out.push(Pos { elo, played, planes, legal, logits });
    }
    out
}

/// Replays the games and compares chesszip's inputs and move indices with the dumped ones.
fn check_tokens(text: &str, pos: &[Pos]) {
    let (mut k, mut bad) = (0, 0);
    'games: for line in text.lines().filter(|l| !l.trim().is_empty()) {
        let words: Vec<&str> = line.split_whitespace().collect();
        let mut board = Chess::default();
        let mut hist = History::new(&board);
        for san in &words[..words.len() - 1] {
            if k == pos.len() {
                break 'games;
            }
            let p = &pos[k];
            let played = San::from_ascii(san.as_bytes()).unwrap().to_move(&board).unwrap();
            let legal = board.legal_moves();
            let mut ours: Vec<usize> = legal.iter().map(|m| vocab_index(m, board.turn())).collect();
            let mut theirs = p.legal.clone();
            let played_ok = vocab_index(&played, board.turn()) == p.legal[p.played];
            ours.sort_unstable();
            theirs.sort_unstable();
            if hist.input() != p.planes || ours != theirs || !played_ok {
                bad += 1;
            }
            board.play_unchecked(played);
            hist.push(&board);
            k += 1;
        }
    }
    println!("tokens: {k} plies checked against label.py, {bad} differ");
}

/// -log2 p(played) under the softmax of `z` over the legal moves.
fn bits(z: &[f64], played: usize) -> f64 {
    let m = z.iter().cloned().fold(f64::NEG_INFINITY, f64::max);
    let s: f64 = z.iter().map(|v| (v - m).exp()).sum();
    (m + s.ln() - z[played]) / std::f64::consts::LN_2
}

fn main() {
    let a: Vec<String> = std::env::args().skip(1).collect();
    let t0 = Instant::now();
    let f = FloatModel::read(a[0].as_ref()).unwrap();
    // RECIPE=bits: the dense layers with 8-bit activations (`int::Recipe`; 0, the default, is
    // model version 8's recipe, every layer i16).
    let recipe = Recipe(std::env::var("RECIPE").map(|v| v.parse().unwrap()).unwrap_or(0));
    let q = IntModel::with_recipe(&f, recipe);
    eprintln!("recipe {}", recipe.0);
    if std::env::var_os("SCALAR").is_some() {
        chesszip::model::transformer::int::force_scalar(true);
    }
    eprintln!("loaded and quantised in {:.2}s: width {}, {} heads, {} blocks", t0.elapsed().as_secs_f64(), f.d, f.heads, f.layers.len());
    let mut pos = read_positions(&std::fs::read(&a[1]).unwrap());
    if let Ok(n) = std::env::var("LIMIT") {
        pos.truncate(n.parse().unwrap());
    }
    if let Ok(games) = std::env::var("GAMES") {
        check_tokens(&std::fs::read_to_string(games).unwrap(), &pos);
        if std::env::var_os("TOKENS_ONLY").is_some() {
            return;
        }
    }
    let nref: usize = std::env::var("REF").map(|v| v.parse().unwrap()).unwrap_or(0);
    for p in pos.iter().take(nref) {
        let z = f.forward(&p.planes, p.elo.0, p.elo.1);
        let dmax = p.legal.iter().zip(&p.logits).map(|(&i, &l)| (z[i] - l).abs()).fold(0.0f32, f32::max);
        let zr: Vec<f64> = p.legal.iter().map(|&i| z[i] as f64).collect();
        let zo: Vec<f64> = p.logits.iter().map(|&v| v as f64).collect();
        println!("ref: max |logit - ort| {dmax:.5}, bits {:.4} vs ort {:.4}", bits(&zr, p.played), bits(&zo, p.played));
    }
    let (mut bf, mut bi, mut dsum, mut dmax, mut nl) = (0.0, 0.0, 0.0, 0.0f64, 0usize);
    let mut hash = 0xcbf29ce484222325u64;
    let t = Instant::now();
    for (k, p) in pos.iter().enumerate() {
        let z = q.forward(&p.planes, p.elo.0, p.elo.1);
        hash = z.iter().fold(hash, |h, &v| (h ^ v as u32 as u64).wrapping_mul(0x100000001b3));
        let zi: Vec<f64> = p.legal.iter().map(|&i| z[i] as f64 / 65536.0).collect();
        let zo: Vec<f64> = p.logits.iter().map(|&v| v as f64).collect();
        bi += bits(&zi, p.played);
        bf += bits(&zo, p.played);
        for (a, b) in zi.iter().zip(&zo) {
            dsum += (a - b).abs();
            dmax = dmax.max((a - b).abs());
            nl += 1;
        }
        if (k + 1) % 500 == 0 {
            eprintln!("{} plies, {:.1}/s", k + 1, (k + 1) as f64 / t.elapsed().as_secs_f64());
        }
    }
    let n = pos.len() as f64;
    let secs = t.elapsed().as_secs_f64();
    println!(
        "plies {}: float (onnxruntime) {:.4} bits/ply, integer {:.4} bits/ply, difference {:+.4}",
        pos.len(),
        bf / n,
        bi / n,
        (bi - bf) / n
    );
    println!("logits: mean |int - float| {:.4} nat, max {:.4}", dsum / nl as f64, dmax);
    println!("FNV-1a of all integer logits: {hash:016x} (the same on every path and machine)");
    println!("integer path: {:.1} positions/s on one thread ({secs:.1}s)", n / secs);
}
