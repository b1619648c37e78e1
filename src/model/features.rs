//! Sparse features of moves, game ends and results, and their weight layouts.
//!
//! Each candidate (a legal move, "the game ends here", a result) is described by a few active
//! features `(index, value)`, values in units of 1/[`ONE`]. Its logit is the dot product with
//! the weights of the layout. The same extraction code feeds the coder (a dot product) and the
//! tuner (stored feature rows), so what is tuned is exactly what is coded.
//!
//! Squares are seen from the mover: Black's squares are mirrored vertically, so `from.P` rank 2
//! is each side's own second rank.

use shakmaty::{Bitboard, Chess, Color, Position, Role, Square, attacks};

use super::game::GameState;
use crate::chess::GameResult;

use crate::chess::check::{CheckInfo, role_index};
use crate::chess::movegen::Packed;
use crate::chess::rays::slider_attacks;
use crate::chess::{Threats, see, see_unopposed};

/// Feature value 1.0.
pub const ONE: i32 = 256;

/// Receives the active features of one candidate.
pub trait Sink {
    /// Feature `index` is active with `value` (units of 1/[`ONE`]).
    fn put(&mut self, index: usize, value: i32);

    /// Feature `index` is active with value 1 ([`ONE`]): most features are.
    #[inline]
    fn put_one(&mut self, index: usize) {
        self.put(index, ONE);
    }
}

/// The plain [`Sink`]: collects the features as `(index, value)` pairs, in the order they come
/// (indices below 2^16, values in 1/[`ONE`] within `i16`: every feature layout's).
impl Sink for Vec<(u16, i16)> {
    #[inline]
    fn put(&mut self, index: usize, value: i32) {
        self.push((index as u16, value as i16));
    }
}

/// A [`Sink`] that computes the logit: the dot product with weights, in logit units.
pub struct Dot<'w> {
    weights: &'w [i32],
    acc: i64,
    /// Sum of the weights of the features of value [`ONE`] (multiplied by `ONE` at the end:
    /// the same integer sum, one multiplication instead of one per feature).
    ones: i64,
}

impl<'w> Dot<'w> {
    /// Starts a dot product with `weights`.
    #[inline]
    pub fn new(weights: &'w [i32]) -> Self {
        Dot { weights, acc: 0, ones: 0 }
    }

    /// The logit (weights times values, divided by [`ONE`], rounded down).
    #[inline]
    pub fn logit(&self) -> i32 {
        ((self.acc + self.ones * ONE as i64) >> 8).clamp(i32::MIN as i64 / 2, i32::MAX as i64 / 2) as i32
    }
}

impl Sink for Dot<'_> {
    #[inline]
    fn put(&mut self, index: usize, value: i32) {
        self.acc += self.weights[index] as i64 * value as i64;
    }

    #[inline]
    fn put_one(&mut self, index: usize) {
        self.ones += self.weights[index] as i64;
    }
}

/// Chebyshev distance between squares (shakmaty's [`Square::distance`]), tabulated.
static DISTANCE: [[u8; 64]; 64] = {
    let mut t = [[0u8; 64]; 64];
    let mut a: usize = 0;
    while a < 64 {
        let mut b: usize = 0;
        while b < 64 {
            let df = (a % 8).abs_diff(b % 8);
            let dr = (a / 8).abs_diff(b / 8);
            t[a][b] = if df > dr { df as u8 } else { dr as u8 };
            b += 1;
        }
        a += 1;
    }
    t
};

/// Knots (centipawns) of the piecewise-linear function of a move's loss against the best move.
pub const LOSS_KNOTS: [i32; 8] = [0, 15, 40, 80, 150, 300, 600, 1200];

/// Buckets of a move's static exchange evaluation (centipawns).
pub(crate) const SEE_EDGES: [i32; 7] = [-400, -150, -1, 1, 150, 400, 800];

/// Game phases, by non-pawn material on the board.
pub const PHASES: usize = 3;

pub use super::game::SKILLS;

/// Buckets of the side to move's evaluation (centipawns) for end and result features.
pub(crate) const EVAL_EDGES: [i32; 11] = [-900, -500, -300, -150, -60, 0, 60, 150, 300, 500, 900];

