//! The integer Chessformer's kernels: dense layers as matrix products over packed weights, and
//! exact dot products of two `i16` matrices (attention scores, the policy's query . key), each
//! with a portable path, an AVX2 path and an AVX-512 VNNI path that give the same integers.
//!
//! - **Dense** ([`Dense`]): `i16` activations x `i8` weights (held in `i16`), `i32` sums. The
//!   weights are packed when loaded in blocks of 16 output channels by input pairs, so that one
//!   512-bit load holds 16 channels x 2 inputs: `vpdpwssd` (VNNI) or `vpmaddwd` + `vpaddd`
//!   (AVX2) multiplies it by a broadcast input pair. A register tile of up to 4 tokens x 4
//!   blocks accumulates over the whole input; the caller bounds every sum below `2^31`
//!   (`cols * 127 * act_max`), so no partial sum wraps and the order does not matter. The sums
//!   go back to `Q16` by the channel's multiplier and a rounding shift, in `i64` where the
//!   product provably fits (`|acc| < 2^31`, `m < 2^31`, shift `1..=62`) and in `i128` otherwise:
//!   the same integers as the `i128` formula everywhere.
//! - **Exact dots** ([`DotRhs`]): `sum a_i b_i` of `i16` rows, which can reach `2^35` and more.
//!   The right operand is split as `b = 256 * hi + lo` (`hi` in `-128..=127`, `lo` in
//!   `0..=255`); over a chunk of 256 inputs both partial sums stay below `2^31` in `i32`
//!   (`256 * 32767 * 255 < 2^31`), and `256 * hi_sum + lo_sum` is widened to `i64` per chunk.
//!
//! [`active`] picks the path (the crate's one choice, [`crate::simd`]): the best the processor
//! has, unless [`force`] or the environment variable `CHESSZIP_SIMD` (`scalar`, `avx2`, `avx512`)
//! asks for a lower one.

// Index loops over several arrays at once read best as written.
#![allow(clippy::needless_range_loop)]

use std::sync::OnceLock;

pub use crate::simd::{Simd, active, best, force};

/// Output channels per packed block.
const BLOCK: usize = 16;

/// Rounds `x / 2^s` to nearest (halves up); `s <= 0` shifts left.
#[inline]
pub(crate) fn rshift(x: i128, s: i32) -> i128 {
    if s > 0 { (x + (1i128 << (s - 1))) >> s } else { x << (-s) }
}

#[inline]
pub(crate) fn sat(x: i128) -> i32 {
    x.clamp(i32::MIN as i128, i32::MAX as i128) as i32
}

/// `sat(rshift(acc * m, e - s) + bias)`, in `i64` where that is exact.
#[inline(always)]
pub(crate) fn requant(acc: i32, m: i32, e: i32, s: i32, bias: i32) -> i32 {
    let sh = e - s;
    if (1..=62).contains(&sh) {
        // |acc * m| < 2^62, the half below 2^61: no overflow.
        let v = ((acc as i64 * m as i64) + (1i64 << (sh - 1))) >> sh;
        (v + bias as i64).clamp(i32::MIN as i64, i32::MAX as i64) as i32
    } else {
        sat(rshift(acc as i128 * m as i128, sh) + bias as i128)
    }
}

/// One packed load: 16 channels x 2 inputs, aligned for 512-bit loads.
#[repr(C, align(64))]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct Line([i16; 2 * BLOCK]);

/// One packed load of [`Dense`]'s `u8` form: 16 channels x 4 inputs (`i8` weights), aligned for
/// 512-bit loads.
#[repr(C, align(64))]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Line8([i8; 4 * BLOCK]);

impl Default for Line8 {
    fn default() -> Line8 {
        Line8([0; 4 * BLOCK])
    }
}

/// `u8` activations are `q + 128` for `q` in `-ACT8..=ACT8`: the largest magnitude a row of a
/// layer with `u8` inputs is requantised to (`quantise_quads`).
pub const ACT8: i32 = 127;

/// Two `i16` inputs as the kernels read them: `a` in the low half, `b` in the high half.
#[inline(always)]
pub(crate) fn pair(a: i16, b: i16) -> i32 {
    (a as u16 as u32 | ((b as u16 as u32) << 16)) as i32
}

/// The two `i16` of a [`pair`].
#[inline(always)]
fn unpair(v: i32) -> (i32, i32) {
    (v as i16 as i32, (v >> 16) as i16 as i32)
}

/// A dense layer's weights packed for the kernels, with its requantisation.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Dense {
    rows: usize,
    cols: usize,
    /// Input pairs (`cols` rounded up to even, halved).
    kp: usize,
    blocks: usize,
    /// Line `b * kp + p`, value `2 l + h`: weight `(16 b + l, 2 p + h)`, zero outside the matrix.
    w: Vec<Line>,
    /// Per channel (padded to whole blocks): multiplier (`< 2^31`), exponent, `Q16` bias.
    m: Vec<i32>,
    e: Vec<i32>,
    bias: Vec<i32>,
    e_min: i32,
    e_max: i32,
    /// Input quads (`cols` rounded up to a multiple of 4, quartered).
    kq: usize,
    /// The `u8` form ([`Dense::with_u8`]), empty without it: line `b * kq + p`, byte `4 l + h`:
    /// weight `(16 b + l, 4 p + h)`, zero outside the matrix.
    w8: Vec<Line8>,
    /// `w8` again with each block's lines padded with zero lines to a multiple of 16 (AMX
    /// takes 16 lines a step), only where `kq` is not one already (else empty: `w8` is that).
    w8a: Vec<Line8>,
    /// Per channel (padded to whole blocks): `-128 * sum_c w[r][c]`, the zero point's share
    /// of a sum over `u8` inputs `q + 128`.
    corr: Vec<i32>,
    /// Per channel: `sum_c |w[r][c]|`, for the saturation bounds.
    wabs: Vec<i64>,
    /// The largest row shift `s` at which no channel's requantised output can leave `i32`
    /// for any `i16` input ([`Dense::run`], `|x| <= 32768`): there the AVX-512 epilogue skips
    /// the saturation ([`Dense::sat_free`]); `-1` if none.
    s_free: i32,
    /// The same for `u8` inputs ([`Dense::run_u8`], `|q| <= 128`).
    s_free8: i32,
}

impl Dense {
    /// Packs row-major `rows x cols` weights with their multipliers `(m, e)` (`m < 2^31`) and
    /// biases.
    pub fn new(rows: usize, cols: usize, w: &[i16], mult: &[(i64, i32)], bias: &[i32]) -> Dense {
        let kp = cols.div_ceil(2);
        let blocks = rows.div_ceil(BLOCK);
        let mut pw = vec![Line::default(); blocks * kp];
        for r in 0..rows {
            let (b, l) = (r / BLOCK, r % BLOCK);
            for c in 0..cols {
                pw[b * kp + c / 2].0[2 * l + c % 2] = w[r * cols + c];
            }
        }
        // A channel whose multiplier is 0 gives its bias whatever its exponent: give it one in
        // the others' range so that it never forces the slow path.
        let live: Vec<i32> = mult.iter().filter(|&&(m, _)| m != 0).map(|&(_, e)| e).collect();
        let (e_min, e_max) = (live.iter().copied().min().unwrap_or(31), live.iter().copied().max().unwrap_or(31));
        let n = blocks * BLOCK;
        let mut m = vec![0i32; n];
        let mut e = vec![e_min; n];
        let mut pb = vec![0i32; n];
        for r in 0..rows {
            let (mr, er) = mult[r];
            assert!((0..1 << 31).contains(&mr), "multiplier out of range");
            m[r] = mr as i32;
            e[r] = if mr == 0 { e_min } else { er };
            pb[r] = bias[r];
        }
        let wabs: Vec<i64> = (0..rows).map(|r| w[r * cols..(r + 1) * cols].iter().map(|&v| (v as i64).abs()).sum()).collect();
        let mut d = Dense {
            rows,
            cols,
            kp,
            blocks,
            w: pw,
            m,
            e,
            bias: pb,
            e_min,
            e_max,
            kq: cols.div_ceil(4),
            w8: Vec::new(),
            w8a: Vec::new(),
            corr: Vec::new(),
            wabs,
            s_free: -1,
            s_free8: -1,
        };
        d.s_free = d.sat_free(32768);
        d
    }

    /// The largest row shift `s` (at most 62) at which no channel's output `floor((acc m +
    /// 2^(sh-1)) / 2^sh) + bias` (`sh = e - s >= 1`) can leave `i32`, for inputs `|x| <= xmax`:
    /// then `|acc| <= A = xmax sum_c |w[r][c]|` and `|output| <= A m / 2^sh + 2 + |bias|`, so
    /// `A m <= (2^31 - 3 - |bias|) 2^sh` is enough. `-1` where no shift qualifies. Shifts at or
    /// below it give the same integers with or without the saturation.
    fn sat_free(&self, xmax: i64) -> i32 {
        let mut best = 62i32;
        for r in 0..self.rows {
            let (m, e) = (self.m[r] as i128, self.e[r]);
            let a = self.wabs[r] as i128 * xmax as i128 * m; // < 2^(15 + 31 + 16 + 31)
            let k = (1i128 << 31) - 3 - (self.bias[r] as i128).abs();
            if k <= 0 {
                return -1;
            }
            // From sh = 1 up: a < 2^93 <= k 2^93, so the loop ends by sh = 93.
            let mut s = e - 1;
            while s >= 0 && a > k << (e - s) {
                s -= 1;
            }
            best = best.min(s);
            if best < 0 {
                return -1;
            }
        }
        best
    }

    /// This layer with its `u8` form too, for inputs requantised to `|q| <= ACT8`
    /// (`quantise_quads`) and [`Dense::run_u8`]: the weights again in lines of 16 channels
    /// x 4 inputs (`i8`, for `vpdpbusd`: `u8 x i8` products, 4 summed per `i32` lane) and the
    /// per-channel correction `-128 * sum_c w[r][c]` (the gemmlowp zero point: `sum_c w (q +
    /// 128) - 128 sum_c w = sum_c w q`, exactly). Without it (or where a partial sum could
    /// pass `2^31`: `cols * 127 * (255 + 128) >= 2^31`, never for widths the loader accepts)
    /// [`Dense::has_u8`] is false and the caller uses [`Dense::run`] on the same `q`.
    pub fn with_u8(mut self) -> Dense {
        if self.cols as u64 * 127 * (255 + 128) >= 1 << 31 {
            return self;
        }
        let kq = self.kq;
        let mut w8 = vec![Line8::default(); self.blocks * kq];
        let mut corr = vec![0i32; self.blocks * BLOCK];
        for b in 0..self.blocks {
            for l in 0..BLOCK {
                let mut sum = 0i32;
                for c in 0..self.cols {
                    let v = self.w[b * self.kp + c / 2].0[2 * l + c % 2];
                    assert!((-127..=127).contains(&v), "a weight outside the i8 range");
                    w8[b * kq + c / 4].0[4 * l + c % 4] = v as i8;
                    sum += v as i32;
                }
                corr[b * BLOCK + l] = -128 * sum;
            }
        }
        let kq16 = kq.next_multiple_of(16);
        if kq16 != kq {
            let mut w8a = vec![Line8::default(); self.blocks * kq16];
            for b in 0..self.blocks {
                w8a[b * kq16..b * kq16 + kq].copy_from_slice(&w8[b * kq..(b + 1) * kq]);
            }
            self.w8a = w8a;
        }
        self.w8 = w8;
        self.corr = corr;
        self.s_free8 = self.sat_free(128);
        self
    }

    /// Whether [`Dense::run_u8`] can be used ([`Dense::with_u8`]).
    pub fn has_u8(&self) -> bool {
        !self.w8.is_empty()
    }

    /// Input quads per row of the `u8` input [`Dense::run_u8`] reads (`cols` rounded up to a
    /// multiple of 4, quartered).
    pub fn quads(&self) -> usize {
        self.kq
    }

    /// [`Dense::run`] for inputs given as `u8` quads: `xq` holds `n` rows of [`Dense::quads`]
    /// values, each 4 bytes `q_c + 128` (little-endian, input `4 p` in the low byte; any byte
    /// past `cols`), `|q_c| <= ACT8`, as `quantise_quads` writes them. The same integers as
    /// [`Dense::run`] of the same `q` as pairs, on every path (AVX-512: `vpdpbusd`; else the
    /// portable loop). Needs [`Dense::has_u8`].
    pub fn run_u8(&self, n: usize, xq: &[i32], shifts: &[i32], y: &mut [i32], path: Simd) {
        assert!(self.has_u8(), "a dense layer without its u8 form");
        let (xq, shifts, y) = (&xq[..n * self.kq], &shifts[..n], &mut y[..n * self.rows]);
        match path {
            #[cfg(target_arch = "x86_64")]
            Simd::Avx512 if best() >= Simd::Avx512 => {
                if n >= 4 && amx_ready() {
                    // SAFETY: the processor has the features (checked by `best`), AMX is
                    // enabled (`amx_ready`).
                    unsafe { x86::dense_amx(self, n, xq, shifts, y) }
                } else {
                    // SAFETY: the processor has the features (checked by `best`).
                    unsafe { x86::dense512u8(self, n, xq, shifts, y) }
                }
            }
            _ => self.run_u8_scalar(n, xq, shifts, y),
        }
    }

    fn run_u8_scalar(&self, n: usize, xq: &[i32], shifts: &[i32], y: &mut [i32]) {
        let kq = self.kq;
        for t in 0..n {
            let x = &xq[t * kq..(t + 1) * kq];
            for b in 0..self.blocks {
                let mut acc: [i32; BLOCK] = self.corr[b * BLOCK..(b + 1) * BLOCK].try_into().unwrap();
                for (wq, &xv) in self.w8[b * kq..(b + 1) * kq].iter().zip(x) {
                    let xb = (xv as u32).to_le_bytes();
                    for l in 0..BLOCK {
                        // Bounded below 2^31 (`with_u8`): wrapping only lets it vectorise.
                        let mut v = 0i32;
                        for h in 0..4 {
                            v = v.wrapping_add(xb[h] as i32 * wq.0[4 * l + h] as i32);
                        }
                        acc[l] = acc[l].wrapping_add(v);
                    }
                }
                self.store(&acc, b, t, shifts[t], y);
            }
        }
    }

    /// Input pairs per row of the quantised input [`Dense::run`] reads (`cols` rounded up to
    /// even, halved).
    pub fn pairs(&self) -> usize {
        self.kp
    }

    /// `y[t * rows + r] = requant(sum_c w[r][c] x_t[c])` for `t < n`: `xp` holds `n` rows of
    /// [`Dense::pairs`] input pairs (`quantise_rows`; zero past `cols`), row `t` requantised
    /// by `shifts[t]`. Every path gives the same integers.
    pub fn run(&self, n: usize, xp: &[i32], shifts: &[i32], y: &mut [i32], path: Simd) {
        let (xp, shifts, y) = (&xp[..n * self.kp], &shifts[..n], &mut y[..n * self.rows]);
        match path {
            #[cfg(target_arch = "x86_64")]
            Simd::Avx512 if best() >= Simd::Avx512 => {
                // SAFETY: the processor has the features (checked by `best`).
                unsafe { x86::dense512(self, n, xp, shifts, y) }
            }
            #[cfg(target_arch = "x86_64")]
            Simd::Avx2 | Simd::Avx512 if best() >= Simd::Avx2 => {
                // SAFETY: as above.
                unsafe { x86::dense256(self, n, xp, shifts, y) }
            }
            _ => self.run_scalar(n, xp, shifts, y),
        }
    }

    fn run_scalar(&self, n: usize, xp: &[i32], shifts: &[i32], y: &mut [i32]) {
        let kp = self.kp;
        for t in 0..n {
            let x = &xp[t * kp..(t + 1) * kp];
            for b in 0..self.blocks {
                let mut acc = [0i32; BLOCK];
                for (wp, &xv) in self.w[b * kp..(b + 1) * kp].iter().zip(x) {
                    let (x0, x1) = unpair(xv);
                    for l in 0..BLOCK {
                        // Bounded by the caller below 2^31: wrapping only lets it vectorise.
                        let v = (x0 * wp.0[2 * l] as i32).wrapping_add(x1 * wp.0[2 * l + 1] as i32);
                        acc[l] = acc[l].wrapping_add(v);
                    }
                }
                self.store(&acc, b, t, shifts[t], y);
            }
        }
    }

