//! Sparse features of moves, game ends and results, and their weight layouts.
//!
//! Each candidate (a legal move, "the game ends here", a result) is described by a few active
//! features `(index, value)`, values in units of 1/[`ONE`]. Its logit is the dot product with
//! the weights of the layout. The same extraction code feeds the coder (a dot product) and the
//! tuner (stored feature rows), so what is tuned is exactly what is coded.
//!
//! Squares are seen from the mover: Black's squares are mirrored vertically, so `from.P` rank 2
//! is each side's own second rank.

use shakmaty::{Chess, Color, Move, Position, Role, Square};

use crate::model::GameState;
use crate::text::GameResult;

use super::check::{CheckInfo, role_index};
use crate::engine::{Threats, see};

/// Feature value 1.0.
pub const ONE: i32 = 256;

/// Receives the active features of one candidate.
pub trait Sink {
    /// Feature `index` is active with `value` (units of 1/[`ONE`]).
    fn put(&mut self, index: usize, value: i32);
}

/// A [`Sink`] that computes the logit: the dot product with weights, in logit units.
pub struct Dot<'w> {
    weights: &'w [i32],
    acc: i64,
}

impl<'w> Dot<'w> {
    /// Starts a dot product with `weights`.
    #[inline]
    pub fn new(weights: &'w [i32]) -> Self {
        Dot { weights, acc: 0 }
    }

    /// The logit (weights times values, divided by [`ONE`], rounded down).
    #[inline]
    pub fn logit(&self) -> i32 {
        (self.acc >> 8).clamp(i32::MIN as i64 / 2, i32::MAX as i64 / 2) as i32
    }
}

impl Sink for Dot<'_> {
    #[inline]
    fn put(&mut self, index: usize, value: i32) {
        self.acc += self.weights[index] as i64 * value as i64;
    }
}

/// Knots (centipawns) of the piecewise-linear function of a move's loss against the best move.
pub const LOSS_KNOTS: [i32; 8] = [0, 15, 40, 80, 150, 300, 600, 1200];

/// Buckets of a move's static exchange evaluation (centipawns).
pub const SEE_EDGES: [i32; 7] = [-400, -150, -1, 1, 150, 400, 800];

/// Game phases, by non-pawn material on the board.
pub const PHASES: usize = 3;

/// Skill classes of the side to move ([`crate::model::GameState::skill`]).
pub const SKILLS: usize = 5;

/// Buckets of the side to move's evaluation (centipawns) for end and result features.
pub const EVAL_EDGES: [i32; 11] = [-900, -500, -300, -150, -60, 0, 60, 150, 300, 500, 900];

/// Buckets of the last move's loss (centipawns) for end and result features.
pub const LAST_LOSS_EDGES: [i32; 5] = [1, 50, 150, 300, 600];

/// Buckets of the ply number for end and result features.
pub const PLY_EDGES: [u32; 9] = [1, 2, 10, 20, 40, 60, 80, 120, 200];

crate::feature_layout! {
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

crate::feature_layout! {
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
    }
}

/// Result classes from the side to move's point of view.
pub const RESULT_CLASSES: usize = 4;

