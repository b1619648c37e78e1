//! The state of a game being coded: position, ply, history, and the canonical move order.

use shakmaty::{Chess, EnPassantMode, Move, Position, zobrist::Zobrist64};

use crate::chess::{NULL_MOVE, move_value, static_eval};

/// Skill classes of the side to move ([`GameState::skill`]).
pub const SKILLS: usize = 5;

/// Plays legal move `m` in `pos`, whose hash is `hash` ([`GameState::hash`]); returns the hash
/// of the new position (updated incrementally when shakmaty can, else computed afresh).
#[inline]
pub(crate) fn play_hashed(pos: &mut Chess, hash: u64, m: Move) -> u64 {
    let next = pos.update_zobrist_hash::<Zobrist64>(Zobrist64(hash), m, EnPassantMode::Legal);
    pos.play_unchecked(m);
    match next {
        Some(h) => h.0,
        None => pos.zobrist_hash::<Zobrist64>(EnPassantMode::Legal).0,
    }
}

/// A game in progress from the standard initial position.
#[derive(Clone, Debug)]
pub struct GameState {
    /// Current position.
    pub pos: Chess,
    /// Plies played so far.
    pub ply: u32,
    /// Zobrist hash of `pos` (shakmaty's 64-bit keys, legal en passant squares only).
    pub hash: u64,
    /// The opponent's last move (the move that led to `pos`).
    pub last: Option<Move>,
    /// The side to move's own previous move.
    pub own_last: Option<Move>,
    /// Hashes of all earlier positions of the game, for repetition detection.
    history: Vec<u64>,
    /// Per colour (indexed by `Color as usize`): sum of the losses (centipawns against the engine's best move,
    /// capped) of the moves played so far, and their number.
    losses: [(u32, u32); 2],
    /// Loss (centipawns, capped at 1200) of the last move played, as recorded.
    pub last_loss: i32,
    /// [`static_eval`] of `pos`, kept up to date move by move.
    eval: i32,
    /// Per colour: its evaluation (centipawns, its view) at its latest turn, as recorded by
    /// [`GameState::record_eval`]; 0 before its first move.
    evals: [i32; 2],
    /// A skill class that replaces the inferred one ([`GameState::fix_skill`], analysis only).
    fixed_skill: Option<u8>,
}

impl Default for GameState {
    fn default() -> Self {
        Self::new()
    }
}

impl GameState {
    /// The standard initial position.
    pub fn new() -> Self {
        Self::from_position(Chess::default())
    }

    /// A game starting from `pos` (a FEN set-up or a Chess960 position); ply 0, no history.
    pub fn from_position(pos: Chess) -> Self {
        let hash = pos.zobrist_hash::<Zobrist64>(EnPassantMode::Legal).0;
        let eval = static_eval(&pos);
        GameState {
            pos,
            ply: 0,
            hash,
            last: None,
            own_last: None,
            history: Vec::new(),
            losses: [(0, 0); 2],
            last_loss: 0,
            eval,
            evals: [0; 2],
            fixed_skill: None,
        }
    }

    /// Plays legal move `m`, or a null move ([`NULL_MOVE`], where [`crate::chess::play_null`]
    /// allows one).
    pub fn play(&mut self, m: Move) {
        if m == NULL_MOVE {
            self.play_null();
            return;
        }
        self.history.push(self.hash);
        // The evaluation after a move, from the new mover's side, is minus the old one plus the
        // move's value (Sunfish's `value(move)` is exactly that difference).
        self.eval = -(self.eval + move_value(&self.pos, &m));
        self.hash = play_hashed(&mut self.pos, self.hash, m);
        debug_assert_eq!(self.eval, static_eval(&self.pos), "incremental evaluation");
        self.ply += 1;
        self.own_last = self.last;
        self.last = Some(m);
    }

    /// Plays a null move: the other side is to move.
    ///
    /// # Panics
    /// Where [`crate::chess::play_null`] refuses one (the parsers never record such a ply).
    fn play_null(&mut self) {
        self.history.push(self.hash);
        self.pos = crate::chess::play_null(&self.pos).expect("a null move only where passing is possible");
        self.hash = self.pos.zobrist_hash::<Zobrist64>(EnPassantMode::Legal).0;
        self.eval = static_eval(&self.pos);
        self.ply += 1;
        self.own_last = self.last;
        self.last = None;
    }

    /// [`static_eval`] of the current position (side to move's point of view), without
    /// recomputing it.
    #[inline]
    pub fn static_eval(&self) -> i32 {
        self.eval
    }