/// Buckets of the last move's loss (centipawns) for end and result features.
pub(crate) const LAST_LOSS_EDGES: [i32; 5] = [1, 50, 150, 300, 600];

/// Buckets of the ply number for end and result features.
pub(crate) const PLY_EDGES: [u32; 9] = [1, 2, 10, 20, 40, 60, 80, 120, 200];

/// Game phases by ply for the end and result models' evaluation x phase features (4 phases).
pub(crate) const OUTCOME_PHASE_EDGES: [u32; 3] = [40, 80, 120];

/// Buckets of the number of pieces on the board (kings and pawns included) for end and
/// result features.
pub(crate) const PIECES_EDGES: [u32; 9] = [4, 6, 8, 10, 12, 16, 20, 24, 28];

/// Buckets of the number of legal moves for the end feature `legal`.
pub(crate) const LEGAL_EDGES: [usize; 8] = [2, 3, 4, 6, 10, 20, 30, 40];

crate::model::params::feature_layout! {
    /// Weights of the move model.
    pub mod move_layout {
        LOSS: super::PHASES * super::SKILLS * 8 => "loss",
        FROM_P: 64 => "from.P",
        FROM_N: 64 => "from.N",
        FROM_B: 64 => "from.B",
        FROM_R: 64 => "from.R",
        FROM_Q: 64 => "from.Q",
        FROM_K: 64 => "from.K",
        TO_P: 64 => "to.P",
        TO_N: 64 => "to.N",
        TO_B: 64 => "to.B",
        TO_R: 64 => "to.R",
        TO_Q: 64 => "to.Q",
        TO_K: 64 => "to.K",
        CAPTURE: 36 => "capture",
        PROMOTION: 4 => "promotion",
        CHECK: 6 => "check",
        RECAPTURE: 6 => "recapture",
        SAME_PIECE: 6 => "same_piece",
        DIST_LAST: 8 => "dist_last",
        ESCAPE: 6 => "escape",
        ESCAPE_HANGING: 6 => "escape_hanging",
        TO_ATTACKED: 6 => "to_attacked",
        TO_HANGING: 6 => "to_hanging",
        THREATENS: 5 => "threatens",
        CAPTURE_FREE: 5 => "capture_free",
        TO_PAWN_ATTACKED: 6 => "to_pawn_attacked",
        ESCAPE_THREAT: 6 => "escape_threat",
        SEE: 8 => "see",
        SEE_LOSS: 6 => "see_loss",
    }
}

crate::model::params::feature_layout! {
    /// Weights of the game-end model (logit of "the game ends before this ply").
    pub mod end_layout {
        BIAS: 1 => "bias",
        EVAL: 12 => "eval",
        PLY: 10 => "ply",
        IN_CHECK: 1 => "in_check",
        INSUFFICIENT: 1 => "insufficient",
        REPETITION: 1 => "repetition",
        FIFTY: 1 => "fifty",
        LAST_CAPTURE: 1 => "last_capture",
        LAST_LOSS: 6 => "last_loss",
        EVAL_PHASE: 12 * 4 => "eval_phase",
        OWN_PREV_EVAL: 12 => "own_prev_eval",
        EVAL_SWING: 12 => "eval_swing",
        PIECES: 10 => "pieces",
        LEGAL: 9 => "legal",
    }
}

/// Groups of [`end_layout`] that every model file has had since version 1. The later groups
/// (version 4's) are written by [`crate::model::Model::to_text`] only where non-zero, so that
/// the models released before them keep their text and ids (and zero weights keep their
/// tables).
pub const END_GROUPS_V1: usize = 9;

/// Result classes from the side to move's point of view.
pub(crate) const RESULT_CLASSES: usize = 4;

crate::model::params::feature_layout! {
    /// Weights of the result model: for each context feature, 4 weights (side to move wins,
    /// loses, draw, unknown).
    pub mod result_layout {
        BIAS: 4 => "bias",
        CHECKMATE: 4 => "checkmate",
        STALEMATE: 4 => "stalemate",
        INSUFFICIENT: 4 => "insufficient",
        REPETITION: 4 => "repetition",
        EVAL: 4 * 12 => "eval",
        PLY: 4 * 10 => "ply",
        LAST_LOSS: 4 * 6 => "last_loss",
    }
}

