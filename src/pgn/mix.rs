//! Binary decisions predicted by several contexts at once and mixed, in the style of lpaq
//! (Matt Mahoney, 2007): each context keeps an adaptive probability ([`Counter`]), the
//! probabilities are mapped to the logistic domain ([`stretch`]), weighted by a small online
//! mixer ([`Mixed`]) and mapped back ([`squash`]). Used by the clock model of coding 3
//! ([`super::clock_model`]).
//!
//! Everything is integer arithmetic: probabilities are 12-bit (`0..4096`, P(1) = p/4096),
//! logistic values are fixed point with 8 fractional bits in `-2047..=2047`, so encoder and
//! decoder compute the same numbers on every platform.

use std::collections::HashMap;
use std::sync::OnceLock;

use crate::entropy::SymbolCoder;
use crate::entropy::cdf::{Cdf, TOTAL};
use crate::error::Error;

/// `4096 / (1 + e^-(d/256))` for `d` in `-2047..=2047`, interpolated from 33 points (lpaq1).
pub fn squash(d: i32) -> i32 {
    const T: [i32; 33] = [
        1, 2, 3, 6, 10, 16, 27, 45, 73, 120, 194, 310, 488, 747, 1101, 1546, 2047, 2549, 2994, 3348, 3607, 3785, 3901, 3975, 4024, 4050,
        4068, 4079, 4085, 4089, 4092, 4093, 4094,
    ];
    if d > 2047 {
        return 4095;
    }
    if d < -2047 {
        return 1;
    }
    let w = d & 127;
    let i = ((d >> 7) + 16) as usize;
    (T[i] * (128 - w) + T[i + 1] * w + 64) >> 7
}

/// The inverse of [`squash`]: `256 ln(p / (4096 - p))` for a 12-bit probability.
pub fn stretch(p: i32) -> i32 {
    static TABLE: OnceLock<Vec<i16>> = OnceLock::new();
    let t = TABLE.get_or_init(|| {
        let mut t = vec![0i16; 4096];
        let mut pi = 0usize;
        for x in -2047..=2047 {
            let v = squash(x) as usize;
            for item in t.iter_mut().take(v + 1).skip(pi) {
                *item = x as i16;
            }
            pi = pi.max(v + 1);
        }
        for item in t.iter_mut().skip(pi) {
            *item = 2047;
        }
        t
    });
    t[p.clamp(0, 4095) as usize] as i32
}

/// An adaptive probability: fast at first (close to counting), then at the rate 1/(`LIMIT`+2).
#[derive(Clone, Copy, Debug)]
pub struct Counter {
    /// P(1) in 2^-16.
    p: u16,
    n: u8,
}

impl Default for Counter {
    fn default() -> Self {
        Counter { p: 1 << 15, n: 0 }
    }
}

impl Counter {
    const LIMIT: u8 = 60;

    /// P(1), 12-bit.
    fn p12(self) -> i32 {
        (self.p >> 4) as i32
    }

    /// Adapts to `bit`; the rate stops slowing down at 1/(`limit`+2).
    fn update(&mut self, bit: bool, limit: u8) {
        let target = if bit { 65535 } else { 0 };
        let p = self.p as i32;
        self.p = (p + (target - p) / (self.n as i32 + 2)).clamp(0, 65535) as u16;
        self.n = self.n.saturating_add(1).min(limit);
    }
}

/// Most inputs of one decision (contexts plus the bias).
pub const MAX_INPUTS: usize = 16;

/// A set of context counters, keyed by 64-bit context values, and mixers that combine them.
#[derive(Debug, Default)]
pub struct Mixed {
    counters: HashMap<u64, Counter>,
    /// Weights per mixer set, 16.16 fixed point.
    weights: HashMap<u32, [i32; MAX_INPUTS]>,
    /// Coding 6: the counters' slowest rate is 1/(this+2) instead of 1/([`Counter::LIMIT`]+2)
    /// (`None`).
    limit: Option<u8>,
}

/// Learning rate of the mixers (error in 12-bit probability times this, times the input, in
/// 2^-16 of a weight; as paq8).
const RATE: i32 = 12;
/// Bound of a weight (256 in 16.16), so that no input can make the weights overflow.
const MAX_WEIGHT: i32 = 1 << 24;