    /// Requantises one token's sums of block `b` into `y`.
    #[inline(always)]
    fn store(&self, acc: &[i32; BLOCK], b: usize, t: usize, s: i32, y: &mut [i32]) {
        let base = b * BLOCK;
        let live = (self.rows - base).min(BLOCK);
        let out = &mut y[t * self.rows + base..t * self.rows + base + live];
        for (l, o) in out.iter_mut().enumerate() {
            let r = base + l;
            *o = requant(acc[l], self.m[r], self.e[r], s, self.bias[r]);
        }
    }
}

/// Requantises `n` rows of `x` (`cols` values each, one after another) to `i16` with `|q| <= max`,
/// as [`quantise_row`], written as pairs (`cols.div_ceil(2)` per row, [`pair`], the last
/// padded with 0); `shifts[t]` gets row `t`'s shift. On `path` (every path gives the same
/// integers).
#[inline(always)]
pub(crate) fn quantise_rows(path: Simd, n: usize, x: &[i32], cols: usize, max: i32, out: &mut [i32], shifts: &mut [i32]) {
    let kp = cols.div_ceil(2);
    for t in 0..n {
        shifts[t] = quantise_pairs_on(path, &x[t * cols..(t + 1) * cols], max, &mut out[t * kp..(t + 1) * kp]);
    }
}

/// Requantises `n` rows of `x` (`cols` values each) to `|q| <= max` (`max <= ACT8`) as
/// [`quantise_row`] (the same shift, the same `q`), written as bytes `q + 128` in quads
/// (`cols.div_ceil(4)` `i32` per row, the first input in the low byte; the padding bytes
/// 128, i.e. `q = 0`): [`Dense::run_u8`]'s input. `shifts[t]` gets row `t`'s shift.
#[inline(always)]
pub(crate) fn quantise_quads(path: Simd, n: usize, x: &[i32], cols: usize, max: i32, out: &mut [i32], shifts: &mut [i32]) {
    assert!((1..=ACT8).contains(&max), "u8 inputs need 1 <= max <= 127");
    let kq = cols.div_ceil(4);
    for t in 0..n {
        let (row, o) = (&x[t * cols..(t + 1) * cols], &mut out[t * kq..(t + 1) * kq]);
        #[cfg(target_arch = "x86_64")]
        if path == Simd::Avx512 && best() >= Simd::Avx512 {
            // SAFETY: the processor has the features (checked by `best`); `o` holds `kq` quads,
            // that is at least `cols` bytes.
            shifts[t] = unsafe { x86::quant512u8(row, max, o.as_mut_ptr() as *mut u8) };
            if !cols.is_multiple_of(4) {
                // The padding bytes (little-endian: the high ones of the last quad).
                let keep = 8 * (cols % 4) as u32;
                o[kq - 1] = ((o[kq - 1] as u32 & ((1u32 << keep) - 1)) | (0x8080_8080u32 & !((1u32 << keep) - 1))) as i32;
            }
            continue;
        }
        let _ = path;
        let s = row_shift(row, max);
        let half = if s > 0 { 1i64 << (s - 1) } else { 0 };
        let q = |v: i32| (((v as i64).wrapping_add(half) >> s).clamp(-max as i64, max as i64) + 128) as u32;
        let mut it = row.chunks_exact(4);
        for (ov, c) in o.iter_mut().zip(&mut it) {
            *ov = (q(c[0]) | q(c[1]) << 8 | q(c[2]) << 16 | q(c[3]) << 24) as i32;
        }
        let rem = it.remainder();
        if !rem.is_empty() {
            let mut v = 0x8080_8080u32;
            for (h, &x) in rem.iter().enumerate() {
                v = (v & !(0xFF << (8 * h))) | q(x) << (8 * h);
            }
            o[cols / 4] = v as i32;
        }
        shifts[t] = s;
    }
}

/// [`row_shift`] from the row's largest magnitude `m`, in `u64` (`m < 2^32`: no step wraps).
/// Starts at `bits(m) - bits(max)`: below it, `m / 2^s >= 2^bits(max) > max` (the rounded
/// shift only goes down as `s` grows).
#[inline(always)]
fn shift_for(m: u32, max: i32) -> i32 {
    let (m, max) = (m as u64, max as i64);
    let mut s = ((64 - m.leading_zeros() as i32) - (64 - (max as u64).leading_zeros() as i32)).max(0);
    while (if s > 0 { (m + (1 << (s - 1))) >> s } else { m }) as i64 > max {
        s += 1;
    }
    s
}

/// [`quantise_pairs`] on `path`: the same integers (AVX-512: the max-abs reduction, the
/// rounding shift `(v >> s) + ((v >> (s - 1)) & 1)` in `i32`, which is `floor((v + 2^(s-1)) /
/// 2^s)` exactly, the clamp and the narrowing to `i16` in 512-bit registers).
#[inline(always)]
pub(crate) fn quantise_pairs_on(path: Simd, x: &[i32], max: i32, out: &mut [i32]) -> i32 {
    #[cfg(target_arch = "x86_64")]
    if path == Simd::Avx512 && best() >= Simd::Avx512 && max > 0 {
        let kp = x.len().div_ceil(2);
        let out = &mut out[..kp];
        // SAFETY: the processor has the features (checked by `best`); `out` holds `kp` pairs,
        // that is at least `x.len()` `i16` values (pairs are little-endian: the first value
        // in the low half, as `pair` makes them).
        let s = unsafe { x86::quant512(x, max, out.as_mut_ptr() as *mut i16) };
        if x.len() % 2 == 1 {
            out[kp - 1] &= 0xFFFF;
        }
        return s;
    }
    let _ = path;
    quantise_pairs(x, max, out)
}

/// [`quantise_row`] on `path`: the same integers (see [`quantise_pairs_on`]).
#[inline(always)]
pub(crate) fn quantise_row_on(path: Simd, x: &[i32], max: i32, out: &mut [i16]) -> i32 {
    #[cfg(target_arch = "x86_64")]
    if path == Simd::Avx512 && best() >= Simd::Avx512 && max > 0 {
        let out = &mut out[..x.len()];
        // SAFETY: the processor has the features (checked by `best`); `out` holds `x.len()`
        // values.
        return unsafe { x86::quant512(x, max, out.as_mut_ptr()) };
    }
    let _ = path;
    quantise_row(x, max, out)
}

/// The shift `s` (`x ~ q * 2^s`) that brings a row's largest magnitude to at most `max`.
#[inline(always)]
fn row_shift(x: &[i32], max: i32) -> i32 {
    let m = x.iter().fold(0u32, |a, v| a.max(v.unsigned_abs())) as i64;
    let mut s = 0;
    while rshift(m as i128, s) > max as i128 {
        s += 1;
    }
    s
}

/// [`quantise_row`] written as `x.len().div_ceil(2)` pairs (the last padded with 0).
#[inline(always)]
pub(crate) fn quantise_pairs(x: &[i32], max: i32, out: &mut [i32]) -> i32 {
    let s = row_shift(x, max);
    // The same rounding as `rshift`, in i64 (|v| < 2^31): the loop vectorises.
    let (half, max) = (if s > 0 { 1i64 << (s - 1) } else { 0 }, max as i64);
    let q = |v: i32| ((v as i64).wrapping_add(half) >> s).clamp(-max, max) as i16;
    let mut it = x.chunks_exact(2);
    for (o, c) in out.iter_mut().zip(&mut it) {
        *o = pair(q(c[0]), q(c[1]));
    }
    if let [v] = it.remainder() {
        out[x.len() / 2] = pair(q(*v), 0);
    }
    s
}

/// Requantises a row of `Q16` values to `i16` with `|q| <= max`: returns the shift `s` with
/// `x ~ q * 2^s`.
#[inline(always)]
pub(crate) fn quantise_row(x: &[i32], max: i32, out: &mut [i16]) -> i32 {
    let s = row_shift(x, max);
    let (half, max) = (if s > 0 { 1i64 << (s - 1) } else { 0 }, max as i64);
    for (o, &v) in out.iter_mut().zip(x) {
        *o = ((v as i64).wrapping_add(half) >> s).clamp(-max, max) as i16;
    }
    s
}

/// Inputs pairs summed in `i32` before widening, in [`DotRhs`] (256 inputs).
const CHUNK_PAIRS: usize = 128;

/// The right operand of exact `i16` dot products: `n` rows of `len` values, split into
/// `256 * hi + lo` and packed as [`Dense`]'s weights (the rows as channels).
#[derive(Clone, Debug, Default)]
pub struct DotRhs {
    n: usize,
    kp: usize,
    blocks: usize,
    hi: Vec<Line>,
    lo: Vec<Line>,
}

impl DotRhs {
    /// Packs `n` rows of `len` values (`bs` apart in `b`), each in `-32767..=32767`.
    pub fn pack(&mut self, n: usize, len: usize, b: &[i16], bs: usize) {
        let kp = len.div_ceil(2);
        let blocks = n.div_ceil(BLOCK);
        let size = blocks * kp;
        self.hi.clear();
        self.hi.resize(size, Line::default());
        self.lo.clear();
        self.lo.resize(size, Line::default());
        (self.n, self.kp, self.blocks) = (n, kp, blocks);
        #[cfg(target_arch = "x86_64")]
        if active() >= Simd::Avx512 && bs.is_multiple_of(2) && n > 0 && n * bs < 1 << 30 && b.len() >= (n - 1) * bs + 2 * kp {
            // SAFETY: the processor has the features (`active` never exceeds `best`); every
            // pair read is inside `b` (checked), the lines are `blocks * kp` long.
            unsafe { x86::pack512(self, len, b, bs) };
            return;
        }
        for j in 0..n {
            let (bl, l) = (j / BLOCK, j % BLOCK);
            for (c, &v) in b[j * bs..j * bs + len].iter().enumerate() {
                let at = bl * kp + c / 2;
                self.hi[at].0[2 * l + c % 2] = v >> 8;
                self.lo[at].0[2 * l + c % 2] = v & 0xFF;
            }
        }
    }

    /// `out[j] = sum_c a[c] b_j[c]` for the `n` packed rows, exactly: `a` holds the left row as
    /// `kp` pairs (`pair`, zero past `len`), each value in `-32767..=32767`.
    pub fn dots(&self, a: &[i32], out: &mut [i64], path: Simd) {
        let (a, out) = (&a[..self.kp], &mut out[..self.n]);
        match path {
            #[cfg(target_arch = "x86_64")]
            Simd::Avx512 if best() >= Simd::Avx512 => {
                // SAFETY: the processor has the features (checked by `best`).
                unsafe { x86::dots512(self, a, out) }
            }
            #[cfg(target_arch = "x86_64")]
            Simd::Avx2 | Simd::Avx512 if best() >= Simd::Avx2 => {
                // SAFETY: as above.
                unsafe { x86::dots256(self, a, out) }
            }
            _ => self.dots_scalar(a, out),
        }
    }

    /// [`DotRhs::dots`] of two left rows (each packed line read once for both on AVX-512).
    pub fn dots2(&self, a: [&[i32]; 2], out: [&mut [i64]; 2], path: Simd) {
        #[cfg(target_arch = "x86_64")]
        if path == Simd::Avx512 && best() >= Simd::Avx512 {
            let [a0, a1] = a;
            let [o0, o1] = out;
            // SAFETY: the processor has the features (checked by `best`).
            unsafe { x86::dots512r::<2>(self, [&a0[..self.kp], &a1[..self.kp]], [&mut o0[..self.n], &mut o1[..self.n]]) };
            return;
        }
        for (a, out) in a.into_iter().zip(out) {
            self.dots(a, out, path);
        }
    }

    fn dots_scalar(&self, a: &[i32], out: &mut [i64]) {
        let kp = self.kp;
        for b in 0..self.blocks {
            let mut tot = [0i64; BLOCK];
            let (hi, lo) = (&self.hi[b * kp..(b + 1) * kp], &self.lo[b * kp..(b + 1) * kp]);
            for p0 in (0..kp).step_by(CHUNK_PAIRS) {
                let p1 = (p0 + CHUNK_PAIRS).min(kp);
                let (mut h, mut l) = ([0i32; BLOCK], [0i32; BLOCK]);
                for ((hp, lp), &av) in hi[p0..p1].iter().zip(&lo[p0..p1]).zip(&a[p0..p1]) {
                    let (a0, a1) = unpair(av);
                    for k in 0..BLOCK {
                        h[k] = h[k].wrapping_add((a0 * hp.0[2 * k] as i32).wrapping_add(a1 * hp.0[2 * k + 1] as i32));
                        l[k] = l[k].wrapping_add((a0 * lp.0[2 * k] as i32).wrapping_add(a1 * lp.0[2 * k + 1] as i32));
                    }
                }
                for k in 0..BLOCK {
                    tot[k] += ((h[k] as i64) << 8) + l[k] as i64;
                }
            }
            let live = (self.n - b * BLOCK).min(BLOCK);
            out[b * BLOCK..b * BLOCK + live].copy_from_slice(&tot[..live]);
        }
    }
}

/// One attention row's scores and softmax weights on AVX-512, where every key's rounded
/// product fits `i64` (`|dot| < 3 * 2^30`, `m < 2^31`) and its shift is in `1..=62`: `s_j =
/// sat(rshift(dot_j * m, sh_j) + bias_j)`, then `e_j = exp_neg(max s - s_j)` from the `Q30`
/// table `t` (the same integers as `int.rs`'s `Exp2::exp_neg`). Returns `false`, writing
/// nothing meaningful, where the processor lacks AVX-512 or some key is off the fast path.
pub(crate) fn softmax_row(dots: &[i64; 64], sh: &[i32; 64], bias: &[i32], m: i64, t: &[i32; 257], e: &mut [i64; 64]) -> bool {
    let bias: &[i32; 64] = bias.try_into().expect("64 biases");
    #[cfg(target_arch = "x86_64")]
    if best() >= Simd::Avx512 && (0..1 << 31).contains(&m) {
        // SAFETY: the processor has the features (checked by `best`).
        return unsafe { x86::softmax512(dots, sh, bias, m, t, e) };
    }
    let _ = (dots, sh, bias, m, t, e);
    false
}

/// The policy head's scores of one query row: `out_j = sat(rshift(dot_j * m, sh_j))` for 64
/// keys (the same integers as `int.rs`'s `scale_dot` with nothing added), on AVX-512 where `0
/// <= m < 2^31`, every `|dot_j| < 2^40` and every shift is in `1..=62` ([`softmax_row`]'s
/// scores). Returns `false`, writing nothing meaningful, where it does not apply.
pub(crate) fn scores_row(path: Simd, dots: &[i64; 64], sh: &[i32; 64], m: i64, out: &mut [i32]) -> bool {
    let out: &mut [i32; 64] = out.try_into().expect("64 scores");
    #[cfg(target_arch = "x86_64")]
    if path == Simd::Avx512 && best() >= Simd::Avx512 && (0..1 << 31).contains(&m) {
        // SAFETY: the processor has the features (checked by `best`).
        return unsafe { x86::scores_row512(dots, sh, m, out) };
    }
    let _ = (path, dots, sh, m, out);
    false
}

/// [`weighted_sum`] of two rows of weights over the same values (each value row read once).
/// Returns `false` (nothing written) where it does not apply.
pub(crate) fn weighted_sum2(e: &[[i64; 64]; 2], vu: &[u64], dh: usize, z: [i64; 2], acc: [&mut [i64]; 2]) -> bool {
    if !has_ifma() || active() < Simd::Avx512 || vu.len() < 64 * dh || acc.iter().any(|a| a.len() < dh) {
        return false;
    }
    #[cfg(target_arch = "x86_64")]
    {
        // SAFETY: the processor has the features (checked by `has_ifma`); sizes checked.
        match dh {
            32 => unsafe { x86::wsum52x2::<4>(e, vu, z, acc) },
            64 => unsafe { x86::wsum52x2::<8>(e, vu, z, acc) },
            _ => return false,
        }
        return true;
    }
    #[allow(unreachable_code)]
    {
        let _ = (e, z, acc);
        false
    }
}

