//! Fitting model parameters on training games (the `chesszip tune` command).
//!
//! The tuner walks training games with the very [`Predictor`] the coder uses, records the
//! sparse features of every decision (which move, whether the game ends, which result), and
//! minimises the cross-entropy with L-BFGS. Weights are then rounded to the integer units of
//! the parameter file. The online book's mixing weight and depth are chosen by replaying the
//! book over the training games in blocks, as the coder would. Heldout games are only
//! evaluated, never fitted; the benchmark file is never read here.

pub mod export;
pub mod lbfgs;
pub mod problem;

use std::time::Instant;

use rayon::prelude::*;

use crate::container::MAX_BLOCK_TEXT;
use crate::format::BlockFormat;
use crate::model::book::{Book, BookMoves, PriorBook};
use crate::model::features::{RESULT_CLASSES, end_layout, move_layout, result_class, result_layout};
use crate::model::softmax::{LOGIT_ONE, PROB_ONE};
use crate::model::trace::Trace;
use crate::model::{GameState, Model, Predictor};
use crate::movetext::Movetext;
use crate::text::{Game, parse_game};
use problem::Problem;
use shakmaty::Position;

/// Move-feature groups computed only when a model sets `features.tactical`.
pub const TACTICAL_GROUPS: [&str; 10] = [
    "escape",
    "escape_hanging",
    "to_attacked",
    "to_hanging",
    "threatens",
    "capture_free",
    "to_pawn_attacked",
    "escape_threat",
    "see",
    "see_loss",
];

/// The prior book covers positions before this ply.
const PRIOR_PLIES: usize = 20;

/// Uniform floor of the end and result models (must match the predictor's).
const OUTCOME_FLOOR: f64 = 16.0 / PROB_ONE as f64;

/// A ply early enough for the book: what the book simulation needs.
#[derive(Clone, Debug)]
struct BookPly {
    game: u32,
    ply: u32,
    decision: u32,
    hash: u64,
    keys: Vec<u16>,
}

/// Everything recorded from a set of games.
#[derive(Default)]
pub struct Dataset {
    /// Move decisions.
    pub moves: Problem,
    /// "Game ends here" decisions (candidate 0 continues, 1 ends).
    pub ends: Problem,
    /// Result decisions (side to move wins, loses, draw, unknown).
    pub results: Problem,
    book: Vec<BookPly>,
    /// Games recorded.
    pub games: usize,
    /// Plies recorded.
    pub plies: usize,
}

/// Parses the games of a movetext file, skipping lines that are not games.
pub fn load_games(text: &[u8]) -> Vec<Game> {
    text.split(|&b| b == b'\n').filter_map(|l| parse_game(l.strip_suffix(b"\r").unwrap_or(l))).collect()
}

/// Records the decisions of `games` (numbered from `first`) under `model`'s engine settings;
/// without `with_moves`, only the end and result decisions.
fn record(model: &Model, games: &[Game], first: usize, book_plies: u32, with_moves: bool) -> Dataset {
    let mut ds = Dataset {
        moves: Problem::new(move_layout::LEN),
        ends: Problem::new(end_layout::LEN),
        results: Problem::new(result_layout::LEN),
        ..Default::default()
    };
    let mut predictor = Predictor::new(model);
    for (g, game) in games.iter().enumerate() {
        let mut st = GameState::new();
        for (ply, m) in game.moves.iter().enumerate() {
            predictor.prepare(&st);
            let ctx = predictor.end_context(&st);
            ds.ends.end_candidate();
            ctx.end_features(&mut ds.ends);
            ds.ends.end_candidate();
            ds.ends.end_decision(0);

            let moves = predictor.moves();
            let label = predictor.index_of(m).expect("legal");
            if !with_moves {
                predictor.observe(&mut st, label);
                st.play(*m);
                continue;
            }
            if (ply as u32) < book_plies {
                ds.book.push(BookPly {
                    game: (first + g) as u32,
                    ply: ply as u32,
                    decision: ds.moves.len() as u32,
                    hash: st.hash,
                    keys: moves.iter().map(|p| p.key()).collect(),
                });
            }
            let mctx = predictor.move_context(&st);
            for i in 0..moves.len() {
                mctx.features(i, &mut ds.moves);
                ds.moves.end_candidate();
            }
            ds.moves.end_decision(label);
            predictor.observe(&mut st, label);
            st.play(*m);
        }
        predictor.prepare(&st);
        let ctx = predictor.end_context(&st);
        if !predictor.moves().is_empty() {
            ds.ends.end_candidate();
            ctx.end_features(&mut ds.ends);
            ds.ends.end_candidate();
            ds.ends.end_decision(1);
        }
        for class in 0..RESULT_CLASSES {
            ctx.result_features(class, &mut ds.results);
            ds.results.end_candidate();
        }
        ds.results.end_decision(result_class(game.result, st.pos.turn()));
        ds.games += 1;
        ds.plies += game.moves.len();
    }
    ds
}

