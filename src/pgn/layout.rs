//! The layout model: which item comes next in the move text, move numbers, glyphs, NAGs,
//! result tokens, and the whitespace between tokens.
//!
//! Most of the layout follows from the position: a move number before White's moves and
//! after an interruption (comment, variation), `N.` for White and `N...` for Black, a space
//! between tokens, a line break after each tag, a blank line before the move text and after
//! the game. Each decision is an adaptive bit or small symbol in the context of what came
//! before, so a file that always does the same thing costs almost nothing, and a file that
//! does something else (other numbering, `1.e4` without a space, CRLF line breaks, wrapping
//! at a fixed width) is learned as it goes. Exceptional whitespace is coded byte by byte.
//!
//! Line wrapping: exports like python-chess's or ChessBase's fill lines up to a width. The
//! width of a game is the length of its longest move text line (coded once per game, usually
//! "same as the last game"); each gap between two items then knows whether the next token
//! would overflow the line, which predicts a line break almost perfectly.

use super::game::{ITEM_KINDS, Item};
use super::stream::Metered;
use crate::chess::GameResult;
use crate::entropy::SymbolCoder;
use crate::entropy::binary::{Bit, BitTree, NumberModel, SignedModel, StringModel};
use crate::error::Error;

/// Gap classes: `""`, `" "`, one line break, two line breaks, anything else.
const GAP_CLASSES: usize = 5;
/// Token classes for gap contexts: item kinds, then tag, then game boundary.
const TAG_CLASS: usize = ITEM_KINDS - 1;
const BOUNDARY: usize = ITEM_KINDS;
const TOKEN_CLASSES: usize = ITEM_KINDS + 1;
/// Item kind context before the first item.
const START: usize = ITEM_KINDS - 1;

/// The class of a gap, given the game's line break.
fn gap_class(gap: &[u8], nl: &[u8]) -> usize {
    if gap.is_empty() {
        0
    } else if gap == b" " {
        1
    } else if gap == nl {
        2
    } else if gap.len() == 2 * nl.len() && gap.starts_with(nl) && gap.ends_with(nl) {
        3
    } else {
        GAP_CLASSES - 1
    }
}

/// Whether the first line break in `text` is `\r\n` rather than `\n`.
pub(crate) fn uses_crlf(text: &[u8]) -> bool {
    memchr::memchr(b'\n', text).is_some_and(|i| i > 0 && text[i - 1] == b'\r')
}

/// The layout models of one block.
#[derive(Debug)]
pub(crate) struct LayoutModel {
    kinds: Vec<BitTree>,
    moveno_hit: [Bit; 2],
    moveno_delta: SignedModel,
    moveno_dots: BitTree,
    glyph: BitTree,
    nag: NumberModel,
    result_hit: [Bit; 2],
    result: BitTree,
    crlf: Bit,
    width_same: Bit,
    width: NumberModel,
    last_width: u64,
    gaps: Vec<BitTree>,
    gap_text: StringModel,
    /// Lengths of `;` comments (their text is in the side stream).
    pub line_comment_len: NumberModel,
}

impl Default for LayoutModel {
    fn default() -> Self {
        LayoutModel {
            kinds: (0..ITEM_KINDS * 8).map(|_| BitTree::new(4)).collect(),
            moveno_hit: [Bit::default(); 2],
            moveno_delta: SignedModel::new(),
            moveno_dots: BitTree::new(3),
            glyph: BitTree::new(3),
            nag: NumberModel::new(),
            result_hit: [Bit::default(); 2],
            result: BitTree::new(2),
            crlf: Bit::default(),
            width_same: Bit::default(),
            width: NumberModel::new(),
            last_width: 0,
            gaps: (0..TOKEN_CLASSES * TOKEN_CLASSES * 2).map(|_| BitTree::new(3)).collect(),
            gap_text: StringModel::new(),
            line_comment_len: NumberModel::new(),
        }
    }
}

