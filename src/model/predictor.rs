//! Applying a [`Model`] ply by ply: legal moves, engine scores, features, frequency tables.

use shakmaty::{Chess, Move, Position};

use super::book::{Book, BookMoves, PRIOR};
use super::elo::Ratings;
use super::features::{Dot, EndContext, MoveContext, MoveWeights, RESULT_CLASSES};
use super::game::GameState;
use super::network::NetworkState;
use super::softmax::{softmax_into, softmax_with_max};
use super::transformer::IntModel;
use super::transformer::int::Recipe;
use super::transformer::tokens::{History, vocab_index};
use super::tuned::Model;
use crate::chess::move_key;
use crate::chess::move_value;
use crate::chess::movegen::{Packed, legal_moves_sorted_into};
use crate::chess::pst::PST;
use crate::engine::{MATE, Searcher};
use crate::entropy::{Cdf, CdfBuf, TOTAL};

/// Uniform floor of the end and result distributions, in 1/65536.
const OUTCOME_FLOOR: u64 = 16;

/// Entries of the cache of end tables (a power of two; 8 KiB). A block's end logits take a
/// few thousand values: with 64 entries, 55% of the lookups missed at level 1 on the
/// benchmark's first 2,000 games; with 1,024, 5%.
const END_CACHE: usize = 1024;

/// Per-block model state and scratch buffers. Call [`Predictor::prepare`] once per ply, then
/// any of the table methods for that ply.
pub struct Predictor<'m> {
    model: &'m Model,
    /// The model's move weights, prepared for [`MoveContext::logits`].
    move_weights: MoveWeights<'m>,
    searcher: Searcher,
    book: Book,
    /// The legal moves, canonical order.
    moves: Vec<Packed>,
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
    /// The move network's state, when the model has a network.
    network: Option<NetworkState>,
    /// The other members of the model's ensemble ([`Model::members`]; empty for most models).
    members: Vec<MemberPredictor<'m>>,
    /// Scratch: the members' weighted sum of logits.
    mixed: Vec<i64>,
    /// Whether this predictor is a member of an ensemble: it has no book of its own and only
    /// gives logits ([`MemberPredictor`]).
    is_member: bool,
    /// Level 10's transformer and the game it follows, when the model has one.
    transformer: Option<TransformerState>,
}

/// The transformer's view of the coded game: the recent positions (its input) and which ply
/// they end at, so that encoder and decoder, which make the same calls, give it the same input.
struct TransformerState {
    /// The weights quantised with the model's recipe.
    model: &'static IntModel,
    history: History,
    /// `(ply, hash)` of the history's last position.
    tip: Option<(u32, u64)>,
    /// [`Predictor::observe`] was called at the tip: the next ply's position extends the
    /// history (anything else starts it again from the position coded).
    played: bool,
    /// `[White, Black]` Elo inputs of the game being coded ([`Predictor::set_elos`]).
    elos: [i32; 2],
}

impl TransformerState {
    /// The policy logits (`Q16`) of `st`'s position, the history brought to it first.
    fn policy(&mut self, st: &GameState) -> Vec<i32> {
        let here = (st.ply, st.hash);
        match self.tip {
            Some((ply, _)) if self.played && ply + 1 == st.ply => self.history.push(&st.pos),
            Some(tip) if tip == here => {}
            _ => self.history = History::new(&st.pos),
        }
        self.tip = Some(here);
        self.played = false;
        let [white, black] = self.elos;
        let (mover, opponent) = if st.pos.turn().is_white() { (white, black) } else { (black, white) };
        self.model.forward(&self.history.input(), mover, opponent)
    }
}

/// The Elo given to the transformer for both sides unless the coder says otherwise
/// ([`Predictor::set_elos`]; its inputs are clamped to 0..=5000).
pub const ELO: i32 = super::elo::DEFAULT_ELO;