/// Result class from the side to move's point of view: 0 wins, 1 loses, 2 draw, 3 unknown.
pub fn result_class(result: GameResult, turn: Color) -> usize {
    match (result, turn) {
        (GameResult::WhiteWins, Color::White) | (GameResult::BlackWins, Color::Black) => 0,
        (GameResult::WhiteWins, Color::Black) | (GameResult::BlackWins, Color::White) => 1,
        (GameResult::Draw, _) => 2,
        (GameResult::Unknown, _) => 3,
    }
}

/// Inverse of [`result_class`].
pub(crate) fn class_result(class: usize, turn: Color) -> GameResult {
    match (class, turn) {
        (0, Color::White) | (1, Color::Black) => GameResult::WhiteWins,
        (0, Color::Black) | (1, Color::White) => GameResult::BlackWins,
        (2, _) => GameResult::Draw,
        _ => GameResult::Unknown,
    }
}

/// Index of the bucket of `x` among ascending `edges` (`edges.len() + 1` buckets).
#[inline]
pub fn bucket<T: PartialOrd + Copy>(x: T, edges: &[T]) -> usize {
    // For ascending edges, the number of edges <= x: counted without branches.
    edges.iter().map(|&e| (x >= e) as usize).sum()
}

/// What to xor a square index with to see it from `color`'s side: 0 for White, 56 for Black.
#[inline]
fn flip(color: Color) -> usize {
    match color {
        Color::White => 0,
        Color::Black => 56,
    }
}

/// Game phase in `0..PHASES` from non-pawn material (Sunfish values, both sides).
pub fn phase(pos: &Chess) -> usize {
    let b = pos.board();
    let material = 280 * b.knights().count() as i32
        + 320 * b.bishops().count() as i32
        + 479 * b.rooks().count() as i32
        + 929 * b.queens().count() as i32;
    if material >= 4500 {
        0
    } else if material >= 2200 {
        1
    } else {
        2
    }
}

/// The loss features of a loss `0..=LOSS_KNOTS[7]`: knot `k` and the fraction (in 1/[`ONE`])
/// of the way to knot `k + 1`, i.e. weights `ONE - frac` on knot `k` and `frac` on `k + 1`.
/// A table of the definition `k = last knot <= loss` (at most 6),
/// `frac = (loss - knot k) * ONE / (knot k+1 - knot k)`, so that no division is left per move.
static LOSS_INTERPOLATION: [(u8, u16); LOSS_KNOTS[7] as usize + 1] = {
    let mut table = [(0u8, 0u16); LOSS_KNOTS[7] as usize + 1];
    let mut loss = 0;
    while loss <= LOSS_KNOTS[7] {
        let mut k = 7;
        while LOSS_KNOTS[k] > loss {
            k -= 1;
        }
        if k > 6 {
            k = 6;
        }
        let frac = (loss - LOSS_KNOTS[k]) * ONE / (LOSS_KNOTS[k + 1] - LOSS_KNOTS[k]);
        table[loss as usize] = (k as u8, frac as u16);
        loss += 1;
    }
    table
};

/// The move weights prepared for [`MoveContext::logits`]: the weights, and the loss feature's
/// contribution tabulated for every loss `0..=LOSS_KNOTS[7]` centipawns and every (phase,
/// skill) row, so that the per-move loop reads one value instead of interpolating. Each entry
/// is the weighted sum of [`MoveContext::features`]' two loss features, in 1/[`ONE`] logit
/// units (what [`Dot`] accumulates before dividing by `ONE`). About 140 KiB; build it once
/// per block, not per ply.
pub struct MoveWeights<'w> {
    weights: &'w [i32; move_layout::LEN],
    /// Every weight is within `±SMALL_WEIGHT`: then no logit can reach the clamp of
    /// [`Dot::logit`], so the per-move loop skips it. At most 18 features of value [`ONE`] are
    /// active for a move (8 in [`MoveContext::features`] itself, 10 tactical ones), each adding
    /// at most `2^20 * ONE`, and the two loss features at most `2^20 * ONE` together: a sum
    /// below `19 * 2^28`, a logit below `2^25`, far inside `±2^30`. **A new feature must keep
    /// this bound** (or lower `SMALL_WEIGHT`).
    small: bool,
    /// `PHASES * SKILLS` rows of `LOSS_KNOTS[7] + 1` entries.
    loss: Box<[[i64; LOSS_KNOTS[7] as usize + 1]]>,
}

