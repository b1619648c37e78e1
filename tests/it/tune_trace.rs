//! `tune trace` (`chesszip::tune::trace`): the bits it counts are those of the archive, and its
//! skill ablation (`--skill`) changes the cost of the same moves.

use chesszip::CompressOptions;
use chesszip::model::Model;
use chesszip::tune::trace;

use crate::common::{first_games, round_trip_with};

fn totals(t: &chesszip::model::trace::Trace) -> (u64, f64) {
    t.by_ply.iter().fold((0, 0.0), |a, b| (a.0 + b.0, a.1 + b.1))
}

#[test]
fn fixing_the_skill_class_changes_the_cost_of_the_same_moves() {
    let text = first_games(300);
    let model = Model::builtin(chesszip::Level::new(2).unwrap());
    let (moves, inferred) = totals(&trace(model, &text, 100, None));
    let plies: usize = text.split(|&b| b == b'\n').map(|l| l.split(|&b| b == b' ').count().saturating_sub(1)).sum();
    assert_eq!(moves as usize, plies, "every ply of the 300 games is traced once");
    // The archive codes the same moves: its size is the traced bits plus the game ends,
    // results and framing: 8 % more here.
    let opts = CompressOptions {
        level: chesszip::Level::new(2).unwrap(),
        block_lines: 100,
        threads: 2,
        raw_form: false,
        ..CompressOptions::default()
    };
    let archive = round_trip_with(&text, &opts);
    let bytes = archive.len() as f64;
    assert!(inferred / 8.0 < bytes && bytes < inferred / 8.0 * 1.15, "{} bytes of moves, archive {bytes}", inferred / 8.0);
    let mut fixed = Vec::new();
    for class in 0..5 {
        let (n, bits) = totals(&trace(model, &text, 100, Some(class)));
        assert_eq!(n, moves);
        assert_ne!(bits, inferred, "class {class} codes with other tables");
        fixed.push(bits);
    }
    // Class 0 is the class of a player with fewer than 4 moves: held for whole games it costs
    // more (0.065 bits per ply on the heldout games).
    assert!(fixed[0] > inferred * 1.01, "class 0 {} bits, inferred {inferred}", fixed[0]);
}

/// `tune trace --level 10` (and the other commands on the embedded level-10 model) is refused
/// with a message: tune does not read transformer weights, and the embedded level-10 model
/// alone is a stand-in no archive codes with. Before, it traced that stand-in and printed
/// "level 10 ... bits per move" as if they were level 10's.
#[test]
fn tune_refuses_level_10_without_the_transformer() {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("games.txt");
    std::fs::write(&input, first_games(5)).unwrap();
    let tune = |level: &str| {
        std::process::Command::new(env!("CARGO_BIN_EXE_tune"))
            .env("RUST_BACKTRACE", "0")
            .args(["trace", "--level", level, "--out-dir"])
            .arg(dir.path().join(format!("out{level}")))
            .arg(&input)
            .output()
            .unwrap()
    };
    let out = tune("10");
    let e = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success() && e.contains("transformer") && e.contains("levels 1-9"), "{e}");
    assert!(out.stdout.is_empty() && !dir.path().join("out10").exists());
    let out = tune("9");
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
}
