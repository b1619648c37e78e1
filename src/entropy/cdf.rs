//! Cumulative frequency tables and their use as constriction entropy models.

use std::borrow::Borrow;
use std::num::NonZeroU32;

use constriction::stream::model::{DecoderModel, EncoderModel, EntropyModel};

/// Bits of precision of every frequency table: probabilities are multiples of 2^-24.
pub const PRECISION: usize = 24;

/// Sum of the frequencies of every table, 2^[`PRECISION`].
pub const TOTAL: u32 = 1 << PRECISION;

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

/// Exact `floor(x / d)` for `x < 2^63` by a multiplication: the quotient estimate from the
/// reciprocal `floor((2^64 - 1) / d)` is the true quotient or one less, and one comparison
/// corrects it. Same results as `/`, at a fraction of the cost of a 64-bit division.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Divisor {
    d: u64,
    inv: u64,
}

impl Divisor {
    /// A divisor `d >= 1`.
    #[inline]
    pub fn new(d: u64) -> Self {
        debug_assert!(d >= 1);
        Divisor { d, inv: u64::MAX / d }
    }

    /// `x / d`, for `x < 2^63`.
    #[inline]
    pub(crate) fn div(&self, x: u64) -> u64 {
        debug_assert!(x < 1 << 63);
        let q = ((x as u128 * self.inv as u128) >> 64) as u64;
        let q = q + (x - q * self.d >= self.d) as u64;
        debug_assert_eq!(q, x / self.d);
        q
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
        assert!((1..=1 << 20).contains(&n), "table needs 1..=2^20 symbols, got {n}");
        let total_weight: u128 = weights.iter().map(|&w| w as u128).sum();
        if total_weight == 0 {
            self.set_uniform(n);
            return;
        }
        self.set_scaled(n, total_weight, |i| weights[i]);
    }

    /// Uniform table over `n` symbols: `spare` spread evenly, the remainder to the first one
    /// (what [`CdfBuf::set_weights`] does with all weights zero).
    fn set_uniform(&mut self, n: usize) {
        let spare = (TOTAL as u64 - n as u64) as u128;
        let each = (spare / n as u128) as u32;
        let rest = (spare % n as u128) as u32;
        self.cum.clear();
        self.cum.push(0);
        let mut acc = 0;
        for i in 0..n {
            acc += 1 + each + if i == 0 { rest } else { 0 };
            self.cum.push(acc);
        }
    }

    /// The quantisation of [`CdfBuf::set_weights`] for `n` weights given by `weight(i)`, whose
    /// sum `total_weight` (non-zero) the caller knows. Lets a caller compute weights on the fly
    /// (the softmax) instead of storing them.
    #[inline]
    pub(crate) fn set_scaled(&mut self, n: usize, total_weight: u128, mut weight: impl FnMut(usize) -> u64) {
        debug_assert!(total_weight > 0 && (1..=1 << 20).contains(&n));
        // Scale weights below 2^39 so that `w * spare` fits in 64 bits (spare < 2^24).
        let shift = (128 - total_weight.leading_zeros()).saturating_sub(39);
        let total = (total_weight >> shift) as u64;
        let spare = TOTAL as u64 - n as u64;
        let div = Divisor::new(total);
        let mut argmax = 0;
        let mut best = 0u64;
        let mut given = 0u64;
        let mut acc = 0u32;
        self.cum.clear();
        self.cum.push(0);
        self.cum.extend((0..n).map(|i| {
            let w = weight(i) >> shift;
            if w > best {
                best = w;
                argmax = i;
            }
            let share = div.div(w * spare);
            given += share;
            acc += 1 + share as u32;
            acc
        }));
        // The rounding remainder goes to `argmax`: every later cumulative count moves up.
        let rest = (spare - given) as u32;
        for c in &mut self.cum[argmax + 1..] {
            *c += rest;
        }
        debug_assert_eq!(self.cum[n], TOTAL);
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
    fn divisor_matches_division() {
        let mut x: u64 = 0x9e37_79b9_7f4a_7c15;
        let mut next = || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x
        };
        for _ in 0..200_000 {
            let d = match next() % 4 {
                0 => next() % 1000 + 1,
                1 => (next() >> 25) + 1,
                2 => (1 << 38) + next() % (1 << 38),
                _ => next() >> 1 | 1,
            };
            let div = Divisor::new(d);
            let k = next() % 1000;
            for v in [next(), next() % d.saturating_mul(3), d.wrapping_mul(k), d.wrapping_mul(k).wrapping_sub(1), u64::MAX] {
                let v = v & (u64::MAX >> 1);
                assert_eq!(div.div(v), v / d, "{v} / {d}");
            }
        }
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