/// Bound on the weights below which logits need no clamping (see [`MoveWeights`]); fitted
/// weights are a few thousand.
const SMALL_WEIGHT: u32 = 1 << 20;

impl<'w> MoveWeights<'w> {
    /// Prepares `weights` (the move layout, [`move_layout::LEN`] long).
    ///
    /// # Panics
    /// If `weights` does not have the layout's length.
    pub fn new(weights: &'w [i32]) -> Self {
        let weights: &[i32; move_layout::LEN] = weights.try_into().expect("move weights have the layout's length");
        let loss = (0..PHASES * SKILLS)
            .map(|row| {
                let w = &weights[move_layout::LOSS + row * 8..][..8];
                std::array::from_fn(|loss| {
                    let (k, frac) = LOSS_INTERPOLATION[loss];
                    let (k, frac) = (k as usize, frac as i64);
                    // The value-0 feature of a whole knot adds 0 (k + 1 exists: k <= 6).
                    w[k] as i64 * (ONE as i64 - frac) + w[k + 1] as i64 * frac
                })
            })
            .collect();
        MoveWeights { weights, loss, small: weights.iter().all(|w| w.unsigned_abs() <= SMALL_WEIGHT) }
    }
}

/// Everything about one position that move features need, computed once per ply.
pub struct MoveContext<'a> {
    /// The position before the move.
    pub pos: &'a Chess,
    /// The legal moves, in canonical order.
    pub moves: &'a [Packed],
    /// Engine score of each move (centipawns, side to move's point of view).
    pub scores: &'a [i32],
    /// `max(scores)`.
    pub best: i32,
    /// Destination of the opponent's last move, if any.
    pub last_to: Option<Square>,
    /// Destination of the side to move's own previous move, if any.
    pub own_last_to: Option<Square>,
    phase: usize,
    skill: usize,
    checks: CheckInfo,
    /// Attack facts for the tactical features, when the model uses them.
    tactics: Option<Threats>,
    /// For the tactical feature `threatens`, by the role index of the moved piece (the
    /// promoted one's for a promotion): the enemy pieces that count if it attacks them, those
    /// worth more than it or undefended, kings excepted (empty without `tactics`).
    threat_targets: [Bitboard; 6],
    /// Squares are seen from the mover: `sq ^ flip` (Black mirrored vertically).
    flip: usize,
    /// `last_to` and `own_last_to` as square indices, 64 for none.
    last_to_index: usize,
    own_last_to_index: usize,
}

impl<'a> MoveContext<'a> {
    /// Precomputes the per-position facts; the attack facts of the tactical features
    /// (`escape*`, `to_*`, `threatens`, `capture_free`) only when `tactical` is set. `best`
    /// must be `max(scores)` (which the scorer knows).
    pub fn new(st: &'a GameState, moves: &'a [Packed], scores: &'a [i32], best: i32, tactical: bool) -> Self {
        debug_assert_eq!(best, scores.iter().copied().max().unwrap_or(0));
        let pos = &st.pos;
        let last_to = st.last.map(|m| m.to());
        let own_last_to = st.own_last.map(|m| m.to());
        let tactics = tactical.then(|| Threats::new(pos));
        MoveContext {
            pos,
            moves,
            scores,
            best,
            last_to,
            own_last_to,
            phase: phase(pos),
            skill: st.skill(),
            checks: CheckInfo::new(pos),
            tactics,
            threat_targets: tactics.map_or([Bitboard::EMPTY; 6], |t| threat_targets(pos, &t)),
            flip: flip(pos.turn()),
            last_to_index: last_to.map_or(64, |s| s as usize),
            own_last_to_index: own_last_to.map_or(64, |s| s as usize),
        }
    }

