//! The portable integer loops of the network: adding or removing a row of `i16` weights to `i32`
//! sums, adding `i32` vectors, dot products in `i32` and `i64`. The compiler vectorises them
//! (and again with AVX2 or AVX-512 where [`super::Simd`] chooses it); integer sums are exact in
//! any order.

/// `acc += row`, widened to `i32`.
#[inline(always)]
pub(super) fn add_row(acc: &mut [i32], row: &[i16]) {
    for (a, &w) in acc.iter_mut().zip(row) {
        *a += w as i32;
    }
}

/// `acc -= row`, widened to `i32`.
#[inline(always)]
pub(super) fn sub_row(acc: &mut [i32], row: &[i16]) {
    for (a, &w) in acc.iter_mut().zip(row) {
        *a -= w as i32;
    }
}

/// `sum_j w[j] * x[j]` in i32: the widening multiply-add that processors do 16 at a time
/// (`pmaddwd`); [`Network::check_bounds`](super::Network::check_bounds) guarantees the sums fit.
#[inline(always)]
pub(super) fn dot16(w: &[i16], x: &[i16]) -> i32 {
    w.iter().zip(x).fold(0i32, |s, (&w, &x)| s.wrapping_add(w as i32 * x as i32))
}

/// `w . x` summed in `i64`: exact for any lengths up to 2^33, the same integer as [`dot16`]
/// wherever that fits.
#[inline]
pub(super) fn dot16_i64(w: &[i16], x: &[i16]) -> i64 {
    w.iter().zip(x).map(|(&w, &x)| (w as i32 * x as i32) as i64).sum()
}

/// `acc += x`.
#[inline(always)]
pub(super) fn add_i32(acc: &mut [i32], x: &[i32]) {
    for (a, &b) in acc.iter_mut().zip(x) {
        *a += b;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_i64_dot_product_is_exact_where_i32_would_wrap() {
        let max = [i16::MAX; 128];
        let min = [i16::MIN; 128];
        assert_eq!(dot16_i64(&max, &max), 128 * 32767 * 32767);
        assert_eq!(dot16_i64(&min, &max), -128 * 32768 * 32767);
        assert!(dot16_i64(&max, &max) > i32::MAX as i64);
        // Where the sum fits i32, both give the same integer.
        let (w, x): (Vec<i16>, Vec<i16>) = (0..128).map(|i| ((i * 37 % 200) as i16 - 100, (i * 91 % 4097) as i16)).unzip();
        assert_eq!(dot16(&w, &x) as i64, dot16_i64(&w, &x));
    }
}
