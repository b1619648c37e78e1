//! Adaptive frequency model for small alphabets (line kinds, terminators, spellings).

use super::{Cdf, CdfBuf, SymbolCoder};
use crate::Error;

/// Counts of each symbol seen so far in a block, plus a prior; codes symbols under the current
/// counts and then counts them. Identical on both sides because both see the same symbols.
#[derive(Clone, Debug)]
pub struct AdaptiveModel {
    counts: Vec<u64>,
    table: CdfBuf,
    increment: u64,
}

impl AdaptiveModel {
    /// A model over `n` symbols with prior count `prior` each (in units of 1/32 observation);
    /// every observation adds 32.
    pub fn new(n: usize, prior: u64) -> Self {
        let counts = vec![prior; n];
        let table = CdfBuf::from_weights(&counts);
        AdaptiveModel { counts, table, increment: 32 }
    }

    /// The current table.
    pub fn cdf(&self) -> Cdf<'_> {
        self.table.cdf()
    }

    /// Codes `*symbol` with the current table, then counts it.
    ///
    /// # Errors
    /// As [`SymbolCoder::code`].
    pub fn code<C: SymbolCoder>(&mut self, coder: &mut C, symbol: &mut usize) -> Result<(), Error> {
        coder.code(self.table.cdf(), symbol)?;
        self.observe(*symbol);
        Ok(())
    }

    /// Counts one occurrence of `symbol`, halving all counts when they grow large.
    pub fn observe(&mut self, symbol: usize) {
        self.counts[symbol] += self.increment;
        if self.counts.iter().sum::<u64>() > 1 << 20 {
            for c in &mut self.counts {
                *c = (*c / 2).max(1);
            }
        }
        self.table.set_weights(&self.counts);
    }
}