/// LayerNorm (`b` given: the mean subtracted, the bias added) or RMSNorm of one row on
/// AVX-512, where `int.rs`'s `Norm::apply` takes its `i64` paths and every product fits the
/// 32 x 32 -> 64-bit multiply (`|x - mean| < 2^26`, `n <= 2048`, `n` a multiple of 16, `inv >>
/// 31 < 2^31`, `|z| < 2^31`): the same integers as that code. `eps` is the `Q32` epsilon.
/// Returns `false`, with `x` untouched, where it does not apply.
pub(crate) fn norm_row(path: Simd, x: &mut [i32], w: &[i32], b: Option<&[i32]>, wmax: i64, eps: i128) -> bool {
    let n = x.len();
    if path < Simd::Avx512
        || best() < Simd::Avx512
        || n == 0
        || !n.is_multiple_of(16)
        || n > 2048
        || w.len() != n
        || b.is_some_and(|b| b.len() != n)
    {
        return false;
    }
    #[cfg(target_arch = "x86_64")]
    {
        // SAFETY: the processor has the features (checked by `best`); lengths checked.
        return unsafe { x86::norm512(x, w, b, wmax, eps) };
    }
    #[allow(unreachable_code)]
    {
        let _ = (wmax, eps);
        false
    }
}

/// `floor(sqrt(v))` (the same value as `u128::isqrt`): below `2^64` from the correctly
/// rounded `f64` square root, corrected to the exact floor.
#[inline(always)]
pub(crate) fn isqrt(v: u128) -> u128 {
    if v >= 1 << 64 {
        return v.isqrt();
    }
    let mut r = ((v as u64) as f64).sqrt() as u128;
    while r * r > v {
        r -= 1;
    }
    while (r + 1) * (r + 1) <= v {
        r += 1;
    }
    r
}

/// GELU by table on AVX-512, where `int.rs`'s `Gelu::apply` is: `x` itself at and above
/// `hi`, 0 below `lo`, else `t[i] + (((t[i + 1] - t[i]) f + 2^(sh - 1)) >> sh)` with `u = x -
/// lo`, `i = u >> sh`, `f = u mod 2^sh` (`t` has `(hi - lo) >> sh` + 1 entries, every
/// difference times `2^sh` below `2^31`). Returns `false` (nothing written) where it does not
/// apply.
pub(crate) fn gelu_all(path: Simd, x: &mut [i32], t: &[i32], lo: i32, hi: i32, sh: u32) -> bool {
    if path < Simd::Avx512
        || best() < Simd::Avx512
        || !(1..=16).contains(&sh)
        || hi <= lo
        || t.len() != (((hi as i64 - lo as i64) >> sh) + 1) as usize
    {
        return false;
    }
    #[cfg(target_arch = "x86_64")]
    {
        // SAFETY: the processor has the features (checked by `best`); the table's length checked.
        unsafe { x86::gelu512(x, t, lo, hi, sh) };
        return true;
    }
    #[allow(unreachable_code)]
    false
}

/// `out[c] = sat((acc[c] * inv + 2^61) >> 62)` (the `i128` formula: the attention's weighted
/// sum times the row's reciprocal) for `|acc[c]| < 2^63`, `inv < 2^43`; on AVX-512 by a
/// 128-bit product from four 32 x 32-bit ones. Returns `false` (nothing written) where it does
/// not apply.
pub(crate) fn scale_row(path: Simd, acc: &[i64], inv: u64, out: &mut [i32]) -> bool {
    if path < Simd::Avx512 || best() < Simd::Avx512 || inv >= 1 << 43 || out.len() != acc.len() {
        return false;
    }
    #[cfg(target_arch = "x86_64")]
    {
        // SAFETY: the processor has the features (checked by `best`); lengths checked.
        unsafe { x86::scale512(acc, inv, out) };
        return true;
    }
    #[allow(unreachable_code)]
    false
}

/// Whether the `u8` dense layers use AMX (`tdpbusd`) on the AVX-512 path: the processor has
/// AMX-TILE and AMX-INT8, Linux granted this process the tile data
/// (`arch_prctl(ARCH_REQ_XCOMP_PERM, XFEATURE_XTILEDATA)`), and `CHESSZIP_AMX` is not `0`
/// (for measuring and comparing: the integers are the same either way).
pub fn amx_ready() -> bool {
    static AMX: OnceLock<bool> = OnceLock::new();
    *AMX.get_or_init(|| {
        if std::env::var("CHESSZIP_AMX").is_ok_and(|v| v.trim() == "0") {
            return false;
        }
        amx_available()
    })
}

/// The processor and the operating system allow AMX (whatever `CHESSZIP_AMX` says).
#[allow(unreachable_code)]
fn amx_available() -> bool {
    static AVAILABLE: OnceLock<bool> = OnceLock::new();
    *AVAILABLE.get_or_init(|| {
        #[cfg(all(target_arch = "x86_64", target_os = "linux"))]
        {
            if best() < Simd::Avx512 {
                return false;
            }
            // CPUID leaf 7, subleaf 0, EDX: bit 24 AMX-TILE, bit 25 AMX-INT8.
            let l7 = std::arch::x86_64::__cpuid_count(7, 0);
            if l7.edx & (3 << 24) != 3 << 24 {
                return false;
            }
            const ARCH_REQ_XCOMP_PERM: libc::c_long = 0x1023;
            const XFEATURE_XTILEDATA: libc::c_long = 18;
            // SAFETY: a request for a permission; on failure nothing changes.
            return unsafe { libc::syscall(libc::SYS_arch_prctl, ARCH_REQ_XCOMP_PERM, XFEATURE_XTILEDATA) } == 0;
        }
        false
    })
}

/// Whether the processor has AVX-512 IFMA (52-bit multiply-add), for [`weighted_sum`].
fn has_ifma() -> bool {
    static IFMA: OnceLock<bool> = OnceLock::new();
    *IFMA.get_or_init(|| {
        #[cfg(target_arch = "x86_64")]
        if std::is_x86_feature_detected!("avx512f") && std::is_x86_feature_detected!("avx512ifma") {
            return true;
        }
        false
    })
}

/// The attention's weighted sum of values on AVX-512 IFMA: `acc[c] = sum_j e_j v_j[c]` over 64
/// keys, with `vu` holding `v + 2^31` (row `j` at `j * dh`, `dh` a multiple of 8 up to 64) and
/// `z = sum_j e_j`. Each `e_j (v + 2^31)` is below `2^52` (`e_j <= 2^20`), so the 52-bit
/// multiply-add is exact, the sum is below `2^58`, and `acc = sum - 2^31 z`: the same
/// integers as the `i64` products. Returns `false` (nothing written) where it does not apply.
pub(crate) fn weighted_sum(e: &[i64; 64], vu: &[u64], dh: usize, z: i64, acc: &mut [i64]) -> bool {
    if !has_ifma() || active() < Simd::Avx512 || vu.len() < 64 * dh || acc.len() < dh {
        return false;
    }
    #[cfg(target_arch = "x86_64")]
    {
        // SAFETY: the processor has the features (checked by `has_ifma`); sizes checked.
        match dh {
            32 => return unsafe { x86::wsum52::<4>(e, vu, z, acc) },
            64 => return unsafe { x86::wsum52::<8>(e, vu, z, acc) },
            _ => {}
        }
    }
    let _ = z;
    false
}

/// The x86-64 kernels. Written with slices and iterators, so that a build with debug
/// assertions (the dev and test profiles) carries no per-load checks in the inner loops.
#[cfg(target_arch = "x86_64")]
mod x86 {
    use super::{BLOCK, CHUNK_PAIRS, Dense, DotRhs, Line, Line8, requant};
    use std::arch::x86_64::*;

    /// Tokens per register tile.
    const TR: usize = 4;
    /// Blocks of 16 channels per register tile (AVX-512).
    const TC: usize = 4;

    macro_rules! tile_dispatch {
        ($f:ident, $r:expr, $c:expr, $($a:expr),*) => {
            match ($r, $c) {
                (1, 1) => $f::<1, 1>($($a),*),
                (1, 2) => $f::<1, 2>($($a),*),
                (1, 3) => $f::<1, 3>($($a),*),
                (1, _) => $f::<1, 4>($($a),*),
                (2, 1) => $f::<2, 1>($($a),*),
                (2, 2) => $f::<2, 2>($($a),*),
                (2, 3) => $f::<2, 3>($($a),*),
                (2, _) => $f::<2, 4>($($a),*),
                (3, 1) => $f::<3, 1>($($a),*),
                (3, 2) => $f::<3, 2>($($a),*),
                (3, 3) => $f::<3, 3>($($a),*),
                (3, _) => $f::<3, 4>($($a),*),
                (_, 1) => $f::<4, 1>($($a),*),
                (_, 2) => $f::<4, 2>($($a),*),
                (_, 3) => $f::<4, 3>($($a),*),
                (_, _) => $f::<4, 4>($($a),*),
            }
        };
    }

    /// Requantises a tile's sums `acc` (`R` tokens from `t0` x `C` blocks from `b0`) into `y`,
    /// written out in each tile (a function was not inlined, and its sums went through memory).
    /// Where every shift `sh = e - s` is in `1..=62`: `floor((acc m + 2^(sh-1)) / 2^sh) + bias`
    /// as `((acc m) >> (sh - 1)) + 1 + 2 bias) >> 1` (arithmetic shifts; with `acc m = q
    /// 2^(sh-1) + r`, `0 <= r < 2^(sh-1)`, both are `floor((q + 1) / 2) + bias`), saturated to
    /// `i32`; else [`requant`] per channel. Where moreover every token's shift is at most
    /// `s_free` (no output can saturate, [`Dense::sat_free`]), straight-line code over the whole
    /// tile (no test per token and block: that bookkeeping had cost more than the arithmetic):
    /// the even channels' products from the low halves of the 64-bit lanes, the odd ones' from
    /// the high halves (`vpmuldq` reads the low 32 bits of each lane), the results' low halves
    /// interleaved by one `vpermt2d`, without the widening, the saturating narrowing and the
    /// reassembly (13 vector instructions instead of 20 per 16 channels).
    macro_rules! epilogue512 {
        ($d:expr, $b0:expr, $t0:expr, $acc:expr, $shifts:expr, $y:expr, $r:expr, $c:expr, $s_free:expr) => {{
            let (d, b0, t0, acc, shifts, y, s_free): (&Dense, usize, usize, &[[__m512i; $c]; $r], &[i32], &mut [i32], i32) =
                ($d, $b0, $t0, $acc, $shifts, $y, $s_free);
            let one = _mm512_set1_epi64(1);
            let sh: [i32; $r] = std::array::from_fn(|r| shifts[t0 + r]);
            if sh.iter().all(|&s| d.e_min - s >= 1 && d.e_max - s <= 62 && s <= s_free) {
                // Every token's shift keeps every channel in 1..=62 and no output can
                // saturate: straight-line code over the tile, the bounds checked once.
                let rows = d.rows;
                let yt = &mut y[t0 * rows..(t0 + $r) * rows];
                // Dword 2k from the first operand's dword 2k, dword 2k + 1 from the second's.
                let inter = _mm512_setr_epi32(0, 16, 2, 18, 4, 20, 6, 22, 8, 24, 10, 26, 12, 28, 14, 30);
                let sv: [__m512i; $r] = std::array::from_fn(|r| _mm512_set1_epi64(sh[r] as i64));
                let (m, e, bias) =
                    (&d.m[b0 * BLOCK..(b0 + $c) * BLOCK], &d.e[b0 * BLOCK..(b0 + $c) * BLOCK], &d.bias[b0 * BLOCK..(b0 + $c) * BLOCK]);
                for c in 0..$c {
                    let base = (b0 + c) * BLOCK;
                    let live = (rows - base).min(BLOCK);
                    let mask = if live == BLOCK { 0xFFFFu16 } else { (1u16 << live) - 1 };
                    // SAFETY: 16 values at 16 c of the tile's 16 C (checked above).
                    let ld = |v: &[i32]| unsafe { _mm512_loadu_si512(v.as_ptr().wrapping_add(c * BLOCK) as *const __m512i) };
                    // The even and odd channels' multipliers (in the low halves of the
                    // lanes), exponents - 1 and 2 bias + 1 (as i64).
                    let mv = ld(m);
                    let m_odd = _mm512_srli_epi64::<32>(mv);
                    let e1v = _mm512_sub_epi32(ld(e), _mm512_set1_epi32(1));
                    let (e1_even, e1_odd) = (_mm512_srai_epi64::<32>(_mm512_slli_epi64::<32>(e1v)), _mm512_srai_epi64::<32>(e1v));
                    let bv = ld(bias);
                    let (b_even, b_odd) = (_mm512_srai_epi64::<32>(_mm512_slli_epi64::<32>(bv)), _mm512_srai_epi64::<32>(bv));
                    let (b2_even, b2_odd) =
                        (_mm512_add_epi64(_mm512_add_epi64(b_even, b_even), one), _mm512_add_epi64(_mm512_add_epi64(b_odd, b_odd), one));
                    for r in 0..$r {
                        let a = acc[r][c];
                        let ev = _mm512_srav_epi64(_mm512_mul_epi32(a, mv), _mm512_sub_epi64(e1_even, sv[r]));
                        let ev = _mm512_srai_epi64::<1>(_mm512_add_epi64(ev, b2_even));
                        let od = _mm512_srav_epi64(_mm512_mul_epi32(_mm512_srli_epi64::<32>(a), m_odd), _mm512_sub_epi64(e1_odd, sv[r]));
                        let od = _mm512_srai_epi64::<1>(_mm512_add_epi64(od, b2_odd));
                        // Every result fits i32 (s <= s_free): its low half is the value.
                        let v = _mm512_permutex2var_epi32(ev, inter, od);
                        // SAFETY: the `live` values at `r rows + base` of the tile's rows.
                        unsafe { _mm512_mask_storeu_epi32(yt.as_mut_ptr().wrapping_add(r * rows + base), mask, v) };
                    }
                }
            } else {
                for c in 0..$c {
                    let base = (b0 + c) * BLOCK;
                    let live = (d.rows - base).min(BLOCK);
                    let mask = if live == BLOCK { 0xFFFFu16 } else { (1u16 << live) - 1 };
                    let ld = |v: &[i32]| {
                        let a: &[i32; BLOCK] = v[base..base + BLOCK].try_into().unwrap();
                        // SAFETY: 16 values.
                        unsafe { _mm512_loadu_si512(a.as_ptr() as *const __m512i) }
                    };
                    let (mlo, mhi) = widen(ld(&d.m));
                    let (e1lo, e1hi) = widen(_mm512_sub_epi32(ld(&d.e), _mm512_set1_epi32(1)));
                    let (blo, bhi) = widen(ld(&d.bias));
                    let (b2lo, b2hi) =
                        (_mm512_add_epi64(_mm512_add_epi64(blo, blo), one), _mm512_add_epi64(_mm512_add_epi64(bhi, bhi), one));
                    for r in 0..$r {
                        let t = t0 + r;
                        let s = sh[r];
                        let out = &mut y[t * d.rows + base..t * d.rows + base + live];
                        if d.e_min - s >= 1 && d.e_max - s <= 62 {
                            let (alo, ahi) = widen(acc[r][c]);
                            let sv = _mm512_set1_epi64(s as i64);
                            let lo = requant8(alo, mlo, _mm512_sub_epi64(e1lo, sv), b2lo);
                            let hi = requant8(ahi, mhi, _mm512_sub_epi64(e1hi, sv), b2hi);
                            let v = _mm512_inserti64x4::<1>(_mm512_castsi256_si512(lo), hi);
                            // SAFETY: the mask covers the `live` values of `out`.
                            unsafe { _mm512_mask_storeu_epi32(out.as_mut_ptr(), mask, v) };
                        } else {
                            let mut a = [0i32; BLOCK];
                            // SAFETY: 16 values.
                            unsafe { _mm512_storeu_si512(a.as_mut_ptr() as *mut __m512i, acc[r][c]) };
                            for (l, o) in out.iter_mut().enumerate() {
                                *o = requant(a[l], d.m[base + l], d.e[base + l], s, d.bias[base + l]);
                            }
                        }
                    }
                }
            }
        }};
    }

    #[inline(always)]
    fn ld256(l: &Line, half: usize) -> __m256i {
        // SAFETY: a `Line` is 64 bytes, aligned to 64: its halves are aligned to 32.
        unsafe { _mm256_load_si256((l as *const Line as *const __m256i).wrapping_add(half)) }
    }

    #[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512dq,avx512vnni")]
    pub(super) fn dense512(d: &Dense, n: usize, xp: &[i32], shifts: &[i32], y: &mut [i32]) {
        let mut b = 0;
        while b < d.blocks {
            let c = (d.blocks - b).min(TC);
            let mut t = 0;
            while t < n {
                let r = (n - t).min(TR);
                tile_dispatch!(tile512, r, c, d, b, t, xp, shifts, y);
                t += r;
            }
            b += c;
        }
    }

