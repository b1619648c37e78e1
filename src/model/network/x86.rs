//! Hand-written AVX2 and AVX-512 kernels of the board tower. Integer sums are exact (and wrap the
//! same way) in any order, so they give the integers of the portable loops.

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

/// The three dot products of one move's logit in the move tower of width `D`:
/// `[v . h, q . gf, q . gt]` with `h = clamp(sum, 0, 4096)` as `i16`, each summed in wrapping
/// `i32` as the portable `dot16` sums it (the same integers: integer sums are exact in any
/// order). The clamp, the pack to `i16` and the three products stay in 256-bit registers, and
/// one horizontal sum gives all three (the compiler's code of the portable loop used 128-bit
/// registers and copied the `gf` and `gt` rows to the stack).
///
/// # Safety
/// The processor supports AVX2.
///
/// # Panics
/// Unless `D` is a multiple of 16 and `gf` and `gt` hold at least `D` values.
#[target_feature(enable = "avx2")]
#[inline]
pub(crate) unsafe fn move_dots<const D: usize>(sum: &[i32; D], v: &[i16; D], q: &[i16; D], gf: &[i16], gt: &[i16]) -> [i32; 3] {
    assert!(D.is_multiple_of(16) && gf.len() >= D && gt.len() >= D);
    let (zero, top) = (_mm256_setzero_si256(), _mm256_set1_epi32(4096));
    let (mut a, mut f, mut t) = (zero, zero, zero);
    for j in (0..D).step_by(16) {
        // SAFETY: `j + 16 <= D`, within every slice (asserted above).
        unsafe {
            let lo = _mm256_loadu_si256(sum.as_ptr().add(j).cast());
            let hi = _mm256_loadu_si256(sum.as_ptr().add(j + 8).cast());
            let (lo, hi) = (_mm256_min_epi32(_mm256_max_epi32(lo, zero), top), _mm256_min_epi32(_mm256_max_epi32(hi, zero), top));
            // 0..=4096 packs exactly; undo the pack's lane interleave so that h[j..j + 16] is in order.
            let h = _mm256_permute4x64_epi64::<0b11_01_10_00>(_mm256_packs_epi32(lo, hi));
            let qv = _mm256_loadu_si256(q.as_ptr().add(j).cast());
            a = _mm256_add_epi32(a, _mm256_madd_epi16(h, _mm256_loadu_si256(v.as_ptr().add(j).cast())));
            f = _mm256_add_epi32(f, _mm256_madd_epi16(qv, _mm256_loadu_si256(gf.as_ptr().add(j).cast())));
            t = _mm256_add_epi32(t, _mm256_madd_epi16(qv, _mm256_loadu_si256(gt.as_ptr().add(j).cast())));
        }
    }
    // Per 128-bit lane: [a0+a1, a2+a3, f0+f1, f2+f3], [t0+t1, t2+t3, ..], then [a, f, t, t].
    let s = _mm256_hadd_epi32(_mm256_hadd_epi32(a, f), _mm256_hadd_epi32(t, t));
    let s = _mm_add_epi32(_mm256_castsi256_si128(s), _mm256_extracti128_si256::<1>(s));
    [_mm_cvtsi128_si32(s), _mm_extract_epi32::<1>(s), _mm_extract_epi32::<2>(s)]
}

/// `out[k] = a[k] * va + b[k] * vb` (wrapping `i32`) for two rows `a` and `b` of width `D`
/// given interleaved, `pairs[2 k] = a[k]`, `pairs[2 k + 1] = b[k]`: one `vpmaddwd` per eight
/// values, where the portable loop widens each row and multiplies it in `i32` (`vpmulld`). The
/// same integers: each product is exact in `i32`, and the sum wraps as the portable one does.
///
/// # Safety
/// The processor supports AVX2.
///
/// # Panics
/// Unless `D` is a multiple of 8 and `pairs` holds `2 D` values.
#[target_feature(enable = "avx2")]
#[inline]
pub(crate) unsafe fn pair_rows<const D: usize>(pairs: &[i16], va: i16, vb: i16) -> [i32; D] {
    assert!(D.is_multiple_of(8) && pairs.len() == 2 * D);
    let values = _mm256_set1_epi32((va as u16 as u32 | (vb as u16 as u32) << 16) as i32);
    let mut out = [0i32; D];
    for j in (0..D).step_by(8) {
        // SAFETY: `2 j + 16 <= 2 D` values of `pairs` and `j + 8 <= D` of `out`.
        unsafe {
            let p = _mm256_loadu_si256(pairs.as_ptr().add(2 * j).cast());
            _mm256_storeu_si256(out.as_mut_ptr().add(j).cast(), _mm256_madd_epi16(p, values));
        }
    }
    out
}