    /// Emits the features of move `i` into `sink`.
    #[inline]
    pub fn features(&self, i: usize, sink: &mut impl Sink) {
        use move_layout::*;
        let p = self.moves[i];
        let r = p.role();
        let (from, to) = (p.from(), p.to());

        // Loss against the best move, piecewise linear between knots, per phase.
        let loss = (self.best - self.scores[i]).clamp(0, LOSS_KNOTS[7]);
        let (k, frac) = LOSS_INTERPOLATION[loss as usize];
        let (k, frac) = (k as usize, frac as i32);
        let base = LOSS + (self.phase * SKILLS + self.skill) * 8;
        if frac < ONE {
            sink.put(base + k, ONE - frac);
        }
        if frac > 0 {
            sink.put(base + k + 1, frac);
        }

        // Origin and destination (the king's for castling), seen from the mover.
        sink.put_one(FROM_P + r * 64 + (from ^ self.flip));
        sink.put_one(TO_P + r * 64 + (to ^ self.flip));

        let victim = p.capture();
        if victim != 0 {
            sink.put_one(CAPTURE + r * 6 + victim - 1);
            if to == self.last_to_index {
                sink.put_one(RECAPTURE + r);
            }
        }
        let promotion = p.promotion();
        if promotion != 0 {
            // Knight, bishop, rook, queen.
            sink.put_one(PROMOTION + (promotion - 1).saturating_sub(1).min(3));
        }
        if self.checks.gives_check_packed(self.pos, p) {
            sink.put_one(CHECK + r);
        }
        if from == self.own_last_to_index {
            sink.put_one(SAME_PIECE + r);
        }
        if self.last_to_index < 64 {
            sink.put_one(DIST_LAST + (DISTANCE[self.last_to_index][to] as usize).min(7));
        }
        if let Some(t) = &self.tactics {
            self.tactical_features(t, p, sink);
        }
    }

    /// The logits of all moves into `out` (cleared first), returning their maximum: for each
    /// move, what [`Dot`] with `weights` gives over [`MoveContext::features`] (the same integer
    /// sums), computed group by group with the weights read directly instead of through a
    /// [`Sink`], which the coder needs for speed. **Keep in step with `features`**: a feature
    /// added there must be added here; the test `logits_match_features` compares both for
    /// every move of thousands of positions with random weights.
    pub fn logits(&self, weights: &MoveWeights, out: &mut Vec<i32>) -> i32 {
        // Four copies of the loop: without the tactical features (level 1) and without the
        // clamp (the embedded models) it is small enough to keep its values in registers.
        match (&self.tactics, weights.small) {
            (None, true) => self.logits_with::<false, false>(weights, out),
            (None, false) => self.logits_with::<false, true>(weights, out),
            (Some(_), true) => self.logits_with::<true, false>(weights, out),
            (Some(_), false) => self.logits_with::<true, true>(weights, out),
        }
    }

