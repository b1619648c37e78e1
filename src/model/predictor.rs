//! Applying a [`Model`] ply by ply: legal moves, engine scores, features, frequency tables.

use shakmaty::{Move, MoveList, Position};

use super::book::{Book, PRIOR};
use super::features::{Dot, EndContext, MoveContext, RESULT_CLASSES};
use super::game::{GameState, move_key};
use super::movegen::legal_moves_sorted_into;
use super::softmax::{softmax_into, softmax_with_max};
use super::Model;
use crate::codec::{Cdf, CdfBuf, TOTAL};
use crate::engine::{MATE, Searcher};

/// Uniform floor of the end and result distributions, in 1/65536.
const OUTCOME_FLOOR: u64 = 16;

/// Entries of the cache of end tables (a power of two).
const END_CACHE: usize = 64;

/// Per-block model state and scratch buffers. Call [`Predictor::prepare`] once per ply, then
/// any of the table methods for that ply.
pub struct Predictor<'m> {
    model: &'m Model,
    searcher: Searcher,
    book: Book,
    moves: MoveList,
    scores: Vec<i32>,
    /// `max(scores)` (0 without moves).
    best: i32,
    /// The side to move is in check.
    in_check: bool,
    logits: Vec<i32>,
    weights: Vec<u64>,
    table: CdfBuf,
    /// End tables by logit: the end table is a function of one logit that takes few values,
    /// so its softmax is computed once per value. Direct-mapped, `(logit, frequency of
    /// "continues")`, `i32::MIN` when empty (never a logit: [`Dot::logit`] clamps to half).
    end_cache: [(i32, u32); END_CACHE],
    prepared_ply: Option<(u32, u64)>,
}

impl<'m> Predictor<'m> {
    /// A predictor with an empty book.
    pub fn new(model: &'m Model) -> Self {
        Predictor {
            model,
            searcher: Searcher::new(),
            book: Book::new(),
            moves: MoveList::new(),
            scores: Vec::new(),
            best: 0,
            in_check: false,
            logits: Vec::new(),
            weights: Vec::new(),
            table: CdfBuf::new(),
            end_cache: [(i32::MIN, 0); END_CACHE],
            prepared_ply: None,
        }
    }

