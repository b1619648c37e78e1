//! The time spent on a move, as coding 3 ([`crate::container::Coding::PgnFacts`]) codes it:
//! the same quantity as [`super::clock`] (the same player's last clock plus the increment,
//! minus this clock, in units of the clock's last digit), but each of its binary decisions is
//! predicted by several contexts of what the decoder knows, mixed ([`super::mix`]):
//! - the speed of the time control (lichess's estimate: base + 40 x increment seconds), and
//!   whether there is an increment;
//! - the time the player has left, as a fraction of the base time and in absolute seconds;
//! - the move number (the opening is played fast);
//! - the same player's last two spends and the opponent's last one (a player's rhythm);
//! - the position: a forced move (one legal move), a recapture, a move out of check, a capture;
//! - coding 4 ([`crate::container::Coding::PgnStreams`], [`SpentModel::with_views`]): the move
//!   model's view of the move ([`view_classes`]: its surprise, rank and the model's confidence);
//! - coding 6 ([`crate::container::Coding::PgnPredicted`], [`SpentModel::with_pace`]): the
//!   time left per move the player still has to play in the main line (known: the moves come
//!   first), and whether the game was lost on time, and by whom (`Termination`, `Result`).
//!
//! The value: whether it is negative (a clock that went up by more than the increment), then
//! its bit length in unary (`0` for 0 s, `1` for 1, `2` for 2-3, ...), then the bits below the
//! leading one (the top three mixed, the others under one context each).

use super::mix::{Mixed, key};
use crate::entropy::SymbolCoder;
use crate::entropy::binary::NumberModel;
use crate::error::Error;
use crate::format::game_coder::MoveView;

/// What the position says about the move a clock follows (the decoder knows it: moves are
/// coded before the clocks).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct PlyFacts {
    /// The move number of the move (1 for both players' first moves).
    pub fullmove: u32,
    /// Legal moves in the position before the move.
    pub legal: u32,
    /// The move captured.
    pub capture: bool,
    /// The move captured on the square the opponent's last move went to.
    pub recapture: bool,
    /// The mover was in check.
    pub in_check: bool,
    /// Coding 4: what the move model thought of the move (main line only; `None` elsewhere).
    pub view: Option<MoveView>,
    /// Coding 6: the mover's moves left in the main line, this one included (main line only;
    /// `None` elsewhere).
    pub own_left: Option<u32>,
    /// Coding 6: how the game ended for the mover ([`ending_class`]).
    pub ending: u32,
}

/// Coding 6: the class of how a game ended for the player who moves: 0 lost on time, 1 the
/// opponent lost on time, 2 lost otherwise, 3 won otherwise, 4 drawn, 5 unknown (`time_forfeit`:
/// the `Termination` tag says "Time forfeit"; `won`: the mover's result, `None` for a draw or
/// no result).
pub fn ending_class(time_forfeit: bool, won: Option<Option<bool>>) -> u32 {
    match (time_forfeit, won) {
        (true, Some(Some(false))) => 0,
        (true, Some(Some(true))) => 1,
        (false, Some(Some(false))) => 2,
        (false, Some(Some(true))) => 3,
        (_, Some(None)) => 4,
        (_, None) => 5,
    }
}

/// Longest unary bit length (clocks up to 2^40 units).
const MAX_LENGTH: usize = 40;
/// Spends below this are coded in unary.
const UNARY: u32 = 12;
/// Class of "no spend yet".
const NONE: u32 = 9;

/// Bit length of `v`, capped at `cap`.
fn length(v: u64, cap: u32) -> u32 {
    (64 - v.leading_zeros()).min(cap)
}

/// The mixing model of the time spent, with the state of the current game.
#[derive(Debug, Default)]
pub struct SpentModel {
    mixed: Mixed,
    negative: NumberModel,
    /// Per color: the last two spends, in seconds (most recent first), clamped at 0.
    spends: [[Option<u64>; 2]; 2],
    /// Per color: a hash of the player's name (0 unknown).
    players: [u32; 2],
    /// Coding 4: the move model's view of the move ([`PlyFacts::view`]) is a context too.
    views: bool,
    /// Coding 6: the time left per move still to play and the game's ending are contexts too.
    pace: bool,
}

/// The context of one spend.
struct Features {
    speed: u32,
    increment: u32,
    own: u32,
    own2: u32,
    opp: u32,
    ratio: u32,
    left: u32,
    phase: u32,
    flags: u32,
    player: u32,
    /// Coding 4 ([`view_classes`]).
    surprise: u32,
    confidence: u32,
    rank: u32,
    /// Coding 6: bit length of four times the seconds left per own move still to play.
    pace: u32,
    /// Coding 6: bit length of the own moves still to play, capped.
    own_left: u32,
    /// Coding 6: [`PlyFacts::ending`].
    ending: u32,
}

