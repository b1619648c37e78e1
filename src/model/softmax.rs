//! Integer softmax: fixed-point logits to a frequency table, bit-identical everywhere.
//!
//! Logits are integers in units of 1/[`LOGIT_ONE`] nat. A move's weight is
//! `exp(z_i - z_max)` read from a table built with integer arithmetic only (no `f64::exp`,
//! whose last bit may differ between platforms), then mixed with a uniform floor so that every
//! legal move keeps a non-zero probability, then quantised by [`CdfBuf::set_weights`].

use crate::entropy::CdfBuf;

/// One nat in logit units.
pub const LOGIT_ONE: i32 = 256;

/// Logit differences beyond this many units (24 nats) get weight 0 before the floor.
pub const EXP_LEN: usize = 24 * LOGIT_ONE as usize;

/// Probabilities (floors, mixing weights) are fixed point with this many units per 1.
pub const PROB_ONE: u64 = 1 << 16;

/// `EXP[d] ~= 2^32 * exp(-d / LOGIT_ONE)`, by the recurrence
/// `EXP[d] = EXP[d-1] * round(2^32 * exp(-1/256)) >> 32`, exact integer arithmetic; one more
/// entry, 0, for every difference from [`EXP_LEN`] on. Stored as `u32` (24 KiB, half the
/// cache footprint of `u64`): every entry but `EXP[0] = 2^32` fits, and entry 0 holds
/// `2^32 - 1`, which [`exp_neg`] corrects.
static EXP: [u32; EXP_LEN + 1] = {
    // round(2^32 * exp(-1/256)), computed offline; checked against f64 in the tests.
    const STEP: u64 = 4_278_222_805;
    let mut table = [0u32; EXP_LEN + 1];
    table[0] = u32::MAX;
    let mut v: u64 = STEP;
    let mut d = 1;
    while d < EXP_LEN {
        table[d] = v as u32;
        v = (v * STEP) >> 32;
        d += 1;
    }
    table
};

/// `2^32 * exp(-d / LOGIT_ONE)` for `d >= 0`, 0 beyond [`EXP_LEN`].
#[inline]
pub fn exp_neg(d: u32) -> u64 {
    let i = (d as usize).min(EXP_LEN);
    EXP[i] as u64 + (i == 0) as u64
}

/// Fills `table` with the softmax of `logits` mixed with a uniform floor:
/// `p_i = (1 - floor) * softmax(logits)_i + floor / n`, with `floor` in units of 1/[`PROB_ONE`]
/// (at most `PROB_ONE`). `weights` is scratch space.
///
/// # Panics
/// If `logits` is empty.
pub fn softmax_into(logits: &[i32], floor: u64, weights: &mut Vec<u64>, table: &mut CdfBuf) {
    let z_max = *logits.iter().max().expect("at least one candidate");
    softmax_with_max(logits, z_max, floor, weights, table);
}