/// [`dense`] on 512-bit vectors with AVX-512 VNNI: `vpdpwssd` multiplies 32 `i16` pairs and adds
/// the pair sums to 16 `i32` lanes (wrapping, as `vpmaddwd` + `vpaddd` and the portable loop do),
/// sixteen rows per pass, whose sums one transpose-and-add tree gathers into one vector. A row
/// whose length is 16 mod 32 ends with a masked load (the upper half zero, which adds nothing).
///
/// # Safety
/// The processor supports AVX2 and AVX-512 F, BW and VNNI.
///
/// # Panics
/// Unless `n` is a multiple of 16, `out.len()` a multiple of 16 and `w` holds at least
/// `out.len() * n` values.
#[target_feature(enable = "avx2,avx512f,avx512bw,avx512vl,avx512vnni")]
pub unsafe fn dense512(w: &[i16], x: &[i16], out: &mut [i32]) {
    const ROWS: usize = 16;
    let n = x.len();
    assert!(n.is_multiple_of(16) && out.len().is_multiple_of(ROWS) && out.len().checked_mul(n).is_some_and(|len| w.len() >= len));
    let (wp, xp) = (w.as_ptr(), x.as_ptr());
    // The vectors of a row: full ones of 32 values, then (when `n` is 16 mod 32) one of 16.
    let full = n / 32 * 32;
    for (r, o) in out.chunks_exact_mut(ROWS).enumerate() {
        let mut s = [_mm512_setzero_si512(); ROWS];
        let rows = wp.wrapping_add(ROWS * r * n);
        for j in (0..full).step_by(32) {
            // SAFETY: `j + 32 <= n`, and row `16 r + 15` ends within `w` (asserted above).
            unsafe {
                let xv = _mm512_loadu_si512(xp.add(j).cast());
                for (k, acc) in s.iter_mut().enumerate() {
                    *acc = _mm512_dpwssd_epi32(*acc, _mm512_loadu_si512(rows.add(k * n + j).cast()), xv);
                }
            }
        }
        if full < n {
            // SAFETY: the masked loads read the 16 values left in each row, within `x` and `w`
            // (asserted above); the upper half of each vector is zero.
            unsafe {
                let xv = _mm512_maskz_loadu_epi16(0xffff, xp.add(full));
                for (k, acc) in s.iter_mut().enumerate() {
                    *acc = _mm512_dpwssd_epi32(*acc, _mm512_maskz_loadu_epi16(0xffff, rows.add(k * n + full)), xv);
                }
            }
        }
        // SAFETY: `o` holds sixteen i32.
        unsafe { _mm512_storeu_si512(o.as_mut_ptr().cast(), sum16(&s)) };
    }
}