    /// [`MoveContext::logits`], with the tactical features iff `TACTICAL` (which must agree
    /// with `self.tactics`), clamping each logit as [`Dot::logit`] does iff `CLAMP` (which
    /// may be false only for [`MoveWeights::small`] weights).
    #[inline(always)]
    fn logits_with<const TACTICAL: bool, const CLAMP: bool>(&self, weights: &MoveWeights, out: &mut Vec<i32>) -> i32 {
        use move_layout::*;
        let w = weights.weights;
        let loss_row = &weights.loss[self.phase * SKILLS + self.skill];
        let (flip, last, own_last) = (self.flip, self.last_to_index, self.own_last_to_index);
        let distances: &[u8; 64] = &DISTANCE[last.min(63)];
        let from_w: &[i32; 384] = w[FROM_P..FROM_P + 384].try_into().expect("6 tables");
        let to_w: &[i32; 384] = w[TO_P..TO_P + 384].try_into().expect("6 tables");
        // Without a last move (`last == 64`) no distance feature is active: zero weights.
        let dist_w: [i64; 8] = if last < 64 { std::array::from_fn(|d| w[DIST_LAST + d] as i64) } else { [0; 8] };

        let mut z_max = i32::MIN;
        out.clear();
        out.extend(self.moves.iter().zip(self.scores).map(|(&p, &score)| {
            let r = p.role();
            let (from, to) = (p.from(), p.to());
            // Loss against the best move (tabulated interpolation between knots).
            let mut acc = loss_row[(self.best - score).clamp(0, LOSS_KNOTS[7]) as usize];
            // Features of value ONE: their weights are summed, times ONE at the end.
            let mut ones = from_w[r * 64 + (from ^ flip)] as i64 + to_w[r * 64 + (to ^ flip)] as i64;
            if p.0 >> 15 != 0 {
                let victim = p.capture();
                if victim != 0 {
                    ones += w[CAPTURE + r * 6 + victim - 1] as i64;
                    if to == last {
                        ones += w[RECAPTURE + r] as i64;
                    }
                }
                let promotion = p.promotion();
                if promotion != 0 {
                    ones += w[PROMOTION + (promotion - 1).saturating_sub(1).min(3)] as i64;
                }
            }
            if self.checks.gives_check_packed(self.pos, p) {
                ones += w[CHECK + r] as i64;
            }
            if from == own_last {
                ones += w[SAME_PIECE + r] as i64;
            }
            // Chebyshev distances are at most 7.
            ones += dist_w[distances[to] as usize & 7];
            if TACTICAL && let Some(t) = &self.tactics {
                let mut dot = Dot::new(w);
                self.tactical_features(t, p, &mut dot);
                acc += dot.acc;
                ones += dot.ones;
            }
            let z = (acc + ones * ONE as i64) >> 8;
            // Without large weights, `z` is far inside the clamp of `Dot::logit`.
            let z = if CLAMP { z.clamp(i32::MIN as i64 / 2, i32::MAX as i64 / 2) as i32 } else { z as i32 };
            z_max = z_max.max(z);
            z
        }));
        z_max
    }

    /// The features that need attack maps: captures of undefended pieces, escapes from
    /// threats, unsafe destinations, new threats. Read from the packed move's fields (role and
    /// piece indices); the move is built as a [`shakmaty::Move`] only for a full static exchange.
    fn tactical_features(&self, t: &Threats, p: Packed, sink: &mut impl Sink) {
        use move_layout::*;
        let us = self.pos.turn();
        let (from, to) = (Square::new(p.from() as u32), Square::new(p.to() as u32));
        let r = p.role();
        let is_king = r == role_index(Role::King);
        // Captured and promotion role indices + 1 (0: none).
        let (victim, promotion) = (p.capture(), p.promotion());
        if victim != 0 && !t.their_defended.contains(to) {
            sink.put_one(CAPTURE_FREE + victim - 1);
        }
        let see = if p.kind() == Packed::NORMAL && t.unopposed(from, to) {
            let role_of = |index_plus_one: usize| index_plus_one.checked_sub(1).map(|i| Role::ALL[i]);
            see_unopposed(Role::ALL[r], role_of(victim), role_of(promotion))
        } else {
            see(self.pos, &p.to_move())
        };
        sink.put_one(SEE + bucket(see, &SEE_EDGES));
        if see < 0 {
            sink.put_one(SEE_LOSS + r);
        }
        if !is_king {
            if (t.attacked_by_lesser | t.hanging()).contains(from) {
                sink.put_one(ESCAPE_THREAT + r);
            }
            if t.their_attacks.contains(from) {
                sink.put_one(ESCAPE + r);
                if !t.our_attacks.contains(from) {
                    sink.put_one(ESCAPE_HANGING + r);
                }
            }
            if t.their_pawn_attacks.contains(to) {
                sink.put_one(TO_PAWN_ATTACKED + r);
            }
            if t.their_attacks.contains(to) {
                sink.put_one(TO_ATTACKED + r);
                if !t.our_attacks.contains(to) {
                    sink.put_one(TO_HANGING + r);
                }
            }
        }
        // New threats: enemy pieces (not the king) the moved piece attacks from its destination
        // that are worth more than it or are undefended; the most valuable one counts.
        let board = self.pos.board();
        let occupied = (board.occupied() ^ from) | to;
        let role = promotion.checked_sub(1).unwrap_or(r);
        let candidates = self.threat_targets[role];
        let threatened = match Role::ALL[role] {
            Role::Pawn => attacks::pawn_attacks(us, to) & candidates,
            Role::Knight => attacks::knight_attacks(to) & candidates,
            Role::Bishop => slider_attacks(to, occupied, candidates, Bitboard::EMPTY),
            Role::Rook => slider_attacks(to, occupied, Bitboard::EMPTY, candidates),
            Role::Queen => slider_attacks(to, occupied, candidates, candidates),
            Role::King => attacks::king_attacks(to) & candidates,
        };
        if let Some(victim) =
            [Role::Queen, Role::Rook, Role::Bishop, Role::Knight, Role::Pawn].into_iter().find(|&v| (threatened & board.by_role(v)).any())
        {
            sink.put_one(THREATENS + role_index(victim));
        }
    }
}