    #[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512dq,avx512vnni")]
    fn tile512<const R: usize, const C: usize>(d: &Dense, b0: usize, t0: usize, xp: &[i32], shifts: &[i32], y: &mut [i32]) {
        let kp = d.kp;
        // The blocks' lines and the tokens' pairs, bounds checked once here.
        let w = d.w[b0 * kp..(b0 + C) * kp].as_ptr();
        let x = xp[t0 * kp..(t0 + R) * kp].as_ptr();
        let mut acc = [[_mm512_setzero_si512(); C]; R];
        for p in 0..kp {
            // SAFETY: line p of block c, inside the checked range; aligned to 64.
            let wv: [__m512i; C] = std::array::from_fn(|c| unsafe { _mm512_load_si512(w.wrapping_add(c * kp + p) as *const __m512i) });
            for r in 0..R {
                // SAFETY: pair p of token r, inside the checked range.
                let xv = _mm512_set1_epi32(unsafe { *x.wrapping_add(r * kp + p) });
                for c in 0..C {
                    acc[r][c] = _mm512_dpwssd_epi32(acc[r][c], xv, wv[c]);
                }
            }
        }
        epilogue512!(d, b0, t0, &acc, shifts, y, R, C, d.s_free);
    }

    #[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512dq,avx512vnni")]
    pub(super) fn dense512u8(d: &Dense, n: usize, xq: &[i32], shifts: &[i32], y: &mut [i32]) {
        dense512u8_from(d, 0, n, xq, shifts, y)
    }

    /// [`dense512u8`] of the tokens `t0..n` only.
    #[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512dq,avx512vnni")]
    fn dense512u8_from(d: &Dense, t0: usize, n: usize, xq: &[i32], shifts: &[i32], y: &mut [i32]) {
        let mut b = 0;
        while b < d.blocks {
            let c = (d.blocks - b).min(TC);
            let mut t = t0;
            while t < n {
                let r = (n - t).min(TR);
                tile_dispatch!(tile512u8, r, c, d, b, t, xq, shifts, y);
                t += r;
            }
            b += c;
        }
    }

    /// [`tile512`] on the `u8` form: `vpdpbusd` of a broadcast input quad (4 bytes `q + 128`)
    /// by 16 channels x 4 `i8` weights, the sums started at the channels' correction `-128 sum
    /// w`, so that they end at `sum w q` (every partial sum below `2^31`: `Dense::with_u8`).
    #[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512dq,avx512vnni")]
    fn tile512u8<const R: usize, const C: usize>(d: &Dense, b0: usize, t0: usize, xq: &[i32], shifts: &[i32], y: &mut [i32]) {
        let kq = d.kq;
        // The blocks' lines and the tokens' quads, bounds checked once here.
        let w: *const Line8 = d.w8[b0 * kq..(b0 + C) * kq].as_ptr();
        let x = xq[t0 * kq..(t0 + R) * kq].as_ptr();
        let corr: [__m512i; C] = std::array::from_fn(|c| {
            let a: &[i32; BLOCK] = d.corr[(b0 + c) * BLOCK..(b0 + c + 1) * BLOCK].try_into().unwrap();
            // SAFETY: 16 values.
            unsafe { _mm512_loadu_si512(a.as_ptr() as *const __m512i) }
        });
        let mut acc = [corr; R];
        for p in 0..kq {
            // SAFETY: line p of block c, inside the checked range; aligned to 64.
            let wv: [__m512i; C] = std::array::from_fn(|c| unsafe { _mm512_load_si512(w.wrapping_add(c * kq + p) as *const __m512i) });
            for r in 0..R {
                // SAFETY: quad p of token r, inside the checked range.
                let xv = _mm512_set1_epi32(unsafe { *x.wrapping_add(r * kq + p) });
                for c in 0..C {
                    acc[r][c] = _mm512_dpbusd_epi32(acc[r][c], xv, wv[c]);
                }
            }
        }
        epilogue512!(d, b0, t0, &acc, shifts, y, R, C, d.s_free8);
    }

    /// The AMX tile configuration of [`dense_amx`] (palette 1): every tile 16 rows of 64 bytes.
    /// `tmm0..=3` the sums (2 groups of 16 tokens x 2 blocks of 16 channels, `i32`), `tmm4`,
    /// `tmm5` the two groups' input quads (`u8`), `tmm6`, `tmm7` the two blocks' weight lines
    /// (16 lines of 16 channels x 4 `i8`: AMX's packed layout of `B`, as [`Dense::with_u8`]
    /// already packs them).
    #[repr(C, align(64))]
    struct TileCfg([u8; 64]);

    const fn tile_cfg() -> TileCfg {
        let mut c = [0u8; 64];
        c[0] = 1;
        let mut t = 0;
        while t < 8 {
            c[16 + 2 * t] = 64;
            c[48 + t] = 16;
            t += 1;
        }
        TileCfg(c)
    }

    static TILE_CFG: TileCfg = tile_cfg();

    /// One tile's sums, as `tilestored` writes them: 16 rows (tokens) of 16 `i32` (channels).
    #[repr(C, align(64))]
    struct Sums([[i32; BLOCK * BLOCK]; 4]);

    /// [`dense512u8`] with AMX (`tdpbusd`: `u8` x `i8` quads into `i32`, the same products as
    /// `vpdpbusd`). The sums start at 0 and get the channel's correction `-128 sum w` in the
    /// epilogue: every partial sum `sum w (q + 128)` is below `cols * 127 * 255 < 2^31`, and
    /// the wrapping `i32` additions give `sum w q` exactly, the same integers as every other
    /// path. The inputs are read in place where `kq` is a multiple of 16, else (and for the
    /// last tokens short of 16) from a copy padded to whole tiles, against weight lines padded
    /// with zeros (`w8a`): a padding byte, whatever it holds, meets a zero weight. A last group
    /// of fewer than 4 tokens goes through [`dense512u8_from`]. Needs [`super::amx_ready`].
    #[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512dq,avx512vnni")]
    pub(super) fn dense_amx(d: &Dense, n: usize, xq: &[i32], shifts: &[i32], y: &mut [i32]) {
        let kq = d.kq;
        assert!(kq > 0 && xq.len() >= n * kq && y.len() >= n * d.rows && shifts.len() >= n);
        let kq16 = kq.next_multiple_of(16);
        let w = if kq16 == kq { &d.w8[..] } else { &d.w8a[..] };
        assert_eq!(w.len(), d.blocks * kq16);
        // Tokens read in place (whole groups of 16, `kq` a multiple of 16), then the padded copy.
        let direct = if kq16 == kq { n / 16 * 16 } else { 0 };
        let rest = n - direct;
        let padded = if rest >= 4 { rest.next_multiple_of(16) } else { 0 };
        // SAFETY: AMX is enabled for this process (the caller checked `amx_ready`); the
        // configuration is 64 bytes, aligned.
        unsafe { std::arch::asm!("ldtilecfg [{}]", in(reg) TILE_CFG.0.as_ptr(), options(nostack, readonly)) };
        let mut sums = Sums([[0; BLOCK * BLOCK]; 4]);
        if direct > 0 {
            amx_rows(d, w, kq16, &xq[..direct * kq], kq, 0, direct, shifts, y, &mut sums);
        }
        if padded > 0 {
            let mut copy = vec![0i32; padded * kq16];
            for t in 0..rest {
                copy[t * kq16..t * kq16 + kq].copy_from_slice(&xq[(direct + t) * kq..(direct + t + 1) * kq]);
            }
            amx_rows(d, w, kq16, &copy, kq16, direct, rest, shifts, y, &mut sums);
        }
        // SAFETY: as above.
        unsafe { std::arch::asm!("tilerelease", options(nostack, nomem)) };
        if padded == 0 && rest > 0 {
            dense512u8_from(d, direct, n, xq, shifts, y);
        }
    }

    /// The `live` tokens from `t0` whose quads are rows of `xs` quads in `x` (whole groups of 16
    /// rows there, the first `kq16` quads of each read), against weight lines `w` (`kq16` per
    /// block), through [`amx_tile`].
    #[inline]
    #[allow(clippy::too_many_arguments)]
    #[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512dq,avx512vnni")]
    fn amx_rows(
        d: &Dense,
        w: &[Line8],
        kq16: usize,
        x: &[i32],
        xs: usize,
        t0: usize,
        live: usize,
        shifts: &[i32],
        y: &mut [i32],
        sums: &mut Sums,
    ) {
        let groups = live.div_ceil(16);
        assert!(x.len() >= 16 * groups * xs && xs >= kq16 && kq16.is_multiple_of(16) && w.len() >= d.blocks * kq16);
        let mut b = 0;
        while b < d.blocks {
            let c = (d.blocks - b).min(2);
            let mut g = 0;
            while g < groups {
                let gs = (groups - g).min(2);
                let l = (live - 16 * g).min(16 * gs);
                // SAFETY: blocks b..b + c of `w`, rows 16 g..16 (g + gs) of `x`, inside the
                // lengths checked above.
                let (wp, xp) = (w[b * kq16..].as_ptr() as *const u8, x[16 * g * xs..].as_ptr() as *const u8);
                let t = t0 + 16 * g;
                // While the first tokens meet blocks b, b + 1, the next two blocks' lines are
                // fetched (2 KiB a step: the same number of steps).
                let pf = if g == 0 && b + 4 <= d.blocks { w[(b + 2) * kq16..].as_ptr() as *const u8 } else { std::ptr::null() };
                match (gs, c) {
                    (1, 1) => amx_tile::<1, 1>(d, b, t, l, wp, kq16, xp, 4 * xs, pf, shifts, y, sums),
                    (1, _) => amx_tile::<1, 2>(d, b, t, l, wp, kq16, xp, 4 * xs, pf, shifts, y, sums),
                    (_, 1) => amx_tile::<2, 1>(d, b, t, l, wp, kq16, xp, 4 * xs, pf, shifts, y, sums),
                    (_, _) => amx_tile::<2, 2>(d, b, t, l, wp, kq16, xp, 4 * xs, pf, shifts, y, sums),
                }
                g += gs;
            }
            b += c;
        }
    }

    /// `G` groups of 16 token rows at `x` (`xs` bytes apart) x `C` blocks from `b0` (lines at
    /// `w`, `kq16` per block): the sums by `tdpbusd` over the whole input (64 inputs a step),
    /// stored, then [`epilogue512`] for the first `live` tokens, written from token `t0`.
    #[inline]
    #[allow(clippy::too_many_arguments)]
    #[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512dq,avx512vnni")]
    fn amx_tile<const G: usize, const C: usize>(
        d: &Dense,
        b0: usize,
        t0: usize,
        live: usize,
        w: *const u8,
        kq16: usize,
        x: *const u8,
        xs: usize,
        pf: *const u8,
        shifts: &[i32],
        y: &mut [i32],
        sums: &mut Sums,
    ) {
        use std::arch::asm;
        // SAFETY (every `asm!` below): tiles configured by `dense_amx`; every load reads 16
        // rows of 64 bytes inside the ranges `amx_rows` checked (`kq16` lines per block, 16 G
        // rows of `xs` bytes, of which the first `4 kq16` are read), every store writes one of
        // `sums`' 1 KiB arrays.
        unsafe {
            asm!("tilezero tmm0", options(nostack, nomem));
            if C == 2 {
                asm!("tilezero tmm1", options(nostack, nomem));
            }
            if G == 2 {
                asm!("tilezero tmm2", options(nostack, nomem));
                if C == 2 {
                    asm!("tilezero tmm3", options(nostack, nomem));
                }
            }
            for j in 0..kq16 / 16 {
                if !pf.is_null() {
                    for l in 0..32 {
                        _mm_prefetch::<_MM_HINT_T0>(pf.wrapping_add(2048 * j + 64 * l) as *const i8);
                    }
                }
                asm!("tileloadd tmm4, [{p} + {s} * 1]", p = in(reg) x.wrapping_add(64 * j), s = in(reg) xs, options(nostack, readonly));
                asm!("tileloadd tmm6, [{p} + {s} * 1]", p = in(reg) w.wrapping_add(1024 * j), s = in(reg) 64usize, options(nostack, readonly));
                asm!("tdpbusd tmm0, tmm4, tmm6", options(nostack, nomem));
                if C == 2 {
                    asm!("tileloadd tmm7, [{p} + {s} * 1]", p = in(reg) w.wrapping_add(64 * kq16 + 1024 * j), s = in(reg) 64usize, options(nostack, readonly));
                    asm!("tdpbusd tmm1, tmm4, tmm7", options(nostack, nomem));
                }
                if G == 2 {
                    asm!("tileloadd tmm5, [{p} + {s} * 1]", p = in(reg) x.wrapping_add(16 * xs + 64 * j), s = in(reg) xs, options(nostack, readonly));
                    asm!("tdpbusd tmm2, tmm5, tmm6", options(nostack, nomem));
                    if C == 2 {
                        asm!("tdpbusd tmm3, tmm5, tmm7", options(nostack, nomem));
                    }
                }
            }
            asm!("tilestored [{p} + {s} * 1], tmm0", p = in(reg) sums.0[0].as_mut_ptr(), s = in(reg) 64usize, options(nostack));
            if C == 2 {
                asm!("tilestored [{p} + {s} * 1], tmm1", p = in(reg) sums.0[1].as_mut_ptr(), s = in(reg) 64usize, options(nostack));
            }
            if G == 2 {
                asm!("tilestored [{p} + {s} * 1], tmm2", p = in(reg) sums.0[2].as_mut_ptr(), s = in(reg) 64usize, options(nostack));
                if C == 2 {
                    asm!("tilestored [{p} + {s} * 1], tmm3", p = in(reg) sums.0[3].as_mut_ptr(), s = in(reg) 64usize, options(nostack));
                }
            }
        }
        let corr: [__m512i; C] = std::array::from_fn(|c| {
            let a: &[i32; BLOCK] = d.corr[(b0 + c) * BLOCK..(b0 + c + 1) * BLOCK].try_into().unwrap();
            // SAFETY: 16 values.
            unsafe { _mm512_loadu_si512(a.as_ptr() as *const __m512i) }
        });
        let sums = &*sums;
        let row = |t: usize, c: usize| {
            let v = &sums.0[2 * (t / 16) + c][(t % 16) * BLOCK..(t % 16 + 1) * BLOCK];
            // SAFETY: 16 values.
            _mm512_add_epi32(unsafe { _mm512_loadu_si512(v.as_ptr() as *const __m512i) }, corr[c])
        };
        let mut t = 0;
        while t + TR <= live {
            let acc: [[__m512i; C]; TR] = std::array::from_fn(|r| std::array::from_fn(|c| row(t + r, c)));
            epilogue512!(d, b0, t0 + t, &acc, shifts, y, TR, C, d.s_free8);
            t += TR;
        }
        while t < live {
            let acc: [[__m512i; C]; 1] = [std::array::from_fn(|c| row(t, c))];
            epilogue512!(d, b0, t0 + t, &acc, shifts, y, 1, C, d.s_free8);
            t += 1;
        }
    }

    /// The 16 `i32` lanes of `v` as two vectors of 8 `i64`.
    #[inline]
    #[target_feature(enable = "avx512f")]
    fn widen(v: __m512i) -> (__m512i, __m512i) {
        (_mm512_cvtepi32_epi64(_mm512_castsi512_si256(v)), _mm512_cvtepi32_epi64(_mm512_extracti64x4_epi64::<1>(v)))
    }

    /// [`requant`] on 8 lanes whose shifts `sh` are all in `1..=62`, given `sh1 = sh - 1` and
    /// `b2 = 2 bias + 1` (see `epilogue512`).
    #[inline]
    #[target_feature(enable = "avx512f")]
    fn requant8(acc: __m512i, m: __m512i, sh1: __m512i, b2: __m512i) -> __m256i {
        let p = _mm512_mul_epi32(acc, m);
        let v = _mm512_srai_epi64::<1>(_mm512_add_epi64(_mm512_srav_epi64(p, sh1), b2));
        _mm512_cvtsepi64_epi32(v)
    }