    /// Records the loss (centipawns, >= 0) of the move the side to move is playing.
    pub(crate) fn record_loss(&mut self, loss: i32) {
        let side = &mut self.losses[self.pos.turn() as usize];
        self.last_loss = loss.clamp(0, 1200);
        side.0 += self.last_loss as u32;
        side.1 += 1;
    }

    /// Records the evaluation (centipawns, the side to move's view) of the position the side
    /// to move is playing from.
    pub fn record_eval(&mut self, eval: i32) {
        self.evals[self.pos.turn() as usize] = eval;
    }

    /// The side to move's evaluation at its previous turn, as recorded (0 before its first
    /// move).
    pub fn own_prev_eval(&self) -> i32 {
        self.evals[self.pos.turn() as usize]
    }

    /// Makes [`GameState::skill`] return `class` (`0..SKILLS`) for both sides from now on,
    /// whatever their moves: an ablation of the skill inference for analysis (`tune trace
    /// --skill`). Archives are always coded with the inferred classes.
    pub fn fix_skill(&mut self, class: usize) {
        assert!(class < SKILLS, "skill class {class} out of range");
        self.fixed_skill = Some(class as u8);
    }

    /// Skill class of the side to move from its moves so far: 0 while fewer than 4 moves are
    /// known, then 1..=4 for average losses below 25, 60, 120 centipawns and above.
    pub fn skill(&self) -> usize {
        if let Some(class) = self.fixed_skill {
            return class as usize;
        }
        let (sum, n) = self.losses[self.pos.turn() as usize];
        if n < 4 {
            return 0;
        }
        let avg = sum / n;
        1 + [25, 60, 120].iter().take_while(|&&e| avg >= e).count()
    }

    /// How many times the current position occurred before in this game, looking back at most
    /// 100 plies (the fifty-move rule's horizon), so that the cost per ply stays bounded.
    pub(crate) fn repetitions(&self) -> usize {
        let reversible = (self.pos.halfmoves() as usize).min(100);
        self.history.iter().rev().take(reversible).filter(|&&h| h == self.hash).count()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::text::parse_game;

    #[test]
    fn incremental_hash_matches_full_hash() {
        for line in include_str!("../../data/Chess_Games.txt").lines().take(50) {
            let game = parse_game(line.as_bytes()).unwrap();
            let mut st = GameState::new();
            for m in game.moves {
                st.play(m);
                assert_eq!(st.hash, st.pos.zobrist_hash::<Zobrist64>(EnPassantMode::Legal).0);
            }
        }
    }

    #[test]
    fn incremental_eval_matches_static_eval() {
        for line in include_str!("../../data/Chess_Games.txt").lines().take(500) {
            let game = parse_game(line.as_bytes()).unwrap();
            let mut st = GameState::new();
            for m in game.moves {
                st.play(m);
                assert_eq!(st.static_eval(), static_eval(&st.pos));
            }
        }
    }

    #[test]
    fn a_fixed_skill_class_holds_whatever_the_losses() {
        let mut st = GameState::new();
        for loss in [0, 500, 500, 500, 500, 500, 500, 500, 500] {
            st.record_loss(loss);
            st.play(st.pos.legal_moves()[0]);
        }
        assert_eq!(st.skill(), 4, "Black, to move, lost 500 centipawns in each of its 4 moves: the weakest class");
        st.fix_skill(1);
        assert_eq!(st.skill(), 1);
        st.record_loss(1200);
        assert_eq!(st.skill(), 1);
        assert!(std::panic::catch_unwind(|| GameState::new().fix_skill(5)).is_err());
    }

    #[test]
    fn repetitions_are_counted() {
        let mut st = GameState::new();
        let line = parse_game(b"Nf3 Nf6 Ng1 Ng8 Nf3 Nf6 Ng1 Ng8 *").unwrap();
        for m in line.moves {
            st.play(m);
        }
        assert_eq!(st.repetitions(), 2);
    }

    #[test]
    fn each_side_keeps_its_own_previous_evaluation() {
        let mut st = GameState::new();
        assert_eq!(st.own_prev_eval(), 0);
        let moves = parse_game(b"e4 e5 Nf3 *").unwrap().moves;
        for (i, m) in moves.into_iter().enumerate() {
            assert_eq!(st.own_prev_eval(), if i < 2 { 0 } else { 100 * (i as i32 - 1) });
            st.record_eval(100 * (i as i32 + 1));
            st.play(m);
        }
        // Black to move: its evaluation recorded before e5.
        assert_eq!(st.own_prev_eval(), 200);
    }
}