/// Lane `k` of the result: the sum of the 16 lanes of `s[k]` (wrapping).
#[target_feature(enable = "avx512f")]
fn sum16(s: &[__m512i; 16]) -> __m512i {
    // Rows 2i and 2i+1 interleaved within each 128-bit lane: [a0+a2, b0+b2, a1+a3, b1+b3].
    let pair = |a: __m512i, b: __m512i| _mm512_add_epi32(_mm512_unpacklo_epi32(a, b), _mm512_unpackhi_epi32(a, b));
    // Four rows per 128-bit lane, in order: [a, b, c, d] (each a sum of 4 lanes of its 128 bits).
    let quad = |ab: __m512i, cd: __m512i| _mm512_add_epi32(_mm512_unpacklo_epi64(ab, cd), _mm512_unpackhi_epi64(ab, cd));
    let q: [__m512i; 4] = std::array::from_fn(|i| quad(pair(s[4 * i], s[4 * i + 1]), pair(s[4 * i + 2], s[4 * i + 3])));
    // The four 128-bit lanes of each quad added, rows kept in order.
    let half =
        |e: __m512i, f: __m512i| _mm512_add_epi32(_mm512_shuffle_i32x4::<0b01_00_01_00>(e, f), _mm512_shuffle_i32x4::<0b11_10_11_10>(e, f));
    let (ef, gh) = (half(q[0], q[1]), half(q[2], q[3]));
    _mm512_add_epi32(_mm512_shuffle_i32x4::<0b10_00_10_00>(ef, gh), _mm512_shuffle_i32x4::<0b11_01_11_01>(ef, gh))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::simd::Simd;

    /// `w . x` in wrapping `i32`, as the portable loop sums it.
    /// Marsaglia's xorshift64 (13, 7, 17): the tests' reproducible full-range values.
    fn xorshift(mut state: u64) -> impl FnMut() -> u64 {
        move || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state
        }
    }

    fn dot16(w: &[i16], x: &[i16]) -> i32 {
        w.iter().zip(x).fold(0i32, |s, (&w, &x)| s.wrapping_add(w as i32 * x as i32))
    }

    #[test]
    fn both_dense_kernels_give_the_portable_integers_wrapping_included() {
        if Simd::best() < Simd::Avx2 {
            return;
        }
        let mut next = xorshift(0x9e37_79b9_7f4a_7c15);
        for n in [16, 32, 48, 64, 80, 256, 1024] {
            let rows = 32;
            // Full-range weights and inputs; row 0 all -32768, and input pairs of -32768 (pair sums
            // of 2^31, which wrap).
            let mut w: Vec<i16> = (0..rows * n).map(|_| next() as i16).collect();
            w[..n].fill(i16::MIN);
            let x: Vec<i16> = (0..n).map(|j| if j % 5 < 2 { i16::MIN } else { next() as i16 }).collect();
            let want: Vec<i32> = (0..rows).map(|r| dot16(&w[r * n..][..n], &x)).collect();
            let mut got = vec![0; rows];
            // SAFETY: the processor supports AVX2 (checked above).
            unsafe { dense(&w, &x, &mut got) };
            assert_eq!(got, want, "AVX2, n = {n}");
            if Simd::best() >= Simd::Avx512 {
                got.fill(0);
                // SAFETY: the processor supports AVX-512 F, BW, VL and VNNI (checked above).
                unsafe { dense512(&w, &x, &mut got) };
                assert_eq!(got, want, "AVX-512, n = {n}");
            }
        }
    }

    /// The move tower's two kernels against the portable loops, at every width, with sums
    /// beyond the clamp on both sides and full-range weights.
    #[test]
    fn the_move_tower_kernels_give_the_portable_integers() {
        if Simd::best() < Simd::Avx2 {
            return;
        }
        fn check<const D: usize>(next: &mut impl FnMut() -> u64) {
            let row = |next: &mut dyn FnMut() -> u64| -> [i16; D] { std::array::from_fn(|_| next() as i16) };
            let (v, q, gf, gt) = (row(next), row(next), row(next), row(next));
            let sum: [i32; D] = std::array::from_fn(|k| (next() % 12_000) as i32 - 4_000 + if k % 7 == 0 { 1 << 20 } else { 0 });
            let h: Vec<i16> = sum.iter().map(|&s| s.clamp(0, 4096) as i16).collect();
            let want = [dot16(&v, &h), dot16(&q, &gf), dot16(&q, &gt)];
            // SAFETY: the processor supports AVX2 (checked by the caller).
            assert_eq!(unsafe { move_dots::<D>(&sum, &v, &q, &gf, &gt) }, want, "move_dots, D = {D}");
            let (a, b) = (row(next), row(next));
            let pairs: Vec<i16> = (0..D).flat_map(|k| [a[k], b[k]]).collect();
            for (va, vb) in [(255, 1), (1, 255), (128, 128), (i16::MIN, i16::MIN), (-7, 300)] {
                let want: Vec<i32> = (0..D).map(|k| (a[k] as i32 * va as i32).wrapping_add(b[k] as i32 * vb as i32)).collect();
                // SAFETY: as above.
                assert_eq!(unsafe { pair_rows::<D>(&pairs, va, vb) }.to_vec(), want, "pair_rows, D = {D}");
            }
        }
        let mut next = xorshift(0x2545_f491_4f6c_dd1d);
        for _ in 0..50 {
            check::<32>(&mut next);
            check::<64>(&mut next);
            check::<128>(&mut next);
        }
    }
}