/// The enemy pieces that count for the tactical feature `threatens` when a piece of each role
/// (by role index) attacks them, given `t` ([`Threats::new`] of `pos`): those worth more than
/// it (Sunfish's order: pawn < knight < bishop < rook < queen) or undefended, kings excepted.
fn threat_targets(pos: &Chess, t: &Threats) -> [Bitboard; 6] {
    let board = pos.board();
    let eligible = board.by_color(!pos.turn()) & !board.kings();
    Role::ALL.map(|role| {
        let worth_more = match role {
            Role::Pawn => board.knights() | board.bishops() | board.rooks() | board.queens(),
            Role::Knight => board.bishops() | board.rooks() | board.queens(),
            Role::Bishop => board.rooks() | board.queens(),
            Role::Rook => board.queens(),
            Role::Queen | Role::King => Bitboard::EMPTY,
        };
        (worth_more | !t.their_defended) & eligible
    })
}

/// Facts about the position before a ply that the end and result models use.
#[derive(Clone, Copy, Debug)]
pub struct EndContext {
    /// Evaluation for the side to move in centipawns (static + best move score), or -MATE.
    pub eval: i32,
    /// Ply number (0 before White's first move).
    pub ply: u32,
    /// The side to move is in check.
    pub in_check: bool,
    /// The side to move has no legal move and is in check.
    pub checkmate: bool,
    /// The side to move has no legal move and is not in check.
    pub stalemate: bool,
    /// Neither side can mate.
    pub insufficient: bool,
    /// The position occurred at least twice before in this game.
    pub repetition: bool,
    /// 100 or more plies without capture or pawn move.
    pub fifty: bool,
    /// The last move captured.
    pub last_capture: bool,
    /// Loss of the last move against the engine's best (centipawns, capped).
    pub last_loss: i32,
    /// The side to move's evaluation at its previous turn (centipawns, its view; 0 before
    /// its first move): [`crate::model::GameState::own_prev_eval`].
    pub own_prev_eval: i32,
    /// Pieces on the board, kings and pawns included (2..=32).
    pub pieces: u32,
    /// Number of legal moves.
    pub legal: usize,
}

impl EndContext {
    /// Change of the side to move's evaluation since its previous turn (centipawns): what the
    /// last two plies did to it. Before the side's first move (of the game, or of a PGN
    /// variation, which starts a fresh state) the previous evaluation is 0, so this is the
    /// evaluation itself; across a null move, "previous turn" is the one before it.
    fn swing(&self) -> i32 {
        self.eval.saturating_sub(self.own_prev_eval)
    }

    /// Emits the features of "the game ends here".
    pub(crate) fn end_features(&self, sink: &mut impl Sink) {
        use end_layout::*;
        sink.put_one(BIAS);
        sink.put_one(EVAL + bucket(self.eval, &EVAL_EDGES));
        sink.put_one(PLY + bucket(self.ply, &PLY_EDGES));
        sink.put_one(LAST_LOSS + bucket(self.last_loss, &LAST_LOSS_EDGES));
        sink.put_one(EVAL_PHASE + 4 * bucket(self.eval, &EVAL_EDGES) + bucket(self.ply, &OUTCOME_PHASE_EDGES));
        sink.put_one(OWN_PREV_EVAL + bucket(self.own_prev_eval, &EVAL_EDGES));
        sink.put_one(EVAL_SWING + bucket(self.swing(), &EVAL_EDGES));
        sink.put_one(PIECES + bucket(self.pieces, &PIECES_EDGES));
        sink.put_one(LEGAL + bucket(self.legal, &LEGAL_EDGES));
        for (on, index) in [
            (self.in_check, IN_CHECK),
            (self.insufficient, INSUFFICIENT),
            (self.repetition, REPETITION),
            (self.fifty, FIFTY),
            (self.last_capture, LAST_CAPTURE),
        ] {
            if on {
                sink.put_one(index);
            }
        }
    }