/// [`softmax_into`] when the caller knows `z_max = max(logits)`.
///
/// The arithmetic is that of the definition: weights `w_i = exp_neg(z_max - z_i)`, their sum
/// `S`, the floor's share `u = S / 2^16 * floor / n + (S % 2^16) * floor / 2^16 / n`, mixed
/// weights `(w_i >> 16) * (2^16 - floor) + u`, quantised by [`CdfBuf::set_weights`]. It is done
/// in two passes: the sum of the mixed weights follows from `S` and the sum of `w_i >> 16`, so
/// the quantiser recomputes each mixed weight from `w_i` instead of storing it.
pub fn softmax_with_max(logits: &[i32], z_max: i32, floor: u64, weights: &mut Vec<u64>, table: &mut CdfBuf) {
    let n = logits.len();
    assert!(n >= 1, "at least one candidate");
    weights.clear();
    let mut sum = 0u64;
    let mut high = 0u64;
    weights.extend(logits.iter().map(|&z| {
        let w = exp_neg((z_max as i64 - z as i64).min(u32::MAX as i64) as u32);
        sum += w;
        high += w >> 16;
        w
    }));
    let floor = floor.min(PROB_ONE);
    let uniform = sum / PROB_ONE * floor / n as u64 + (sum % PROB_ONE) * floor / PROB_ONE / n as u64;
    let keep = PROB_ONE - floor;
    let total = high as u128 * keep as u128 + n as u128 * uniform as u128;
    if total == 0 {
        // Only if every mixed weight is 0 (not reachable: the largest weight is 2^32).
        for w in weights.iter_mut() {
            *w = (*w >> 16) * keep + uniform;
        }
        table.set_weights(weights);
        return;
    }
    let weights = &weights[..];
    table.set_scaled(n, total, |i| (weights[i] >> 16) * keep + uniform);
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
        // The `u32` table holds the `u64` recurrence exactly.
        let mut v: u64 = 1 << 32;
        for d in 0..EXP_LEN as u32 {
            assert_eq!(exp_neg(d), v, "d={d}");
            v = (v * 4_278_222_805) >> 32;
        }
        assert_eq!(exp_neg(u32::MAX), 0);
    }

    /// The original two-step definition: mixed weights, then the plain quantiser with `/`.
    fn reference(logits: &[i32], floor: u64) -> Vec<u32> {
        let z_max = *logits.iter().max().unwrap();
        let mut weights: Vec<u64> = logits.iter().map(|&z| exp_neg((z_max as i64 - z as i64).min(u32::MAX as i64) as u32)).collect();
        let sum: u64 = weights.iter().sum();
        let floor = floor.min(PROB_ONE);
        let n = logits.len() as u64;
        let uniform = sum / PROB_ONE * floor / n + (sum % PROB_ONE) * floor / PROB_ONE / n;
        for w in weights.iter_mut() {
            *w = (*w >> 16) * (PROB_ONE - floor) + uniform;
        }
        let total_weight: u128 = weights.iter().map(|&w| w as u128).sum();
        let spare = crate::entropy::TOTAL as u64 - n;
        let shift = (128 - total_weight.leading_zeros()).saturating_sub(39);
        let total = (total_weight >> shift) as u64;
        let (mut argmax, mut best, mut given) = (0, 0, 0);
        let mut shares = Vec::new();
        for (i, &w) in weights.iter().enumerate() {
            let w = w >> shift;
            if w > best {
                best = w;
                argmax = i;
            }
            shares.push(w * spare / total);
            given += w * spare / total;
        }
        let mut cum = vec![0u32];
        for (i, s) in shares.iter().enumerate() {
            let f = 1 + *s as u32 + if i == argmax { (spare - given) as u32 } else { 0 };
            cum.push(cum[i] + f);
        }
        cum
    }

    #[test]
    fn fused_softmax_matches_the_definition() {
        let mut x: u64 = 12345;
        let mut next = || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x
        };
        let mut w = Vec::new();
        let mut t = CdfBuf::new();
        for round in 0..20_000 {
            let n = (next() % 60 + 1) as usize;
            let spread = [8, 300, 3000, 10_000, 1 << 20][round % 5];
            let logits: Vec<i32> = (0..n).map(|_| (next() % (2 * spread + 1)) as i32 - spread as i32).collect();
            let floor = [0, 1, 16, 64, 256, 655, 65536, 70000][(next() % 8) as usize];
            softmax_into(&logits, floor, &mut w, &mut t);
            let cdf = t.cdf();
            let got: Vec<u32> = (0..=n).map(|i| if i == 0 { 0 } else { (0..i).map(|j| cdf.frequency(j)).sum() }).collect();
            assert_eq!(got, reference(&logits, floor), "{logits:?} floor {floor}");
        }
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
        let p2 = cdf.frequency(2) as f64 / crate::entropy::TOTAL as f64;
        assert!((p2 - 0.01 / 3.0).abs() < 1e-4, "{p2}");
    }
}
