//! The board tower's second layer as a sparse product. After the clipped ReLU most of the first
//! layer's outputs are 0 (at level 2's network, (256, 64, 64), 71 % of the values and 50 % of
//! the pairs of neighbours; at version 6's, (1024, 256, 128), 89 % and 81 %; the heldout
//! games), so the product `W2 a` is computed from the columns of the pairs `(a[2p], a[2p+1])`
//! that hold a non-zero value only, as Stockfish's sparse affine layer does (its `find_nnz`,
//! `nnue/layers/affine_transform_sparse_input.h`, 2023). The columns are stored pair by pair
//! ([`pair_columns`]) so that one `vpmaddwd` multiplies a broadcast pair by eight rows.
//!
//! A pair of zeros adds 0, and integer sums are exact and wrap the same way in any order, so the
//! result is the dense product's, bit for bit (a test compares them on every path).

/// `w` (`rows x cols`, row-major) with its columns in pairs: for each pair `p` of columns
/// (`2p`, `2p + 1`), `rows x 2` values `w[r][2p], w[r][2p + 1]` for `r` in `0..rows`. Shape
/// `(cols / 2) x rows x 2`.
///
/// # Panics
/// Unless `cols` is even and `w` holds `rows * cols` values.
pub fn pair_columns(w: &[i16], rows: usize, cols: usize) -> Vec<i16> {
    assert!(cols.is_multiple_of(2) && w.len() == rows * cols, "a {rows} x {cols} matrix with an even number of columns");
    let mut out = Vec::with_capacity(w.len());
    for p in 0..cols / 2 {
        for r in 0..rows {
            out.extend_from_slice(&w[r * cols + 2 * p..][..2]);
        }
    }
    out
}

/// The indices `p` of the pairs `(x[2p], x[2p + 1])` with a non-zero value, in increasing order,
/// into `out` (cleared first). The portable reference of [`x86::nonzero_pairs`] (the portable
/// path of the network computes the dense product).
///
/// # Panics
/// Unless `x.len()` is even and below `2^17`.
#[cfg(test)]
pub fn nonzero_pairs(x: &[i16], out: &mut Vec<u16>) {
    assert!(x.len().is_multiple_of(2) && x.len() <= 1 << 17, "an even number of values, at most 2^17");
    out.clear();
    out.extend(x.chunks_exact(2).enumerate().filter(|(_, pair)| pair != &[0, 0]).map(|(p, _)| p as u16));
}

/// `out[r] = sum over p in nz of w[r][2p] x[2p] + w[r][2p + 1] x[2p + 1]` (i32, wrapping) for
/// every row `r < out.len()`, with `wp` the pair columns of `w` ([`pair_columns`], `out.len()`
/// rows). With `nz` from [`nonzero_pairs`] this is `w x`. The portable reference of
/// [`x86::dense_pairs`].
///
/// # Panics
/// If a pair of `nz` is beyond `x` or `wp`.
#[cfg(test)]
pub fn dense_pairs(wp: &[i16], x: &[i16], nz: &[u16], out: &mut [i32]) {
    let rows = out.len();
    out.fill(0);
    for &p in nz {
        let p = p as usize;
        let (x0, x1) = (x[2 * p] as i32, x[2 * p + 1] as i32);
        let col = &wp[p * rows * 2..][..rows * 2];
        for (o, w) in out.iter_mut().zip(col.chunks_exact(2)) {
            *o = o.wrapping_add((w[0] as i32 * x0).wrapping_add(w[1] as i32 * x1));
        }
    }
}

/// The AVX2 kernels of [`nonzero_pairs`] and [`dense_pairs`] (the same integers).
#[cfg(target_arch = "x86_64")]
pub mod x86 {
    use std::arch::x86_64::*;

