//! The compression levels: 1 (fastest) ..= 9 (strongest), one released model each.

/// Compression levels: 1 (fastest) ..= [`MAX_LEVEL`] (strongest).
pub const MIN_LEVEL: u8 = 1;
/// The strongest level.
pub const MAX_LEVEL: u8 = 9;
/// The level used when none is given: the smallest archive that still compresses and
/// expands the benchmark (`data/Chess_Games.txt`) in no more time than `xz -9e` compresses it
/// on two cores (measured with `chesszip bench`; see README.md and docs/performance.md).
pub const DEFAULT_LEVEL: u8 = 2;
