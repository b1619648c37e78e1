//! Coding one game's moves, their spellings, its end and its result with the model. Shared by
//! every input format: the movetext codec ([`crate::movetext::block`]) and the PGN codec
//! ([`crate::pgn::codec`]) call it.

use shakmaty::{Chess, Move, Position, Role};

use super::move_text::MoveText;
use super::notation_coder::{GameNotation, NotationCoder};
use crate::chess::movegen::{Packed, legal_moves_sorted_into};
use crate::chess::{GameResult, NULL_MOVE, play_ply};
use crate::entropy::{AdaptiveModel, Information, SymbolCoder};
use crate::error::Error;
use crate::model::elo::Ratings;
use crate::model::features::{class_result, result_class};
use crate::model::trace::Trace;
use crate::model::{GameState, Model, Predictor};
use crate::text::PlyMoves;
use crate::text::notation::{Form, Written};
use crate::text::spelling::{self, Convention, Spelling};

/// The move model plus the adaptive models of spellings; one per block.
pub struct GameCoder<'m> {
    predictor: Predictor<'m>,
    convention: AdaptiveModel,
    spelling_hit: AdaptiveModel,
    spelling: AdaptiveModel,
    /// The models of other notations, where the block allows them.
    notations: Option<NotationCoder>,
    /// Information content of the coded moves so far (encoder only).
    pub move_info: Information,
    /// Prediction statistics, when analysing (encoder only).
    pub trace: Option<Trace>,
    /// A skill class for every player instead of the inferred ones ([`GameState::fix_skill`]),
    /// when analysing (encoder only; `None` codes as archives are coded, which a decoder needs).
    pub fixed_skill: Option<usize>,
    /// When `Some`, [`GameCoder::code_moves`] appends the model's view of every ply it codes
    /// (PGN coding 4 conditions the clocks on it; both directions know it after the move).
    pub views: Option<Vec<MoveView>>,
    /// When `Some(n)`, the next game [`GameCoder::code_moves`] codes has `n` plies, which both
    /// directions know: no "the game ends here?" symbols are coded (PGN coding 5, from a
    /// `PlyCount` tag that the tag stream gave). Taken (reset to `None`) by that call.
    pub known_plies: Option<usize>,
}

/// What the move model thought of a played move; encoder and decoder both know it once the
/// move is coded.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct MoveView {
    /// The played move's frequency out of [`crate::entropy::cdf::TOTAL`] (0 for a null move).
    pub frequency: u32,
    /// The most likely move's frequency.
    pub top: u32,
    /// Moves the model found likelier than the played one.
    pub rank: u32,
    /// Legal moves.
    pub legal: u32,
    /// The move gives check.
    pub check: bool,
}

impl MoveView {
    /// The view of move `index` under `table`.
    fn of(table: &crate::entropy::Cdf<'_>, index: usize) -> MoveView {
        let frequency = table.frequency(index);
        let (mut top, mut rank) = (0, 0);
        for i in 0..table.len() {
            let f = table.frequency(i);
            top = top.max(f);
            rank += (f > frequency) as u32;
        }
        MoveView { frequency, top, rank, legal: table.len() as u32, check: false }
    }
}

impl<'m> GameCoder<'m> {
    /// A coder with fresh adaptive state, for games in canonical SAN only (the first
    /// coding, or a block that says it has no other notation).
    pub fn new(model: &'m Model) -> Self {
        GameCoder {
            predictor: Predictor::new(model),
            convention: AdaptiveModel::new(Convention::ALL.len(), 32),
            spelling_hit: AdaptiveModel::new(2, 32),
            spelling: AdaptiveModel::new(Spelling::COUNT, 32),
            notations: None,
            move_info: Information::default(),
            trace: None,
            fixed_skill: None,
            views: None,
            known_plies: None,
        }
    }

    /// A coder with fresh adaptive state for games in any notation of
    /// [`crate::text::notation`] (coding [`crate::container::Coding::Notations`], in a block
    /// that says it has some).
    pub fn with_notations(model: &'m Model) -> Self {
        GameCoder { notations: Some(NotationCoder::new()), ..GameCoder::new(model) }
    }

    /// Sets the `[White, Black]` Elo inputs of level 10's transformer for the games coded from
    /// now on ([`Predictor::set_elos`]; PGN coding 5 on, per game, from its rating tags).
    pub fn set_elos(&mut self, elos: [i32; 2]) {
        self.predictor.set_elos(elos);
    }

    /// Sets the ratings of the games coded from now on, for a move network that reads them
    /// ([`Predictor::set_ratings`]; PGN coding 5 on, per game from its
    /// rating tags).
    pub fn set_ratings(&mut self, ratings: Ratings) {
        self.predictor.set_ratings(ratings);
    }