/// Records `games` in parallel (chunks of games, merged in order).
pub fn record_all(model: &Model, games: &[Game], book_plies: u32) -> Dataset {
    record_all_with(model, games, book_plies, true)
}

/// [`record_all`], or without `with_moves` only the end and result decisions.
fn record_all_with(model: &Model, games: &[Game], book_plies: u32, with_moves: bool) -> Dataset {
    let chunk = 64;
    let parts: Vec<Dataset> =
        games.par_chunks(chunk).enumerate().map(|(k, gs)| record(model, gs, k * chunk, book_plies, with_moves)).collect();
    let mut all = Dataset {
        moves: Problem::new(move_layout::LEN),
        ends: Problem::new(end_layout::LEN),
        results: Problem::new(result_layout::LEN),
        ..Default::default()
    };
    for p in parts {
        let base = all.moves.len() as u32;
        all.moves.append(&p.moves);
        all.ends.append(&p.ends);
        all.results.append(&p.results);
        all.book.extend(p.book.into_iter().map(|mut b| {
            b.decision += base;
            b
        }));
        all.games += p.games;
        all.plies += p.plies;
    }
    all
}

/// Integer weights (1/256 nat) to float weights (nats per feature unit).
fn to_float(w: &[i32]) -> Vec<f64> {
    w.iter().map(|&v| v as f64 / LOGIT_ONE as f64).collect()
}

/// Float weights to integer weights, rounded.
fn to_int(w: &[f64]) -> Vec<i32> {
    w.iter().map(|&v| (v * LOGIT_ONE as f64).round().clamp(-1e9, 1e9) as i32).collect()
}

/// Fits `problem` from `start` with L2 penalty `l2` on the weights whose `mask` is true.
/// Returns the fitted weights (nats) and the training cross-entropy in bits per decision.
pub fn fit(problem: &Problem, start: &[f64], floor: f64, l2: f64, mask: &[bool], max_iter: usize) -> (Vec<f64>, f64) {
    let mut w = start.to_vec();
    for (wi, &m) in w.iter_mut().zip(mask) {
        if !m {
            *wi = 0.0;
        }
    }
    let n = problem.len().max(1) as f64;
    lbfgs::minimize(&mut w, max_iter, 1e-7, |x, g| {
        g.iter_mut().for_each(|v| *v = 0.0);
        let mut loss = problem.loss_and_gradient(x, floor, Some(g)) / n;
        for i in 0..x.len() {
            if mask[i] {
                g[i] = g[i] / n + l2 * x[i];
                loss += 0.5 * l2 * x[i] * x[i];
            } else {
                g[i] = 0.0;
            }
        }
        loss
    });
    let bits = problem.loss_and_gradient(&w, floor, None) / n / std::f64::consts::LN_2;
    (w, bits)
}

/// Cross-entropy of `problem` under float weights `w`, in bits per decision.
pub(crate) fn bits_per_decision(problem: &Problem, w: &[f64], floor: f64) -> f64 {
    problem.loss_and_gradient(w, floor, None) / problem.len().max(1) as f64 / std::f64::consts::LN_2
}