/// A member of an ensemble inside the ensemble's [`Predictor`]: the member model's own
/// predictor (search, features, network; no book) and its own game state, which follows the
/// coded game so that the member sees the game (its loss and evaluation history, the skill
/// classes) as it would coding alone.
struct MemberPredictor<'m> {
    predictor: Predictor<'m>,
    /// `None` until the first ply: then a copy of the coder's state (with its fixed skill
    /// class, when analysing).
    state: Option<GameState>,
    /// Weight in the mixture, in 1/256.
    weight: i64,
    /// Scratch: the member's logits of the prepared ply.
    logits: Vec<i32>,
}

/// Brings a member's state to `st`'s position: it follows the game through
/// [`Predictor::observe`]; anywhere else (the first ply, a new game, a null move) it starts
/// again as a copy of `st`. The same calls in the encoder and the decoder give the same states.
fn follow<'s>(state: &'s mut Option<GameState>, st: &GameState) -> &'s GameState {
    if !state.as_ref().is_some_and(|s| at_same_ply(s, st)) {
        *state = Some(st.clone());
    }
    state.as_ref().expect("just set")
}

/// Whether a member's state `s` is at `st`'s ply and position.
fn at_same_ply(s: &GameState, st: &GameState) -> bool {
    s.ply == st.ply && s.hash == st.hash
}

impl Drop for Predictor<'_> {
    /// Hands the online book's tables on to the next predictor of this thread.
    fn drop(&mut self) {
        if !self.is_member {
            std::mem::replace(&mut self.book, Book::unallocated()).recycle();
        }
    }
}

impl<'m> Predictor<'m> {
    /// A predictor with an empty book.
    pub fn new(model: &'m Model) -> Self {
        let mut p = Predictor::bookless(model);
        p.book = Book::reused();
        p.is_member = false;
        p.members = model
            .members
            .iter()
            .map(|m| MemberPredictor { predictor: Predictor::bookless(m.model), state: None, weight: m.weight as i64, logits: Vec::new() })
            .collect();
        p
    }

    /// A member's predictor: no book, no members.
    fn bookless(model: &'m Model) -> Self {
        Predictor {
            model,
            move_weights: MoveWeights::new(&model.move_weights),
            searcher: Searcher::new(),
            book: Book::unallocated(),
            moves: Vec::with_capacity(256),
            scores: Vec::new(),
            best: 0,
            in_check: false,
            logits: Vec::new(),
            weights: Vec::new(),
            table: CdfBuf::new(),
            end_cache: [(i32::MIN, 0); END_CACHE],
            prepared_ply: None,
            network: model.network.as_deref().map(|net| NetworkState::new(net, &model.move_weights)),
            members: Vec::new(),
            mixed: Vec::new(),
            is_member: true,
            transformer: model.transformer.map(|weights| TransformerState {
                model: weights.model(Recipe(model.transformer_act8)),
                history: History::default(),
                tip: None,
                played: false,
                elos: [ELO, ELO],
            }),
        }
    }

    /// Sets the `[White, Black]` Elo inputs of the transformer for the plies coded from now on
    /// (level 10; [`ELO`] for both until set; PGN coding 5 sets them per game from its rating
    /// tags, [`super::elo::EloRule`]). Nothing else reads them.
    pub fn set_elos(&mut self, elos: [i32; 2]) {
        if let Some(t) = &mut self.transformer {
            t.elos = elos;
        }
    }

    /// Sets the ratings of the game coded from now on (PGN coding 5 on, for a network with rating inputs,
    /// per game from its rating tags): read by a move network with rating inputs
    /// ([`super::network::Network::reads_ratings`]), also an ensemble member's, by nothing else.
    /// None until set.
    pub fn set_ratings(&mut self, ratings: Ratings) {
        if let Some(n) = &mut self.network {
            n.set_ratings(ratings);
        }
        for m in &mut self.members {
            m.predictor.set_ratings(ratings);
        }
    }