    /// Emits the features of result class `class` (0 side to move wins, 1 loses, 2 draw,
    /// 3 unknown).
    pub(crate) fn result_features(&self, class: usize, sink: &mut impl Sink) {
        use result_layout::*;
        sink.put_one(BIAS + class);
        sink.put_one(EVAL + 4 * bucket(self.eval, &EVAL_EDGES) + class);
        sink.put_one(PLY + 4 * bucket(self.ply, &PLY_EDGES) + class);
        sink.put_one(LAST_LOSS + 4 * bucket(self.last_loss, &LAST_LOSS_EDGES) + class);
        for (on, index) in
            [(self.checkmate, CHECKMATE), (self.stalemate, STALEMATE), (self.insufficient, INSUFFICIENT), (self.repetition, REPETITION)]
        {
            if on {
                sink.put_one(index + class);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::chess::move_value;
    use crate::chess::movegen::legal_moves_sorted_into;
    use crate::model::{Level, MAX_LEVEL, MIN_LEVEL, Model};

    #[test]
    fn logits_match_features() {
        let mut x: u64 = 0x2545_f491_4f6c_dd1d;
        let mut next = move || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x
        };
        let mut weight_sets: Vec<Vec<i32>> = Level::all().map(|l| Model::builtin(l).move_weights.clone()).collect();
        for _ in 0..3 {
            weight_sets.push((0..move_layout::LEN).map(|_| (next() % 4001) as i32 - 2000).collect());
        }
        // Weights so large that logits reach the clamp (the clamping loop).
        weight_sets.push((0..move_layout::LEN).map(|_| (next() as i32) / 2).collect());
        weight_sets.push((0..move_layout::LEN).map(|_| i32::MAX - (next() % 4) as i32).collect());
        let prepared: Vec<MoveWeights> = weight_sets.iter().map(|w| MoveWeights::new(w)).collect();
        assert!(prepared.iter().take((MAX_LEVEL - MIN_LEVEL + 1) as usize).all(|p| p.small), "the embedded models skip the clamp");
        assert!(prepared.iter().any(|p| !p.small));
        let mut clamped = 0;
        let mut moves = Vec::new();
        let mut out = Vec::new();
        let mut checked = 0;
        for (g, line) in include_str!("../../data/Chess_Games.txt").lines().take(150).enumerate() {
            let game = crate::text::parse_game(line.as_bytes()).unwrap();
            let mut st = GameState::new();
            for m in game.moves {
                moves.clear();
                legal_moves_sorted_into(&st.pos, &mut moves);
                let scale = [1, 3, 10][g % 3];
                let scores: Vec<i32> = moves.iter().map(|c| move_value(&st.pos, &c.to_move()) * scale).collect();
                for tactical in [false, true] {
                    let best = scores.iter().copied().max().unwrap_or(0);
                    let ctx = MoveContext::new(&st, &moves, &scores, best, tactical);
                    for (w, prepared) in weight_sets.iter().zip(&prepared) {
                        let z_max = ctx.logits(prepared, &mut out);
                        let expected: Vec<i32> = (0..moves.len())
                            .map(|i| {
                                let mut dot = Dot::new(w);
                                ctx.features(i, &mut dot);
                                dot.logit()
                            })
                            .collect();
                        assert_eq!(out, expected);
                        clamped += out.iter().filter(|&&z| z == i32::MAX / 2 || z == i32::MIN / 2).count();
                        assert_eq!(z_max, expected.iter().copied().max().unwrap());
                        checked += out.len();
                    }
                }
                st.record_loss((next() % 300) as i32);
                st.play(m);
            }
        }
        assert!(checked > 1_000_000, "{checked}");
        assert!(clamped > 1000, "{clamped}");
    }
}