    /// The largest `|x_i|` of `x` (as `u32`, so `|i32::MIN|` too), 16 values at a time: the
    /// row maximum [`quant512`] and [`quant512u8`] take their shift from.
    #[target_feature(enable = "avx512f,avx512bw,avx512vl")]
    #[inline]
    fn max_abs512(x: &[i32]) -> u32 {
        let (n, p) = (x.len(), x.as_ptr());
        let full = n / 16 * 16;
        let k: __mmask16 = ((1u32 << (n - full)) - 1) as u16;
        let mut mv = _mm512_setzero_si512();
        let mut i = 0;
        while i < full {
            // SAFETY: 16 values at i of n.
            let v = unsafe { _mm512_loadu_si512(p.wrapping_add(i) as *const __m512i) };
            mv = _mm512_max_epu32(mv, _mm512_abs_epi32(v));
            i += 16;
        }
        if full < n {
            // SAFETY: the mask covers the values at `full..n`.
            let v = unsafe { _mm512_maskz_loadu_epi32(k, p.wrapping_add(full)) };
            mv = _mm512_max_epu32(mv, _mm512_abs_epi32(v));
        }
        _mm512_reduce_max_epu32(mv)
    }

    /// [`super::quantise_row`] of `x` into the `x.len()` values at `out`; the shift.
    ///
    /// # Safety
    /// `out` must be valid for `x.len()` writes of `i16`.
    #[target_feature(enable = "avx512f,avx512bw,avx512vl")]
    pub(super) unsafe fn quant512(x: &[i32], max: i32, out: *mut i16) -> i32 {
        let n = x.len();
        let p = x.as_ptr();
        let full = n / 16 * 16;
        let tail = n - full;
        let k: __mmask16 = ((1u32 << tail) - 1) as u16;
        let s = super::shift_for(max_abs512(x), max);
        let sv = _mm_cvtsi32_si128(s);
        let s1 = _mm_cvtsi32_si128((s - 1).max(0));
        let one = _mm512_set1_epi32((s > 0) as i32);
        let (lo, hi) = (_mm512_set1_epi32(-max), _mm512_set1_epi32(max));
        let mut i = 0;
        while i < full {
            // SAFETY: 16 values at i of n.
            let v = unsafe { _mm512_loadu_si512(p.wrapping_add(i) as *const __m512i) };
            let q = _mm512_min_epi32(_mm512_max_epi32(round_shift(v, sv, s1, one), lo), hi);
            // SAFETY: 16 values at i of the n at `out`.
            unsafe { _mm256_storeu_si256(out.wrapping_add(i) as *mut __m256i, _mm512_cvtepi32_epi16(q)) };
            i += 16;
        }
        if tail > 0 {
            // SAFETY: the mask covers the `tail` values at `full`.
            let v = unsafe { _mm512_maskz_loadu_epi32(k, p.wrapping_add(full)) };
            let q = _mm512_min_epi32(_mm512_max_epi32(round_shift(v, sv, s1, one), lo), hi);
            // SAFETY: the mask covers the `tail` values at `full` of the n at `out`.
            unsafe { _mm512_mask_cvtepi32_storeu_epi16(out.wrapping_add(full) as *mut _, k, q) };
        }
        s
    }

    /// [`quant512`] written as bytes `q + 128` (`max <= 127`: every byte in `1..=255`) at `out`.
    ///
    /// # Safety
    /// `out` must be valid for `x.len()` writes.
    #[target_feature(enable = "avx512f,avx512bw,avx512vl")]
    pub(super) unsafe fn quant512u8(x: &[i32], max: i32, out: *mut u8) -> i32 {
        let n = x.len();
        let p = x.as_ptr();
        let full = n / 16 * 16;
        let tail = n - full;
        let k: __mmask16 = ((1u32 << tail) - 1) as u16;
        let s = super::shift_for(max_abs512(x), max);
        let sv = _mm_cvtsi32_si128(s);
        let s1 = _mm_cvtsi32_si128((s - 1).max(0));
        let one = _mm512_set1_epi32((s > 0) as i32);
        let (lo, hi) = (_mm512_set1_epi32(-max), _mm512_set1_epi32(max));
        let zp = _mm512_set1_epi32(128);
        let mut i = 0;
        while i < full {
            // SAFETY: 16 values at i of n.
            let v = unsafe { _mm512_loadu_si512(p.wrapping_add(i) as *const __m512i) };
            let q = _mm512_add_epi32(_mm512_min_epi32(_mm512_max_epi32(round_shift(v, sv, s1, one), lo), hi), zp);
            // SAFETY: 16 bytes at i of the n at `out`.
            unsafe { _mm_storeu_si128(out.wrapping_add(i) as *mut __m128i, _mm512_cvtepi32_epi8(q)) };
            i += 16;
        }
        if tail > 0 {
            // SAFETY: the mask covers the `tail` values at `full`.
            let v = unsafe { _mm512_maskz_loadu_epi32(k, p.wrapping_add(full)) };
            let q = _mm512_add_epi32(_mm512_min_epi32(_mm512_max_epi32(round_shift(v, sv, s1, one), lo), hi), zp);
            // SAFETY: the mask covers the `tail` bytes at `full` of the n at `out`.
            unsafe { _mm512_mask_cvtepi32_storeu_epi8(out.wrapping_add(full) as *mut _, k, q) };
        }
        s
    }

    /// See [`super::norm_row`]; `x`, `w` (and `b`) hold `n` values, `n` a multiple of 16 up to 2048.
    #[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512dq")]
    pub(super) fn norm512(x: &mut [i32], w: &[i32], b: Option<&[i32]>, wmax: i64, eps: i128) -> bool {
        let n = x.len();
        let (xp, wp) = (x.as_mut_ptr(), w.as_ptr());
        // SAFETY (the loads and stores below): 16 values at i, i < n, n a multiple of 16, and
        // `w`, `b` as long as `x`.
        let ld = |p: *const i32, i: usize| unsafe { _mm512_loadu_si512(p.wrapping_add(i) as *const __m512i) };
        let mean = if b.is_some() {
            let mut acc = _mm512_setzero_si512();
            for i in (0..n).step_by(16) {
                let (lo, hi) = widen(ld(xp, i));
                acc = _mm512_add_epi64(acc, _mm512_add_epi64(lo, hi));
            }
            let s = _mm512_reduce_add_epi64(acc);
            (2 * s + n as i64).div_euclid(2 * n as i64)
        } else {
            0
        };
        if b.is_none()
            && let Some(done) = rms512(x, w, wmax, eps)
        {
            return done;
        }
        let mv = _mm512_set1_epi64(mean);
        // The largest |x - mean| and the sum of squares in one pass; the sum is only used where
        // every |x - mean| < 2^26: then each square (< 2^52) comes from the low 32 bits and the
        // sum stays below 2^63.
        let mut dm = _mm512_setzero_si512();
        let mut acc = _mm512_setzero_si512();
        for i in (0..n).step_by(16) {
            let (lo, hi) = widen(ld(xp, i));
            let (dl, dh) = (_mm512_sub_epi64(lo, mv), _mm512_sub_epi64(hi, mv));
            dm = _mm512_max_epu64(dm, _mm512_max_epu64(_mm512_abs_epi64(dl), _mm512_abs_epi64(dh)));
            acc = _mm512_add_epi64(acc, _mm512_add_epi64(_mm512_mul_epi32(dl, dl), _mm512_mul_epi32(dh, dh)));
        }
        let dmax = _mm512_reduce_max_epu64(dm);
        if dmax >= 1 << 26 {
            return false;
        }
        let var = _mm512_reduce_add_epi64(acc) as i128 / n as i128;
        let sd = super::isqrt((var + eps) as u128) as i128;
        let inv = (1i128 << 62) / sd;
        let zb = ((dmax as u128 * inv as u128) >> 46) + 1;
        let (ih, il) = ((inv >> 31) as i64, (inv & ((1 << 31) - 1)) as i64);
        if zb * wmax as u128 > 1 << 62 || ih >= 1 << 31 || zb >= 1 << 31 {
            return false;
        }
        let (ihv, ilv) = (_mm512_set1_epi64(ih), _mm512_set1_epi64(il));
        let (h45, h15) = (_mm512_set1_epi64(1 << 45), _mm512_set1_epi64(1 << 15));
        let zero = _mm512_setzero_si512();
        let bp = b.map(|b| b.as_ptr());
        for i in (0..n).step_by(16) {
            let (lo, hi) = widen(ld(xp, i));
            let (wl, wh) = widen(ld(wp, i));
            let (bl, bh) = bp.map_or((zero, zero), |bp| widen(ld(bp, i)));
            let half = |v: __m512i, wv: __m512i, bv: __m512i| {
                // |dv| < 2^26, ih and il < 2^31: 32 x 32-bit products; |z| < 2^31.
                let dv = _mm512_sub_epi64(v, mv);
                let (a, bb) = (_mm512_mul_epi32(dv, ihv), _mm512_mul_epi32(dv, ilv));
                let z = _mm512_srai_epi64::<15>(_mm512_add_epi64(a, _mm512_srai_epi64::<31>(_mm512_add_epi64(bb, h45))));
                let y = _mm512_srai_epi64::<16>(_mm512_add_epi64(_mm512_mul_epi32(z, wv), h15));
                _mm512_cvtsepi64_epi32(_mm512_add_epi64(y, bv))
            };
            let v = _mm512_inserti64x4::<1>(_mm512_castsi256_si512(half(lo, wl, bl)), half(hi, wh, bh));
            // SAFETY: 16 values at i of n.
            unsafe { _mm512_storeu_si512(xp.wrapping_add(i) as *mut __m512i, v) };
        }
        true
    }

    /// [`norm512`] for RMSNorm (no mean, no bias) where the outputs cannot saturate (`zb max
    /// |w| <= 2^46`, so `|y| <= 2^30 + 1`), on the `i32` lanes as they are: the even values'
    /// products by `vpmuldq` on the 64-bit lanes' low halves, the odd ones' on the high halves
    /// (no widening, no saturating narrowing), the results' low halves interleaved by one
    /// `vpermt2d`. The same integers as `norm512`'s `i64` code. `None` (nothing written) where
    /// the result is not decided here; `Some(false)` where `norm512` would give up too.
    #[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512dq")]
    fn rms512(x: &mut [i32], w: &[i32], wmax: i64, eps: i128) -> Option<bool> {
        let n = x.len();
        let (xp, wp) = (x.as_mut_ptr(), w.as_ptr());
        // SAFETY (the loads and stores below): 16 values at i, i < n, n a multiple of 16, and
        // `w` as long as `x`.
        let ld = |p: *const i32, i: usize| unsafe { _mm512_loadu_si512(p.wrapping_add(i) as *const __m512i) };
        // max |x| (as u32: |i32::MIN| = 2^31) and the sum of squares, which is only used where
        // every |x| < 2^26 (each square below 2^52, the sum below 2^63 for n <= 2048).
        let mut dm = _mm512_setzero_si512();
        let mut acc = _mm512_setzero_si512();
        for i in (0..n).step_by(16) {
            let v = ld(xp, i);
            dm = _mm512_max_epu32(dm, _mm512_abs_epi32(v));
            let vo = _mm512_srli_epi64::<32>(v);
            acc = _mm512_add_epi64(acc, _mm512_add_epi64(_mm512_mul_epi32(v, v), _mm512_mul_epi32(vo, vo)));
        }
        let dmax = _mm512_reduce_max_epu32(dm) as u64;
        if dmax >= 1 << 26 {
            return Some(false);
        }
        let var = _mm512_reduce_add_epi64(acc) as i128 / n as i128;
        let sd = super::isqrt((var + eps) as u128) as i128;
        let inv = (1i128 << 62) / sd;
        let zb = ((dmax as u128 * inv as u128) >> 46) + 1;
        let (ih, il) = ((inv >> 31) as i64, (inv & ((1 << 31) - 1)) as i64);
        if zb * wmax as u128 > 1 << 62 || ih >= 1 << 31 || zb >= 1 << 31 {
            return Some(false);
        }
        if zb * wmax as u128 > 1 << 46 {
            return None;
        }
        let (ihv, ilv) = (_mm512_set1_epi64(ih), _mm512_set1_epi64(il));
        let (h45, h15) = (_mm512_set1_epi64(1 << 45), _mm512_set1_epi64(1 << 15));
        let inter = _mm512_setr_epi32(0, 16, 2, 18, 4, 20, 6, 22, 8, 24, 10, 26, 12, 28, 14, 30);
        // z and y of the values in the low halves of the lanes of `v`, with the weights in the
        // low halves of `wv`: |x| < 2^26, ih and il < 2^31: 32 x 32-bit products; |z| < 2^31.
        let half = |v: __m512i, wv: __m512i| {
            let (a, bb) = (_mm512_mul_epi32(v, ihv), _mm512_mul_epi32(v, ilv));
            let z = _mm512_srai_epi64::<15>(_mm512_add_epi64(a, _mm512_srai_epi64::<31>(_mm512_add_epi64(bb, h45))));
            _mm512_srai_epi64::<16>(_mm512_add_epi64(_mm512_mul_epi32(z, wv), h15))
        };
        for i in (0..n).step_by(16) {
            let (v, wv) = (ld(xp, i), ld(wp, i));
            let ev = half(v, wv);
            let od = half(_mm512_srli_epi64::<32>(v), _mm512_srli_epi64::<32>(wv));
            // SAFETY: 16 values at i of n.
            unsafe { _mm512_storeu_si512(xp.wrapping_add(i) as *mut __m512i, _mm512_permutex2var_epi32(ev, inter, od)) };
        }
        Some(true)
    }