/// Per-candidate probabilities of a move decision under float weights.
fn move_probabilities(problem: &Problem, d: usize, w: &[f64], floor: f64) -> Vec<f64> {
    let (c0, c1) = (problem.cand_start[d] as usize, problem.cand_start[d + 1] as usize);
    let mut z: Vec<f64> = (c0..c1)
        .map(|c| {
            let (f0, f1) = (problem.feat_start[c] as usize, problem.feat_start[c + 1] as usize);
            problem.features[f0..f1].iter().map(|&(index, value)| w[index as usize] * value as f64).sum::<f64>() / 256.0
        })
        .collect();
    let zmax = z.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    let sum: f64 = z
        .iter_mut()
        .map(|v| {
            *v = (*v - zmax).exp();
            *v
        })
        .sum();
    let n = z.len() as f64;
    z.iter().map(|v| (1.0 - floor) * v / sum + floor / n).collect()
}

/// Bits saved by the books over the model alone on the games numbered `>= first_game`,
/// coded in blocks of `block_games`, with mixing weight `alpha` (games), book depth `max_ply`,
/// and `prior` counts weighted `prior_weight` (games per play).
#[allow(clippy::too_many_arguments)]
fn book_saving(
    ds: &Dataset,
    w: &[f64],
    floor: f64,
    block_games: usize,
    alpha: f64,
    max_ply: u32,
    prior: &Book,
    prior_weight: f64,
    first_game: u32,
) -> f64 {
    let mut saving = 0.0;
    let mut book = Book::new();
    let mut block = u32::MAX;
    let count = |list: &BookMoves<'_>, key: u16| list.count(key) as f64;
    for b in ds.book.iter().filter(|b| b.ply < max_ply && b.game >= first_game) {
        if (b.game - first_game) / block_games as u32 != block {
            block = (b.game - first_game) / block_games as u32;
            book = Book::new();
        }
        let d = b.decision as usize;
        let y = ds.moves.label[d] as usize;
        let (seen, known) = (book.get(b.hash), prior.get(b.hash));
        let total = seen.clone().map(|(_, c)| c as f64).sum::<f64>() + prior_weight * known.clone().map(|(_, c)| c as f64).sum::<f64>();
        if total > 0.0 {
            let q = move_probabilities(&ds.moves, d, w, floor);
            let c_y = count(&seen, b.keys[y]) + prior_weight * count(&known, b.keys[y]);
            let p = (c_y + alpha * q[y]) / (total + alpha);
            saving += (p / q[y]).log2();
        }
        book.observe(b.hash, b.keys[y]);
    }
    saving
}

/// Builds a prior book from the games' first `max_ply` plies (positions played from at least
/// twice), as text and parsed.
pub(crate) fn build_prior(games: &[Game], max_ply: usize) -> (String, Book) {
    let lines: Vec<Vec<shakmaty::Move>> = games.iter().map(|g| g.moves.clone()).collect();
    let text = PriorBook::build_text(&lines, max_ply, 2);
    let book = PriorBook::parse("built", &text).expect("a built book parses").book;
    (text, book)
}

/// Codes `text` (movetext) with `model` in blocks of `block_lines` lines, in parallel, and
/// returns the merged prediction statistics; with `fixed_skill`, every player's skill class is
/// that one instead of the inferred one (an ablation, [`crate::movetext::block::trace_block`]).
///
/// # Panics
/// If `fixed_skill` is `SKILLS` (5) or more and `text` is not empty ([`trace_block`]'s check).
///
/// [`trace_block`]: crate::movetext::block::trace_block
pub fn trace(model: &Model, text: &[u8], block_lines: usize, fixed_skill: Option<usize>) -> Trace {
    // The blocks the compressor cuts: its movetext splitter, with the archive's default limit of
    // bytes per block.
    let lines = u32::try_from(block_lines).unwrap_or(u32::MAX);
    let mut splitter = Movetext.splitter();
    let mut input = text;
    let mut blocks = Vec::new();
    loop {
        let mut block = Vec::new();
        splitter.read(&mut input, lines, MAX_BLOCK_TEXT, &mut block).expect("reading from memory does not fail");
        if block.is_empty() {
            break;
        }
        blocks.push(block);
    }
    let traces: Vec<Trace> = blocks.par_iter().map(|b| crate::movetext::block::trace_block(model, b, fixed_skill)).collect();
    let mut all = Trace::default();
    for t in &traces {
        all.merge(t);
    }
    all
}

