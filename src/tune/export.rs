//! Training data for the move network (`tune export`): every ply of a set of games, as the
//! coder sees it, written as flat little-endian arrays that `scripts/net/data.py` maps with
//! numpy.
//!
//! Files in the output folder (`N` plies, `M` moves, `K` hand features, `B` board inputs):
//!
//! | file | type | length | content |
//! | --- | --- | --- | --- |
//! | `board_idx.u16` | u16 | B | active board inputs ([`network::board_inputs`], then the game's [`network::rating_inputs`] when exported with ratings) |
//! | `board_off.i64` | i64 | N + 1 | ply `n`'s inputs are `board_idx[board_off[n]..board_off[n+1]]` |
//! | `move_off.i64` | i64 | N + 1 | ply `n`'s legal moves are `move_off[n]..move_off[n+1]` |
//! | `label.i32` | i32 | N | index of the move played among them (canonical order) |
//! | `rows.u16` | u16 | 2 M | per move, its `from` and `to` rows ([`network::move_rows`]) |
//! | `uci.u16` | u16 | M | per move, `from + 64 to + 4096 promo` (squares a1 = 0, unmirrored; the king's destination for castling; promo 0 none, 1 knight .. 4 queen): joins teacher labels (scripts/teacher) |
//! | `feat_off.i64` | i64 | M + 1 | move `m`'s hand features are `feat_off[m]..feat_off[m+1]` |
//! | `feat_idx.u16`, `feat_val.i16` | u16, i16 | K | hand feature index and value (1/256) |
//! | `meta.json` | | | counts, the level, the model id and the input sizes (`board_inputs`: [`network::RATED_BOARD_INPUTS`] with ratings) |
//! | `linear.i32` | i32 | hand | the model's linear move weights (1/256 nat), a starting point |

use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::Path;

use shakmaty::Position;

use crate::model::elo::Ratings;
use crate::model::features::move_layout;
use crate::model::network::{self, BOARD_INPUTS, RATED_BOARD_INPUTS, SQUARE_INPUTS};
use crate::model::{GameState, Model, Predictor};
use crate::pgn::clock::time_control;
use crate::text::{Game, parse_game};

/// The games of a movetext file (one per line) and their ratings from a ratings file with one
/// line per game, `WHITE BLACK TIMECONTROL` as the PGN tags spell them (`2038 1331 60+0`; `?` for
/// an unknown rating, `-` for no time control; [`Ratings::from_tags`]), fields separated by
/// ASCII whitespace. Blank lines of either file are dropped first (as `scripts/net/rate_export.py`
/// does); then the n-th game goes with the n-th ratings line, and a game that does not parse is
/// skipped with its ratings.
///
/// # Errors
/// A message when the files have different numbers of non-blank lines or a ratings line has not
/// three fields.
pub fn games_with_ratings(movetext: &[u8], ratings: &[u8]) -> Result<(Vec<Game>, Vec<Ratings>), String> {
    let lines = |t: &'_ [u8]| -> Vec<Vec<u8>> {
        t.split(|&b| b == b'\n')
            .map(|l| l.strip_suffix(b"\r").unwrap_or(l))
            .filter(|l| !l.trim_ascii().is_empty())
            .map(<[u8]>::to_vec)
            .collect()
    };
    let (games, rated) = (lines(movetext), lines(ratings));
    if games.len() != rated.len() {
        return Err(format!("{} games but {} ratings lines (blank lines not counted)", games.len(), rated.len()));
    }
    let mut out = (Vec::new(), Vec::new());
    for (n, (g, r)) in games.iter().zip(&rated).enumerate() {
        let fields: Vec<&[u8]> = r.split(u8::is_ascii_whitespace).filter(|f| !f.is_empty()).collect();
        let [white, black, control] = fields[..] else {
            return Err(format!("ratings line {} (not counting blank ones): expected WHITE BLACK TIMECONTROL", n + 1));
        };
        if let Some(game) = parse_game(g) {
            out.0.push(game);
            out.1.push(Ratings::from_tags(Some(white), Some(black), time_control(control)));
        }
    }
    Ok(out)
}

/// What [`export`] wrote.
#[derive(Clone, Copy, Debug, Default)]
pub struct ExportCounts {
    /// Games.
    pub games: usize,
    /// Plies (move decisions).
    pub plies: usize,
    /// Legal moves over all plies.
    pub moves: usize,
    /// Hand features over all moves.
    pub features: usize,
}