impl Mixed {
    /// Fresh models.
    pub fn new() -> Self {
        Self::default()
    }

    /// Fresh models whose counters slow down to 1/(`limit`+2) (coding 6: 255).
    pub fn with_limit(limit: u8) -> Self {
        Mixed { limit: Some(limit), ..Self::default() }
    }

    /// Codes `bit` under the contexts `keys` (at most `MAX_INPUTS - 1`), mixed by the weights
    /// of set `set`, then adapts counters and weights; returns the bit (decoded when decoding).
    ///
    /// # Errors
    /// As [`SymbolCoder::code`].
    pub fn code<C: SymbolCoder>(&mut self, c: &mut C, set: u32, keys: &[u64], bit: bool) -> Result<bool, Error> {
        debug_assert!(keys.len() < MAX_INPUTS);
        let n = keys.len() + 1;
        let mut st = [0i32; MAX_INPUTS];
        for (s, k) in st.iter_mut().zip(keys) {
            *s = stretch(self.counters.get(k).copied().unwrap_or_default().p12());
        }
        st[keys.len()] = 256;
        let init = (65536 * 3 / (2 * keys.len().max(1))) as i32;
        let w = self.weights.entry(set).or_insert_with(|| {
            let mut w = [init; MAX_INPUTS];
            w[MAX_INPUTS - 1] = 0;
            w
        });
        // The bias input uses the last weight slot.
        let dot: i64 = (0..n).map(|i| st[i] as i64 * w[if i == keys.len() { MAX_INPUTS - 1 } else { i }] as i64).sum();
        let p = squash((dot >> 16).clamp(-2047, 2047) as i32).clamp(1, 4095);
        let f1 = (p as u32) << (crate::entropy::cdf::PRECISION - 12);
        let cum = [0, TOTAL - f1, TOTAL];
        let mut s = bit as usize;
        c.code(Cdf::new(&cum), &mut s)?;
        let bit = s == 1;
        let err = ((bit as i32) << 12) - p;
        for (i, &x) in st.iter().enumerate().take(n) {
            let slot = if i == keys.len() { MAX_INPUTS - 1 } else { i };
            w[slot] = (w[slot] + ((x * err * RATE + (1 << 15)) >> 16)).clamp(-MAX_WEIGHT, MAX_WEIGHT);
        }
        let limit = self.limit.unwrap_or(Counter::LIMIT);
        for k in keys {
            self.counters.entry(*k).or_default().update(bit, limit);
        }
        Ok(bit)
    }
}

/// A context key from a context number and its fields (each below 2^8).
pub fn key(ctx: u8, fields: &[u32]) -> u64 {
    let mut h = ctx as u64;
    for &f in fields {
        h = h.wrapping_mul(0x100_0000_01b3).wrapping_add(f as u64 + 1);
    }
    h
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::entropy::range::{Decoder, Encoder};

    #[test]
    fn stretch_inverts_squash() {
        for d in (-1200..1200).step_by(37) {
            assert!((stretch(squash(d)) - d).abs() < 40, "{d}");
        }
        assert_eq!(squash(0), 2047);
    }

    #[test]
    fn mixed_bits_round_trip_and_learn() {
        let bits: Vec<bool> = (0..2000u32).map(|i| i % 7 != 0 && i.wrapping_mul(2_654_435_761) % 5 != 0).collect();
        let mut enc = Encoder::new();
        let mut m = Mixed::new();
        for (i, &b) in bits.iter().enumerate() {
            m.code(&mut enc, 0, &[key(1, &[i as u32 % 7]), key(2, &[])], b).unwrap();
        }
        let bytes = enc.finish();
        assert!(bytes.len() < 2000 / 8, "{} bytes", bytes.len());
        let mut dec = Decoder::new(&bytes).unwrap();
        let mut m = Mixed::new();
        for (i, &b) in bits.iter().enumerate() {
            assert_eq!(m.code(&mut dec, 0, &[key(1, &[i as u32 % 7]), key(2, &[])], false).unwrap(), b);
        }
    }
}