    /// [`super::nonzero_pairs`], eight pairs at a time.
    ///
    /// # Safety
    /// The processor supports AVX2.
    ///
    /// # Panics
    /// Unless `x.len()` is a multiple of 16 and at most `2^17`.
    #[target_feature(enable = "avx2")]
    pub unsafe fn nonzero_pairs(x: &[i16], out: &mut Vec<u16>) {
        assert!(x.len().is_multiple_of(16) && x.len() <= 1 << 17, "a multiple of 16 values, at most 2^17");
        out.clear();
        let zero = _mm256_setzero_si256();
        for (k, chunk) in x.chunks_exact(16).enumerate() {
            // SAFETY: the chunk holds 16 i16, one vector.
            let v = unsafe { _mm256_loadu_si256(chunk.as_ptr().cast()) };
            // One bit per pair (32-bit lane) that is all zero.
            let zeros = _mm256_movemask_ps(_mm256_castsi256_ps(_mm256_cmpeq_epi32(v, zero))) as u32;
            let mut live = !zeros & 0xff;
            while live != 0 {
                out.push((8 * k) as u16 + live.trailing_zeros() as u16);
                live &= live - 1;
            }
        }
    }

    /// [`super::dense_pairs`]: for each pair of `nz`, its two values broadcast to every 32-bit
    /// lane and `vpmaddwd` with the pair column, eight rows per vector, rows in tiles of 64 (or
    /// 16) that stay in registers.
    ///
    /// # Safety
    /// The processor supports AVX2.
    ///
    /// # Panics
    /// Unless `out.len()` is a multiple of 16, `x.len()` even, and every pair of `nz` within `x`
    /// and `wp` (`wp.len() >= x.len() * out.len()`).
    #[target_feature(enable = "avx2")]
    pub unsafe fn dense_pairs(wp: &[i16], x: &[i16], nz: &[u16], out: &mut [i32]) {
        let rows = out.len();
        assert!(rows.is_multiple_of(16) && x.len().is_multiple_of(2) && wp.len() >= x.len() * rows, "shapes of the sparse product");
        assert!(nz.iter().all(|&p| (p as usize) < x.len() / 2), "a pair beyond the input");
        let mut first = 0;
        while first < rows {
            // SAFETY (both): every pair is within `x` and its column within `wp` (asserted
            // above); the tile's rows are within `out`.
            if rows - first >= 64 {
                unsafe { tile::<8>(wp, x, nz, rows, first, out) };
                first += 64;
            } else {
                unsafe { tile::<2>(wp, x, nz, rows, first, out) };
                first += 16;
            }
        }
    }

    /// Rows `first .. first + 8 V` of [`dense_pairs`].
    ///
    /// # Safety
    /// AVX2; the shapes [`dense_pairs`] asserts, and `first + 8 V <= rows`.
    #[target_feature(enable = "avx2")]
    #[inline]
    unsafe fn tile<const V: usize>(wp: &[i16], x: &[i16], nz: &[u16], rows: usize, first: usize, out: &mut [i32]) {
        let mut acc = [_mm256_setzero_si256(); V];
        for &p in nz {
            let p = p as usize;
            let pair = (x[2 * p] as u16 as u32 | (x[2 * p + 1] as u16 as u32) << 16) as i32;
            let b = _mm256_set1_epi32(pair);
            for (v, a) in acc.iter_mut().enumerate() {
                // SAFETY: column `p` holds `2 rows` values from `p * 2 rows`, and
                // `2 (first + 8 v) + 16 <= 2 rows`.
                let w = unsafe { _mm256_loadu_si256(wp.as_ptr().add(p * rows * 2 + 2 * (first + 8 * v)).cast()) };
                *a = _mm256_add_epi32(*a, _mm256_madd_epi16(w, b));
            }
        }
        for (v, a) in acc.iter().enumerate() {
            // SAFETY: rows `first + 8 v .. + 8` are within `out`.
            unsafe { _mm256_storeu_si256(out.as_mut_ptr().add(first + 8 * v).cast(), *a) };
        }
    }
}

