//! `tune outcome` (`chesszip::tune::tune_outcomes`): refitting the end and result weights on
//! games can only lower their cost on those same games, and the refitted model writes and
//! parses back.

use chesszip::model::Model;
use chesszip::tune::{load_games, tune_outcomes};

use crate::common::shared_data;

#[test]
fn refitting_the_outcome_models_on_games_lowers_their_cost_there() {
    let text = std::fs::read(shared_data("heldout/lichess_heldout.txt")).expect("heldout games");
    let games = load_games(&text);
    let games = &games[..300];
    let base = Model::builtin(chesszip::Level::new(2).unwrap());
    // Fitted on the very games it is measured on: never worse than the released weights there
    // (up to the small L2 penalty), whatever the new feature groups are.
    let r = tune_outcomes(base, games, games, 100, &mut |_| {});
    let [train_end, base_end, fitted_end] = r.end_bits;
    let [_, base_result, fitted_result] = r.result_bits;
    assert!(fitted_end <= base_end + 1e-3, "end: fitted {fitted_end} against base {base_end}");
    assert!(fitted_result <= base_result + 0.02, "result: fitted {fitted_result} against base {base_result}");
    assert!((train_end - fitted_end).abs() < 1e-6, "the same games measured twice: {train_end} {fitted_end}");
    assert!(fitted_end > 0.0 && fitted_end < 1.0, "{fitted_end} bits per ply");
    assert_eq!(r.heldout_games, 300);
    assert_eq!(r.heldout_plies, games.iter().map(|g| g.moves.len()).sum::<usize>());
    let model = Model { network: None, ..r.model };
    assert_eq!(Model::parse("refitted", &model.to_text()).unwrap(), model);
    assert_ne!(model.end_weights, base.end_weights);
}
