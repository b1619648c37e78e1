//! Whether the ratings tell the move model the players' skill better than their moves do
//! (issue #33, item 3; an ablation, not a coding): codes the main lines of the rated standard
//! games of PGN files with the skill class inferred from the moves (as archives are coded) and
//! with a class fixed for the whole game ([`chesszip::model::GameState::fix_skill`]) from the
//! players' mean Elo; the Elo -> class map is fitted on `--fit FILE` (training games) as the
//! class with the fewest bits per Elo bucket, then reported on the other files.
//!
//! `cargo run --example elo_skill -- [--level N] --fit TRAIN.pgn FILE...`

// Tables indexed by bucket and class read best as index loops.
#![allow(clippy::needless_range_loop)]

use chesszip::entropy::range::Encoder;
use chesszip::model::game::SKILLS;
use chesszip::model::{GameState, Model};
use chesszip::movetext::game_coder::GameCoder;
use chesszip::movetext::move_text::MoveText;
use chesszip::pgn::game::{parse, start_position};
use chesszip::pgn::lexer::split_games;

/// Buckets of the players' mean Elo: below 1200, then 200 wide, 2200 and above.
const BUCKETS: usize = 7;

fn bucket(elo: u32) -> usize {
    (elo.saturating_sub(1000) / 200).min(BUCKETS as u32 - 1) as usize
}

/// The rated standard games of a file: the mean Elo's bucket and the main line.
fn games(path: &str) -> Vec<(usize, GameState, MoveText)> {
    let data = std::fs::read(path).expect("read");
    let mut out = Vec::new();
    for text in split_games(&data) {
        let Some(game) = parse(text) else { continue };
        let elo = |n: &[u8]| game.tag(n).and_then(|v| std::str::from_utf8(v).ok()?.parse::<u32>().ok());
        let (Some(w), Some(b)) = (elo(b"WhiteElo"), elo(b"BlackElo")) else { continue };
        if game.tag(b"FEN").is_some() || game.tag(b"Variant").is_some_and(|v| v != b"Standard") {
            continue;
        }
        let Some(start) = start_position(&game.tags) else { continue };
        let Some(line) = game.lines.first() else { continue };
        out.push((bucket((w + b) / 2), GameState::from_position(start), line.clone()));
    }
    out
}

/// Bits of each game's move choices with `class` fixed (`None`: inferred), and plies.
fn bits(model: &Model, games: &[(usize, GameState, MoveText)], class: impl Fn(usize) -> Option<usize>) -> Vec<(f64, usize)> {
    let mut coder = GameCoder::new(model);
    let mut enc = Encoder::new();
    games
        .iter()
        .map(|(b, st, line)| {
            coder.fixed_skill = class(*b);
            let before = coder.move_info.bits();
            let mut text = line.clone();
            coder.code_moves(&mut enc, st.clone(), &mut text).expect("encodes");
            (coder.move_info.bits() - before, line.moves.len())
        })
        .collect()
}

fn main() {
    let mut args: Vec<String> = std::env::args().skip(1).collect();
    let mut take = |flag: &str| args.iter().position(|a| a == flag).map(|i| args.drain(i..i + 2).nth(1).expect("value"));
    let level: u8 = take("--level").map_or(2, |v| v.parse().expect("level"));
    let fit = take("--fit").expect("--fit TRAIN.pgn");
    let model = Model::builtin(chesszip::Level::new(level).expect("--level: a level"));
    let train = games(&fit);
    // Bits per bucket and class (class SKILLS: inferred).
    let mut table = [[0f64; SKILLS + 1]; BUCKETS];
    let mut plies = [0usize; BUCKETS];
    for class in 0..=SKILLS {
        for ((b, _, _), (bits, n)) in train.iter().zip(bits(model, &train, |_| (class < SKILLS).then_some(class))) {
            table[*b][class] += bits;
            if class == 0 {
                plies[*b] += n;
            }
        }
    }
    let mut map = [None; BUCKETS];
    println!("fit on {fit}: {} games; bits/ply per mean-Elo bucket, classes 0..{} then inferred", train.len(), SKILLS - 1);
    for b in 0..BUCKETS {
        if plies[b] == 0 {
            continue;
        }
        let best = (0..SKILLS).min_by(|&x, &y| table[b][x].total_cmp(&table[b][y])).expect("classes");
        map[b] = (table[b][best] < table[b][SKILLS]).then_some(best);
        let row: Vec<String> = table[b].iter().map(|t| format!("{:.4}", t / plies[b] as f64)).collect();
        println!("  bucket {} ({} plies): {} -> {:?}", 1000 + 200 * b, plies[b], row.join(" "), map[b]);
    }
    for path in &args {
        let g = games(path);
        let inferred = bits(model, &g, |_| None);
        let rated = bits(model, &g, |b| map[b]);
        let n: usize = inferred.iter().map(|x| x.1).sum();
        let (a, r): (f64, f64) = (inferred.iter().map(|x| x.0).sum(), rated.iter().map(|x| x.0).sum());
        println!(
            "{path}: {} rated games, {n} plies: {:.4} bits/ply inferred, {:.4} with the class from the ratings ({:+.2}%)",
            g.len(),
            a / n.max(1) as f64,
            r / n.max(1) as f64,
            (r / a - 1.0) * 100.0
        );
    }
}
