//! Hand-written AVX2 kernels of the board tower. Integer sums are exact (and wrap the same way)
//! in any order, so they give the integers of the portable loops.

use std::arch::x86_64::*;

/// `out[i] = clamp(x[i], 0, 512)` as i16, 16 at a time.
///
/// # Safety
/// The processor supports AVX2.
///
/// # Panics
/// Unless `x.len()` is a multiple of 16 and `out` at least as long.
#[target_feature(enable = "avx2")]
pub(crate) unsafe fn clamp_to_i16(x: &[i32], out: &mut [i16]) {
    assert!(x.len().is_multiple_of(16) && out.len() >= x.len());
    let (zero, top) = (_mm256_setzero_si256(), _mm256_set1_epi16(512));
    for (i, o) in x.chunks_exact(16).zip(out.chunks_exact_mut(16)) {
        // SAFETY: each chunk holds 16 values (two vectors of i32, one of i16).
        unsafe {
            let lo = _mm256_loadu_si256(i.as_ptr().cast());
            let hi = _mm256_loadu_si256(i.as_ptr().add(8).cast());
            // Saturating pack, then undo its lane interleave: the clamp to 0..=512 of the
            // saturated value is the clamp of the i32.
            let packed = _mm256_permute4x64_epi64::<0b11_01_10_00>(_mm256_packs_epi32(lo, hi));
            let clamped = _mm256_min_epi16(_mm256_max_epi16(packed, zero), top);
            _mm256_storeu_si256(o.as_mut_ptr().cast(), clamped);
        }
    }
}

/// `out[r] = sum_j w[r * n + j] * x[j]` (i32, wrapping) for every row `r < out.len()`,
/// with `n = x.len()`: four rows at a time share each load of `x`.
///
/// # Safety
/// The processor supports AVX2.
///
/// # Panics
/// Unless `n` is a multiple of 16, `out.len()` a multiple of 4 and `w` holds at least
/// `out.len() * n` values.
#[target_feature(enable = "avx2")]
pub unsafe fn dense(w: &[i16], x: &[i16], out: &mut [i32]) {
    let n = x.len();
    assert!(n.is_multiple_of(16) && out.len().is_multiple_of(4) && out.len().checked_mul(n).is_some_and(|len| w.len() >= len));
    let (wp, xp) = (w.as_ptr(), x.as_ptr());
    for (r, o) in out.chunks_exact_mut(4).enumerate() {
        let (mut s0, mut s1, mut s2, mut s3) =
            (_mm256_setzero_si256(), _mm256_setzero_si256(), _mm256_setzero_si256(), _mm256_setzero_si256());
        for j in (0..n).step_by(16) {
            // SAFETY: `j + 16 <= n`, and row `4 r + 3` ends within `w` (asserted above).
            unsafe {
                let xv = _mm256_loadu_si256(xp.add(j).cast());
                let row = wp.add(4 * r * n + j);
                s0 = _mm256_add_epi32(s0, _mm256_madd_epi16(_mm256_loadu_si256(row.cast()), xv));
                s1 = _mm256_add_epi32(s1, _mm256_madd_epi16(_mm256_loadu_si256(row.add(n).cast()), xv));
                s2 = _mm256_add_epi32(s2, _mm256_madd_epi16(_mm256_loadu_si256(row.add(2 * n).cast()), xv));
                s3 = _mm256_add_epi32(s3, _mm256_madd_epi16(_mm256_loadu_si256(row.add(3 * n).cast()), xv));
            }
        }
        // Horizontal sums of the four accumulators into one vector of four.
        let s01 = _mm256_hadd_epi32(s0, s1);
        let s23 = _mm256_hadd_epi32(s2, s3);
        let s = _mm256_hadd_epi32(s01, s23);
        let sum = _mm_add_epi32(_mm256_castsi256_si128(s), _mm256_extracti128_si256::<1>(s));
        // SAFETY: `o` holds four i32.
        unsafe { _mm_storeu_si128(o.as_mut_ptr().cast(), sum) };
    }
}
