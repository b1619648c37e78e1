//! The kinds of information in a PGN block ([`Stream`]), and the coder that attributes every
//! symbol to one of them for the size breakdown ([`Metered`]).

use crate::entropy::metered;

/// The kinds of information in a PGN block, for the size breakdown.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Stream {
    /// Moves, game ends and results (the move model, including variations).
    Moves = 0,
    /// Tag names and values.
    Tags = 1,
    /// `[%clk]` values.
    Clocks = 2,
    /// `[%eval]` values.
    Evals = 3,
    /// The rest of comments: shapes, lengths of free text (the text is in the side stream).
    Comments = 4,
    /// Layout: item kinds, move numbers, glyphs, NAGs, whitespace, raw-game flags and lengths.
    #[default]
    Layout = 5,
}

impl Stream {
    /// Number of streams.
    pub const COUNT: usize = 6;
    /// Names, indexed by value.
    pub const NAMES: [&'static str; Self::COUNT] = ["moves", "tags", "clocks", "evals", "comments", "layout"];
}

impl From<Stream> for usize {
    fn from(stream: Stream) -> usize {
        stream as usize
    }
}

/// A coder that attributes each symbol to a [`Stream`] (starting with [`Stream::Layout`]).
pub type Metered<'a, C> = metered::Metered<'a, C, Stream, { Stream::COUNT }>;