    /// The model in use.
    pub fn model(&self) -> &'m Model {
        self.model
    }

    /// Generates and scores the legal moves of `st`'s position (canonical order).
    pub fn prepare(&mut self, st: &GameState) {
        self.moves.clear();
        let checkers = legal_moves_sorted_into(&st.pos, &mut self.moves);
        self.in_check = checkers.any();
        if self.model.search.depth == 0 && !self.model.search.quiescence {
            self.scores.clear();
            self.scores.extend(self.moves.iter().map(|m| crate::engine::move_value(&st.pos, m)));
        } else {
            self.searcher.score_moves(&st.pos, &self.moves, &self.model.search, &mut self.scores);
        }
        self.best = self.scores.iter().copied().max().unwrap_or(0);
        self.prepared_ply = Some((st.ply, st.hash));
    }

    fn check_prepared(&self, st: &GameState) {
        debug_assert_eq!(self.prepared_ply, Some((st.ply, st.hash)), "prepare() not called for this ply");
    }

    /// The legal moves of the prepared position, in canonical order.
    pub fn moves(&self) -> &[Move] {
        &self.moves
    }

    /// Engine scores of [`Predictor::moves`] (centipawns, side to move's view).
    pub fn scores(&self) -> &[i32] {
        &self.scores
    }

    /// Move features of the prepared position.
    pub fn move_context<'a>(&'a self, st: &'a GameState) -> MoveContext<'a> {
        self.check_prepared(st);
        MoveContext::new(st, &self.moves, &self.scores, self.model.tactical)
    }

    /// End and result features of the prepared position.
    pub fn end_context(&self, st: &GameState) -> EndContext {
        self.check_prepared(st);
        let pos = &st.pos;
        let no_moves = self.moves.is_empty();
        let in_check = self.in_check;
        let eval = if no_moves {
            if in_check { -MATE } else { 0 }
        } else {
            st.static_eval() + self.best
        };
        EndContext {
            eval,
            ply: st.ply,
            in_check,
            checkmate: no_moves && in_check,
            stalemate: no_moves && !in_check,
            insufficient: pos.is_insufficient_material(),
            repetition: st.repetitions() >= 2,
            fifty: pos.halfmoves() >= 100,
            last_capture: st.last.is_some_and(|m| m.is_capture()),
            last_loss: st.last_loss,
        }
    }

    /// Table over {continues, ends} for the prepared ply (only coded when there are legal moves).
    pub fn end_table(&mut self, st: &GameState) -> Cdf<'_> {
        let ctx = self.end_context(st);
        let mut dot = Dot::new(&self.model.end_weights);
        ctx.end_features(&mut dot);
        let logit = dot.logit();
        let slot = &mut self.end_cache[(logit as u32).wrapping_mul(0x9e37_79b1) as usize >> (32 - END_CACHE.trailing_zeros())];
        if slot.0 == logit {
            self.table.set_frequencies([slot.1, TOTAL - slot.1]);
        } else {
            self.logits.clear();
            self.logits.extend([0, logit]);
            softmax_into(&self.logits, OUTCOME_FLOOR, &mut self.weights, &mut self.table);
            *slot = (logit, self.table.cdf().frequency(0));
        }
        self.table.cdf()
    }

    /// Table over result classes (side to move wins, loses, draw, unknown) at the final
    /// position, which must be prepared.
    pub fn result_table(&mut self, st: &GameState) -> Cdf<'_> {
        let ctx = self.end_context(st);
        self.logits.clear();
        for class in 0..RESULT_CLASSES {
            let mut dot = Dot::new(&self.model.result_weights);
            ctx.result_features(class, &mut dot);
            self.logits.push(dot.logit());
        }
        softmax_into(&self.logits, OUTCOME_FLOOR, &mut self.weights, &mut self.table);
        self.table.cdf()
    }

    /// Table over the prepared legal moves (which must not be empty).
    pub fn move_table(&mut self, st: &GameState) -> Cdf<'_> {
        let mut logits = std::mem::take(&mut self.logits);
        logits.clear();
        let ctx = self.move_context(st);
        let weights = &self.model.move_weights[..];
        let mut z_max = i32::MIN;
        logits.extend((0..self.moves.len()).map(|i| {
            let mut dot = Dot::new(weights);
            ctx.features(i, &mut dot);
            let z = dot.logit();
            z_max = z_max.max(z);
            z
        }));
        softmax_with_max(&logits, z_max, self.model.move_floor, &mut self.weights, &mut self.table);
        self.logits = logits;
        if st.ply < self.model.book_max_ply {
            self.mix_book(st.hash);
        }
        self.table.cdf()
    }

    /// Mixes the online book into the move table: `p_i = (c_i + alpha q_i) / (C + alpha)`
    /// with `q` the model's table and `c_i` the book counts, in integers.
    fn mix_book(&mut self, hash: u64) {
        let seen = self.book.get(hash);
        let prior = if self.model.book_prior_weight > 0 { PRIOR.book.get(hash) } else { &[] };
        if seen.is_empty() && prior.is_empty() {
            return;
        }
        let count = |list: &[(u16, u32)], key: u16| list.iter().find(|(k, _)| *k == key).map_or(0, |&(_, c)| c as u64);
        let model_table = self.table.cdf();
        self.weights.clear();
        for (i, m) in self.moves.iter().enumerate() {
            let key = move_key(m);
            // Counts in 1/256 games: online plays weigh 256, prior plays `book_prior_weight`.
            let c = count(seen, key) * 256 + count(prior, key) * self.model.book_prior_weight;
            self.weights.push(c * TOTAL as u64 + self.model.book_alpha * model_table.frequency(i) as u64);
        }
        self.table.set_weights(&self.weights);
    }

    /// Records that move `index` of the prepared moves is being played: fills the book and
    /// the side's skill estimate. Call before [`GameState::play`].
    pub fn observe(&mut self, st: &mut GameState, index: usize) {
        if st.ply < self.model.book_max_ply {
            self.book.observe(st.hash, move_key(&self.moves[index]));
        }
        st.record_loss(self.best - self.scores[index]);
    }

}