    /// The model in use.
    pub fn model(&self) -> &'m Model {
        self.model
    }

    /// Generates and scores the legal moves of `st`'s position (canonical order).
    pub fn prepare(&mut self, st: &GameState) {
        self.prefetch_book(st);
        self.moves.clear();
        let checkers = legal_moves_sorted_into(&st.pos, &mut self.moves);
        self.in_check = checkers.any();
        self.score(st);
    }

    /// [`Predictor::prepare`] with the legal moves already known: `moves` in canonical order
    /// (as [`legal_moves_sorted_into`] makes them), `in_check` whether the side to move is in
    /// check.
    pub fn prepare_known(&mut self, st: &GameState, moves: &[Packed], in_check: bool) {
        self.prefetch_book(st);
        self.moves.clear();
        self.moves.extend_from_slice(moves);
        self.in_check = in_check;
        self.score(st);
    }

    /// Starts loading the book slots that [`Predictor::move_table`] will read for `st`, so
    /// that the memory access overlaps the scoring work.
    #[inline]
    fn prefetch_book(&self, st: &GameState) {
        if st.ply < self.model.book_max_ply && !self.is_member {
            self.book.prefetch(st.hash);
            if self.model.book_prior_weight > 0 {
                PRIOR.book.prefetch(st.hash);
            }
        }
    }

    fn score(&mut self, st: &GameState) {
        self.best = if self.model.search.depth == 0 && !self.model.search.quiescence {
            move_values(&st.pos, &self.moves, &mut self.scores)
        } else {
            self.searcher.score_packed(&st.pos, &self.moves, &self.model.search, &mut self.scores);
            self.scores.iter().copied().max().unwrap_or(0)
        };
        self.prepared_ply = Some((st.ply, st.hash));
    }

    fn check_prepared(&self, st: &GameState) {
        debug_assert_eq!(self.prepared_ply, Some((st.ply, st.hash)), "prepare() not called for this ply");
    }

    /// The legal moves of the prepared position, in canonical order.
    pub fn moves(&self) -> &[Packed] {
        &self.moves
    }

    /// Move `i` of [`Predictor::moves`] as a shakmaty move.
    pub fn move_at(&self, i: usize) -> Move {
        self.moves[i].to_move()
    }

    /// The index of legal move `m` in [`Predictor::moves`].
    pub fn index_of(&self, m: &Move) -> Option<usize> {
        let key = move_key(m);
        self.moves.binary_search_by_key(&key, |p| p.key()).ok()
    }

    /// Engine scores of [`Predictor::moves`] (centipawns, side to move's view).
    pub fn scores(&self) -> &[i32] {
        &self.scores
    }

    /// Move features of the prepared position.
    pub fn move_context<'a>(&'a self, st: &'a GameState) -> MoveContext<'a> {
        self.check_prepared(st);
        MoveContext::new(st, &self.moves, &self.scores, self.best, self.model.tactical)
    }

    /// End and result features of the prepared position.
    pub fn end_context(&self, st: &GameState) -> EndContext {
        self.check_prepared(st);
        let pos = &st.pos;
        let no_moves = self.moves.is_empty();
        let in_check = self.in_check;
        let eval = if no_moves { if in_check { -MATE } else { 0 } } else { st.static_eval() + self.best };
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
            own_prev_eval: st.own_prev_eval(),
            pieces: pos.board().occupied().count() as u32,
            legal: self.moves.len(),
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
        let mut z_max = self.move_logits(st, &mut logits);
        if !self.members.is_empty() {
            z_max = self.mix_members(st, &mut logits);
        }
        softmax_with_max(&logits, z_max, self.model.move_floor, &mut self.weights, &mut self.table);
        self.logits = logits;
        if st.ply < self.model.book_max_ply {
            self.mix_book(st.hash);
        }
        self.table.cdf()
    }

    /// The move logits of the prepared ply into `logits` (1/[`super::softmax::LOGIT_ONE`] nat,
    /// [`Predictor::moves`] order), before the floor and the book: the model's own, or an
    /// ensemble's mixed ones, as [`Predictor::move_table`] takes them; returns their maximum.
    /// For measurements (mixing models outside the coder).
    pub fn move_logits_before_book(&mut self, st: &GameState, logits: &mut Vec<i32>) -> i32 {
        let z_max = self.move_logits(st, logits);
        if self.members.is_empty() { z_max } else { self.mix_members(st, logits) }
    }

    /// The model's own logits of the prepared moves into `logits` (the linear model's, plus the
    /// network's when it has one), returning their maximum.
    fn move_logits(&mut self, st: &GameState, logits: &mut Vec<i32>) -> i32 {
        if let Some(t) = &mut self.transformer {
            return transformer_logits(&t.policy(st), &self.moves, st.pos.turn(), logits);
        }
        match (&self.model.network, self.network.take()) {
            (Some(net), Some(mut state)) => {
                state.prepare(net, st);
                let ctx = self.move_context(st);
                let best = state.logits(net, &ctx, logits);
                self.network = Some(state);
                best
            }
            _ => self.move_context(st).logits(&self.move_weights, logits),
        }
    }

    /// Replaces `logits` (this model's own) with the ensemble's weighted mean of its own and its
    /// members' logits, `(w_0 z_0 + sum_k w_k z_k) >> 8` ([`super::Member`]), and returns their
    /// maximum. Each member is prepared on its own state first (its own search).
    fn mix_members(&mut self, st: &GameState, logits: &mut [i32]) -> i32 {
        let own = 256 - self.members.iter().map(|m| m.weight).sum::<i64>();
        self.mixed.clear();
        self.mixed.extend(logits.iter().map(|&z| own * z as i64));
        for m in &mut self.members {
            let state = follow(&mut m.state, st);
            m.predictor.prepare(state);
            debug_assert_eq!(m.predictor.moves, self.moves, "a member's legal moves differ");
            let mut member_logits = std::mem::take(&mut m.logits);
            m.predictor.move_logits(state, &mut member_logits);
            for (x, &z) in self.mixed.iter_mut().zip(&member_logits) {
                *x += m.weight * z as i64;
            }
            m.logits = member_logits;
        }
        let mut best = i32::MIN;
        for (z, &x) in logits.iter_mut().zip(&self.mixed) {
            // The mean of i32 values is an i32; `>>` rounds down, as everywhere in the model.
            *z = (x >> 8) as i32;
            best = best.max(*z);
        }
        best
    }

    /// Mixes the online book into the move table: `p_i = (c_i + alpha q_i) / (C + alpha)`
    /// with `q` the model's table and `c_i` the book counts, in integers.
    fn mix_book(&mut self, hash: u64) {
        let seen = self.book.get(hash);
        let prior = if self.model.book_prior_weight > 0 { PRIOR.book.get(hash) } else { BookMoves::default() };
        if seen.is_empty() && prior.is_empty() {
            return;
        }
        // Counts in 1/256 games: online plays weigh 256, prior plays `book_prior_weight`. Keys
        // are unique per position; a key that is not a legal move here counts for nothing.
        let moves = &self.moves;
        let index = |key: u16| moves.binary_search_by_key(&key, |p| p.key()).ok();
        self.weights.clear();
        self.weights.resize(moves.len(), 0);
        for (key, c) in seen {
            if let Some(i) = index(key) {
                self.weights[i] += c as u64 * 256;
            }
        }
        for (key, c) in prior {
            if let Some(i) = index(key) {
                self.weights[i] += c as u64 * self.model.book_prior_weight;
            }
        }
        let model_table = self.table.cdf();
        for (i, w) in self.weights.iter_mut().enumerate() {
            *w = *w * TOTAL as u64 + self.model.book_alpha * model_table.frequency(i) as u64;
        }
        self.table.set_weights(&self.weights);
    }

    /// Records that move `index` of the prepared moves is being played: fills the book and
    /// the side's skill estimate. Call before [`GameState::play`].
    pub fn observe(&mut self, st: &mut GameState, index: usize) {
        if let Some(t) = &mut self.transformer {
            t.played = t.tip == Some((st.ply, st.hash));
        }
        if st.ply < self.model.book_max_ply {
            self.book.observe(st.hash, self.moves[index].key());
        }
        self.record(st, index);
        if !self.members.is_empty() {
            let m = self.move_at(index);
            for member in &mut self.members {
                // A member prepared at this ply ([`Predictor::move_table`]) plays the move on its
                // own state; otherwise its state lags and is copied again at the next ply.
                if member.predictor.prepared_ply == Some((st.ply, st.hash)) {
                    let predictor = &member.predictor;
                    if let Some(state) = member.state.as_mut().filter(|s| at_same_ply(s, st)) {
                        predictor.record(state, index);
                        state.play(m);
                    }
                }
            }
        }
    }

    /// Records the played move's loss and the position's evaluation in `st` (the skill and
    /// end features).
    fn record(&self, st: &mut GameState, index: usize) {
        st.record_loss(self.best - self.scores[index]);
        st.record_eval(st.static_eval() + self.best);
    }
}