    /// [`DotRhs::pack`]'s lines by gathers: line `(bl, p)` holds pair `p` of rows `16 bl ..
    /// 16 bl + 16` (zero past `n`, the high half of the last pair zero when `len` is odd).
    ///
    /// # Safety
    /// `r.n`, `r.kp`, `r.blocks` set, `r.hi` and `r.lo` `blocks * kp` lines; `bs` even, `n *
    /// bs < 2^30`, `b` at least `(n - 1) bs + 2 kp` long.
    #[target_feature(enable = "avx512f,avx512bw,avx512vl")]
    pub(super) unsafe fn pack512(r: &mut DotRhs, len: usize, b: &[i16], bs: usize) {
        let (n, kp) = (r.n, r.kp);
        let bp = b.as_ptr() as *const i32;
        let step = _mm512_set1_epi32((BLOCK * bs / 2) as i32);
        let mut idx =
            _mm512_mullo_epi32(_mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15), _mm512_set1_epi32((bs / 2) as i32));
        let low = _mm512_set1_epi16(0xFF);
        let last = if len % 2 == 1 { _mm512_set1_epi32(0xFFFF) } else { _mm512_set1_epi32(-1) };
        for bl in 0..r.blocks {
            let live = (n - bl * BLOCK).min(BLOCK);
            let k: __mmask16 = if live == BLOCK { 0xFFFF } else { ((1u32 << live) - 1) as u16 };
            for p in 0..kp {
                // SAFETY: pair p of the live rows, inside `b` (the caller's bound).
                let mut v = unsafe {
                    _mm512_mask_i32gather_epi32::<4>(_mm512_setzero_si512(), k, _mm512_add_epi32(idx, _mm512_set1_epi32(p as i32)), bp)
                };
                if p + 1 == kp {
                    v = _mm512_and_si512(v, last);
                }
                let at = bl * kp + p;
                // SAFETY: `at` < blocks * kp; a `Line` is 64 bytes, aligned to 64.
                unsafe {
                    _mm512_store_si512(r.hi.as_mut_ptr().wrapping_add(at) as *mut __m512i, _mm512_srai_epi16::<8>(v));
                    _mm512_store_si512(r.lo.as_mut_ptr().wrapping_add(at) as *mut __m512i, _mm512_and_si512(v, low));
                }
            }
            idx = _mm512_add_epi32(idx, step);
        }
    }

    /// See [`super::scale_row`]; `out` as long as `acc`.
    #[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512dq")]
    pub(super) fn scale512(acc: &[i64], inv: u64, out: &mut [i32]) {
        let n = acc.len();
        let (ap, op) = (acc.as_ptr(), out.as_mut_ptr());
        let invv = _mm512_set1_epi64(inv as i64);
        let (il, ih) = (invv, _mm512_srli_epi64::<32>(invv));
        let one = _mm512_set1_epi64(1);
        let half = _mm512_set1_epi64(1 << 61);
        let mut i = 0;
        while i < n {
            let k: __mmask8 = if n - i >= 8 { 0xFF } else { ((1u32 << (n - i)) - 1) as u8 };
            // SAFETY: the mask covers the values at i of n.
            let a = unsafe { _mm512_maskz_loadu_epi64(k, ap.wrapping_add(i)) };
            // The unsigned product (a mod 2^64) inv as hi:lo, from 32-bit halves.
            let ah = _mm512_srli_epi64::<32>(a);
            let p0 = _mm512_mul_epu32(a, il);
            let p1 = _mm512_mul_epu32(ah, il);
            let p2 = _mm512_mul_epu32(a, ih);
            let p3 = _mm512_mul_epu32(ah, ih);
            let mid = _mm512_add_epi64(p1, p2);
            let cmid = _mm512_cmplt_epu64_mask(mid, p1);
            let lo = _mm512_add_epi64(p0, _mm512_slli_epi64::<32>(mid));
            let clo = _mm512_cmplt_epu64_mask(lo, p0);
            let mut hi = _mm512_add_epi64(p3, _mm512_srli_epi64::<32>(mid));
            hi = _mm512_mask_add_epi64(hi, cmid, hi, _mm512_set1_epi64(1 << 32));
            hi = _mm512_mask_add_epi64(hi, clo, hi, one);
            // Two's complement: a negative a is (a mod 2^64) - 2^64.
            hi = _mm512_mask_sub_epi64(hi, _mm512_movepi64_mask(a), hi, invv);
            let lo2 = _mm512_add_epi64(lo, half);
            hi = _mm512_mask_add_epi64(hi, _mm512_cmplt_epu64_mask(lo2, lo), hi, one);
            // |a inv| < 2^106: the quotient by 2^62 fits i64.
            let r = _mm512_or_si512(_mm512_slli_epi64::<2>(hi), _mm512_srli_epi64::<62>(lo2));
            // SAFETY: as the load.
            unsafe { _mm512_mask_cvtsepi64_storeu_epi32(op.wrapping_add(i) as *mut _, k, r) };
            i += 8;
        }
    }

    /// See [`super::gelu_all`].
    #[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512dq")]
    pub(super) fn gelu512(x: &mut [i32], t: &[i32], lo: i32, hi: i32, sh: u32) {
        let n = x.len();
        let p = x.as_mut_ptr();
        let (lov, top) = (_mm512_set1_epi32(lo), _mm512_set1_epi32(hi - 1));
        let (hiv, zero) = (_mm512_set1_epi32(hi), _mm512_setzero_si512());
        let (shv, fm) = (_mm_cvtsi32_si128(sh as i32), _mm512_set1_epi32((1 << sh) - 1));
        let (half, one) = (_mm512_set1_epi32(1 << (sh - 1)), _mm512_set1_epi32(1));
        let tp = t.as_ptr();
        let mut i = 0;
        while i < n {
            let k: __mmask16 = if n - i >= 16 { 0xFFFF } else { ((1u32 << (n - i)) - 1) as u16 };
            // SAFETY: the mask covers the values at i of n.
            let v = unsafe { _mm512_maskz_loadu_epi32(k, p.wrapping_add(i)) };
            // u = clamp(x - lo, 0, hi - lo - 1), without the subtraction wrapping.
            let u = _mm512_sub_epi32(_mm512_min_epi32(_mm512_max_epi32(v, lov), top), lov);
            let idx = _mm512_sra_epi32(u, shv);
            let f = _mm512_and_si512(u, fm);
            // SAFETY: idx <= (hi - lo - 1) >> sh, so idx and idx + 1 index the table.
            let (a, b) = unsafe { (_mm512_i32gather_epi32::<4>(idx, tp), _mm512_i32gather_epi32::<4>(_mm512_add_epi32(idx, one), tp)) };
            let g = _mm512_add_epi32(
                a,
                _mm512_srav_epi32(_mm512_add_epi32(_mm512_mullo_epi32(_mm512_sub_epi32(b, a), f), half), _mm512_set1_epi32(sh as i32)),
            );
            let g = _mm512_mask_mov_epi32(g, _mm512_cmplt_epi32_mask(v, lov), zero);
            let g = _mm512_mask_mov_epi32(g, _mm512_cmpge_epi32_mask(v, hiv), v);
            // SAFETY: as the load.
            unsafe { _mm512_mask_storeu_epi32(p.wrapping_add(i), k, g) };
            i += 16;
        }
    }

    /// `floor((v + 2^(s-1)) / 2^s)` (`v` for `s = 0`) in `i32`: `(v >> s) + ((v >> (s - 1)) & 1)`
    /// with `sv = s`, `s1 = max(s - 1, 0)`, `one = (s > 0)` in every lane.
    #[inline]
    #[target_feature(enable = "avx512f")]
    fn round_shift(v: __m512i, sv: __m128i, s1: __m128i, one: __m512i) -> __m512i {
        _mm512_add_epi32(_mm512_sra_epi32(v, sv), _mm512_and_si512(_mm512_sra_epi32(v, s1), one))
    }

    /// `floor((dot m + half) / 2^sh)` clamped to `±2^40` (which changes nothing once a bias
    /// below `2^31` is added and the sum saturated to `i32`), exactly, for `|dot| < 2^40`,
    /// `0 <= m < 2^31`, `sh` in `1..=62`, `half = 2^(sh - 1)`: the product as a 128-bit `hi:lo`
    /// from `dot = a1 2^32 + a0` (`a1 m` signed, below `2^40`; `a0 m` unsigned, below `2^63`).
    #[inline]
    #[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512dq")]
    fn wide_round_shift(dv: __m512i, mv: __m512i, half: __m512i, shv: __m512i) -> __m512i {
        let hm = _mm512_mul_epi32(_mm512_srai_epi64::<32>(dv), mv);
        let lm = _mm512_mul_epu32(dv, mv);
        let lo = _mm512_add_epi64(_mm512_slli_epi64::<32>(hm), lm);
        let one = _mm512_set1_epi64(1);
        let hi = _mm512_mask_add_epi64(_mm512_srai_epi64::<32>(hm), _mm512_cmplt_epu64_mask(lo, lm), _mm512_srai_epi64::<32>(hm), one);
        let lo2 = _mm512_add_epi64(lo, half);
        let hi = _mm512_mask_add_epi64(hi, _mm512_cmplt_epu64_mask(lo2, lo), hi, one);
        let r = _mm512_or_si512(_mm512_srlv_epi64(lo2, shv), _mm512_sllv_epi64(hi, _mm512_sub_epi64(_mm512_set1_epi64(64), shv)));
        let rhi = _mm512_srav_epi64(hi, shv);
        let lim = _mm512_set1_epi64(1 << 40);
        let nlim = _mm512_sub_epi64(_mm512_setzero_si512(), lim);
        let clamped = _mm512_min_epi64(_mm512_max_epi64(r, nlim), lim);
        // Where the shifted value does not fit i64, its sign is rhi's.
        let ovf = _mm512_cmpneq_epi64_mask(rhi, _mm512_srai_epi64::<63>(r));
        let sgn = _mm512_mask_mov_epi64(lim, _mm512_movepi64_mask(rhi), nlim);
        _mm512_mask_mov_epi64(clamped, ovf, sgn)
    }

    /// The scores of [`softmax512`]: `sat(rshift(dot m, sh) + bias)` of 64 keys (`0 <= m <
    /// 2^31`), as 8 vectors of 8 `i32`; `None` where some key is off the path (`|dot| >= 2^40`
    /// or a shift outside `1..=62`).
    /// (A macro: as a function it was not inlined, and its vectors went through memory.)
    macro_rules! scores512 {
        ($dots:expr, $sh:expr, $bias:expr, $m:expr) => {{
            let (dots, sh, bias, m): (&[i64; 64], &[i32; 64], &[i32; 64], i64) = ($dots, $sh, $bias, $m);
            let one = _mm512_set1_epi64(1);
            let mv = _mm512_set1_epi64(m);
            let mut s8 = [_mm256_setzero_si256(); 8];
            let mut bad = 0u8;
            for k in 0..8 {
                // SAFETY: 8 values at 8 k of 64.
                let (dv, shv, bv) = unsafe {
                    (
                        _mm512_loadu_si512(dots.as_ptr().wrapping_add(8 * k) as *const __m512i),
                        _mm512_cvtepi32_epi64(_mm256_loadu_si256(sh.as_ptr().wrapping_add(8 * k) as *const __m256i)),
                        _mm512_cvtepi32_epi64(_mm256_loadu_si256(bias.as_ptr().wrapping_add(8 * k) as *const __m256i)),
                    )
                };
                let adv = _mm512_abs_epi64(dv);
                bad |= _mm512_cmpge_epu64_mask(adv, _mm512_set1_epi64(1 << 40))
                    | _mm512_cmplt_epi64_mask(shv, one)
                    | _mm512_cmpgt_epi64_mask(shv, _mm512_set1_epi64(62));
                let half = _mm512_sllv_epi64(one, _mm512_sub_epi64(shv, one));
                let v = if _mm512_cmpge_epu64_mask(adv, _mm512_set1_epi64(1 << 31)) == 0 {
                    // |dot| < 2^31 and 0 <= m < 2^31: the signed product of the low halves is
                    // exact, below 2^62, and with the half (<= 2^61) below 2^63.
                    let p = _mm512_mul_epi32(dv, mv);
                    _mm512_srav_epi64(_mm512_add_epi64(p, half), shv)
                } else if _mm512_cmpge_epu64_mask(adv, _mm512_set1_epi64(3 << 30)) == 0 {
                    // |dot| < 3 2^30 and m < 2^31: |product| < 3 2^61, and with the half (<= 2^61)
                    // it stays below 2^63.
                    let p = _mm512_mullo_epi64(dv, mv);
                    _mm512_srav_epi64(_mm512_add_epi64(p, half), shv)
                } else {
                    wide_round_shift(dv, mv, half, shv)
                };
                s8[k] = _mm512_cvtsepi64_epi32(_mm512_add_epi64(v, bv));
            }
            if bad != 0 { None } else { Some(s8) }
        }};
    }

    /// See [`super::scores_row`].
    #[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512dq")]
    pub(super) fn scores_row512(dots: &[i64; 64], sh: &[i32; 64], m: i64, out: &mut [i32; 64]) -> bool {
        let Some(s8) = scores512!(dots, sh, &[0; 64], m) else {
            return false;
        };
        for (k, v) in s8.iter().enumerate() {
            // SAFETY: 8 values at 8 k of 64.
            unsafe { _mm256_storeu_si256(out.as_mut_ptr().wrapping_add(8 * k) as *mut __m256i, *v) };
        }
        true
    }

    /// See [`super::softmax_row`]. The scores in 64-bit lanes (`vpmuldq` where every `|dot| <
    /// 2^31`, the 64-bit product below `3 2^30`, the 128-bit one above), saturated to `i32`;
    /// the weights in 16 `i32` lanes: `d = max - s` (below `2^32`, unsigned) clamped to `2^21`
    /// (from there on `n >= 46` and the weight is 0 either way), `y = (d 94548 + 2^15) >> 16`
    /// as `d + 29012 dh + ((29012 dl + 2^15) >> 16)` with `d = 2^16 dh + dl` (`94548 = 2^16 +
    /// 29012`; every term below `2^31`), the two neighbours by two `vpgatherdd`, the
    /// interpolation in `i32` (`|b - a| r < 2^30`), and `(v + 2^(sh-1)) >> sh` (`sh = 10 + n`)
    /// as an unsigned shift, which gives 0 for `sh >= 32` as `exp_neg` does (`v <= 2^30`).
    #[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512dq")]
    pub(super) fn softmax512(dots: &[i64; 64], sh: &[i32; 64], bias: &[i32; 64], m: i64, t: &[i32; 257], e: &mut [i64; 64]) -> bool {
        let Some(s8) = scores512!(dots, sh, bias, m) else {
            return false;
        };
        let s: [__m512i; 4] = std::array::from_fn(|q| _mm512_inserti64x4::<1>(_mm512_castsi256_si512(s8[2 * q]), s8[2 * q + 1]));
        let mx = _mm512_set1_epi32(_mm512_reduce_max_epi32(_mm512_max_epi32(_mm512_max_epi32(s[0], s[1]), _mm512_max_epi32(s[2], s[3]))));
        let (lim, lo16, lo8) = (_mm512_set1_epi32(1 << 21), _mm512_set1_epi32(0xFFFF), _mm512_set1_epi32(0xFF));
        let (c29, h15, h7) = (_mm512_set1_epi32(29012), _mm512_set1_epi32(1 << 15), _mm512_set1_epi32(128));
        let (one32, ten) = (_mm512_set1_epi32(1), _mm512_set1_epi32(10));
        for (q, sq) in s.iter().enumerate() {
            // max - s as u32 (exact: 0 <= max - s < 2^32), clamped.
            let d = _mm512_min_epu32(_mm512_sub_epi32(mx, *sq), lim);
            let (dl, dh) = (_mm512_and_si512(d, lo16), _mm512_srli_epi32::<16>(d));
            let y = _mm512_add_epi32(
                _mm512_add_epi32(d, _mm512_mullo_epi32(dh, c29)),
                _mm512_srli_epi32::<16>(_mm512_add_epi32(_mm512_mullo_epi32(dl, c29), h15)),
            );
            let n = _mm512_srli_epi32::<16>(y);
            let f = _mm512_and_si512(y, lo16);
            let (i, r) = (_mm512_srli_epi32::<8>(f), _mm512_and_si512(f, lo8));
            // SAFETY: i <= 255: entries i and i + 1 are inside the 257.
            let (a, b) =
                unsafe { (_mm512_i32gather_epi32::<4>(i, t.as_ptr()), _mm512_i32gather_epi32::<4>(i, t.as_ptr().wrapping_add(1))) };
            let v = _mm512_add_epi32(a, _mm512_srai_epi32::<8>(_mm512_add_epi32(_mm512_mullo_epi32(_mm512_sub_epi32(b, a), r), h7)));
            let shn = _mm512_add_epi32(n, ten);
            let out = _mm512_srlv_epi32(_mm512_add_epi32(v, _mm512_sllv_epi32(one32, _mm512_sub_epi32(shn, one32))), shn);
            let (lo, hi) = widen(out);
            // SAFETY: 16 values at 16 q of 64.
            unsafe {
                _mm512_storeu_si512(e.as_mut_ptr().wrapping_add(16 * q) as *mut __m512i, lo);
                _mm512_storeu_si512(e.as_mut_ptr().wrapping_add(16 * q + 8) as *mut __m512i, hi);
            }
        }
        true
    }

    #[target_feature(enable = "avx512f,avx512ifma")]
    pub(super) fn wsum52<const NC: usize>(e: &[i64; 64], vu: &[u64], z: i64, acc: &mut [i64]) -> bool {
        let dh = 8 * NC;
        let vu = &vu[..64 * dh];
        // Two sets of sums (even and odd keys), so that the multiply-adds' latency overlaps;
        // each is below 2^57, their sum below 2^58.
        let mut a = [[_mm512_setzero_si512(); NC]; 2];
        for j in (0..64).step_by(2) {
            for u in 0..2 {
                let ej = _mm512_set1_epi64(e[j + u]);
                let row = &vu[(j + u) * dh..(j + u + 1) * dh];
                for c in 0..NC {
                    // SAFETY: 8 values at 8 c of the row.
                    let v = unsafe { _mm512_loadu_si512(row.as_ptr().wrapping_add(8 * c) as *const __m512i) };
                    a[u][c] = _mm512_madd52lo_epu64(a[u][c], ej, v);
                }
            }
        }
        let off = _mm512_set1_epi64(z << 31);
        for c in 0..NC {
            let sum = _mm512_add_epi64(a[0][c], a[1][c]);
            // SAFETY: 8 values at 8 c of `acc` (at least dh long).
            unsafe { _mm512_storeu_si512(acc.as_mut_ptr().wrapping_add(8 * c) as *mut __m512i, _mm512_sub_epi64(sum, off)) };
        }
        true
    }

    /// [`wsum52`] for two rows of weights: each load of values feeds both rows' sums.
    #[target_feature(enable = "avx512f,avx512ifma")]
    pub(super) fn wsum52x2<const NC: usize>(e: &[[i64; 64]; 2], vu: &[u64], z: [i64; 2], acc: [&mut [i64]; 2]) {
        let dh = 8 * NC;
        let vu = &vu[..64 * dh];
        let mut a = [[_mm512_setzero_si512(); NC]; 2];
        for j in 0..64 {
            let (e0, e1) = (_mm512_set1_epi64(e[0][j]), _mm512_set1_epi64(e[1][j]));
            let row = vu[j * dh..(j + 1) * dh].as_ptr();
            for c in 0..NC {
                // SAFETY: 8 values at 8 c of the row.
                let v = unsafe { _mm512_loadu_si512(row.wrapping_add(8 * c) as *const __m512i) };
                a[0][c] = _mm512_madd52lo_epu64(a[0][c], e0, v);
                a[1][c] = _mm512_madd52lo_epu64(a[1][c], e1, v);
            }
        }
        for (u, acc) in acc.into_iter().enumerate() {
            let off = _mm512_set1_epi64(z[u] << 31);
            let acc = &mut acc[..dh];
            for c in 0..NC {
                // SAFETY: 8 values at 8 c of `acc` (dh long).
                unsafe { _mm512_storeu_si512(acc.as_mut_ptr().wrapping_add(8 * c) as *mut __m512i, _mm512_sub_epi64(a[u][c], off)) };
            }
        }
    }

    #[target_feature(enable = "avx2")]
    pub(super) fn dense256(d: &Dense, n: usize, xp: &[i32], shifts: &[i32], y: &mut [i32]) {
        for b in 0..d.blocks {
            let mut t = 0;
            while t < n {
                let r = (n - t).min(TR);
                match r {
                    1 => tile256::<1>(d, b, t, xp, shifts, y),
                    2 => tile256::<2>(d, b, t, xp, shifts, y),
                    3 => tile256::<3>(d, b, t, xp, shifts, y),
                    _ => tile256::<4>(d, b, t, xp, shifts, y),
                }
                t += r;
            }
        }
    }

    #[target_feature(enable = "avx2")]
    fn tile256<const R: usize>(d: &Dense, b: usize, t0: usize, xp: &[i32], shifts: &[i32], y: &mut [i32]) {
        let kp = d.kp;
        let w = &d.w[b * kp..(b + 1) * kp];
        let x: [&[i32]; R] = std::array::from_fn(|r| &xp[(t0 + r) * kp..(t0 + r + 1) * kp]);
        let mut acc = [[_mm256_setzero_si256(); 2]; R];
        for p in 0..kp {
            let (w0, w1) = (ld256(&w[p], 0), ld256(&w[p], 1));
            for r in 0..R {
                let xv = _mm256_set1_epi32(x[r][p]);
                acc[r][0] = _mm256_add_epi32(acc[r][0], _mm256_madd_epi16(xv, w0));
                acc[r][1] = _mm256_add_epi32(acc[r][1], _mm256_madd_epi16(xv, w1));
            }
        }
        for r in 0..R {
            let mut a = [0i32; BLOCK];
            // SAFETY: 16 values.
            unsafe {
                _mm256_storeu_si256(a.as_mut_ptr() as *mut __m256i, acc[r][0]);
                _mm256_storeu_si256(a.as_mut_ptr().wrapping_add(8) as *mut __m256i, acc[r][1]);
            }
            d.store(&a, b, t0 + r, shifts[t0 + r], y);
        }
    }

    #[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512dq,avx512vnni")]
    pub(super) fn dots512(r: &DotRhs, a: &[i32], out: &mut [i64]) {
        dots512r::<1>(r, [a], [out]);
    }

    /// [`DotRhs::dots`] of `R` left rows: each loaded line feeds every row.
    #[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512dq,avx512vnni")]
    pub(super) fn dots512r<const R: usize>(r: &DotRhs, a: [&[i32]; R], mut out: [&mut [i64]; R]) {
        let mut b = 0;
        while b < r.blocks {
            let c = (r.blocks - b).min(4);
            match c {
                1 => dots512_tile::<R, 1>(r, b, &a, &mut out),
                2 => dots512_tile::<R, 2>(r, b, &a, &mut out),
                3 => dots512_tile::<R, 3>(r, b, &a, &mut out),
                _ => dots512_tile::<R, 4>(r, b, &a, &mut out),
            }
            b += c;
        }
    }

    #[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512dq,avx512vnni")]
    fn dots512_tile<const R: usize, const C: usize>(r: &DotRhs, b0: usize, a: &[&[i32]; R], out: &mut [&mut [i64]; R]) {
        let kp = r.kp;
        // The blocks' lines, bounds checked once here.
        let (hi, lo) = (r.hi[b0 * kp..(b0 + C) * kp].as_ptr(), r.lo[b0 * kp..(b0 + C) * kp].as_ptr());
        let a: [&[i32]; R] = std::array::from_fn(|u| &a[u][..kp]);
        let mut tot = [[[0i64; BLOCK]; C]; R];
        // Blocks whose dots are written straight into `out` (one chunk of inputs, 16 live rows).
        let direct: [bool; C] = std::array::from_fn(|c| kp <= CHUNK_PAIRS && r.n >= (b0 + c + 1) * BLOCK);
        let mut p0 = 0;
        while p0 < kp {
            let p1 = (p0 + CHUNK_PAIRS).min(kp);
            let mut h = [[_mm512_setzero_si512(); C]; R];
            let mut l = [[_mm512_setzero_si512(); C]; R];
            for p in p0..p1 {
                let av: [__m512i; R] = std::array::from_fn(|u| _mm512_set1_epi32(a[u][p]));
                for c in 0..C {
                    // SAFETY: line p of block c, inside the checked ranges; aligned to 64.
                    let (hv, lv) = unsafe {
                        (
                            _mm512_load_si512(hi.wrapping_add(c * kp + p) as *const __m512i),
                            _mm512_load_si512(lo.wrapping_add(c * kp + p) as *const __m512i),
                        )
                    };
                    for u in 0..R {
                        h[u][c] = _mm512_dpwssd_epi32(h[u][c], av[u], hv);
                        l[u][c] = _mm512_dpwssd_epi32(l[u][c], av[u], lv);
                    }
                }
            }
            for u in 0..R {
                for c in 0..C {
                    let (hlo, hhi) = widen(h[u][c]);
                    let (llo, lhi) = widen(l[u][c]);
                    let (v0, v1) = (_mm512_add_epi64(_mm512_slli_epi64::<8>(hlo), llo), _mm512_add_epi64(_mm512_slli_epi64::<8>(hhi), lhi));
                    let base = (b0 + c) * BLOCK;
                    if direct[c] {
                        // One chunk, a whole block: the sums are the dots.
                        let o: &mut [i64; BLOCK] = (&mut out[u][base..base + BLOCK]).try_into().unwrap();
                        // SAFETY: 16 values.
                        unsafe {
                            _mm512_storeu_si512(o.as_mut_ptr() as *mut __m512i, v0);
                            _mm512_storeu_si512(o.as_mut_ptr().wrapping_add(8) as *mut __m512i, v1);
                        }
                        continue;
                    }
                    let t = &mut tot[u][c];
                    // SAFETY: 16 values.
                    unsafe {
                        let (t0, t1) = (
                            _mm512_loadu_si512(t.as_ptr() as *const __m512i),
                            _mm512_loadu_si512(t.as_ptr().wrapping_add(8) as *const __m512i),
                        );
                        _mm512_storeu_si512(t.as_mut_ptr() as *mut __m512i, _mm512_add_epi64(t0, v0));
                        _mm512_storeu_si512(t.as_mut_ptr().wrapping_add(8) as *mut __m512i, _mm512_add_epi64(t1, v1));
                    }
                }
            }
            p0 = p1;
        }
        for u in 0..R {
            for c in 0..C {
                if direct[c] {
                    continue;
                }
                let base = (b0 + c) * BLOCK;
                let live = (r.n - base).min(BLOCK);
                out[u][base..base + live].copy_from_slice(&tot[u][c][..live]);
            }
        }
    }

    #[target_feature(enable = "avx2")]
    pub(super) fn dots256(r: &DotRhs, a: &[i32], out: &mut [i64]) {
        let kp = r.kp;
        let a = &a[..kp];
        for b in 0..r.blocks {
            let (hi, lo) = (&r.hi[b * kp..(b + 1) * kp], &r.lo[b * kp..(b + 1) * kp]);
            let mut tot = [0i64; BLOCK];
            let mut p0 = 0;
            while p0 < kp {
                let p1 = (p0 + CHUNK_PAIRS).min(kp);
                let mut acc = [_mm256_setzero_si256(); 4];
                for p in p0..p1 {
                    let av = _mm256_set1_epi32(a[p]);
                    acc[0] = _mm256_add_epi32(acc[0], _mm256_madd_epi16(av, ld256(&hi[p], 0)));
                    acc[1] = _mm256_add_epi32(acc[1], _mm256_madd_epi16(av, ld256(&hi[p], 1)));
                    acc[2] = _mm256_add_epi32(acc[2], _mm256_madd_epi16(av, ld256(&lo[p], 0)));
                    acc[3] = _mm256_add_epi32(acc[3], _mm256_madd_epi16(av, ld256(&lo[p], 1)));
                }
                let mut v = [0i32; 4 * 8];
                for k in 0..4 {
                    // SAFETY: 8 values at 8 k.
                    unsafe { _mm256_storeu_si256(v.as_mut_ptr().wrapping_add(8 * k) as *mut __m256i, acc[k]) };
                }
                for k in 0..BLOCK {
                    tot[k] += ((v[k] as i64) << 8) + v[BLOCK + k] as i64;
                }
                p0 = p1;
            }
            let base = b * BLOCK;
            let live = (r.n - base).min(BLOCK);
            out[base..base + live].copy_from_slice(&tot[..live]);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    struct Rng(u64);
    impl Rng {
        fn next(&mut self) -> u64 {
            self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
            let mut z = self.0;
            z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
            z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
            z ^ (z >> 31)
        }
        fn range(&mut self, lo: i64, hi: i64) -> i64 {
            lo + (self.next() % (hi - lo + 1) as u64) as i64
        }
    }

    fn paths() -> Vec<Simd> {
        [Simd::Scalar, Simd::Avx2, Simd::Avx512].into_iter().filter(|&p| p <= best()).collect()
    }

    /// Dense products at the overflow bounds (every input at `±act_max`, every weight `±127`)
    /// and at random: every path gives the `i128` formula's integers.
    #[test]
    fn dense_paths_agree_with_the_exact_formula() {
        let mut g = Rng(7);
        for &(rows, cols, n) in &[(37, 511, 5), (16, 512, 64), (768, 256, 9), (4, 64, 8), (50, 352, 3), (1, 1, 1)] {
            let act_max = ((i32::MAX as i64) / (127 * cols as i64)).min(32767) as i32;
            for (extreme, narrow) in [(true, false), (false, false), (true, true), (false, true)] {
                let w: Vec<i16> = (0..rows * cols)
                    .map(|_| if extreme { if g.next().is_multiple_of(2) { 127 } else { -127 } } else { g.range(-127, 127) as i16 })
                    .collect();
                let mult: Vec<(i64, i32)> = (0..rows)
                    .map(|r| {
                        // Narrow: every shift in 1..=62 (the vector requantisation); wide: some not.
                        let e = if narrow { g.range(20, 50) } else { g.range(-2, 70) } as i32;
                        if r % 11 == 5 { (0, 0) } else { (g.range(1 << 30, (1 << 31) - 1), e) }
                    })
                    .collect();
                let bias: Vec<i32> = (0..rows).map(|_| g.range(i32::MIN as i64, i32::MAX as i64) as i32 / 4).collect();
                let d = Dense::new(rows, cols, &w, &mult, &bias);
                let st = 2 * d.pairs();
                let mut xq = vec![0i16; n * st];
                for t in 0..n {
                    for c in 0..cols {
                        xq[t * st + c] = if extreme {
                            // All inputs of one sign against weights of one sign: the bound.
                            act_max as i16 * if t % 2 == 0 { 1 } else { -1 }
                        } else {
                            g.range(-act_max as i64, act_max as i64) as i16
                        };
                    }
                }
                let shifts: Vec<i32> = (0..n).map(|_| g.range(0, if narrow { 19 } else { 40 }) as i32).collect();
                let mut want = vec![0i32; n * rows];
                for t in 0..n {
                    for r in 0..rows {
                        let acc: i64 = (0..cols).map(|c| w[r * cols + c] as i64 * xq[t * st + c] as i64).sum();
                        assert!(acc.unsigned_abs() < 1 << 31);
                        let (m, e) = mult[r];
                        want[t * rows + r] = sat(rshift(acc as i128 * m as i128, e - shifts[t]) + bias[r] as i128);
                    }
                }
                for p in paths() {
                    let mut y = vec![0i32; n * rows];
                    let xp: Vec<i32> = xq.chunks(2).map(|c| pair(c[0], c[1])).collect();
                    d.run(n, &xp, &shifts, &mut y, p);
                    assert_eq!(y, want, "{p:?} {rows}x{cols} n {n} extreme {extreme} narrow {narrow}");
                }
            }
        }
    }

    /// The `u8` form ([`Dense::run_u8`], `vpdpbusd` with the zero-point correction) at the
    /// bounds (every input `±127` against weights `±127`, and the zero point's worst case, all
    /// inputs `-127`, i.e. `u8` 1) and at random: every path gives the `i128` formula's
    /// integers, and the same as [`Dense::run`] of the same inputs as pairs.
    #[test]
    fn dense_u8_paths_agree_with_the_exact_formula() {
        let mut g = Rng(8);
        for &(rows, cols, n) in
            &[(37, 511, 5), (16, 512, 64), (768, 256, 9), (4, 64, 8), (50, 352, 3), (1, 1, 1), (33, 6, 7), (20, 4097, 2)]
        {
            for (extreme, narrow) in [(true, false), (false, false), (true, true), (false, true)] {
                let w: Vec<i16> = (0..rows * cols)
                    .map(|_| if extreme { if g.next().is_multiple_of(2) { 127 } else { -127 } } else { g.range(-127, 127) as i16 })
                    .collect();
                let mult: Vec<(i64, i32)> = (0..rows)
                    .map(|r| {
                        let e = if narrow { g.range(20, 50) } else { g.range(-2, 70) } as i32;
                        if r % 11 == 5 { (0, 0) } else { (g.range(1 << 30, (1 << 31) - 1), e) }
                    })
                    .collect();
                let bias: Vec<i32> = (0..rows).map(|_| g.range(i32::MIN as i64, i32::MAX as i64) as i32 / 4).collect();
                let d = Dense::new(rows, cols, &w, &mult, &bias).with_u8();
                assert!(d.has_u8());
                let (kp, kq) = (d.pairs(), d.quads());
                let mut q = vec![0i32; n * cols];
                for t in 0..n {
                    for c in 0..cols {
                        q[t * cols + c] =
                            if extreme { [127, -127, if c % 2 == 0 { 127 } else { -127 }][t % 3] } else { g.range(-127, 127) as i32 };
                    }
                }
                let shifts: Vec<i32> = (0..n).map(|_| g.range(0, if narrow { 19 } else { 40 }) as i32).collect();
                let mut want = vec![0i32; n * rows];
                for t in 0..n {
                    for r in 0..rows {
                        let acc: i64 = (0..cols).map(|c| w[r * cols + c] as i64 * q[t * cols + c] as i64).sum();
                        let (m, e) = mult[r];
                        want[t * rows + r] = sat(rshift(acc as i128 * m as i128, e - shifts[t]) + bias[r] as i128);
                    }
                }
                let mut xp = vec![0i32; n * kp];
                let mut xq = vec![0i32; n * kq];
                for t in 0..n {
                    for c in 0..cols {
                        let v = q[t * cols + c];
                        xp[t * kp + c / 2] |= ((v as i16 as u16 as u32) << (16 * (c % 2))) as i32;
                        xq[t * kq + c / 4] |= (((v + 128) as u32) << (8 * (c % 4))) as i32;
                    }
                    // Padding bytes: any value (their weights are 0).
                    for c in cols..4 * kq {
                        xq[t * kq + c / 4] |= ((g.range(0, 255) as u32) << (8 * (c % 4))) as i32;
                    }
                }
                for p in paths() {
                    let mut y = vec![0i32; n * rows];
                    d.run_u8(n, &xq, &shifts, &mut y, p);
                    assert_eq!(y, want, "u8 {p:?} {rows}x{cols} n {n} extreme {extreme} narrow {narrow}");
                    let mut y = vec![0i32; n * rows];
                    d.run(n, &xp, &shifts, &mut y, p);
                    assert_eq!(y, want, "pairs {p:?} {rows}x{cols} n {n} extreme {extreme} narrow {narrow}");
                }
            }
        }
    }

    /// AMX (where this machine has it) against the `vpdpbusd` tiles and the portable loop, on
    /// the `u8` form: token counts around whole groups of 16 (in place, the padded copy of the
    /// last tokens, a last group under 4 left to `vpdpbusd`), widths a multiple of 64 inputs
    /// (read in place) or not (padded copies, any padding byte), odd and partial blocks, inputs
    /// and weights at the overflow bound and at random.
    #[test]
    #[cfg(target_arch = "x86_64")]
    fn dense_amx_agrees_with_the_other_paths() {
        // Every host checks the path `run_u8` picks for AVX-512 (AMX, `vpdpbusd` or the
        // portable loop, whichever this machine has) against the portable loop; the kernels
        // themselves are called where the machine has them.
        let (vnni, amx) = (best() >= Simd::Avx512, amx_ready());
        let mut g = Rng(12);
        for &(rows, cols, n) in &[
            (16, 64, 16),
            (48, 256, 64),
            (80, 256, 70),
            (17, 100, 33),
            (33, 1000, 47),
            (64, 1028, 19),
            (4096, 64, 8),
            (40, 96, 64),
            (24, 512, 31),
            (16, 64, 4),
            (16, 64, 17),
            (50, 320, 18),
        ] {
            for extreme in [true, false] {
                let w: Vec<i16> = (0..rows * cols)
                    .map(|_| if extreme { if g.next().is_multiple_of(2) { 127 } else { -127 } } else { g.range(-127, 127) as i16 })
                    .collect();
                let mult: Vec<(i64, i32)> = (0..rows)
                    .map(|r| if r % 11 == 5 { (0, 0) } else { (g.range(1 << 30, (1 << 31) - 1), g.range(-2, 70) as i32) })
                    .collect();
                let bias: Vec<i32> = (0..rows).map(|_| g.range(i32::MIN as i64, i32::MAX as i64) as i32 / 4).collect();
                let d = Dense::new(rows, cols, &w, &mult, &bias).with_u8();
                let kq = d.quads();
                let mut xq = vec![0i32; n * kq];
                for t in 0..n {
                    for c in 0..4 * kq {
                        let b = if c >= cols {
                            g.range(0, 255) as u32
                        } else if extreme {
                            [255, 1, if c % 2 == 0 { 255 } else { 1 }][t % 3]
                        } else {
                            g.range(1, 255) as u32
                        };
                        xq[t * kq + c / 4] |= (b << (8 * (c % 4))) as i32;
                    }
                }
                let shifts: Vec<i32> = (0..n).map(|_| g.range(0, 40) as i32).collect();
                let mut want = vec![0i32; n * rows];
                d.run_u8(n, &xq, &shifts, &mut want, Simd::Scalar);
                let mut picked = vec![0i32; n * rows];
                d.run_u8(n, &xq, &shifts, &mut picked, Simd::Avx512);
                assert_eq!(picked, want, "dispatch {rows}x{cols} n {n} extreme {extreme}");
                if vnni {
                    let mut tiles = vec![0i32; n * rows];
                    // SAFETY: AVX-512 VNNI checked by `best`.
                    unsafe { x86::dense512u8(&d, n, &xq, &shifts, &mut tiles) };
                    assert_eq!(tiles, want, "vpdpbusd {rows}x{cols} n {n} extreme {extreme}");
                }
                if amx {
                    let mut out = vec![0i32; n * rows];
                    // SAFETY: AVX-512 VNNI and AMX checked by `amx_ready`.
                    unsafe { x86::dense_amx(&d, n, &xq, &shifts, &mut out) };
                    assert_eq!(out, want, "AMX {rows}x{cols} n {n} extreme {extreme}");
                }
            }
        }
    }

    /// The saturation-free epilogue (every token's shift at most [`Dense::sat_free`]'s bound):
    /// tiles whose shifts are all at the bound (with the inputs that reach it: every input at
    /// `±xmax` against weights of one sign), below it, and one token past it (the tile takes
    /// the saturating code), on both forms; every path gives the `i128` formula's integers, and
    /// the outputs at the bound come near `i32`'s limits without passing them.
    #[test]
    fn dense_sat_free_epilogue_is_exact() {
        let mut g = Rng(10);
        for &(rows, cols, n) in &[(64, 256, 16), (37, 511, 9), (48, 352, 5), (16, 64, 4)] {
            for extreme in [true, false] {
                let w: Vec<i16> = (0..rows * cols)
                    .map(|i| if extreme { if (i / cols) % 2 == 0 { 127 } else { -127 } } else { g.range(-127, 127) as i16 })
                    .collect();
                let mult: Vec<(i64, i32)> = (0..rows)
                    .map(|r| if r % 13 == 7 { (0, 0) } else { (g.range(1 << 30, (1 << 31) - 1), g.range(40, 46) as i32) })
                    .collect();
                let bias: Vec<i32> = (0..rows).map(|_| g.range(-(1 << 20), 1 << 20) as i32).collect();
                for u8form in [false, true] {
                    let d = Dense::new(rows, cols, &w, &mult, &bias);
                    let d = if u8form { d.with_u8() } else { d };
                    let (sf, xmax) = if u8form { (d.s_free8, 127) } else { (d.s_free, 32767) };
                    assert!(sf >= 1, "{rows}x{cols}: s_free {sf}");
                    for case in 0..3 {
                        let shifts: Vec<i32> =
                            (0..n).map(|t| if case == 2 && t == n / 2 { sf + 1 } else { sf - (case * t as i32) % 3 }).collect();
                        let q: Vec<i32> = (0..n * cols)
                            .map(|i| {
                                if extreme {
                                    if (i / cols) % 2 == 0 { xmax } else { -xmax }
                                } else {
                                    g.range(-xmax as i64, xmax as i64) as i32
                                }
                            })
                            .collect();
                        let mut want = vec![0i32; n * rows];
                        let mut big = 0i64;
                        for t in 0..n {
                            for r in 0..rows {
                                let acc: i64 = (0..cols).map(|c| w[r * cols + c] as i64 * q[t * cols + c] as i64).sum();
                                let (m, e) = mult[r];
                                let v = rshift(acc as i128 * m as i128, e - shifts[t]) + bias[r] as i128;
                                if shifts[t] <= sf {
                                    assert!(v >= i32::MIN as i128 && v <= i32::MAX as i128, "saturates at s {}", shifts[t]);
                                }
                                big = big.max(v.unsigned_abs().min(u64::MAX as u128) as i64);
                                want[t * rows + r] = sat(v);
                            }
                        }
                        if extreme && case == 0 {
                            assert!(big > 1 << 29, "the bound is not approached: {big}");
                        }
                        let (kp, kq) = (d.pairs(), d.quads());
                        let mut xp = vec![0i32; n * kp];
                        let mut xq = vec![0x8080_8080u32 as i32; n * kq];
                        for t in 0..n {
                            for c in 0..cols {
                                let v = q[t * cols + c];
                                xp[t * kp + c / 2] |= ((v as i16 as u16 as u32) << (16 * (c % 2))) as i32;
                                let sh = 8 * (c % 4);
                                xq[t * kq + c / 4] = ((xq[t * kq + c / 4] as u32 & !(0xFF << sh)) | (((v + 128) as u32) << sh)) as i32;
                            }
                        }
                        for p in paths() {
                            let mut y = vec![0i32; n * rows];
                            if u8form {
                                d.run_u8(n, &xq, &shifts, &mut y, p);
                            } else {
                                d.run(n, &xp, &shifts, &mut y, p);
                            }
                            assert_eq!(y, want, "{p:?} {rows}x{cols} u8 {u8form} extreme {extreme} case {case}");
                        }
                    }
                }
            }
        }
    }

    /// `quantise_quads` gives [`quantise_row`]'s shift and values (as bytes `q + 128`, the
    /// padding 128) on every path, for every tail length.
    #[test]
    fn quantise_quads_paths_agree() {
        let mut g = Rng(9);
        for cols in [1, 2, 3, 4, 5, 15, 16, 17, 31, 63, 64, 65, 256, 352, 511] {
            for max in [1, 2, 100, 127] {
                for kind in 0..4 {
                    let n = 3;
                    let x: Vec<i32> = (0..n * cols)
                        .map(|i| match kind {
                            0 => g.range(i32::MIN as i64, i32::MAX as i64) as i32,
                            1 => g.range(-300, 300) as i32,
                            2 => [i32::MIN, i32::MAX, 0, -1][i % 4],
                            _ => g.range(-(1 << 20), 1 << 20) as i32,
                        })
                        .collect();
                    let kq = cols.div_ceil(4);
                    let mut want = vec![0x8080_8080u32 as i32; n * kq];
                    let mut want_s = vec![0i32; n];
                    for t in 0..n {
                        let mut row = vec![0i16; cols];
                        want_s[t] = quantise_row(&x[t * cols..(t + 1) * cols], max, &mut row);
                        for (c, &v) in row.iter().enumerate() {
                            let w = &mut want[t * kq + c / 4];
                            *w = ((*w as u32 & !(0xFF << (8 * (c % 4)))) | (((v as i32 + 128) as u32) << (8 * (c % 4)))) as i32;
                        }
                    }
                    for p in paths() {
                        let mut out = vec![0x1234_5678; n * kq];
                        let mut s = vec![0i32; n];
                        quantise_quads(p, n, &x, cols, max, &mut out, &mut s);
                        assert_eq!((&out, &s), (&want, &want_s), "{p:?} cols {cols} max {max} kind {kind}");
                    }
                }
            }
        }
    }

    /// The IFMA weighted sums (one row and two rows) against the `i64` products, at the
    /// extremes of the weights (`0..=2^20`) and values (`i32`).
    #[test]
    fn weighted_sums_are_exact() {
        let mut g = Rng(23);
        for round in 0..200 {
            for dh in [32, 64] {
                let v: Vec<i32> = (0..64 * dh)
                    .map(|_| match round % 3 {
                        0 => {
                            if g.next().is_multiple_of(2) {
                                i32::MIN
                            } else {
                                i32::MAX
                            }
                        }
                        _ => g.range(i32::MIN as i64, i32::MAX as i64) as i32,
                    })
                    .collect();
                let vu: Vec<u64> = v.iter().map(|&x| (x as i64 + (1 << 31)) as u64).collect();
                let e: [[i64; 64]; 2] =
                    std::array::from_fn(|_| std::array::from_fn(|_| if round % 3 == 0 { 1 << 20 } else { g.range(0, 1 << 20) }));
                let z: [i64; 2] = std::array::from_fn(|u| e[u].iter().sum());
                let want: Vec<Vec<i64>> =
                    (0..2).map(|u| (0..dh).map(|c| (0..64).map(|j| e[u][j] * v[j * dh + c] as i64).sum()).collect()).collect();
                let (mut a0, mut a1) = (vec![0i64; dh], vec![0i64; dh]);
                if weighted_sum2(&e, &vu, dh, z, [&mut a0, &mut a1]) {
                    assert_eq!([&a0, &a1], [&want[0], &want[1]], "round {round} dh {dh}");
                }
                let mut a = vec![0i64; dh];
                if weighted_sum(&e[1], &vu, dh, z[1], &mut a) {
                    assert_eq!(a, want[1], "round {round} dh {dh}");
                }
            }
        }
    }

    /// The integer square root against `u128::isqrt` around squares and at the ends.
    #[test]
    fn isqrt_is_exact() {
        let mut g = Rng(19);
        let mut vals: Vec<u128> = vec![0, 1, 2, 3, 4, u64::MAX as u128, 1 << 64, (1 << 64) + 1, u128::MAX];
        for _ in 0..20000 {
            let r = g.next() as u128 >> g.range(0, 63);
            vals.extend([r, r * r, (r * r).saturating_sub(1), r * r + 1, g.next() as u128]);
        }
        for v in vals {
            assert_eq!(isqrt(v), v.isqrt(), "{v}");
        }
    }

    /// The weighted sum's scaling against the `i128` formula: extremes of `acc` and `inv`.
    #[test]
    fn scale_row_is_exact() {
        let mut g = Rng(17);
        for round in 0..3000 {
            let n = 1 + round % 40;
            let inv = match round % 4 {
                0 => (1u64 << 43) - 1,
                1 => 1,
                _ => g.range(1, (1 << 43) - 1) as u64,
            };
            let acc: Vec<i64> = (0..n)
                .map(|_| match g.range(0, 5) {
                    0 => i64::MAX,
                    1 => i64::MIN + 1,
                    2 => g.range(-(1 << 58), 1 << 58),
                    3 => g.range(-1000, 1000),
                    _ => g.next() as i64 >> g.range(0, 63),
                })
                .collect();
            let want: Vec<i32> = acc.iter().map(|&a| sat((a as i128 * inv as i128 + (1 << 61)) >> 62)).collect();
            let mut got = vec![0i32; n];
            if scale_row(best(), &acc, inv, &mut got) {
                assert_eq!(got, want, "round {round}");
            }
        }
    }

    /// The requantisation of a row to `i16` on every path: extremes (`i32::MIN`, `i32::MAX`),
    /// shifts from 0 to 32, every tail length, small and large `max`.
    #[test]
    fn quantise_paths_agree() {
        let mut g = Rng(13);
        for len in (1..=40).chain([64, 255, 256, 352, 511, 512]) {
            for mode in 0..6 {
                let x: Vec<i32> = (0..len)
                    .map(|i| match mode {
                        0 => {
                            if i % 2 == 0 {
                                i32::MIN
                            } else {
                                i32::MAX
                            }
                        }
                        1 => g.range(-40000, 40000) as i32,
                        2 => g.range(-(1 << 20), 1 << 20) as i32,
                        3 => g.range(i32::MIN as i64, i32::MAX as i64) as i32,
                        4 => (g.range(-3, 3) as i32) << g.range(0, 28),
                        _ => 0,
                    })
                    .collect();
                for max in [1, 127, 4095, 32767] {
                    let mut want = vec![0i16; len];
                    let ws = quantise_row(&x, max, &mut want);
                    let mut wantp = vec![-1i32; len.div_ceil(2)];
                    assert_eq!(quantise_pairs(&x, max, &mut wantp), ws);
                    for p in paths() {
                        let mut got = vec![0i16; len];
                        assert_eq!(quantise_row_on(p, &x, max, &mut got), ws, "{p:?} len {len} mode {mode} max {max}");
                        assert_eq!(got, want, "{p:?} len {len} mode {mode} max {max}");
                        let mut gotp = vec![-1i32; len.div_ceil(2)];
                        assert_eq!(quantise_pairs_on(p, &x, max, &mut gotp), ws);
                        assert_eq!(gotp, wantp, "{p:?} pairs len {len} mode {mode} max {max}");
                    }
                }
            }
        }
    }

    /// Exact dots at the extremes (`±32767`, where the sums pass `2^31`) and at random.
    #[test]
    fn dot_paths_are_exact() {
        let mut g = Rng(11);
        for &(n, len) in &[(64, 32), (64, 256), (17, 300), (3, 1000), (64, 7)] {
            for mode in 0..3 {
                let val = |g: &mut Rng, i: usize| -> i16 {
                    match mode {
                        0 => 32767,
                        1 => {
                            if i.is_multiple_of(2) {
                                -32767
                            } else {
                                32767
                            }
                        }
                        _ => g.range(-32767, 32767) as i16,
                    }
                };
                let b: Vec<i16> = (0..n * len).map(|i| val(&mut g, i)).collect();
                let mut a: Vec<i16> = (0..len.div_ceil(2) * 2).map(|i| if mode == 1 { -32767 } else { val(&mut g, i) }).collect();
                a[len..].iter_mut().for_each(|v| *v = 0);
                let want: Vec<i64> = (0..n).map(|j| (0..len).map(|c| a[c] as i64 * b[j * len + c] as i64).sum()).collect();
                let mut r = DotRhs::default();
                r.pack(n, len, &b, len);
                for p in paths() {
                    let mut out = vec![0i64; n];
                    let ap: Vec<i32> = a.chunks(2).map(|c| pair(c[0], c[1])).collect();
                    r.dots(&ap, &mut out, p);
                    assert_eq!(out, want, "{p:?} n {n} len {len} mode {mode}");
                    let (mut o0, mut o1) = (vec![0i64; n], vec![0i64; n]);
                    let zero = vec![0i32; ap.len()];
                    r.dots2([&zero, &ap], [&mut o0, &mut o1], p);
                    assert_eq!((o0.iter().all(|&v| v == 0), &o1), (true, &want), "{p:?} dots2 n {n} len {len} mode {mode}");
                }
            }
        }
    }
}
