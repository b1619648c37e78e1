//! Coding how a game's plies are written when it is not canonical SAN
//! ([`crate::text::notation`]): per game, whether it uses another notation and if so which
//! ([`Notation`], fitted to the game), whether single plies differ from it, and whether the
//! game has glyphs and null moves; per ply, the null-move flag, a differing notation and the
//! glyph. A file that keeps to one notation pays a few symbols per game, each nearly certain
//! once the adaptive models have seen a game or two.

use shakmaty::{Color, Move};

use super::move_text::MoveText;
use crate::chess::NULL_MOVE;
use crate::entropy::{AdaptiveModel, SymbolCoder, TOTAL};
use crate::error::Error;
use crate::text::Spelling;
use crate::text::notation::{GLYPH_SYMBOLS, Notation, Written, fit, same_text};

/// The uniform table of a block's first symbol in coding
/// [`crate::container::Coding::Notations`] (movetext and PGN blocks): whether some game of the
/// block is written in another notation than canonical SAN (one bit).
pub(crate) const NOTATIONS_FLAG: [u32; 3] = [0, TOTAL / 2, TOTAL];

/// What a block encoder does with games in other notations than canonical SAN (movetext and
/// PGN blocks).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Notations {
    /// Gives up on the block: it needs the notation models (try again with `Coded`).
    Refused,
    /// Codes them as moves (the block's notation flag set).
    Coded,
    /// Stores them raw (the fallback should a coded block not decode to its text).
    Raw,
    /// Stores every line or game raw, canonical ones too: the last fallback, should a block
    /// coded with `Refused` or `Raw` not decode to its text (no move is coded, so no model
    /// bug can lose it).
    Stored,
}

/// How a game that uses other notations is written, as its header codes it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct GameNotation {
    /// The notation of the game's plies.
    pub notation: Notation,
    /// Some plies are written in another notation (coded per ply).
    pub mixed: bool,
    /// Some plies carry a glyph (coded per ply).
    pub glyphs: bool,
    /// Some plies are null moves (a flag per ply).
    pub nulls: bool,
}

/// The adaptive models of notations; one per block, next to the move model.
#[derive(Clone, Debug)]
pub struct NotationCoder {
    uses: AdaptiveModel,
    fields: Vec<AdaptiveModel>,
    mixed: AdaptiveModel,
    glyphs: AdaptiveModel,
    nulls: AdaptiveModel,
    /// Whether a ply is a null move, after a move and after a null move (passes come in
    /// pairs in analysis exports).
    null: [AdaptiveModel; 2],
    hit: AdaptiveModel,
    ply_fields: Vec<AdaptiveModel>,
    glyph: AdaptiveModel,
    previous: Notation,
    buf: Vec<u8>,
}

impl Default for NotationCoder {
    fn default() -> Self {
        Self::new()
    }
}

impl NotationCoder {
    /// Fresh models.
    pub fn new() -> Self {
        let fields = || Notation::SIZES.iter().map(|&n| AdaptiveModel::new(n, 32)).collect();
        NotationCoder {
            uses: AdaptiveModel::new(2, 32),
            fields: fields(),
            mixed: AdaptiveModel::new(2, 32),
            glyphs: AdaptiveModel::new(2, 32),
            nulls: AdaptiveModel::new(2, 32),
            null: [AdaptiveModel::new(2, 32), AdaptiveModel::new(2, 32)],
            hit: AdaptiveModel::new(2, 32),
            ply_fields: fields(),
            glyph: AdaptiveModel::new(GLYPH_SYMBOLS, 32),
            previous: Notation::default(),
            buf: Vec::new(),
        }
    }

    /// Codes whether the game of `text` (from a position where `first` is to move) uses other
    /// notations (`text.written` is not empty) and if so its [`GameNotation`], which is
    /// returned. When decoding, `text` is not read.
    ///
    /// # Errors
    /// The decoder's [`Error::Corrupt`].
    pub fn code_game<C: SymbolCoder>(&mut self, c: &mut C, first: Color, text: &MoveText) -> Result<Option<GameNotation>, Error> {
        let decoding = c.decoding();
        let mut uses = (!decoding && !text.written.is_empty()) as usize;
        self.uses.code(c, &mut uses)?;
        if uses == 0 {
            return Ok(None);
        }
        let mut game = GameNotation::default();
        if !decoding {
            let mut mover = first;
            let plies: Vec<(Move, Color, Spelling, Written)> = (text.moves.iter().zip(&text.spellings).zip(&text.written))
                .map(|((m, s), w)| {
                    let ply = (*m, mover, *s, *w);
                    mover = !mover;
                    ply
                })
                .collect();
            game.notation = fit(&plies, self.previous);
            game.mixed = !plies.iter().all(|(m, mover, s, w)| same_text(m, *mover, *s, *w, game.notation, &mut self.buf));
            game.glyphs = text.written.iter().any(|w| w.glyph > 0);
            game.nulls = text.moves.contains(&NULL_MOVE);
        }
        for (i, model) in self.fields.iter_mut().enumerate() {
            let mut v = game.notation.field(i);
            model.code(c, &mut v)?;
            game.notation.set_field(i, v);
        }
        for (flag, model) in [(&mut game.mixed, &mut self.mixed), (&mut game.glyphs, &mut self.glyphs), (&mut game.nulls, &mut self.nulls)]
        {
            let mut v = *flag as usize;
            model.code(c, &mut v)?;
            *flag = v == 1;
        }
        self.previous = game.notation;
        Ok(Some(game))
    }

    /// Codes whether the next ply is a null move (only for games whose header says they have
    /// some), after a null move if `after_null`.
    ///
    /// # Errors
    /// The decoder's [`Error::Corrupt`].
    pub(crate) fn code_null<C: SymbolCoder>(&mut self, c: &mut C, after_null: bool, null: &mut bool) -> Result<(), Error> {
        let mut v = *null as usize;
        self.null[after_null as usize].code(c, &mut v)?;
        *null = v == 1;
        Ok(())
    }

    /// Codes the notation of ply `m` by `mover`, written with `spelling` and `written` (when
    /// encoding), in a game written as `game`; returns the notation to write it with: the
    /// game's unless the game is mixed and the ply's text differs.
    ///
    /// # Errors
    /// The decoder's [`Error::Corrupt`].
    pub(crate) fn code_ply<C: SymbolCoder>(
        &mut self,
        c: &mut C,
        game: &GameNotation,
        ply: (&Move, Color),
        spelling: Spelling,
        written: Option<&Written>,
    ) -> Result<Notation, Error> {
        if !game.mixed {
            return Ok(game.notation);
        }
        let (m, mover) = ply;
        let mut hit = match written {
            Some(w) => same_text(m, mover, spelling, *w, game.notation, &mut self.buf) as usize,
            None => 0,
        };
        self.hit.code(c, &mut hit)?;
        if hit == 1 {
            return Ok(game.notation);
        }
        let mut n = written.map_or(game.notation, |w| w.notation);
        for (i, model) in self.ply_fields.iter_mut().enumerate() {
            let mut v = n.field(i);
            model.code(c, &mut v)?;
            n.set_field(i, v);
        }
        Ok(n)
    }

    /// Codes a ply's glyph (0 for none) in a game whose header says it has glyphs.
    ///
    /// # Errors
    /// The decoder's [`Error::Corrupt`].
    pub(crate) fn code_glyph<C: SymbolCoder>(&mut self, c: &mut C, glyph: &mut u8) -> Result<(), Error> {
        let mut v = *glyph as usize;
        self.glyph.code(c, &mut v)?;
        *glyph = v as u8;
        Ok(())
    }
}