    /// Codes a game's moves from `start`: the spelling convention and, if this coder takes
    /// other notations, the game's notation ([`NotationCoder::code_game`]); then for every
    /// ply "the game ends here?" (unless there is no legal move), whether it is a null move
    /// (in games that have some), and the move, its notation, its spelling and its glyph.
    /// When decoding, `text` is filled. Returns the final state, prepared for
    /// [`GameCoder::code_result`].
    ///
    /// # Errors
    /// The decoder's [`Error::Corrupt`].
    pub fn code_moves<C: SymbolCoder>(&mut self, c: &mut C, start: GameState, text: &mut MoveText) -> Result<GameState, Error> {
        self.code_moves_known(c, start, text, None)
    }

    /// [`GameCoder::code_moves`]; when encoding, `known` may hold the legal moves of the game's
    /// plies as parsing recorded them (from the standard start), which saves generating them
    /// again.
    ///
    /// # Errors
    /// The decoder's [`Error::Corrupt`].
    pub fn code_moves_known<C: SymbolCoder>(
        &mut self,
        c: &mut C,
        start: GameState,
        text: &mut MoveText,
        known: Option<&PlyMoves>,
    ) -> Result<GameState, Error> {
        let decoding = c.decoding();
        let known = if decoding { None } else { known };
        let known_plies = self.known_plies.take();
        let mut conv = if decoding { 0 } else { choose_convention(&start.pos, text, known).index() };
        self.convention.code(c, &mut conv)?;
        let convention = Convention::ALL[conv];
        debug_assert!(decoding || text.written.is_empty() || self.notations.is_some(), "other notations in a block without them");
        let notation = match &mut self.notations {
            Some(n) => n.code_game(c, start.pos.turn(), text)?,
            None => None,
        };
        let mut st = start;
        if let Some(class) = self.fixed_skill {
            st.fix_skill(class);
        }
        loop {
            let ply = st.ply as usize;
            let mut played = None;
            match known {
                Some(k) if ply < k.plies() => {
                    let (moves, in_check, index) = k.ply(ply);
                    debug_assert_eq!(moves.get(index).map(|p| p.to_move()), text.moves.get(ply).copied());
                    self.predictor.prepare_known(&st, moves, in_check);
                    played = Some(index);
                }
                _ => self.predictor.prepare(&st),
            }
            if self.predictor.moves().is_empty() {
                break;
            }
            let mut end = (!decoding && ply == text.moves.len()) as usize;
            match known_plies {
                Some(n) => end = (ply >= n) as usize,
                None => c.code(self.predictor.end_table(&st), &mut end)?,
            }
            if end == 1 {
                break;
            }
            if decoding {
                // Every decoded ply is written: its SAN takes at least two bytes of the text
                // (the PGN decoder charges the other for the move's item). This bounds the plies,
                // and the memory of `text`, by the block's text length.
                c.spend(1)?;
            }
            if let Some(game) = notation.filter(|g| g.nulls) {
                let mut null = !decoding && text.moves[ply] == NULL_MOVE;
                let after_null = ply > 0 && text.moves.get(ply - 1) == Some(&NULL_MOVE);
                self.notations_mut().code_null(c, after_null, &mut null)?;
                if null {
                    if decoding && crate::chess::play_null(&st.pos).is_none() {
                        return Err(Error::Corrupt("a null move where the side to move cannot pass".into()));
                    }
                    self.code_null_written(c, &game, (&NULL_MOVE, st.pos.turn()), Spelling::default(), text, ply)?;
                    if decoding {
                        text.moves.push(NULL_MOVE);
                        text.spellings.push(Spelling::default());
                    }
                    st.play(NULL_MOVE);
                    if let Some(v) = &mut self.views {
                        v.push(MoveView::default());
                    }
                    continue;
                }
            }
            let mut index = if decoding {
                0
            } else if let Some(index) = played {
                index
            } else {
                self.predictor.index_of(&text.moves[ply]).expect("moves are legal")
            };
            let table = self.predictor.move_table(&st);
            if !decoding {
                self.move_info.add(table.frequency(index));
                if let Some(trace) = &mut self.trace {
                    trace.record(st.ply, table, index);
                }
            }
            c.code(table, &mut index)?;
            let view = self.views.is_some().then(|| MoveView::of(&table, index));
            self.predictor.observe(&mut st, index);
            let m = self.predictor.move_at(index);
            // The notation comes first: long forms show every origin, whatever the spelling.
            let form = match &notation {
                Some(game) => {
                    let actual = if decoding { Spelling::default() } else { text.spellings[ply] };
                    let n = self.notations_mut().code_ply(c, game, (&m, st.pos.turn()), actual, text.written.get(ply))?;
                    if decoding {
                        text.written.push(Written { notation: n, glyph: 0 });
                    }
                    n.form
                }
                None => Form::Short,
            };
            let expected = spelling::expected_with(&st.pos, &m, self.predictor.moves(), convention, || {
                let mut after = st.pos.clone();
                after.play_unchecked(m);
                after
            });
            let squares_shown = form == Form::Short;
            let mut hit = if decoding {
                0
            } else {
                let actual = text.spellings[ply];
                (if squares_shown { actual == expected } else { actual.suffix() == expected.suffix() }) as usize
            };
            self.spelling_hit.code(c, &mut hit)?;
            let spelled = if hit == 1 {
                expected
            } else {
                let mut s = if decoding {
                    0
                } else if squares_shown {
                    text.spellings[ply].0 as usize
                } else {
                    Spelling::new(expected.file(), expected.rank(), text.spellings[ply].suffix()).0 as usize
                };
                self.spelling.code(c, &mut s)?;
                Spelling(s as u8)
            };
            if notation.is_some_and(|g| g.glyphs) {
                let mut glyph = if decoding { 0 } else { text.written[ply].glyph };
                self.notations_mut().code_glyph(c, &mut glyph)?;
                if decoding {
                    text.written.last_mut().expect("pushed above").glyph = glyph;
                }
            }
            if decoding {
                text.moves.push(m);
                text.spellings.push(spelled);
            }
            st.play(m);
            if let (Some(v), Some(mut view)) = (&mut self.views, view) {
                view.check = st.pos.is_check();
                v.push(view);
            }
        }
        Ok(st)
    }

