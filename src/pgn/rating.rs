//! Rating changes (`WhiteRatingDiff`, `BlackRatingDiff`) as coding 3 predicts them.
//!
//! Lichess rates with Glicko-2 (Glickman, "Example of the Glicko-2 system", 2013): a player's
//! change after one game is about `K (S - E)`, with `S` the score (1, 1/2, 0), `E` the expected
//! score `1 / (1 + 10^((R_opp - R) / 400))` and `K` a factor that depends on the rating
//! deviations (which the PGN does not carry; about 16-30 rating points for active players). So:
//! - white's change is predicted as `K (S - E)`, `K` learned per player (and rating pool, the
//!   `Event`) from the player's earlier changes in the block;
//! - black's change as minus white's (equal deviations give equal and opposite changes);
//! - either is first checked against the player's rating in the game before in the block, in
//!   the same pool: exports list a player's games newest first, so that rating minus this
//!   game's rating is exactly this game's change.
//!
//! The residual is coded with a [`SignedModel`]. Values are written `+N` (also `+0`) or `-N`;
//! any other spelling goes through the generic tag model.

use std::collections::HashMap;

use super::mix::squash;
use crate::chess::GameResult;
use crate::entropy::SymbolCoder;
use crate::entropy::binary::{Bit, SignedModel};
use crate::error::Error;

/// A rating change as lichess writes it: `+N` for N >= 0, `-N` for N > 0 (no leading zeros).
pub fn parse_diff(v: &[u8]) -> Option<i64> {
    let (&sign, digits) = v.split_first()?;
    if !matches!(sign, b'+' | b'-') || digits.is_empty() || digits.len() > 9 || !digits.iter().all(u8::is_ascii_digit) {
        return None;
    }
    if digits.len() > 1 && digits[0] == b'0' || sign == b'-' && digits == b"0" {
        return None;
    }
    let n: i64 = std::str::from_utf8(digits).ok()?.parse().ok()?;
    Some(if sign == b'-' { -n } else { n })
}

/// Writes a rating change as [`parse_diff`] reads it.
pub(crate) fn write_diff(d: i64) -> Vec<u8> {
    if d < 0 { d.to_string().into_bytes() } else { format!("+{d}").into_bytes() }
}

/// The expected score of a player rated `own` against `opp`, in 1/4096.
pub fn expected(own: i64, opp: i64) -> i64 {
    // 10^(x/400) = e^(x ln 10 / 400); squash takes e-based logits times 256.
    let d = own.saturating_sub(opp).clamp(-2000, 2000) * 1474 / 1000;
    squash(d as i32) as i64
}

/// The score of `color` (0 white, 1 black) in 1/4096, `None` when unknown.
fn score(result: GameResult, color: usize) -> Option<i64> {
    let white = match result {
        GameResult::WhiteWins => 4096,
        GameResult::BlackWins => 0,
        GameResult::Draw => 2048,
        GameResult::Unknown => return None,
    };
    Some(if color == 0 { white } else { 4096 - white })
}

/// Default `K` in 1/16 rating points.
const K_DEFAULT: i64 = 20 * 16;

/// The models of rating changes of one block.
#[derive(Debug, Default)]
pub(crate) struct DiffModel {
    /// `K` per player and pool, in 1/16.
    k: HashMap<Vec<u8>, i64>,
    exact: [Bit; 2],
    residual: [SignedModel; 4],
}

/// What is known when a change is coded.
#[derive(Clone, Debug)]
pub(crate) struct DiffContext {
    /// The player's key (name and pool), if the player is named.
    pub player: Option<Vec<u8>>,
    /// The player's and the opponent's ratings in this game.
    pub ratings: Option<(i64, i64)>,
    /// The player's rating in the game before in the block (same pool).
    pub before: Option<i64>,
    /// The opponent's change in this game, if already coded.
    pub opponent_diff: Option<i64>,
    /// The game's result.
    pub result: GameResult,
    /// 0 white, 1 black.
    pub color: usize,
}

impl DiffModel {
    /// Codes `diff` (decoding: returns it) in context `x`.
    ///
    /// # Errors
    /// As [`SymbolCoder::code`].
    pub fn code<C: SymbolCoder>(&mut self, c: &mut C, x: &DiffContext, diff: i64) -> Result<i64, Error> {
        let k = x.player.as_ref().and_then(|p| self.k.get(p).copied()).unwrap_or(K_DEFAULT);
        let s = score(x.result, x.color);
        let glicko = match (x.ratings, s) {
            (Some((own, opp)), Some(s)) => Some((s - expected(own, opp), (k * (s - expected(own, opp))).div_euclid(16 * 4096))),
            _ => None,
        };
        let candidate = match (x.ratings, x.before) {
            (Some((own, _)), Some(b)) => Some(b.wrapping_sub(own)),
            _ => None,
        };
        let d = 'coded: {
            if let Some(cand) = candidate
                && self.exact[x.opponent_diff.is_some() as usize].code_value(c, diff == cand)?
            {
                break 'coded cand;
            }
            let (pred, ctx) = match (x.opponent_diff, glicko) {
                (Some(o), _) => (o.wrapping_neg(), 0),
                (None, Some((_, g))) => (g, 1),
                (None, None) => (0, 2),
            };
            let ctx = if candidate.is_some() { ctx } else { ctx.min(2) + (ctx == 1) as usize * 2 };
            pred.wrapping_add(self.residual[ctx.min(3)].code_value(c, diff.wrapping_sub(pred))?)
        };
        // Learn K from |S - E| of at least 0.1.
        if let (Some(p), Some((se, _))) = (&x.player, glicko)
            && se.abs() >= 410
        {
            let obs = (d.clamp(-1000, 1000) * 16 * 4096 / se).clamp(0, 100 * 16);
            let entry = self.k.entry(p.clone()).or_insert(K_DEFAULT);
            *entry += (obs - *entry) / 4;
        }
        Ok(d)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn diffs_parse_as_lichess_writes_them() {
        for (s, v) in [(&b"+8"[..], 8), (b"-12", -12), (b"+0", 0)] {
            assert_eq!(parse_diff(s), Some(v));
            assert_eq!(write_diff(v), s);
        }
        for s in [&b"0"[..], b"8", b"-0", b"+08", b"+", b"", b"+1.5"] {
            assert_eq!(parse_diff(s), None, "{}", String::from_utf8_lossy(s));
        }
        assert_eq!(expected(1500, 1500), 2047);
        assert_eq!(expected(i64::MIN, i64::MAX), 1);
        assert!(expected(1900, 1500) > 3700 && expected(1900, 1500) < 3800);
    }
}