/// What the item model knows at a point of the move text.
#[derive(Clone, Copy, Debug)]
pub(crate) struct ItemContext {
    /// Kind of the previous item (`None` at the start).
    pub prev: Option<usize>,
    /// The current line has moves left.
    pub moves_left: bool,
    /// Inside a variation.
    pub in_variation: bool,
    /// White is to move in the current line.
    pub white: bool,
}

impl LayoutModel {
    /// Fresh models.
    pub fn new() -> Self {
        Self::default()
    }

    /// Codes the kind of the next item ([`Item::kind`] or [`Item::END`]).
    ///
    /// # Errors
    /// The decoder's [`Error::Corrupt`].
    pub(crate) fn code_kind<C: SymbolCoder>(&mut self, c: &mut Metered<'_, C>, ctx: ItemContext, kind: &mut usize) -> Result<(), Error> {
        let i = ctx.prev.unwrap_or(START) * 8 + (ctx.moves_left as usize) * 4 + (ctx.in_variation as usize) * 2 + ctx.white as usize;
        self.kinds[i].code(c, kind)?;
        if *kind > Item::END {
            return Err(Error::Corrupt("unknown move text item".into()));
        }
        Ok(())
    }

    /// Codes a move number against the expected `fullmoves` and White (`N.`) or Black (`N...`).
    ///
    /// # Errors
    /// The decoder's [`Error::Corrupt`].
    pub(crate) fn code_move_number<C: SymbolCoder>(
        &mut self,
        c: &mut Metered<'_, C>,
        fullmoves: u32,
        white: bool,
        number: &mut u32,
        dots: &mut u8,
    ) -> Result<(), Error> {
        let expected_dots = if white { 1 } else { 3 };
        if self.moveno_hit[white as usize].code_value(c, *number == fullmoves && *dots == expected_dots)? {
            (*number, *dots) = (fullmoves, expected_dots);
            return Ok(());
        }
        let delta = self.moveno_delta.code_value(c, *number as i64 - fullmoves as i64)?;
        *number = u32::try_from(fullmoves as i64 + delta).map_err(|_| Error::Corrupt("move number out of range".into()))?;
        let mut d = *dots as usize;
        self.moveno_dots.code(c, &mut d)?;
        *dots = d as u8;
        Ok(())
    }

    /// Codes a glyph index.
    ///
    /// # Errors
    /// The decoder's [`Error::Corrupt`].
    pub(crate) fn code_glyph<C: SymbolCoder>(&mut self, c: &mut Metered<'_, C>, g: &mut u8) -> Result<(), Error> {
        let mut s = *g as usize;
        self.glyph.code(c, &mut s)?;
        if s >= super::lexer::GLYPHS.len() {
            return Err(Error::Corrupt("unknown glyph".into()));
        }
        *g = s as u8;
        Ok(())
    }

    /// Codes a NAG number.
    ///
    /// # Errors
    /// The decoder's [`Error::Corrupt`].
    pub(crate) fn code_nag<C: SymbolCoder>(&mut self, c: &mut Metered<'_, C>, n: &mut u8) -> Result<(), Error> {
        let v = self.nag.code_value(c, *n as u64)?;
        *n = u8::try_from(v).map_err(|_| Error::Corrupt("NAG out of range".into()))?;
        Ok(())
    }

    /// Codes a result token against the game's result.
    ///
    /// # Errors
    /// The decoder's [`Error::Corrupt`].
    pub fn code_result<C: SymbolCoder>(
        &mut self,
        c: &mut Metered<'_, C>,
        game: GameResult,
        in_variation: bool,
        r: &mut GameResult,
    ) -> Result<(), Error> {
        if self.result_hit[in_variation as usize].code_value(c, *r == game)? {
            *r = game;
        } else {
            let mut s = *r as usize;
            self.result.code(c, &mut s)?;
            *r = GameResult::ALL[s];
        }
        Ok(())
    }

    /// Codes whether the game's line break is CRLF.
    ///
    /// # Errors
    /// The decoder's [`Error::Corrupt`].
    pub(crate) fn code_crlf<C: SymbolCoder>(&mut self, c: &mut Metered<'_, C>, crlf: &mut bool) -> Result<(), Error> {
        self.crlf.code(c, crlf)
    }