/// The AVX-512 (F, BW, VNNI) kernels of [`nonzero_pairs`] and [`dense_pairs`] (the same
/// integers): sixteen pairs per compare, and one `vpdpwssd` (multiply pairs and add, wrapping)
/// per sixteen rows.
#[cfg(target_arch = "x86_64")]
pub mod x86_512 {
    use std::arch::x86_64::*;

    /// [`super::nonzero_pairs`], sixteen pairs at a time.
    ///
    /// # Safety
    /// The processor supports AVX-512 F and BW.
    ///
    /// # Panics
    /// Unless `x.len()` is a multiple of 32 and at most `2^17`.
    #[target_feature(enable = "avx512f,avx512bw")]
    pub unsafe fn nonzero_pairs(x: &[i16], out: &mut Vec<u16>) {
        assert!(x.len().is_multiple_of(32) && x.len() <= 1 << 17, "a multiple of 32 values, at most 2^17");
        out.clear();
        let zero = _mm512_setzero_si512();
        for (k, chunk) in x.chunks_exact(32).enumerate() {
            // SAFETY: the chunk holds 32 i16, one vector.
            let v = unsafe { _mm512_loadu_si512(chunk.as_ptr().cast()) };
            // One bit per pair (32-bit lane) with a non-zero value.
            let mut live = _mm512_cmpneq_epi32_mask(v, zero) as u32;
            while live != 0 {
                out.push((16 * k) as u16 + live.trailing_zeros() as u16);
                live &= live - 1;
            }
        }
    }

    /// [`super::dense_pairs`] with `vpdpwssd`, rows in tiles of 64 (or 16).
    ///
    /// # Safety
    /// The processor supports AVX-512 F, BW and VNNI.
    ///
    /// # Panics
    /// As [`super::x86::dense_pairs`].
    #[target_feature(enable = "avx512f,avx512bw,avx512vnni")]
    pub unsafe fn dense_pairs(wp: &[i16], x: &[i16], nz: &[u16], out: &mut [i32]) {
        let rows = out.len();
        assert!(rows.is_multiple_of(16) && x.len().is_multiple_of(2) && wp.len() >= x.len() * rows, "shapes of the sparse product");
        assert!(nz.iter().all(|&p| (p as usize) < x.len() / 2), "a pair beyond the input");
        let mut first = 0;
        while first < rows {
            // SAFETY (both): as in `super::x86::dense_pairs`.
            if rows - first >= 64 {
                unsafe { tile::<4>(wp, x, nz, rows, first, out) };
                first += 64;
            } else {
                unsafe { tile::<1>(wp, x, nz, rows, first, out) };
                first += 16;
            }
        }
    }