    /// The notation models (only called where the coder has them).
    fn notations_mut(&mut self) -> &mut NotationCoder {
        self.notations.as_mut().expect("a game notation is coded only by a coder with notation models")
    }

    /// Codes the notation and glyph of null move `ply` (of `text`, when encoding; pushed to it
    /// when decoding) in a game written as `game`.
    fn code_null_written<C: SymbolCoder>(
        &mut self,
        c: &mut C,
        game: &GameNotation,
        null: (&shakmaty::Move, shakmaty::Color),
        spelling: Spelling,
        text: &mut MoveText,
        ply: usize,
    ) -> Result<(), Error> {
        let decoding = c.decoding();
        let coder = self.notations_mut();
        let notation = coder.code_ply(c, game, null, spelling, text.written.get(ply))?;
        let mut glyph = if decoding { 0 } else { text.written[ply].glyph };
        if game.glyphs {
            coder.code_glyph(c, &mut glyph)?;
        }
        if decoding {
            text.written.push(Written { notation, glyph });
        }
        Ok(())
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
/// `known`, the legal moves of the game's plies from `start` if the caller has them, saves
/// replaying the game.
fn choose_convention(start: &Chess, text: &MoveText, known: Option<&PlyMoves>) -> Convention {
    let check_marks = text.spellings.iter().any(|s| s.suffix().is_some());
    // Only moves that show a disambiguation can tell; most games have none (no replay then).
    let shows = |(m, s): (&Move, &Spelling)| (s.file() || s.rank()) && m.role() != Role::Pawn;
    let Some(first) = text.moves.iter().zip(&text.spellings).position(shows) else {
        return Convention { check_marks, pseudo_legal_disambiguation: false };
    };
    // Whether the spelling of move `k` shows another file or rank than legal moves need.
    let differs = |k: usize, legal: &[Packed]| {
        let s = text.spellings[k];
        spelling::legal_disambiguation(&text.moves[k], legal) != (s.file(), s.rank())
    };
    let pseudo_legal_disambiguation = match known {
        Some(known) if known.plies() == text.moves.len() => {
            (first..text.moves.len()).any(|k| shows((&text.moves[k], &text.spellings[k])) && differs(k, known.ply(k).0))
        }
        _ => {
            let mut pos = start.clone();
            let mut legal = Vec::new();
            let mut found = false;
            for (k, m) in text.moves.iter().enumerate() {
                if k >= first && shows((m, &text.spellings[k])) {
                    legal.clear();
                    legal_moves_sorted_into(&pos, &mut legal);
                    if differs(k, &legal) {
                        found = true;
                        break;
                    }
                }
                play_ply(&mut pos, *m);
            }
            found
        }
    };
    Convention { check_marks, pseudo_legal_disambiguation }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::entropy::range::Encoder;

    #[test]
    fn views_record_every_ply_as_the_model_saw_it() {
        let game = crate::text::parse_game(b"e4 e5 Qh5 Nc6 Bc4 Nf6 Qxf7 1-0").unwrap();
        let text = MoveText { moves: game.moves.clone(), spellings: vec![Spelling::default(); game.moves.len()], ..Default::default() };
        let mut coder = GameCoder::new(Model::builtin(crate::model::Level::MIN));
        coder.views = Some(Vec::new());
        let mut enc = Encoder::new();
        let mut text = text;
        coder.code_moves(&mut enc, GameState::new(), &mut text).unwrap();
        let views = coder.views.take().unwrap();
        assert_eq!(views.len(), 7);
        assert_eq!((views[0].legal, views[1].legal), (20, 20));
        for v in &views {
            assert!(v.frequency > 0 && v.frequency <= v.top && v.rank < v.legal, "{v:?}");
            assert_eq!(v.rank == 0, v.frequency == v.top, "{v:?}");
        }
        // Only the mate gives check.
        assert_eq!(views.iter().map(|v| v.check).collect::<Vec<_>>(), [false, false, false, false, false, false, true]);
        // A coder without views records nothing.
        assert!(GameCoder::new(Model::builtin(crate::model::Level::MIN)).views.is_none());
    }
}