/// Settings of a tuning run.
#[derive(Clone, Debug)]
pub struct TuneOptions {
    /// L2 penalty of the move weights (nats^-2 per decision).
    pub l2: f64,
    /// L-BFGS iterations.
    pub max_iter: usize,
    /// Games per block assumed for the book simulation.
    pub block_games: usize,
    /// Weight groups (`move.<name>`) forced to zero, for ablations.
    pub drop_groups: Vec<String>,
}

impl Default for TuneOptions {
    fn default() -> Self {
        TuneOptions { l2: 1e-6, max_iter: 300, block_games: crate::archive::DEFAULT_BLOCK_LINES as usize, drop_groups: Vec::new() }
    }
}

/// Outcome of a tuning run.
#[derive(Clone, Debug)]
pub struct TuneReport {
    /// The fitted model.
    pub model: Model,
    /// Training cross-entropy of moves, bits per ply (before the book).
    pub train_move_bits: f64,
    /// Heldout cross-entropy of moves, bits per ply (before the book).
    pub heldout_move_bits: f64,
    /// Book saving on heldout, bits per ply.
    pub heldout_book_saving: f64,
    /// Heldout end-of-game cost, bits per ply.
    pub heldout_end_bits: f64,
    /// Heldout result cost, bits per game.
    pub heldout_result_bits: f64,
    /// Plies in the heldout games.
    pub heldout_plies: usize,
    /// The prior book built from the training games (`models/book.txt`).
    pub book_text: String,
}

fn mask_for(groups: &[crate::model::params::Group], len: usize, drop: &[String]) -> Vec<bool> {
    let mut mask = vec![true; len];
    for g in groups {
        if drop.iter().any(|d| d == g.name) {
            mask[g.offset..g.offset + g.len].iter_mut().for_each(|m| *m = false);
        }
    }
    mask
}