    /// Rows `first .. first + 16 V` of [`dense_pairs`].
    ///
    /// # Safety
    /// AVX-512 F, BW, VNNI; the shapes [`dense_pairs`] asserts, and `first + 16 V <= rows`.
    #[target_feature(enable = "avx512f,avx512bw,avx512vnni")]
    #[inline]
    unsafe fn tile<const V: usize>(wp: &[i16], x: &[i16], nz: &[u16], rows: usize, first: usize, out: &mut [i32]) {
        let mut acc = [_mm512_setzero_si512(); V];
        for &p in nz {
            let p = p as usize;
            let pair = (x[2 * p] as u16 as u32 | (x[2 * p + 1] as u16 as u32) << 16) as i32;
            let b = _mm512_set1_epi32(pair);
            for (v, a) in acc.iter_mut().enumerate() {
                // SAFETY: column `p` holds `2 rows` values from `p * 2 rows`, and
                // `2 (first + 16 v) + 32 <= 2 rows`.
                let w = unsafe { _mm512_loadu_si512(wp.as_ptr().add(p * rows * 2 + 2 * (first + 16 * v)).cast()) };
                *a = _mm512_dpwssd_epi32(*a, w, b);
            }
        }
        for (v, a) in acc.iter().enumerate() {
            // SAFETY: rows `first + 16 v .. + 16` are within `out`.
            unsafe { _mm512_storeu_si512(out.as_mut_ptr().add(first + 16 * v).cast(), *a) };
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// The dense product, wrapping as the kernels do.
    fn dense(w: &[i16], x: &[i16], rows: usize) -> Vec<i32> {
        let cols = x.len();
        (0..rows).map(|r| w[r * cols..][..cols].iter().zip(x).fold(0i32, |s, (&a, &b)| s.wrapping_add(a as i32 * b as i32))).collect()
    }

    /// A matrix (`rows x cols`, any `i16`) and an input as a clipped ReLU leaves it (`0..=512`,
    /// `zeros` per cent of it 0 on average). Rows: whole tiles of 64, tiles of 16, both.
    fn cases() -> impl Strategy<Value = (usize, Vec<i16>, Vec<i16>)> {
        (prop::sample::select(vec![16usize, 48, 64, 80, 128]), prop::sample::select(vec![16usize, 32, 64, 256]), 0u32..=100).prop_flat_map(
            |(rows, cols, zeros)| {
                let x = (0i16..=512, 0u32..100).prop_map(move |(v, z)| if z < zeros { 0 } else { v });
                (Just(rows), prop::collection::vec(any::<i16>(), rows * cols), prop::collection::vec(x, cols))
            },
        )
    }

    proptest! {
        #[test]
        fn the_sparse_product_is_the_dense_one_on_every_path((rows, w, x) in cases()) {
            let want = dense(&w, &x, rows);
            let wp = pair_columns(&w, rows, x.len());
            let mut nz = vec![9];
            nonzero_pairs(&x, &mut nz);
            prop_assert_eq!(nz.len(), x.chunks(2).filter(|c| c != &[0, 0]).count());
            prop_assert!(nz.windows(2).all(|p| p[0] < p[1]) && nz.iter().all(|&p| x[2 * p as usize] != 0 || x[2 * p as usize + 1] != 0));
            let mut got = vec![7; rows];
            dense_pairs(&wp, &x, &nz, &mut got);
            prop_assert_eq!(&got, &want, "portable");
            #[cfg(target_arch = "x86_64")]
            if std::arch::is_x86_feature_detected!("avx2") {
                let mut nz2 = vec![9];
                // SAFETY: AVX2 is present.
                unsafe { x86::nonzero_pairs(&x, &mut nz2) };
                prop_assert_eq!(&nz2, &nz);
                let mut got = vec![7; rows];
                unsafe { x86::dense_pairs(&wp, &x, &nz, &mut got) };
                prop_assert_eq!(&got, &want, "AVX2");
            }
            #[cfg(target_arch = "x86_64")]
            if std::arch::is_x86_feature_detected!("avx512f")
                && std::arch::is_x86_feature_detected!("avx512bw")
                && std::arch::is_x86_feature_detected!("avx512vnni")
            {
                if x.len().is_multiple_of(32) {
                    let mut nz2 = vec![9];
                    // SAFETY: AVX-512 F, BW and VNNI are present.
                    unsafe { x86_512::nonzero_pairs(&x, &mut nz2) };
                    prop_assert_eq!(&nz2, &nz);
                }
                let mut got = vec![7; rows];
                unsafe { x86_512::dense_pairs(&wp, &x, &nz, &mut got) };
                prop_assert_eq!(&got, &want, "AVX-512");
            }
        }
    }

    #[test]
    fn pair_columns_interleave_each_pair_of_columns_row_by_row() {
        // 2 x 4: rows (1 2 3 4), (5 6 7 8).
        assert_eq!(pair_columns(&[1, 2, 3, 4, 5, 6, 7, 8], 2, 4), [1, 2, 5, 6, 3, 4, 7, 8]);
    }
}