/// The logits of `moves` (mover `turn`) in 1/256 nat from the transformer's `Q16` policy
/// logits (rounded to nearest, as [`super::transformer::tokens::move_logits`]) into `out`,
/// returning their maximum.
fn transformer_logits(policy: &[i32], moves: &[Packed], turn: shakmaty::Color, out: &mut Vec<i32>) -> i32 {
    let shift = super::transformer::int::FRAC - super::softmax::LOGIT_ONE.trailing_zeros();
    out.clear();
    out.extend(moves.iter().map(|p| {
        let z = policy[vocab_index(&p.to_move(), turn)] as i64;
        ((z + (1 << (shift - 1))) >> shift) as i32
    }));
    out.iter().copied().max().unwrap_or(0)
}

/// [`move_value`] of every move into `out`, returning their maximum (0 without moves): plain
/// moves (no promotion, castling or en passant) from the engine's piece-square table directly
/// (the same sums as `move_value`: destination minus origin of the moved piece, plus the
/// captured piece), indexed by bit fields of [`Packed`]; the others through `move_value`.
fn move_values(pos: &Chess, moves: &[Packed], out: &mut Vec<i32>) -> i32 {
    let (ours, theirs) = if pos.turn().is_white() { (&PST_WHITE, &VICTIM_BLACK) } else { (&PST_BLACK, &VICTIM_WHITE) };
    let mut best = i32::MIN;
    out.clear();
    out.extend(moves.iter().map(|&p| {
        let v = if p.is_plain() {
            let x = p.0 as usize;
            let role_to = x >> 6 & 0x1ff; // role << 6 | to
            let role_from = (x >> 6 & 0x1c0) | (x & 63); // role << 6 | from
            let captured_to = (x >> 9 & 0x1c0) | (x >> 6 & 63); // (captured role + 1) << 6 | to
            ours[role_to] - ours[role_from] + theirs[captured_to]
        } else {
            move_value(pos, &p.to_move())
        };
        best = best.max(v);
        v
    }));
    if moves.is_empty() { 0 } else { best }
}

