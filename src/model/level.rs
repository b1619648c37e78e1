//! The compression levels: 1 (fastest) ..= 10 (strongest), one released model each; level 10
//! codes moves with a transformer whose weights the user supplies
//! ([`super::transformer::pinned`]).

/// Compression levels: 1 (fastest) ..= [`MAX_LEVEL`] (strongest).
pub const MIN_LEVEL: u8 = 1;
/// The strongest level.
pub const MAX_LEVEL: u8 = 10;
/// The strongest level whose models are all embedded (level 10 needs the user's weights).
pub const MAX_EMBEDDED_LEVEL: u8 = 9;
/// The level used when none is given: the smallest archive that still compresses and
/// expands the benchmark (`data/Chess_Games.txt`) in no more time than `xz -9e` compresses it
/// on two cores (measured with `chesszip bench`; see README.md and docs/performance.md).
pub const DEFAULT_LEVEL: u8 = 2;

/// A compression level, `MIN_LEVEL..=MAX_LEVEL`: checked once where a level comes in (the
/// command line, the tuner, Python) so that the code below needs no check of its own.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Level(u8);

/// A level outside `MIN_LEVEL..=MAX_LEVEL`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
#[error("level {0} is not in {MIN_LEVEL}..={MAX_LEVEL}")]
pub struct LevelOutOfRange(pub u8);

impl Level {
    /// The fastest level.
    pub const MIN: Level = Level(MIN_LEVEL);
    /// The strongest level.
    pub const MAX: Level = Level(MAX_LEVEL);
    /// The level used when none is given ([`DEFAULT_LEVEL`]).
    pub const DEFAULT: Level = Level(DEFAULT_LEVEL);

    /// `level` if it is one.
    ///
    /// # Errors
    /// [`LevelOutOfRange`] outside `MIN_LEVEL..=MAX_LEVEL`.
    pub const fn new(level: u8) -> Result<Level, LevelOutOfRange> {
        if level >= MIN_LEVEL && level <= MAX_LEVEL { Ok(Level(level)) } else { Err(LevelOutOfRange(level)) }
    }

    /// The level's number.
    pub const fn get(self) -> u8 {
        self.0
    }

    /// Every level, fastest first.
    pub fn all() -> impl Iterator<Item = Level> {
        (MIN_LEVEL..=MAX_LEVEL).map(Level)
    }
}

impl TryFrom<u8> for Level {
    type Error = LevelOutOfRange;

    fn try_from(level: u8) -> Result<Level, LevelOutOfRange> {
        Level::new(level)
    }
}

impl From<Level> for u8 {
    fn from(level: Level) -> u8 {
        level.0
    }
}

impl std::fmt::Display for Level {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.0.fmt(f)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn levels_are_checked_once() {
        assert_eq!(Level::all().map(Level::get).collect::<Vec<_>>(), (1..=10).collect::<Vec<_>>());
        assert_eq!(Level::new(0), Err(LevelOutOfRange(0)));
        assert_eq!(Level::new(11).unwrap_err().to_string(), "level 11 is not in 1..=10");
        assert_eq!(Level::try_from(2), Ok(Level::DEFAULT));
        assert_eq!(u8::from(Level::MAX), MAX_LEVEL);
    }
}
