//! A block as the container stores it: its two coded streams, and the counts its header records.

/// A compressed block: the range-coded stream and the compressed raw-line side stream.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct EncodedBlock {
    /// Range coder output (a multiple of 4 bytes).
    pub range: Vec<u8>,
    /// zstd frame of the raw lines joined by `\n` (empty when there are none).
    pub raw: Vec<u8>,
}

/// Statistics of an encoded block.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct BlockStats {
    /// Lines in the block.
    pub lines: u64,
    /// Lines coded as games.
    pub games: u64,
    /// Plies of those games.
    pub plies: u64,
    /// Lines stored raw.
    pub raw_lines: u64,
    /// Model cost of the moves, in bits (only when measured).
    pub move_bits: f64,
    /// Model cost of everything else in the range-coded stream, in bits (only when measured).
    pub other_bits: f64,
}

impl std::ops::AddAssign for BlockStats {
    fn add_assign(&mut self, o: BlockStats) {
        self.lines += o.lines;
        self.games += o.games;
        self.plies += o.plies;
        self.raw_lines += o.raw_lines;
        self.move_bits += o.move_bits;
        self.other_bits += o.other_bits;
    }
}