/// Writes the move decisions of `games` under `model` (its search settings and features) into
/// the folder `out` (created); with `ratings` (one per game), each ply's board inputs end with
/// its game's rating inputs, for a network with [`RATED_BOARD_INPUTS`].
///
/// # Errors
/// Writing the files failed.
///
/// # Panics
/// If `ratings` has not one entry per game.
pub fn export(model: &Model, games: &[Game], ratings: Option<&[Ratings]>, out: &Path) -> std::io::Result<ExportCounts> {
    if let Some(r) = ratings {
        assert_eq!(r.len(), games.len(), "one ratings entry per game");
    }
    std::fs::create_dir_all(out)?;
    let open = |name: &str| File::create(out.join(name)).map(|f| BufWriter::with_capacity(1 << 20, f));
    let (mut board_idx, mut board_off, mut move_off, mut label) =
        (open("board_idx.u16")?, open("board_off.i64")?, open("move_off.i64")?, open("label.i32")?);
    let (mut rows, mut feat_off, mut feat_idx, mut feat_val) =
        (open("rows.u16")?, open("feat_off.i64")?, open("feat_idx.u16")?, open("feat_val.i16")?);
    let mut uci = open("uci.u16")?;
    let mut counts = ExportCounts::default();
    let (mut boards, mut feats) = (0i64, 0i64);
    board_off.write_all(&0i64.to_le_bytes())?;
    move_off.write_all(&0i64.to_le_bytes())?;
    feat_off.write_all(&0i64.to_le_bytes())?;
    let mut predictor = Predictor::new(model);
    let mut hand = Vec::new();
    let mut inputs = Vec::new();
    for (g, game) in games.iter().enumerate() {
        let game_ratings = ratings.map(|r| r[g]);
        let mut st = GameState::new();
        for m in &game.moves {
            predictor.prepare(&st);
            let played = predictor.index_of(m).expect("the games were parsed as legal");
            inputs.clear();
            network::board_inputs(&st, |i| inputs.push(i as u16));
            if let Some(r) = &game_ratings {
                network::rating_inputs(r, st.pos.turn(), |i| inputs.push(i as u16));
            }
            for &i in &inputs {
                board_idx.write_all(&i.to_le_bytes())?;
            }
            boards += inputs.len() as i64;
            board_off.write_all(&boards.to_le_bytes())?;
            let turn = shakmaty::Position::turn(&st.pos);
            let ctx = predictor.move_context(&st);
            for (i, &p) in predictor.moves().iter().enumerate() {
                let (from, to) = network::move_rows(p, turn);
                rows.write_all(&(from as u16).to_le_bytes())?;
                rows.write_all(&(to as u16).to_le_bytes())?;
                let promo = p.promotion().saturating_sub(1);
                uci.write_all(&((p.from() + 64 * p.to() + 4096 * promo) as u16).to_le_bytes())?;
                hand.clear();
                ctx.features(i, &mut hand);
                for &(k, v) in &hand {
                    feat_idx.write_all(&k.to_le_bytes())?;
                    feat_val.write_all(&v.to_le_bytes())?;
                }
                feats += hand.len() as i64;
                feat_off.write_all(&feats.to_le_bytes())?;
            }
            counts.moves += predictor.moves().len();
            move_off.write_all(&(counts.moves as i64).to_le_bytes())?;
            label.write_all(&(played as i32).to_le_bytes())?;
            counts.plies += 1;
            predictor.observe(&mut st, played);
            st.play(*m);
        }
        counts.games += 1;
    }
    counts.features = feats as usize;
    for w in [&mut board_idx, &mut board_off, &mut move_off, &mut label, &mut rows, &mut uci, &mut feat_off, &mut feat_idx, &mut feat_val] {
        w.flush()?;
    }
    let meta = format!(
        "{{\"games\": {}, \"plies\": {}, \"moves\": {}, \"features\": {}, \"board_inputs\": {}, \"square_inputs\": {}, \"hand\": {}, \"level\": {}, \"model_id\": \"{:016x}\"}}\n",
        counts.games,
        counts.plies,
        counts.moves,
        counts.features,
        if ratings.is_some() { RATED_BOARD_INPUTS } else { BOARD_INPUTS },
        SQUARE_INPUTS,
        move_layout::LEN,
        model.level,
        model.id()
    );
    std::fs::write(out.join("meta.json"), meta)?;
    let linear: Vec<u8> = model.move_weights.iter().flat_map(|w| w.to_le_bytes()).collect();
    std::fs::write(out.join("linear.i32"), linear)?;
    Ok(counts)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::elo::Speed;

    #[test]
    fn ratings_files_pair_non_blank_lines() {
        let (games, ratings) = games_with_ratings(b"e4 e5 1-0\n\nd4 d5 0-1\r\n\n", b"2038\t1331 60+0\n? 1500 -\n\n").unwrap();
        assert_eq!(games.len(), 2);
        assert_eq!(ratings[0], Ratings { white: Some(2038), black: Some(1331), speed: Speed::Bullet });
        assert_eq!(ratings[1], Ratings { white: None, black: Some(1500), speed: Speed::Unknown });
        // A game that does not parse is dropped with its ratings.
        let (games, ratings) = games_with_ratings(b"Zz9 1-0\ne4 1-0\n", b"1 2 -\n3 4 -\n").unwrap();
        assert_eq!((games.len(), ratings[0].white), (1, Some(3)));
        assert!(games_with_ratings(b"e4 1-0\n", b"1 2 -\n3 4 -\n").unwrap_err().contains("1 games but 2"));
        assert!(games_with_ratings(b"e4 1-0\n", b"1 2\n").unwrap_err().contains("expected WHITE BLACK TIMECONTROL"));
    }
}