    /// Codes the gaps of a game whose tokens (tags then items, `classes` giving each token's
    /// class: item kind, or `None` for a tag) are `tokens[ends[i-1]..ends[i]]`. When
    /// decoding, `gaps` is filled.
    ///
    /// # Errors
    /// The decoder's [`Error::Corrupt`].
    pub(crate) fn code_gaps<C: SymbolCoder>(
        &mut self,
        c: &mut Metered<'_, C>,
        crlf: bool,
        tokens: &[u8],
        ends: &[usize],
        classes: &[Option<usize>],
        gaps: &mut Vec<Vec<u8>>,
    ) -> Result<(), Error> {
        let decoding = c.decoding();
        let nl: &[u8] = if crlf { b"\r\n" } else { b"\n" };
        let token = |i: usize| &tokens[if i == 0 { 0 } else { ends[i - 1] }..ends[i]];
        let mut w = if decoding { 0 } else { width(gaps, tokens, ends, classes) };
        let same = self.width_same.code_value(c, w == self.last_width)?;
        w = if same { self.last_width } else { self.width.code_value(c, w)? };
        self.last_width = w;
        let class_of = |i: usize| classes[i].unwrap_or(TAG_CLASS);
        let mut col: u64 = 0;
        let advance = |col: &mut u64, bytes: &[u8]| match memchr::memrchr(b'\n', bytes) {
            Some(p) => *col = (bytes.len() - p - 1) as u64,
            None => *col += bytes.len() as u64,
        };
        for j in 0..=ends.len() {
            let prev = if j == 0 { BOUNDARY } else { class_of(j - 1) };
            let next = if j == ends.len() { BOUNDARY } else { class_of(j) };
            let overflow = w > 0 && prev < TAG_CLASS && next < TAG_CLASS && {
                let t = token(j);
                let first_line = memchr::memchr(b'\n', t).unwrap_or(t.len());
                col + 1 + first_line as u64 > w
            };
            let ctx = (prev * TOKEN_CLASSES + next) * 2 + overflow as usize;
            if decoding {
                gaps.push(Vec::new());
            }
            let gap = &mut gaps[j];
            let mut class = if decoding { 0 } else { gap_class(gap, nl) };
            self.gaps[ctx].code(c, &mut class)?;
            match class {
                0 => gap.clear(),
                1 => *gap = b" ".to_vec(),
                2 => *gap = nl.to_vec(),
                3 => *gap = [nl, nl].concat(),
                4 => {
                    let budget = c.budget();
                    self.gap_text.code(c, 0, gap, budget)?;
                    if decoding {
                        c.spend(gap.len())?;
                    }
                }
                _ => return Err(Error::Corrupt("unknown gap class".into())),
            }
            advance(&mut col, gap);
            if j < ends.len() {
                advance(&mut col, token(j));
            }
        }
        Ok(())
    }
}

/// The wrapping width of a game: 0 when its move text items are all on one line, else the
/// length of its longest line from the first item to the last.
fn width(gaps: &[Vec<u8>], tokens: &[u8], ends: &[usize], classes: &[Option<usize>]) -> u64 {
    let Some(first) = classes.iter().position(|k| k.is_some()) else { return 0 };
    let last = ends.len() - 1;
    if !gaps[first + 1..=last].iter().any(|g| g.contains(&b'\n')) {
        return 0;
    }
    // The text from the start of the first item's line to the end of the last item.
    let mut text = Vec::new();
    for j in 0..=last {
        text.extend_from_slice(&gaps[j]);
        if j == first {
            let line_start = memchr::memrchr(b'\n', &text).map_or(0, |p| p + 1);
            text.drain(..line_start);
        }
        text.extend_from_slice(&tokens[if j == 0 { 0 } else { ends[j - 1] }..ends[j]]);
        if j < first {
            text.clear();
        }
    }
    text.split(|&b| b == b'\n').map(|l| l.strip_suffix(b"\r").unwrap_or(l).len() as u64).max().unwrap_or(0)
}