crate::feature_layout! {
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
pub fn class_result(class: usize, turn: Color) -> GameResult {
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
    edges.iter().take_while(|&&e| x >= e).count()
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

/// A legal move taken apart once: role index, origin, destination (the king's destination for
/// castling), captured role, promotion role.
#[derive(Clone, Copy, Debug)]
struct Parts {
    role: Role,
    from: Square,
    to: Square,
    capture: Option<Role>,
    promotion: Option<Role>,
}

impl Parts {
    #[inline]
    fn of(m: &Move) -> Parts {
        match *m {
            Move::Normal { role, from, capture, to, promotion } => Parts { role, from, to, capture, promotion },
            Move::EnPassant { from, to } => Parts { role: Role::Pawn, from, to, capture: Some(Role::Pawn), promotion: None },
            // Castling moves the king to its castling square (shakmaty stores the rook square).
            Move::Castle { king, .. } => {
                let side = m.castling_side().expect("castle");
                Parts { role: Role::King, from: king, to: Square::from_coords(side.king_to_file(), king.rank()), capture: None, promotion: None }
            }
            Move::Put { .. } => panic!("standard chess has no drops"),
        }
    }
}

/// Everything about one position that move features need, computed once per ply.
pub struct MoveContext<'a> {
    /// The position before the move.
    pub pos: &'a Chess,
    /// The legal moves, in canonical order.
    pub moves: &'a [Move],
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
    /// Squares are seen from the mover: `sq ^ flip` (Black mirrored vertically).
    flip: usize,
}

impl<'a> MoveContext<'a> {
    /// Precomputes the per-position facts; the attack facts of the tactical features
    /// (`escape*`, `to_*`, `threatens`, `capture_free`) only when `tactical` is set.
    pub fn new(st: &'a GameState, moves: &'a [Move], scores: &'a [i32], tactical: bool) -> Self {
        let pos = &st.pos;
        MoveContext {
            pos,
            moves,
            scores,
            best: scores.iter().copied().max().unwrap_or(0),
            last_to: st.last.map(|m| m.to()),
            own_last_to: st.own_last.map(|m| m.to()),
            phase: phase(pos),
            skill: st.skill(),
            checks: CheckInfo::new(pos),
            tactics: tactical.then(|| Threats::new(pos)),
            flip: flip(pos.turn()),
        }
    }

    /// Emits the features of move `i` into `sink`.
    #[inline]
    pub fn features(&self, i: usize, sink: &mut impl Sink) {
        use move_layout::*;
        let m = &self.moves[i];
        let Parts { role, from, to, capture, promotion } = Parts::of(m);
        let r = role_index(role);

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

        sink.put(FROM_P + r * 64 + (from as usize ^ self.flip), ONE);
        sink.put(TO_P + r * 64 + (to as usize ^ self.flip), ONE);

        if let Some(victim) = capture {
            sink.put(CAPTURE + r * 6 + role_index(victim), ONE);
            if Some(to) == self.last_to {
                sink.put(RECAPTURE + r, ONE);
            }
        }
        if let Some(p) = promotion {
            sink.put(PROMOTION + (role_index(p).saturating_sub(1)).min(3), ONE);
        }
        if self.checks.gives_check(self.pos, m) {
            sink.put(CHECK + r, ONE);
        }
        if Some(from) == self.own_last_to {
            sink.put(SAME_PIECE + r, ONE);
        }
        if let Some(last) = self.last_to {
            sink.put(DIST_LAST + (last.distance(to) as usize).min(7), ONE);
        }
        if let Some(t) = &self.tactics {
            self.tactical_features(t, m, from, to, sink);
        }
    }

    /// The features that need attack maps: captures of undefended pieces, escapes from
    /// threats, unsafe destinations, new threats.
    fn tactical_features(&self, t: &Threats, m: &Move, from: Square, to: Square, sink: &mut impl Sink) {
        use move_layout::*;
        let us = self.pos.turn();
        let role = m.role();
        let r = role_index(role);
        if let Some(victim) = m.capture() {
            if !t.their_defended.contains(to) {
                sink.put(CAPTURE_FREE + role_index(victim), ONE);
            }
        }
        let see = see(self.pos, m);
        sink.put(SEE + bucket(see, &SEE_EDGES), ONE);
        if see < 0 {
            sink.put(SEE_LOSS + r, ONE);
        }
        if role != Role::King {
            if (t.attacked_by_lesser | t.hanging()).contains(from) {
                sink.put(ESCAPE_THREAT + r, ONE);
            }
            if t.their_attacks.contains(from) {
                sink.put(ESCAPE + r, ONE);
                if !t.our_attacks.contains(from) {
                    sink.put(ESCAPE_HANGING + r, ONE);
                }
            }
            if t.their_pawn_attacks.contains(to) {
                sink.put(TO_PAWN_ATTACKED + r, ONE);
            }
            if t.their_attacks.contains(to) {
                sink.put(TO_ATTACKED + r, ONE);
                if !t.our_attacks.contains(to) {
                    sink.put(TO_HANGING + r, ONE);
                }
            }
        }
        // New threats: enemy pieces the moved piece attacks from its destination that are worth
        // more than it or are undefended; the most valuable one counts.
        let board = self.pos.board();
        let occupied = (board.occupied() ^ from) | to;
        let piece = shakmaty::Piece { color: us, role: m.promotion().unwrap_or(role) };
        let targets = shakmaty::attacks::attacks(to, piece, occupied) & board.by_color(!us) & !board.kings();
        let mut best: Option<Role> = None;
        for target in targets {
            let victim = board.role_at(target).expect("occupied");
            if (victim > piece.role || !t.their_defended.contains(target)) && best.is_none_or(|b| victim > b) {
                best = Some(victim);
            }
        }
        if let Some(victim) = best {
            sink.put(THREATENS + role_index(victim), ONE);
        }
    }
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
}

impl EndContext {
    /// Emits the features of "the game ends here".
    pub fn end_features(&self, sink: &mut impl Sink) {
        use end_layout::*;
        sink.put(BIAS, ONE);
        sink.put(EVAL + bucket(self.eval, &EVAL_EDGES), ONE);
        sink.put(PLY + bucket(self.ply, &PLY_EDGES), ONE);
        sink.put(LAST_LOSS + bucket(self.last_loss, &LAST_LOSS_EDGES), ONE);
        for (on, index) in [
            (self.in_check, IN_CHECK),
            (self.insufficient, INSUFFICIENT),
            (self.repetition, REPETITION),
            (self.fifty, FIFTY),
            (self.last_capture, LAST_CAPTURE),
        ] {
            if on {
                sink.put(index, ONE);
            }
        }
    }

    /// Emits the features of result class `class` (0 side to move wins, 1 loses, 2 draw,
    /// 3 unknown).
    pub fn result_features(&self, class: usize, sink: &mut impl Sink) {
        use result_layout::*;
        sink.put(BIAS + class, ONE);
        sink.put(EVAL + 4 * bucket(self.eval, &EVAL_EDGES) + class, ONE);
        sink.put(PLY + 4 * bucket(self.ply, &PLY_EDGES) + class, ONE);
        sink.put(LAST_LOSS + 4 * bucket(self.last_loss, &LAST_LOSS_EDGES) + class, ONE);
        for (on, index) in [
            (self.checkmate, CHECKMATE),
            (self.stalemate, STALEMATE),
            (self.insufficient, INSUFFICIENT),
            (self.repetition, REPETITION),
        ] {
            if on {
                sink.put(index + class, ONE);
            }
        }
    }
}
