//! Integer softmax: fixed-point logits to a frequency table, bit-identical everywhere.
//!
//! Logits are integers in units of 1/[`LOGIT_ONE`] nat. A move's weight is
//! `exp(z_i - z_max)` read from a table built with integer arithmetic only (no `f64::exp`,
//! whose last bit may differ between platforms), then mixed with a uniform floor so that every
//! legal move keeps a non-zero probability, then quantised by [`CdfBuf::set_weights`].

use std::sync::LazyLock;

use crate::codec::CdfBuf;

/// One nat in logit units.
pub const LOGIT_ONE: i32 = 256;

/// Logit differences beyond this many units (24 nats) get weight 0 before the floor.
pub const EXP_LEN: usize = 24 * LOGIT_ONE as usize;

/// Probabilities (floors, mixing weights) are fixed point with this many units per 1.
pub const PROB_ONE: u64 = 1 << 16;

/// `EXP[d] ~= 2^32 * exp(-d / LOGIT_ONE)`, by the recurrence
/// `EXP[d] = EXP[d-1] * round(2^32 * exp(-1/256)) >> 32`, exact integer arithmetic.
static EXP: LazyLock<Vec<u64>> = LazyLock::new(|| {
    // round(2^32 * exp(-1/256)), computed offline; checked against f64 in the tests.
    const STEP: u64 = 4_278_222_805;
    let mut table = Vec::with_capacity(EXP_LEN);
    let mut v: u64 = 1 << 32;
    for _ in 0..EXP_LEN {
        table.push(v);
        v = (v * STEP) >> 32;
    }
    table
});

/// `2^32 * exp(-d / LOGIT_ONE)` for `d >= 0`, 0 beyond [`EXP_LEN`].
#[inline]
pub fn exp_neg(d: u32) -> u64 {
    EXP.get(d as usize).copied().unwrap_or(0)
}

/// Fills `table` with the softmax of `logits` mixed with a uniform floor:
/// `p_i = (1 - floor) * softmax(logits)_i + floor / n`, with `floor` in units of 1/[`PROB_ONE`]
/// (at most `PROB_ONE`). `weights` is scratch space.
///
/// # Panics
/// If `logits` is empty.
pub fn softmax_into(logits: &[i32], floor: u64, weights: &mut Vec<u64>, table: &mut CdfBuf) {
    let z_max = *logits.iter().max().expect("at least one candidate");
    weights.clear();
    let mut sum = 0u64;
    for &z in logits {
        let w = exp_neg((z_max as i64 - z as i64).min(u32::MAX as i64) as u32);
        sum += w;
        weights.push(w);
    }
    let floor = floor.min(PROB_ONE);
    let uniform = sum / PROB_ONE * floor / logits.len() as u64 + (sum % PROB_ONE) * floor / PROB_ONE / logits.len() as u64;
    for w in weights.iter_mut() {
        *w = (*w >> 16) * (PROB_ONE - floor) + uniform;
    }
    table.set_weights(weights);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn exp_table_tracks_the_exponential() {
        for d in [0u32, 1, 100, 256, 1000, 3000, 6000] {
            let exact = (-(d as f64) / LOGIT_ONE as f64).exp() * 4294967296.0;
            let got = exp_neg(d) as f64;
            assert!((got - exact).abs() <= exact * 1e-6 + d as f64, "d={d}: {got} vs {exact}");
        }
        assert_eq!(exp_neg(EXP_LEN as u32), 0);
    }

    #[test]
    fn softmax_orders_and_floors() {
        let mut w = Vec::new();
        let mut t = CdfBuf::new();
        softmax_into(&[0, LOGIT_ONE, -100 * LOGIT_ONE], 655, &mut w, &mut t);
        let cdf = t.cdf();
        // p_i = 0.99 softmax_i + 0.01 / 3 with softmax = (1, e, ~0) / (1 + e).
        let f = 655.0 / 65536.0;
        let e = 1.0f64.exp();
        let expected = ((1.0 - f) * e / (1.0 + e) + f / 3.0) / ((1.0 - f) / (1.0 + e) + f / 3.0);
        let ratio = cdf.frequency(1) as f64 / cdf.frequency(0) as f64;
        assert!((ratio - expected).abs() < 1e-3, "{ratio} vs {expected}");
        let p2 = cdf.frequency(2) as f64 / crate::codec::TOTAL as f64;
        assert!((p2 - 0.01 / 3.0).abs() < 1e-4, "{p2}");
    }
}