/// Fits all weights of `base`'s level on `train` and evaluates on `heldout`. `log` receives
/// progress lines.
pub fn tune(base: &Model, train: &[Game], heldout: &[Game], opts: &TuneOptions, log: &mut dyn FnMut(&str)) -> TuneReport {
    let t = Instant::now();
    const BOOK_PLIES: u32 = 80;
    let ds = record_all(base, train, BOOK_PLIES);
    let hd = record_all(base, heldout, BOOK_PLIES);
    log(&format!("recorded {} train plies, {} heldout plies in {:.1?}", ds.moves.len(), hd.moves.len(), t.elapsed()));
    let floor = base.move_floor as f64 / PROB_ONE as f64;
    let mut drop = opts.drop_groups.clone();
    if !base.tactical {
        drop.extend(TACTICAL_GROUPS.iter().map(|g| g.to_string()));
    }
    let mask = mask_for(move_layout::GROUPS, move_layout::LEN, &drop);
    let (w_move, train_bits) = fit(&ds.moves, &to_float(&base.move_weights), floor, opts.l2, &mask, opts.max_iter);
    let heldout_bits = bits_per_decision(&hd.moves, &w_move, floor);
    log(&format!("moves: train {train_bits:.4} bits/ply, heldout {heldout_bits:.4} bits/ply ({:.1?})", t.elapsed()));

    // Floor: a small grid, weights fixed.
    let mut best_floor = (base.move_floor, bits_per_decision(&ds.moves, &w_move, floor));
    for f in [4u64, 8, 16, 32, 64, 128, 256] {
        let b = bits_per_decision(&ds.moves, &w_move, f as f64 / PROB_ONE as f64);
        if b < best_floor.1 {
            best_floor = (f, b);
        }
    }
    let floor = best_floor.0 as f64 / PROB_ONE as f64;

    let ones = |n| vec![true; n];
    let (w_end, end_train) = fit(&ds.ends, &to_float(&base.end_weights), OUTCOME_FLOOR, 1e-6, &ones(end_layout::LEN), opts.max_iter);
    let (w_result, result_train) =
        fit(&ds.results, &to_float(&base.result_weights), OUTCOME_FLOOR, 1e-4, &ones(result_layout::LEN), opts.max_iter);
    let end_heldout = bits_per_decision(&hd.ends, &w_end, OUTCOME_FLOOR) * hd.ends.len() as f64 / hd.moves.len().max(1) as f64;
    let result_heldout = bits_per_decision(&hd.results, &w_result, OUTCOME_FLOOR);
    log(&format!(
        "end: train {:.4} bits/ply; result: train {result_train:.3} bits/game; heldout end {end_heldout:.4} bits/ply, result {result_heldout:.3} bits/game",
        end_train * ds.ends.len() as f64 / ds.moves.len().max(1) as f64
    ));

    // Books: the prior's weight, the mixing weight and the depth are chosen by building a
    // prior from the first 80% of the training games and coding the other 20% with it.
    let split = (train.len() * 4 / 5) as u32;
    let (_, prior_80) = build_prior(&train[..split as usize], PRIOR_PLIES);
    let plies_rest: usize = train[split as usize..].iter().map(|g| g.moves.len()).sum::<usize>().max(1);
    let mut best_book = (f64::MIN, base.book_alpha, 0u32, 0u64);
    for max_ply in [10u32, 16, 20, 30, 40, 60, 80] {
        for alpha in [128u64, 256, 512, 1024, 2048] {
            for prior_weight in [0u64, 32, 64, 128, 256] {
                let s = book_saving(
                    &ds,
                    &w_move,
                    floor,
                    opts.block_games,
                    alpha as f64 / 256.0,
                    max_ply,
                    &prior_80,
                    prior_weight as f64 / 256.0,
                    split,
                );
                if s > best_book.0 {
                    best_book = (s, alpha, max_ply, prior_weight);
                }
            }
        }
    }
    let (_, book_alpha, book_max_ply, book_prior_weight) = best_book;
    let (book_text, prior) = build_prior(train, PRIOR_PLIES);
    let heldout_saving = book_saving(
        &hd,
        &w_move,
        floor,
        opts.block_games,
        book_alpha as f64 / 256.0,
        book_max_ply,
        &prior,
        book_prior_weight as f64 / 256.0,
        0,
    );
    log(&format!(
        "book: alpha {:.2} games, max ply {book_max_ply}, prior weight {:.3}; saves {:.4} bits/ply on the last 20% of train, {:.4} on heldout",
        book_alpha as f64 / 256.0,
        book_prior_weight as f64 / 256.0,
        best_book.0 / plies_rest as f64,
        heldout_saving / hd.moves.len().max(1) as f64
    ));

    let model = Model {
        move_weights: to_int(&w_move),
        end_weights: to_int(&w_end),
        result_weights: to_int(&w_result),
        move_floor: best_floor.0,
        book_alpha,
        book_max_ply,
        book_prior_weight,
        ..base.clone()
    };
    TuneReport {
        model,
        train_move_bits: train_bits,
        heldout_move_bits: bits_per_decision(&hd.moves, &w_move, floor),
        heldout_book_saving: heldout_saving / hd.moves.len().max(1) as f64,
        heldout_end_bits: end_heldout,
        heldout_result_bits: result_heldout,
        heldout_plies: hd.moves.len(),
        book_text,
    }
}

/// Heldout and training costs of the end and result models (see [`tune_outcomes`]).
#[derive(Clone, Debug)]
pub struct OutcomeReport {
    /// The base model with the end and result weights refitted.
    pub model: Model,
    /// End-of-game cost, bits per ply: training (fitted), heldout with the base's weights,
    /// heldout fitted.
    pub end_bits: [f64; 3],
    /// Result cost, bits per game: training (fitted), heldout with the base's weights, heldout
    /// fitted.
    pub result_bits: [f64; 3],
    /// Plies of the heldout file.
    pub heldout_plies: usize,
    /// Games of the heldout file.
    pub heldout_games: usize,
}

