//! Information content of coded symbols, summed without a logarithm per symbol.

use super::cdf::PRECISION;

/// Running sum of the information content of symbols, `PRECISION - log2(frequency)` bits each,
/// kept as the product of their frequencies (a floating-point mantissa and a power of two):
/// one multiplication per symbol; the logarithm is taken when the sum is read. Agrees with
/// summing [`super::cdf::Cdf::bits`] to within ~1e-12 relative (the product's rounding).
#[derive(Clone, Copy, Debug)]
pub struct Information {
    /// Product of the frequencies, divided by `2^scale`; in `[1, 2^600)`.
    product: f64,
    /// Power of two taken out of the product.
    scale: i64,
    /// Symbols added.
    symbols: u64,
}

/// The product is renormalised once it reaches this (frequencies are below 2^25, so it stays
/// far from overflow).
const RENORMALISE: f64 = 1e180;

impl Default for Information {
    fn default() -> Self {
        Information { product: 1.0, scale: 0, symbols: 0 }
    }
}

impl Information {
    /// Adds a symbol of `frequency` (out of `2^PRECISION`, at least 1).
    #[inline]
    pub fn add(&mut self, frequency: u32) {
        self.product *= frequency as f64;
        self.symbols += 1;
        if self.product >= RENORMALISE {
            self.renormalise();
        }
    }

    #[cold]
    fn renormalise(&mut self) {
        // Move the binary exponent into `scale`: the mantissa is kept exactly.
        let bits = self.product.to_bits();
        let exponent = ((bits >> 52) & 0x7ff) as i64 - 1023;
        self.product = f64::from_bits((bits & !(0x7ff << 52)) | (1023 << 52));
        self.scale += exponent;
    }

    /// The sum, in bits.
    pub fn bits(&self) -> f64 {
        (PRECISION as u64 * self.symbols) as f64 - (self.scale as f64 + self.product.log2())
    }

    /// Whether the sum exceeds `max_bits`. Cheap when it is far from it: `log2(product)` is
    /// bracketed by the product's binary exponent, and the logarithm is only taken near the
    /// limit.
    #[inline]
    pub fn exceeds(&self, max_bits: f64) -> bool {
        let exponent = ((self.product.to_bits() >> 52) & 0x7ff) as i64 - 1023;
        // log2(product) is in [exponent, exponent + 1).
        let most = (PRECISION as u64 * self.symbols) as f64 - (self.scale + exponent) as f64;
        most > max_bits && self.bits() > max_bits
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::entropy::CdfBuf;

    #[test]
    fn matches_the_sum_of_logarithms() {
        let mut x: u64 = 0x9e37_79b9_7f4a_7c15;
        let mut info = Information::default();
        let mut sum = 0.0;
        for i in 0..200_000u32 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            let f = match i % 3 {
                0 => (x % (1 << PRECISION)) as u32 + 1,
                1 => (1 << PRECISION) - (x % 100) as u32,
                _ => (x % 50) as u32 + 1,
            };
            let buf = CdfBuf::from_weights(&[f as u64, (1u64 << PRECISION) - f as u64]);
            let f = buf.cdf().frequency(0);
            sum += buf.cdf().bits(0);
            info.add(f);
            if i % 1000 == 0 {
                assert!((info.bits() - sum).abs() <= 1e-9 * sum.max(1.0), "{} vs {sum}", info.bits());
                assert_eq!(info.exceeds(sum * 0.999), sum * 0.999 < info.bits());
                assert!(!info.exceeds(sum + 1e-3));
            }
        }
    }
}