/// Classes of the move model's view of a move: how surprising the played move was (whole bits
/// of its probability, capped), how sure the model was of its best move, and the played move's
/// rank (0, 1, 2, 3+; 4 with a check given, 5 without a view).
pub fn view_classes(view: Option<MoveView>) -> (u32, u32, u32) {
    use crate::entropy::cdf::PRECISION;
    match view {
        Some(v) if v.frequency > 0 => {
            let bits = |f: u32| PRECISION as u32 - (31 - f.leading_zeros());
            let surprise = bits(v.frequency).min(SURPRISE_CAP);
            let confidence = bits(v.top).min(3);
            let rank = if v.check { 4 } else { v.rank.min(3) };
            (surprise, confidence, rank)
        }
        _ => (SURPRISE_CAP + 1, 4, 5),
    }
}

/// Coding 6: the counters' slowest rate, 1/(this+2) ([`Mixed::with_limit`]).
const PACE_LIMIT: u8 = 255;

/// Classes of surprise above this are one.
const SURPRISE_CAP: u32 = 8;

impl SpentModel {
    /// Fresh models.
    pub fn new() -> Self {
        Self::default()
    }

    /// Fresh models of coding 4: with the move model's view as contexts.
    pub fn with_views() -> Self {
        SpentModel { views: true, ..Self::default() }
    }

    /// Fresh models of coding 6: those of coding 4, with the time left per move still to play
    /// and the game's ending as contexts ([`PlyFacts::own_left`], [`PlyFacts::ending`]), and
    /// counters that adapt more slowly in the end (down to 1/257: `PACE_LIMIT`).
    pub fn with_pace() -> Self {
        SpentModel { views: true, pace: true, mixed: Mixed::with_limit(PACE_LIMIT), ..Self::default() }
    }

    /// Starts a game between `players` (hashes of the names, 0 unknown).
    pub fn start_game(&mut self, players: [u32; 2]) {
        self.spends = [[None; 2]; 2];
        self.players = players;
    }