/// Fits only the end and result weights of `base` on `train` (the move model, settings and
/// books stay `base`'s) and measures them on `heldout`, next to `base`'s own weights.
pub fn tune_outcomes(base: &Model, train: &[Game], heldout: &[Game], max_iter: usize, log: &mut dyn FnMut(&str)) -> OutcomeReport {
    let t = Instant::now();
    let ds = record_all_with(base, train, 0, false);
    let hd = record_all_with(base, heldout, 0, false);
    let plies = |d: &Dataset| d.plies.max(1) as f64;
    log(&format!("recorded {} train and {} heldout games in {:.1?}", ds.games, hd.games, t.elapsed()));
    let ones = |n| vec![true; n];
    let (w_end, end_train) = fit(&ds.ends, &to_float(&base.end_weights), OUTCOME_FLOOR, 1e-6, &ones(end_layout::LEN), max_iter);
    let (w_result, result_train) =
        fit(&ds.results, &to_float(&base.result_weights), OUTCOME_FLOOR, 1e-4, &ones(result_layout::LEN), max_iter);
    let end_per_ply = |d: &Dataset, w: &[f64]| bits_per_decision(&d.ends, w, OUTCOME_FLOOR) * d.ends.len() as f64 / plies(d);
    let report = OutcomeReport {
        end_bits: [end_train * ds.ends.len() as f64 / plies(&ds), end_per_ply(&hd, &to_float(&base.end_weights)), end_per_ply(&hd, &w_end)],
        result_bits: [
            result_train,
            bits_per_decision(&hd.results, &to_float(&base.result_weights), OUTCOME_FLOOR),
            bits_per_decision(&hd.results, &w_result, OUTCOME_FLOOR),
        ],
        heldout_plies: hd.plies,
        heldout_games: hd.games,
        model: Model { end_weights: to_int(&w_end), result_weights: to_int(&w_result), ..base.clone() },
    };
    log(&format!("fitted in {:.1?}", t.elapsed()));
    report
}

/// One row of an ablation: the move model refitted without some feature groups.
#[derive(Clone, Debug)]
pub struct AblationRow {
    /// The groups left out (empty: the full model).
    pub dropped: Vec<String>,
    /// Training cross-entropy of moves, bits per ply (before the book).
    pub train_move_bits: f64,
    /// Heldout cross-entropy of moves, bits per ply (before the book).
    pub heldout_move_bits: f64,
}

/// Feature ablation of `base`'s level: records the training and heldout decisions once, then
/// refits the move weights (from `base`'s, floor fixed) with each entry of `drops` left out,
/// and evaluates each fit on `heldout`. The first row is the full model. Only the move model
/// is refitted: end, result and book are independent of the move features' presence.
pub fn ablate(
    base: &Model,
    train: &[Game],
    heldout: &[Game],
    drops: &[Vec<String>],
    opts: &TuneOptions,
    log: &mut dyn FnMut(&str),
) -> Vec<AblationRow> {
    let t = Instant::now();
    let ds = record_all(base, train, 0);
    let hd = record_all(base, heldout, 0);
    log(&format!("recorded {} train plies, {} heldout plies in {:.1?}", ds.moves.len(), hd.moves.len(), t.elapsed()));
    let floor = base.move_floor as f64 / PROB_ONE as f64;
    let always: Vec<String> = if base.tactical { Vec::new() } else { TACTICAL_GROUPS.iter().map(|g| g.to_string()).collect() };
    std::iter::once(Vec::new())
        .chain(drops.iter().cloned())
        .map(|dropped| {
            let all: Vec<String> = dropped.iter().chain(&always).cloned().collect();
            let mask = mask_for(move_layout::GROUPS, move_layout::LEN, &all);
            let (w, train_move_bits) = fit(&ds.moves, &to_float(&base.move_weights), floor, opts.l2, &mask, opts.max_iter);
            let heldout_move_bits = bits_per_decision(&hd.moves, &w, floor);
            log(&format!(
                "without [{}]: train {train_move_bits:.4}, heldout {heldout_move_bits:.4} bits/ply ({:.1?})",
                dropped.join(","),
                t.elapsed()
            ));
            AblationRow { dropped, train_move_bits, heldout_move_bits }
        })
        .collect()
}