/// The engine's [`PST`] for White's pieces, indexed by `role index << 6 | square`, padded
/// with zeros to 8 roles so that any 9-bit index is in range.
static PST_WHITE: [i32; 512] = pst_by_index(0, 0);

/// [`PST_WHITE`] for Black's pieces: squares mirrored vertically.
static PST_BLACK: [i32; 512] = pst_by_index(56, 0);

/// The values of captured White pieces, indexed by `(role index + 1) << 6 | square` (the
/// capture field of [`Packed`] and the destination): row 0, no capture, is 0.
static VICTIM_WHITE: [i32; 512] = pst_by_index(0, 1);

/// [`VICTIM_WHITE`] for Black's pieces.
static VICTIM_BLACK: [i32; 512] = pst_by_index(56, 1);

/// `PST[r][sq ^ flip]` at index `(r + row_offset) << 6 | sq` for the 6 roles, 0 elsewhere.
const fn pst_by_index(flip: usize, row_offset: usize) -> [i32; 512] {
    let mut t = [0; 512];
    let mut r = 0;
    while r < 6 {
        let mut sq = 0;
        while sq < 64 {
            t[(r + row_offset) << 6 | sq] = PST[r][sq ^ flip];
            sq += 1;
        }
        r += 1;
    }
    t
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::game::GameState;
    use crate::model::level::Level;

    /// An ensemble's logits are `(w_0 z_0 + sum_k w_k z_k) >> 8` of the logits its own model and
    /// each member compute coding the game alone (each with its own state), at every ply,
    /// across games of one block.
    #[test]
    fn ensemble_logits_are_the_weighted_mean_of_its_models_coding_alone() {
        let ensemble = Model::builtin(Level::new(9).unwrap());
        assert_eq!(ensemble.members.len(), 2, "level 9's newest model is an ensemble");
        let own = Model { members: Vec::new(), ..ensemble.clone() };
        let alone: Vec<(&Model, i64)> = std::iter::once((&own, 256 - ensemble.members.iter().map(|m| m.weight as i64).sum::<i64>()))
            .chain(ensemble.members.iter().map(|m| (m.model, m.weight as i64)))
            .collect();
        let mut mixed = Predictor::new(ensemble);
        let mut singles: Vec<Predictor> = alone.iter().map(|(m, _)| Predictor::new(m)).collect();
        let mut plies = 0;
        for line in include_str!("../../data/Chess_Games.txt").lines().take(6) {
            let game = crate::text::parse_game(line.as_bytes()).unwrap();
            let mut st = GameState::new();
            let mut states: Vec<GameState> = alone.iter().map(|_| GameState::new()).collect();
            for m in game.moves {
                mixed.prepare(&st);
                let index = mixed.index_of(&m).unwrap();
                let _ = mixed.move_table(&st);
                let mut expected = vec![0i64; mixed.moves().len()];
                for ((p, s), (_, w)) in singles.iter_mut().zip(&mut states).zip(&alone) {
                    p.prepare(s);
                    let mut z = Vec::new();
                    p.move_logits(s, &mut z);
                    for (e, z) in expected.iter_mut().zip(z) {
                        *e += w * z as i64;
                    }
                    p.observe(s, index);
                    s.play(m);
                }
                let expected: Vec<i32> = expected.iter().map(|&x| (x >> 8) as i32).collect();
                assert_eq!(mixed.logits, expected, "ply {}", st.ply);
                mixed.observe(&mut st, index);
                st.play(m);
                plies += 1;
            }
        }
        assert!(plies > 300, "{plies} plies");
    }

    #[test]
    fn move_values_match_the_engine() {
        let mut moves = Vec::new();
        let mut values = Vec::new();
        for line in include_str!("../../data/Chess_Games.txt").lines().take(300) {
            let game = crate::text::parse_game(line.as_bytes()).unwrap();
            let mut st = GameState::new();
            for m in game.moves {
                moves.clear();
                legal_moves_sorted_into(&st.pos, &mut moves);
                let best = move_values(&st.pos, &moves, &mut values);
                for (v, c) in values.iter().zip(&moves) {
                    assert_eq!(*v, move_value(&st.pos, &c.to_move()));
                }
                assert_eq!(best, values.iter().copied().max().unwrap_or(0));
                st.play(m);
            }
        }
    }
}
