//! Cumulative frequency tables and their use as constriction entropy models.

use std::borrow::Borrow;
use std::num::NonZeroU32;

use constriction::stream::model::{DecoderModel, EncoderModel, EntropyModel};

use super::{PRECISION, TOTAL};

/// A borrowed cumulative frequency table: `cum[0] == 0`, strictly increasing,
/// `cum[n] == TOTAL` for `n` symbols. Symbol `i` has probability `(cum[i+1] - cum[i]) / TOTAL`.
#[derive(Clone, Copy, Debug)]
pub struct Cdf<'a> {
    cum: &'a [u32],
}

impl<'a> Cdf<'a> {
    /// Wraps a table; debug builds check the invariants.
    pub fn new(cum: &'a [u32]) -> Self {
        debug_assert!(cum.len() >= 2 && cum[0] == 0 && *cum.last().unwrap() == TOTAL);
        debug_assert!(cum.windows(2).all(|w| w[0] < w[1]));
        Cdf { cum }
    }

    /// Number of symbols.
    pub fn len(&self) -> usize {
        self.cum.len() - 1
    }

    /// Always false: a table has at least one symbol.
    pub fn is_empty(&self) -> bool {
        false
    }

    /// Frequency of symbol `i` (out of [`TOTAL`]).
    pub fn frequency(&self, i: usize) -> u32 {
        self.cum[i + 1] - self.cum[i]
    }

    /// Information content of symbol `i` in bits.
    pub fn bits(&self, i: usize) -> f64 {
        PRECISION as f64 - (self.frequency(i) as f64).log2()
    }
}

impl EntropyModel<PRECISION> for Cdf<'_> {
    type Symbol = usize;
    type Probability = u32;
}

impl EncoderModel<PRECISION> for Cdf<'_> {
    #[inline]
    fn left_cumulative_and_probability(&self, symbol: impl Borrow<usize>) -> Option<(u32, NonZeroU32)> {
        let i = *symbol.borrow();
        let lo = *self.cum.get(i)?;
        let hi = *self.cum.get(i + 1)?;
        Some((lo, NonZeroU32::new(hi - lo)?))
    }
}

impl DecoderModel<PRECISION> for Cdf<'_> {
    #[inline]
    fn quantile_function(&self, quantile: u32) -> (usize, u32, NonZeroU32) {
        // The last `i` with cum[i] <= quantile; cum[0] == 0 <= quantile < TOTAL == cum[n].
        let i = self.cum.partition_point(|&c| c <= quantile) - 1;
        let lo = self.cum[i];
        let p = NonZeroU32::new(self.cum[i + 1] - lo).expect("table is strictly increasing");
        (i, lo, p)
    }
}

/// An owned, reusable cumulative table built from non-negative integer weights.
#[derive(Clone, Debug, Default)]
pub struct CdfBuf {
    cum: Vec<u32>,
}

impl CdfBuf {
    /// An empty buffer; fill it with [`CdfBuf::set_frequencies`] or [`CdfBuf::from_weights`].
    pub fn new() -> Self {
        CdfBuf { cum: Vec::new() }
    }

    /// Sets the table to frequencies that must each be >= 1 and sum to [`TOTAL`].
    ///
    /// # Panics
    /// Debug builds panic if the sum is not `TOTAL` or a frequency is zero.
    pub fn set_frequencies(&mut self, freqs: impl IntoIterator<Item = u32>) {
        self.cum.clear();
        self.cum.push(0);
        let mut acc = 0u32;
        for f in freqs {
            debug_assert!(f > 0);
            acc += f;
            self.cum.push(acc);
        }
        debug_assert_eq!(acc, TOTAL);
    }

    /// Sets the table to frequencies proportional to `weights` (any non-negative `u64`s, at
    /// least one symbol), every symbol getting at least frequency 1. Exact integer arithmetic:
    /// each symbol gets `1 + floor(w_i * spare / W)` and the rounding remainder goes to the
    /// first symbol of largest weight.
    ///
    /// # Panics
    /// If `weights` is empty or has more than 2^20 symbols.
    pub fn set_weights(&mut self, weights: &[u64]) {
        let n = weights.len();
        assert!(n >= 1 && n <= 1 << 20, "table needs 1..=2^20 symbols, got {n}");
        let total_weight: u128 = weights.iter().map(|&w| w as u128).sum();
        let spare = (TOTAL as u64 - n as u64) as u128;
        self.cum.clear();
        self.cum.push(0);
        if total_weight == 0 {
            // Uniform: spread `spare` evenly, remainder to the first symbol.
            let each = (spare / n as u128) as u32;
            let rest = (spare % n as u128) as u32;
            let mut acc = 0;
            for i in 0..n {
                acc += 1 + each + if i == 0 { rest } else { 0 };
                self.cum.push(acc);
            }
            return;
        }
        // Scale weights below 2^39 so that `w * spare` fits in 64 bits (spare < 2^24).
        let shift = (128 - total_weight.leading_zeros()).saturating_sub(39);
        let total = (total_weight >> shift) as u64;
        let spare = spare as u64;
        let mut argmax = 0;
        let mut best = 0u64;
        let mut given = 0u64;
        let mut scaled = std::mem::take(&mut self.cum);
        scaled.clear();
        scaled.push(0);
        for (i, &w) in weights.iter().enumerate() {
            let w = w >> shift;
            if w > best {
                best = w;
                argmax = i;
            }
            let share = w * spare / total;
            given += share;
            scaled.push(share as u32);
        }
        let rest = (spare - given) as u32;
        let mut acc = 0u32;
        for i in 0..n {
            let f = 1 + scaled[i + 1] + if i == argmax { rest } else { 0 };
            acc += f;
            scaled[i + 1] = acc;
        }
        self.cum = scaled;
        debug_assert_eq!(acc, TOTAL);
    }

    /// A table proportional to `weights`; see [`CdfBuf::set_weights`].
    pub fn from_weights(weights: &[u64]) -> Self {
        let mut buf = CdfBuf::new();
        buf.set_weights(weights);
        buf
    }

    /// The table as an entropy model.
    pub fn cdf(&self) -> Cdf<'_> {
        Cdf::new(&self.cum)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn weights_become_strictly_positive_frequencies_summing_to_total() {
        for weights in [&[0u64, 0, 0][..], &[1], &[5, 0, 3], &[u64::MAX, 1, 0, u64::MAX]] {
            let buf = CdfBuf::from_weights(weights);
            let cdf = buf.cdf();
            assert_eq!(cdf.len(), weights.len());
            let sum: u64 = (0..cdf.len()).map(|i| cdf.frequency(i) as u64).sum();
            assert_eq!(sum, TOTAL as u64);
            assert!((0..cdf.len()).all(|i| cdf.frequency(i) >= 1));
        }
        let cdf_buf = CdfBuf::from_weights(&[3, 1]);
        let cdf = cdf_buf.cdf();
        assert!(cdf.frequency(0) > 3 * (cdf.frequency(1) - 1));
    }

    #[test]
    fn quantile_function_inverts_the_table() {
        let buf = CdfBuf::from_weights(&[7, 0, 2, 9]);
        let cdf = buf.cdf();
        for q in [0, 1, TOTAL / 3, TOTAL / 2, TOTAL - 1] {
            let (i, lo, p) = cdf.quantile_function(q);
            assert!(lo <= q && q < lo + p.get());
            assert_eq!(cdf.left_cumulative_and_probability(i), Some((lo, p)));
        }
    }
}
