//! Adaptive frequency model for small alphabets (line kinds, terminators, spellings).

use super::cdf::{Cdf, CdfBuf};
use super::coder::SymbolCoder;
use crate::error::Error;

/// Counts of each symbol seen so far in a block, plus a prior; codes symbols under the current
/// counts and then counts them. Identical on both sides because both see the same symbols.
#[derive(Clone, Debug)]
pub struct AdaptiveModel {
    counts: Vec<u64>,
    /// Sum of `counts`.
    total: u64,
    table: CdfBuf,
    increment: u64,
}

impl AdaptiveModel {
    /// A model over `n` symbols with prior count `prior` each (in units of 1/32 observation);
    /// every observation adds 32.
    pub fn new(n: usize, prior: u64) -> Self {
        let counts = vec![prior; n];
        let table = CdfBuf::from_weights(&counts);
        let total = counts.iter().sum();
        AdaptiveModel { counts, total, table, increment: 32 }
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
        self.total += self.increment;
        if self.total > 1 << 20 {
            for c in &mut self.counts {
                *c = (*c / 2).max(1);
            }
            self.total = self.counts.iter().sum();
        }
        // `set_weights` with the sum known (non-zero: this observation counted).
        let counts = &self.counts;
        self.table.set_scaled(counts.len(), self.total as u128, |i| counts[i]);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The table after each observation is the one [`CdfBuf::set_weights`] makes of the
    /// counts, through the halvings.
    #[test]
    fn table_tracks_the_counts() {
        let mut model = AdaptiveModel::new(3, 32);
        let mut x: u32 = 1;
        for step in 0..100_000 {
            x = x.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
            let symbol = [0, 0, 0, 1, 1, 2][(x >> 24) as usize % 6];
            model.observe(symbol);
            assert_eq!(model.total, model.counts.iter().sum::<u64>());
            if step % 997 == 0 || model.total < 200 {
                let expected = CdfBuf::from_weights(&model.counts);
                let (got, want) = (model.cdf(), expected.cdf());
                assert!((0..3).all(|i| got.frequency(i) == want.frequency(i)), "step {step}");
            }
        }
        assert!(model.total <= 1 << 20);
    }
}