    /// Codes `spent` (units of `unit` ms) of `color`, who had `left_ms` before the move, under
    /// the time control `control` (base and increment in ms), after a move `facts` describe.
    ///
    /// # Errors
    /// The decoder's [`Error::Corrupt`].
    #[allow(clippy::too_many_arguments)]
    pub fn code<C: SymbolCoder>(
        &mut self,
        c: &mut C,
        color: usize,
        unit: u64,
        left_ms: Option<u64>,
        control: Option<(u64, u64)>,
        facts: PlyFacts,
        spent: i64,
    ) -> Result<i64, Error> {
        let class = |s: Option<u64>| s.map_or(NONE, |s| length(s, 8));
        let (speed, increment, ratio) = match control {
            Some((base, inc)) => {
                let estimate = (base + 40 * inc) / 1000;
                let speed = match estimate {
                    0..=29 => 0,
                    30..=179 => 1,
                    180..=479 => 2,
                    480..=1499 => 3,
                    _ => 4,
                };
                let ratio = match (left_ms, base) {
                    (Some(l), b) if b > 0 => (l.saturating_mul(8) / b).min(9) as u32,
                    _ => 10,
                };
                (speed, (inc > 0) as u32, ratio)
            }
            None => (5, 2, 11),
        };
        let f = Features {
            speed,
            increment,
            own: class(self.spends[color][0]),
            own2: class(self.spends[color][1]),
            opp: class(self.spends[1 - color][0]),
            ratio,
            left: left_ms.map_or(40, |l| {
                let s = l / 1000;
                if s < 60 { (s / 5) as u32 } else { 12 + length(s / 60, 20) }
            }),
            player: self.players[color],
            phase: length(facts.fullmove as u64, 7),
            flags: (facts.legal == 1) as u32
                | (facts.recapture as u32) << 1
                | (facts.in_check as u32) << 2
                | (facts.capture as u32) << 3
                | ((facts.legal <= 3) as u32) << 4,
            surprise: 0,
            confidence: 0,
            rank: 0,
            pace: match (left_ms, facts.own_left) {
                (Some(l), Some(n)) if n > 0 => length(l / 1000 * 4 / n as u64, 12),
                _ => 13,
            },
            own_left: facts.own_left.map_or(8, |n| length(n as u64, 7)),
            ending: facts.ending,
        };
        let mut f = f;
        (f.surprise, f.confidence, f.rank) = view_classes(facts.view);
        let neg_keys = [key(1, &[f.speed, f.own]), key(2, &[f.ratio])];
        let spent = if self.mixed.code(c, 0, &neg_keys, spent < 0)? {
            let m = self.negative.code_value(c, spent.unsigned_abs().saturating_sub(1))?;
            let m = i64::try_from(m).map_err(|_| Error::Corrupt("clock out of range".into()))?;
            -m - 1
        } else {
            let v = spent.max(0) as u64;
            // Unary up to UNARY (each small spend its own probability), then the bit length of
            // the rest in unary and its bits below the leading one.
            let mut n = 0u32;
            while n < UNARY {
                let j = n;
                let mut keys = vec![
                    key(3, &[j, f.speed, f.own]),
                    key(4, &[j, f.speed, f.own, f.own2]),
                    key(5, &[j, f.speed, f.own, f.opp]),
                    key(6, &[j, f.speed, f.left, f.phase]),
                    key(7, &[j, f.speed, f.own, f.flags]),
                    key(8, &[j, f.speed, f.left, f.increment]),
                    key(9, &[j, f.phase, f.own, f.speed, f.ratio]),
                    key(15, &[j, f.speed, f.player]),
                    key(16, &[j, f.speed, f.player, f.own]),
                    key(17, &[j, f.speed, f.left.min(6), f.own, f.opp]),
                ];
                if self.views {
                    keys.push(key(20, &[j, f.speed, f.surprise, f.phase]));
                    keys.push(key(21, &[j, f.speed, f.rank, f.confidence, f.own]));
                    keys.push(key(22, &[j, f.speed, f.surprise, f.left.min(8), f.flags & 3]));
                }
                if self.pace {
                    keys.push(key(23, &[j, f.speed, f.ending, f.pace]));
                    keys.push(key(24, &[j, f.speed, f.ending, f.own_left, f.pace]));
                }
                if !self.mixed.code(c, 1 + j * 8 + f.speed, &keys, v > n as u64)? {
                    break;
                }
                n += 1;
            }
            if n < UNARY {
                n as i64
            } else {
                let rest = v.saturating_sub(UNARY as u64);
                let k = length(rest, 64) as usize;
                let mut len = 0;
                while len < MAX_LENGTH {
                    let j = len as u32;
                    if !self.mixed.code(c, 150 + j, &[key(18, &[j, f.speed]), key(19, &[j, f.own, f.speed])], k > len)? {
                        break;
                    }
                    len += 1;
                }
                if !c.decoding() && len != k {
                    return Err(Error::Corrupt("clock beyond the longest spend".into()));
                }
                let mut acc: u64 = if len == 0 { 0 } else { 1 };
                for i in (0..len.saturating_sub(1)).rev() {
                    let (j, node) = (len as u32, acc.min(1 << 8) as u32);
                    let b = (rest >> i) & 1 == 1;
                    let keys = [key(10, &[j, node, i as u32]), key(11, &[j, node, i as u32, f.speed])];
                    let b = self.mixed.code(c, 200 + j, &keys, b)?;
                    acc = acc << 1 | b as u64;
                }
                let total = acc.checked_add(UNARY as u64).ok_or_else(|| Error::Corrupt("clock out of range".into()))?;
                i64::try_from(total).map_err(|_| Error::Corrupt("clock out of range".into()))?
            }
        };
        let seconds = (spent.max(0) as u64).saturating_mul(unit) / 1000;
        self.spends[color] = [Some(seconds), self.spends[color][0]];
        Ok(spent)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::entropy::cdf::TOTAL;

    #[test]
    fn view_classes_bucket_surprise_confidence_and_rank() {
        // The played move had half the probability and was the best: 1 bit, sure, rank 0.
        let best = MoveView { frequency: TOTAL / 2, top: TOTAL / 2, rank: 0, legal: 20, check: false };
        assert_eq!(view_classes(Some(best)), (1, 1, 0));
        // A forced move: 0 bits.
        let forced = MoveView { frequency: TOTAL, top: TOTAL, rank: 0, legal: 1, check: false };
        assert_eq!(view_classes(Some(forced)), (0, 0, 0));
        // A surprising move, the fifth choice, capped; a check given is a class of its own.
        let odd = MoveView { frequency: 3, top: TOTAL / 8, rank: 4, legal: 30, check: false };
        assert_eq!(view_classes(Some(odd)), (SURPRISE_CAP, 3, 3));
        assert_eq!(view_classes(Some(MoveView { check: true, ..odd })).2, 4);
        // No view (a variation, coding 3, a null move): classes of their own.
        assert_eq!(view_classes(None), (SURPRISE_CAP + 1, 4, 5));
        assert_eq!(view_classes(Some(MoveView::default())), view_classes(None));
    }
}
