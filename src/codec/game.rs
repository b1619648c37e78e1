//! Coding one game's moves, their spellings, its end and its result with the model. Shared by
//! every input format: the movetext codec ([`super::block`]) and the PGN codec call it.

use shakmaty::{Chess, Move, Position, Role};

use super::{AdaptiveModel, SymbolCoder};
use crate::Error;
use crate::model::features::{class_result, result_class};
use crate::model::trace::Trace;
use crate::model::{GameState, Model, Predictor};
use crate::text::GameResult;
use crate::text::spelling::{self, Convention, Spelling};

/// The moves of a game and how each is written.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct MoveText {
    /// Legal moves from the start position.
    pub moves: Vec<Move>,
    /// Spelling of each move; same length.
    pub spellings: Vec<Spelling>,
}

/// The move model plus the adaptive models of spellings; one per block.
pub struct GameCoder<'m> {
    predictor: Predictor<'m>,
    convention: AdaptiveModel,
    spelling_hit: AdaptiveModel,
    spelling: AdaptiveModel,
    /// Information content of the coded moves so far, in bits (encoder only).
    pub move_bits: f64,
    /// Prediction statistics, when analysing (encoder only).
    pub trace: Option<Trace>,
}

impl<'m> GameCoder<'m> {
    /// A coder with fresh adaptive state.
    pub fn new(model: &'m Model) -> Self {
        GameCoder {
            predictor: Predictor::new(model),
            convention: AdaptiveModel::new(Convention::ALL.len(), 32),
            spelling_hit: AdaptiveModel::new(2, 32),
            spelling: AdaptiveModel::new(Spelling::COUNT, 32),
            move_bits: 0.0,
            trace: None,
        }
    }

    /// Codes a game's moves from `start`: the spelling convention, then for every ply "the game
    /// ends here?" (unless there is no legal move) and the move and its spelling. When decoding,
    /// `text` is filled. Returns the final state, prepared for [`GameCoder::code_result`].
    ///
    /// # Errors
    /// The decoder's [`Error::Corrupt`].
    pub fn code_moves<C: SymbolCoder>(&mut self, c: &mut C, start: GameState, text: &mut MoveText) -> Result<GameState, Error> {
        let decoding = c.decoding();
        let mut conv = if decoding { 0 } else { choose_convention(&start.pos, text).index() };
        self.convention.code(c, &mut conv)?;
        let convention = Convention::ALL[conv];
        let mut st = start;
        loop {
            self.predictor.prepare(&st);
            let ply = st.ply as usize;
            if self.predictor.moves().is_empty() {
                break;
            }
            let mut end = (!decoding && ply == text.moves.len()) as usize;
            c.code(self.predictor.end_table(&st), &mut end)?;
            if end == 1 {
                break;
            }
            let mut index = if decoding {
                0
            } else {
                let played = text.moves[ply];
                self.predictor.moves().iter().position(|m| *m == played).expect("moves are legal")
            };
            let table = self.predictor.move_table(&st);
            if !decoding {
                self.move_bits += table.bits(index);
                if let Some(trace) = &mut self.trace {
                    trace.record(st.ply, table, index);
                }
            }
            c.code(table, &mut index)?;
            self.predictor.observe(&mut st, index);
            let m = self.predictor.moves()[index];

            let mut after = st.pos.clone();
            after.play_unchecked(m);
            let expected = spelling::expected(&st.pos, &m, self.predictor.moves(), &after, convention);
            let mut hit = (!decoding && text.spellings[ply] == expected) as usize;
            self.spelling_hit.code(c, &mut hit)?;
            let spelled = if hit == 1 {
                expected
            } else {
                let mut s = if decoding { 0 } else { text.spellings[ply].0 as usize };
                self.spelling.code(c, &mut s)?;
                Spelling(s as u8)
            };
            if decoding {
                text.moves.push(m);
                text.spellings.push(spelled);
            }
            st.play(m);
        }
        Ok(st)
    }

    /// Codes the result of a game whose moves [`GameCoder::code_moves`] just coded, ending in
    /// `end`. When decoding, `result` is set.
    ///
    /// # Errors
    /// The decoder's [`Error::Corrupt`].
    pub fn code_result<C: SymbolCoder>(&mut self, c: &mut C, end: &GameState, result: &mut GameResult) -> Result<(), Error> {
        let mut class = result_class(*result, end.pos.turn());
        c.code(self.predictor.result_table(end), &mut class)?;
        *result = class_result(class, end.pos.turn());
        Ok(())
    }
}

/// The convention that predicts a game's spellings: check marks if any move has a suffix;
/// pseudo-legal disambiguation if some move is disambiguated where legal moves need not be.
fn choose_convention(start: &Chess, text: &MoveText) -> Convention {
    let check_marks = text.spellings.iter().any(|s| s.suffix().is_some());
    let plain = Convention { check_marks: false, pseudo_legal_disambiguation: false };
    let mut pos = start.clone();
    let mut pseudo_legal_disambiguation = false;
    for (m, s) in text.moves.iter().zip(&text.spellings) {
        if (s.file() || s.rank()) && m.role() != Role::Pawn {
            let legal: Vec<Move> = pos.legal_moves().into_iter().collect();
            let mut after = pos.clone();
            after.play_unchecked(*m);
            let canonical = spelling::expected(&pos, m, &legal, &after, plain);
            if (canonical.file(), canonical.rank()) != (s.file(), s.rank()) {
                pseudo_legal_disambiguation = true;
                break;
            }
        }
        pos.play_unchecked(*m);
    }
    Convention { check_marks, pseudo_legal_disambiguation }
}
