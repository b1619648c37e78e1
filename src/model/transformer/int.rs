//! The integer Chessformer: the float model's weights quantised once, when loaded, and a
//! forward pass in integers only, so that every machine computes the same logits.
//!
//! The recipe (I-BERT, gemmlowp):
//! - activations are `i32` in fixed point with [`FRAC`] fractional bits (`Q16`);
//! - a dense layer's weights are `i8` values (`-127..=127`, kept in `i16` for `pmaddwd`) with a
//!   scale per output channel (`maxabs / 127`, quantised in f64 by round-to-nearest, so the same
//!   on every machine); its input row is requantised to `i16` by a rounding shift chosen from the
//!   row's largest value (`|x| <= act_max`, where `cols * 127 * act_max < 2^31`, checked when
//!   loaded), products are summed in `i32`, and the sum is brought back to `Q16` by the channel's
//!   fixed-point multiplier (`m * 2^-e`, `m` in `2^30..2^31`) and a rounding shift, in `i128`;
//! - products of two activations (attention scores, the policy's query . key) requantise both
//!   rows to `i16` and sum in `i64`; the attention's weighted sum of values is `i64`;
//! - softmax subtracts the row's maximum and takes `2^-y` from a 256-entry table (`Q30`, linear
//!   interpolation), `Q20` weights, and one reciprocal per row;
//! - LayerNorm and RMSNorm take an integer square root of the `Q32` variance and one
//!   reciprocal per row;
//! - GELU (erf form) is a table over `[-8, 8)` in steps of 2^-7 with linear interpolation,
//!   built from [`super::weights::erf`], which uses basic IEEE operations only.
//!
//! Integer sums are exact in any order, so vectorised code gives the same integers as scalar.

// Index loops over several arrays at once read best as written.
#![allow(clippy::needless_range_loop)]

use super::simd::{self, ACT8, Dense, DotRhs, Simd, quantise_pairs_on, quantise_quads, quantise_row_on, quantise_rows, rshift, sat};
use super::weights::{ELO_MAX, EPS, FloatModel, Mat, PLANES, TOKENS, VOCAB, erf, exp_basic};

/// Fractional bits of an activation.
pub const FRAC: u32 = 16;
/// 1.0 in activation fixed point.
pub const ONE: i64 = 1 << FRAC;

/// The float `v` in `Q16`, rounded to nearest.
fn q16(v: f32) -> i32 {
    sat((v as f64 * ONE as f64).round() as i128)
}

/// `v = m * 2^-e` with `m` in `2^30..2^31` (or `(0, 0)` for `v == 0`).
fn multiplier(v: f64) -> (i64, i32) {
    if v == 0.0 {
        return (0, 0);
    }
    let mut e = 0;
    let mut s = v;
    while s < (1u64 << 30) as f64 {
        s *= 2.0;
        e += 1;
    }
    while s >= (1u64 << 31) as f64 {
        s /= 2.0;
        e -= 1;
    }
    let m = s.round() as i64;
    if m == 1 << 31 { (m / 2, e - 1) } else { (m, e) }
}

/// A dense layer with `i8` weights per output channel.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct QLinear {
    rows: usize,
    cols: usize,
    /// The weights (`-127..=127`) packed for the kernels, with the per-row multipliers
    /// (`m * 2^-e`, the scale) and `Q16` biases.
    dense: Dense,
    /// Largest input magnitude after requantisation (`cols * 127 * act_max < 2^31`).
    act_max: i32,
}

impl QLinear {
    /// Quantises `m` (and `bias`, if any), for `i16` inputs (model version 8's recipe).
    pub fn new(m: &Mat, bias: Option<&[f32]>) -> QLinear {
        QLinear::with_inputs(m, bias, false)
    }

    /// Quantises `m` (and `bias`, if any); `act8`: its input rows are requantised to
    /// `|q| <= 127` (8-bit activations, [`ACT8`]) instead of `i16`, which the AVX-512 VNNI path
    /// multiplies as `u8` (`q + 128`) by the `i8` weights (`vpdpbusd`, twice `vpdpwssd`'s
    /// products per instruction); every path gives the same integers.
    pub fn with_inputs(m: &Mat, bias: Option<&[f32]>, act8: bool) -> QLinear {
        let mut w = vec![0i16; m.rows * m.cols];
        let mut mult = Vec::with_capacity(m.rows);
        for r in 0..m.rows {
            let row = &m.w[r * m.cols..(r + 1) * m.cols];
            let maxabs = row.iter().fold(0.0f64, |a, &v| a.max((v as f64).abs()));
            let scale = maxabs / 127.0;
            for (q, &v) in w[r * m.cols..(r + 1) * m.cols].iter_mut().zip(row) {
                *q = if scale == 0.0 { 0 } else { (v as f64 / scale).round().clamp(-127.0, 127.0) as i16 };
            }
            mult.push(multiplier(scale));
        }
        let bias = match bias {
            Some(b) => b.iter().map(|&v| q16(v)).collect(),
            None => vec![0; m.rows],
        };
        let act_max = ((i32::MAX as i64) / (127 * m.cols.max(1) as i64)).min(if act8 { ACT8 as i64 } else { 32767 }) as i32;
        let dense = Dense::new(m.rows, m.cols, &w, &mult, &bias);
        let dense = if act8 { dense.with_u8() } else { dense };
        QLinear { rows: m.rows, cols: m.cols, dense, act_max }
    }

    /// Output size.
    pub fn rows(&self) -> usize {
        self.rows
    }

    /// `y = W x + b` for one `Q16` row; `scratch` holds `cols / 2 + 1` values.
    #[inline(always)]
    pub fn apply(&self, x: &[i32], y: &mut [i32], scratch: &mut [i32]) {
        self.apply_rows(1, x, y, scratch)
    }

    /// `y_t = W x_t + b` for `n` rows `x_t` (`cols` apart in `x`, `rows` apart in `y`), each row
    /// requantised to `i16` by its own shift, on the kernels' [`simd::active`] path (every path
    /// gives the same integers). `scratch` holds `n * (cols / 2 + 1)` values (the requantised
    /// inputs, as pairs of `i16`).
    #[inline(always)]
    pub fn apply_rows(&self, n: usize, x: &[i32], y: &mut [i32], scratch: &mut [i32]) {
        let mut shifts = [0i32; TOKENS];
        let mut big = Vec::new();
        let shifts = if n <= TOKENS {
            &mut shifts[..n]
        } else {
            big.resize(n, 0);
            &mut big[..]
        };
        let path = simd::active();
        if path == Simd::Avx512 && self.dense.has_u8() {
            // The same q as `quantise_rows` gives, as bytes q + 128.
            quantise_quads(path, n, x, self.cols, self.act_max, scratch, shifts);
            self.dense.run_u8(n, scratch, shifts, y, path);
            return;
        }
        quantise_rows(path, n, x, self.cols, self.act_max, scratch, shifts);
        self.dense.run(n, scratch, shifts, y, path);
    }
}

/// Makes every later forward pass use the portable code even where SIMD is available (for the
/// tests that compare the paths, and for measuring them); see [`simd::force`] for the others.
pub fn force_scalar(on: bool) {
    simd::force(on.then_some(Simd::Scalar));
}

/// `acc[c] = sum_j e_j v_j[c]` over the 64 keys (`v` row `j` at `j * DH`): `e_j <= 2^20` and
/// `v` fit `i32`, so each product is one sign-extended 32 x 32 multiply, the sum below `2^57`;
/// `DH` known, the sums stay in registers.
#[inline(always)]
fn weighted_sum<const DH: usize>(e: &[i64; TOKENS], vv: &[i32], acc: &mut [i64]) {
    let mut a = [0i64; DH];
    for j in 0..TOKENS {
        let ej = e[j] as i32 as i64;
        let v: &[i32; DH] = vv[j * DH..(j + 1) * DH].try_into().unwrap();
        for c in 0..DH {
            a[c] = a[c].wrapping_add(ej.wrapping_mul(v[c] as i64));
        }
    }
    acc.copy_from_slice(&a);
}

/// `x += y`, saturating (a plain loop, compiled into the caller).
#[inline(always)]
fn residual(x: &mut [i32], y: &[i32]) {
    for (v, &y) in x.iter_mut().zip(y) {
        *v = v.saturating_add(y);
    }
}

/// `sat(rshift(dot * m, sh) + add)`, in `i64` where that is exact (`|dot| < 2^31`, `m < 2^31`).
#[inline(always)]
fn scale_dot(dot: i64, m: i64, sh: i32, add: i32) -> i32 {
    if dot.unsigned_abs() < 1 << 31 && (1..=62).contains(&sh) {
        let v = (dot * m + (1i64 << (sh - 1))) >> sh;
        (v + add as i64).clamp(i32::MIN as i64, i32::MAX as i64) as i32
    } else {
        sat(rshift(dot as i128 * m as i128, sh) + add as i128)
    }
}

/// GELU (erf form) in `Q16`, by table.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Gelu {
    t: Box<[i32; GELU_N]>,
}

/// The GELU table's step, `2^-GELU_STEP` (in bits below `Q16`: index = `(x + 8) >> (16 - 7)`).
const GELU_STEP: u32 = 7;
const GELU_RANGE: i64 = 8;
/// Entries of the GELU table.
const GELU_N: usize = ((2 * GELU_RANGE) << GELU_STEP) as usize + 1;

impl Gelu {
    fn new() -> Gelu {
        let t = std::array::from_fn(|i| {
            let x = i as f64 / (1u64 << GELU_STEP) as f64 - GELU_RANGE as f64;
            let g = 0.5 * x * (1.0 + erf(x / std::f64::consts::SQRT_2));
            (g * ONE as f64).round() as i32
        });
        Gelu { t: Box::new(t) }
    }

    /// [`Gelu::apply`] on every value (a plain loop: it is compiled into the caller, for its
    /// instruction set).
    #[inline(always)]
    fn apply_all(&self, x: &mut [i32], path: Simd) {
        let (lo, hi) = ((-GELU_RANGE * ONE) as i32, (GELU_RANGE * ONE) as i32);
        if simd::gelu_all(path, x, &self.t[..], lo, hi, FRAC - GELU_STEP) {
            return;
        }
        for v in x.iter_mut() {
            *v = self.apply(*v);
        }
    }

    /// Identity at and above 8, 0 below -8, the table with linear interpolation between.
    /// Branch-free (the index clamped, the ends selected), so that loops over it vectorise;
    /// the arithmetic cannot wrap (`|x| < 2^31`, table values below `2^20`).
    #[inline(always)]
    fn apply(&self, x: i32) -> i32 {
        let lo = -GELU_RANGE * ONE;
        let x64 = x as i64;
        let sh = FRAC - GELU_STEP;
        let u = x64.wrapping_sub(lo).clamp(0, 2 * GELU_RANGE * ONE - 1);
        let i = (u >> sh) as usize;
        let f = u & ((1 << sh) - 1);
        let (a, b) = (self.t[i] as i64, self.t[i + 1] as i64);
        let g = a.wrapping_add((b.wrapping_sub(a).wrapping_mul(f).wrapping_add(1 << (sh - 1))) >> sh) as i32;
        if x64 >= GELU_RANGE * ONE {
            x
        } else if x64 < lo {
            0
        } else {
            g
        }
    }
}

/// `2^-f` for `f` in `[0, 1)` in steps of 1/256, `Q30`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Exp2 {
    pub(crate) t: Box<[i64; 257]>,
    /// The same table in `i32` (every entry is at most `2^30`), for the AVX-512 softmax, which
    /// gathers two neighbours as one `i64`.
    pub(crate) t32: Box<[i32; 257]>,
}

/// Fractional bits of a softmax weight.
const EXP_FRAC: u32 = 20;
/// `log2(e)` in `Q16`.
const LOG2E_Q16: i64 = 94548;

impl Exp2 {
    fn new() -> Exp2 {
        let t = std::array::from_fn(|i| (exp_basic(-(i as f64) / 256.0 * std::f64::consts::LN_2) * (1u64 << 30) as f64).round() as i64);
        let t32 = t.map(|v: i64| i32::try_from(v).expect("2^-f in Q30 fits i32"));
        Exp2 { t: Box::new(t), t32: Box::new(t32) }
    }

    /// `e^-d` in `Q20` for `0 <= d < 2^40` in `Q16` (the softmax's `max - s`, below `2^33`).
    /// Branch-free; no step can wrap in that range (`d * log2 e < 2^57`, the table `<= 2^30`).
    #[inline(always)]
    fn exp_neg(&self, d: i64) -> i64 {
        let y = d.wrapping_mul(LOG2E_Q16).wrapping_add(1 << 15) >> 16; // log2 units, Q16
        let n = y >> 16;
        let f = y & 0xFFFF;
        let (i, r) = ((f >> 8) as usize, f & 0xFF);
        let (a, b) = (self.t[i], self.t[i + 1]);
        let v = a.wrapping_add(b.wrapping_sub(a).wrapping_mul(r).wrapping_add(128) >> 8); // Q30, in 0..=2^30
        // rshift(v, 10 + n) for n < 40, in i64.
        let sh = (30 - EXP_FRAC) as i64 + n.min(39);
        let out = v.wrapping_add(1 << (sh - 1)) >> sh;
        if n >= 40 { 0 } else { out }
    }
}

/// LayerNorm weights in `Q16`.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Norm {
    w: Vec<i32>,
    b: Option<Vec<i32>>,
    /// `max |w|`.
    wmax: i64,
}

impl Norm {
    fn new(w: &[f32], b: Option<&[f32]>) -> Norm {
        let w: Vec<i32> = w.iter().map(|&v| q16(v)).collect();
        let wmax = w.iter().map(|&v| (v as i64).abs()).max().unwrap_or(0);
        Norm { w, b: b.map(|b| b.iter().map(|&v| q16(v)).collect()), wmax }
    }

    /// LayerNorm (with a bias) or RMSNorm (without: no mean subtracted), in place. The sums
    /// are exact: `i64` where they provably fit (the mean: `n * 2^31`; the variance when every
    /// `|x - mean| < 2^26` and `n <= 2048`), `i128` otherwise.
    #[inline(always)]
    fn apply(&self, x: &mut [i32], path: Simd) {
        let eps = (EPS * (1u64 << 32) as f64).round() as i128;
        if simd::norm_row(path, x, &self.w, self.b.as_deref(), self.wmax, eps) {
            return;
        }
        let n = x.len() as i64;
        let mean = if self.b.is_some() {
            let s = x.iter().fold(0i64, |a, &v| a.wrapping_add(v as i64));
            (2 * s + n).div_euclid(2 * n)
        } else {
            0
        };
        let dmax = x.iter().fold(0u64, |a, &v| a.max((v as i64 - mean).unsigned_abs()));
        let var: i128 = if dmax < 1 << 26 && n <= 2048 {
            x.iter().fold(0i64, |a, &v| {
                let dv = (v as i64).wrapping_sub(mean);
                a.wrapping_add(dv.wrapping_mul(dv))
            }) as i128
                / n as i128
        } else {
            x.iter().map(|&v| (v as i128 - mean as i128) * (v as i128 - mean as i128)).sum::<i128>() / n as i128
        }; // Q32
        let sd = simd::isqrt((var + eps) as u128) as i128; // Q16, >= 1
        let inv = ((1u64 << 62) / sd as u64) as i128; // Q46 of 1/sd (sd < 2^64: the same quotient)
        // Fast path, in i64: with |x - mean| < 2^31 and inv = ih 2^31 + il (ih <= 2^31,
        // il < 2^31), both partial products are below 2^62 and
        // floor((A 2^31 + B + 2^45) / 2^46) = floor((A + floor((B + 2^45) / 2^31)) / 2^15);
        // then |z| <= zb, and z * w fits when zb * max |w| < 2^62.
        let zb = ((dmax as u128 * inv as u128) >> 46) + 1;
        if dmax < 1 << 31 && zb * self.wmax as u128 <= 1 << 62 {
            let (ih, il) = ((inv >> 31) as i64, (inv & ((1 << 31) - 1)) as i64);
            for (i, v) in x.iter_mut().enumerate() {
                let dv = (*v as i64).wrapping_sub(mean);
                let (a, b) = (dv.wrapping_mul(ih), dv.wrapping_mul(il));
                let z = a.wrapping_add(b.wrapping_add(1 << 45) >> 31) >> 15; // Q16
                let mut y = z.wrapping_mul(self.w[i] as i64).wrapping_add(1 << (FRAC - 1)) >> FRAC;
                if let Some(b) = &self.b {
                    y = y.wrapping_add(b[i] as i64);
                }
                *v = y.clamp(i32::MIN as i64, i32::MAX as i64) as i32;
            }
            return;
        }
        // |x - mean| < 2^32, inv <= 2^62: the products fit i128 (and z * w: |z| < 2^48).
        let mean = mean as i128;
        for (i, v) in x.iter_mut().enumerate() {
            let z = (*v as i128 - mean).wrapping_mul(inv).wrapping_add(1 << 45) >> 46; // Q16
            let mut y = z.wrapping_mul(self.w[i] as i128).wrapping_add(1 << (FRAC - 1)) >> FRAC;
            if let Some(b) = &self.b {
                y += b[i] as i128;
            }
            *v = sat(y);
        }
    }
}

/// Buffers reused by the forward passes of one thread: every value is written before it is
/// read, so their contents between passes do not matter (and they need not be zeroed).
#[derive(Default)]
struct Work {
    scratch: Vec<i32>,
    inp: Vec<i32>,
    x: Vec<i32>,
    qkv: Vec<i32>,
    att: Vec<i32>,
    ys: Vec<i32>,
    bias: Vec<i32>,
    f: Vec<i32>,
    vv: Vec<i32>,
    vu: Vec<u64>,
    kq: Vec<i16>,
}

thread_local! {
    static WORK: std::cell::RefCell<Work> = std::cell::RefCell::new(Work::default());
}

/// The first `n` values of `v`, grown (with zeros) if it is shorter.
fn sized<T: Copy + Default>(v: &mut Vec<T>, n: usize) -> &mut [T] {
    if v.len() < n {
        v.resize(n, T::default());
    }
    &mut v[..n]
}

/// One integer encoder block.
#[derive(Clone, Debug, PartialEq, Eq)]
struct IntLayer {
    sm2: QLinear,
    ln1: Norm,
    sm3: QLinear,
    ln2: Norm,
    qkv: QLinear,
    out: QLinear,
    norm1: Norm,
    ff1: QLinear,
    ff2: QLinear,
    norm2: Norm,
}

/// Which dense layers of an [`IntModel`] take 8-bit activations ([`QLinear::with_inputs`]): a
/// set of the `Recipe::*` layer bits. The integers of a recipe are archive format (level 10's
/// model version names its recipe): a recipe, once released, never changes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Recipe(pub u32);

impl Recipe {
    /// The embedding (`tokens352 . W_embed`).
    pub const EMBED: u32 = 1;
    /// Smolgen's first layer (the mean token).
    pub const SM2: u32 = 2;
    /// Smolgen's second layer.
    pub const SM3: u32 = 4;
    /// Smolgen's shared generator (`gab`, 8 rows per block).
    pub const GAB: u32 = 8;
    /// The attention's `q, k, v` projection.
    pub const QKV: u32 = 16;
    /// The attention's output projection.
    pub const OUT: u32 = 32;
    /// The feed-forward's first layer.
    pub const FF1: u32 = 64;
    /// The feed-forward's second layer (input: the GELU's output).
    pub const FF2: u32 = 128;
    /// The policy head's query projection.
    pub const POL_Q: u32 = 256;
    /// The policy head's key projection.
    pub const POL_K: u32 = 512;
    /// The promotion offsets (8 rows).
    pub const PROMO: u32 = 1024;
    /// Every layer `i16` (model version 8 of level 10).
    pub const V8: Recipe = Recipe(0);
    /// Every dense layer 8-bit (model version 9 of level 10, `transformer.act8 2047`).
    pub const ALL8: Recipe = Recipe(2047);

    /// Whether layer bit `bit` takes 8-bit activations.
    pub fn act8(self, bit: u32) -> bool {
        self.0 & bit != 0
    }
}

/// The integer Chessformer.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct IntModel {
    recipe: Recipe,
    d: usize,
    heads: usize,
    elo_low: Vec<i32>,
    elo_high: Vec<i32>,
    embed: QLinear,
    layers: Vec<IntLayer>,
    gab: QLinear,
    sg: usize,
    norm: Norm,
    pol_q: QLinear,
    pol_k: QLinear,
    promo: QLinear,
    gelu: Gelu,
    exp: Exp2,
    /// `1 / sqrt(d / heads)`: multiplier and exponent.
    att_scale: (i64, i32),
    /// `1 / sqrt(d)`.
    pol_scale: (i64, i32),
    /// `sqrt(d)` in `Q16`.
    promo_scale: i64,
    /// The widest input of a dense layer.
    max_cols: usize,
}

impl IntModel {
    /// Quantises a float model (deterministic: round-to-nearest in f64) with model version 8's
    /// recipe ([`Recipe::V8`]).
    pub fn new(f: &FloatModel) -> IntModel {
        IntModel::with_recipe(f, Recipe::V8)
    }

    /// Quantises a float model with the activations of `recipe`.
    pub fn with_recipe(f: &FloatModel, recipe: Recipe) -> IntModel {
        let ql = |m: &Mat, b: Option<&[f32]>, bit: u32| QLinear::with_inputs(m, b, recipe.act8(bit));
        let layers = f
            .layers
            .iter()
            .map(|l| IntLayer {
                sm2: ql(&l.sm2, Some(&l.sm2_b), Recipe::SM2),
                ln1: Norm::new(&l.ln1.0, Some(&l.ln1.1)),
                sm3: ql(&l.sm3, Some(&l.sm3_b), Recipe::SM3),
                ln2: Norm::new(&l.ln2.0, Some(&l.ln2.1)),
                qkv: ql(&l.qkv, None, Recipe::QKV),
                out: ql(&l.out, None, Recipe::OUT),
                norm1: Norm::new(&l.norm1, None),
                ff1: ql(&l.ff1, Some(&l.ff1_b), Recipe::FF1),
                ff2: ql(&l.ff2, Some(&l.ff2_b), Recipe::FF2),
                norm2: Norm::new(&l.norm2, None),
            })
            .collect();
        let dh = f.d / f.heads;
        let max_cols = f.layers.iter().map(|l| l.ff2.cols.max(l.sm3.cols)).chain([f.embed.cols, f.d, f.gab.cols]).max().unwrap_or(0);
        IntModel {
            recipe,
            max_cols,
            d: f.d,
            heads: f.heads,
            elo_low: f.elo_low.iter().map(|&v| q16(v)).collect(),
            elo_high: f.elo_high.iter().map(|&v| q16(v)).collect(),
            embed: ql(&f.embed, Some(&f.embed_b), Recipe::EMBED),
            layers,
            gab: ql(&f.gab, None, Recipe::GAB),
            sg: f.gab.cols,
            norm: Norm::new(&f.norm.0, Some(&f.norm.1)),
            pol_q: ql(&f.pol_q, None, Recipe::POL_Q),
            pol_k: ql(&f.pol_k, None, Recipe::POL_K),
            promo: ql(&f.promo, None, Recipe::PROMO),
            gelu: Gelu::new(),
            exp: Exp2::new(),
            att_scale: multiplier(1.0 / (dh as f64).sqrt()),
            pol_scale: multiplier(1.0 / (f.d as f64).sqrt()),
            promo_scale: ((f.d as f64).sqrt() * ONE as f64).round() as i64,
        }
    }

    /// The recipe it was quantised with.
    pub fn recipe(&self) -> Recipe {
        self.recipe
    }

    /// The policy logits (`VOCAB`, `Q16` nats) of one position: `planes` is the `64 x 96`
    /// input (0/1), token-major, as `scripts/teacher/label.py` builds it. Runs on the kernels'
    /// [`simd::active`] path, the loops around them compiled for it too (the same integers on
    /// every path: integer sums are exact in any order).
    pub fn forward(&self, planes: &[u8], self_elo: i32, oppo_elo: i32) -> Vec<i32> {
        let path = simd::active();
        match path {
            #[cfg(target_arch = "x86_64")]
            Simd::Avx512 => {
                // SAFETY: `active` never returns a path the processor lacks.
                unsafe { self.forward_avx512(planes, self_elo, oppo_elo) }
            }
            #[cfg(target_arch = "x86_64")]
            Simd::Avx2 => {
                // SAFETY: as above.
                unsafe { self.forward_avx2(planes, self_elo, oppo_elo) }
            }
            _ => self.forward_with(planes, self_elo, oppo_elo, Simd::Scalar),
        }
    }

    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512dq,avx512vnni,avx2,fma,bmi2")]
    unsafe fn forward_avx512(&self, planes: &[u8], self_elo: i32, oppo_elo: i32) -> Vec<i32> {
        self.forward_with(planes, self_elo, oppo_elo, Simd::Avx512)
    }

    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx2,fma,bmi2")]
    unsafe fn forward_avx2(&self, planes: &[u8], self_elo: i32, oppo_elo: i32) -> Vec<i32> {
        self.forward_with(planes, self_elo, oppo_elo, Simd::Avx2)
    }

    #[inline(always)]
    fn forward_with(&self, planes: &[u8], self_elo: i32, oppo_elo: i32, path: Simd) -> Vec<i32> {
        // This thread's buffers, taken for the pass and put back after it.
        let mut w = WORK.with(|c| c.take());
        let out = self.forward_in(&mut w, planes, self_elo, oppo_elo, path);
        WORK.with(|c| c.replace(w));
        out
    }

    #[inline(always)]
    fn forward_in(&self, w: &mut Work, planes: &[u8], self_elo: i32, oppo_elo: i32, path: Simd) -> Vec<i32> {
        let d = self.d;
        let dh = d / self.heads;
        let dhp = dh.div_ceil(2) * 2;
        let scratch = sized(&mut w.scratch, TOKENS * (self.max_cols / 2 + 1));
        // Embedding.
        let elo = |e: i32| -> Vec<i32> {
            let a = e.clamp(0, ELO_MAX) as i64;
            let b = ELO_MAX as i64 - a;
            self.elo_low
                .iter()
                .zip(&self.elo_high)
                .map(|(&l, &h)| ((2 * (a * l as i64 + b * h as i64) + ELO_MAX as i64).div_euclid(2 * ELO_MAX as i64)) as i32)
                .collect()
        };
        let (es, eo) = (elo(self_elo), elo(oppo_elo));
        let x = sized(&mut w.x, TOKENS * d);
        let inp = &mut w.inp;
        inp.clear();
        for t in 0..TOKENS {
            inp.extend(planes[t * PLANES..(t + 1) * PLANES].iter().map(|&b| b as i32 * ONE as i32));
            inp.extend_from_slice(&es);
            inp.extend_from_slice(&eo);
        }
        self.embed.apply_rows(TOKENS, inp, x, scratch);
        let qkv = sized(&mut w.qkv, TOKENS * 3 * d);
        let att = sized(&mut w.att, TOKENS * d);
        let ys = sized(&mut w.ys, TOKENS * d);
        let mut qq2 = [vec![0i32; dh.div_ceil(2)], vec![0i32; dh.div_ceil(2)]];
        let kq = sized(&mut w.kq, TOKENS * dhp);
        let vv = sized(&mut w.vv, TOKENS * dh);
        let vu = sized(&mut w.vu, TOKENS * dh);
        let mut ks = vec![0i32; TOKENS];
        let mut rhs = DotRhs::default();
        let bias = sized(&mut w.bias, self.heads * TOKENS * TOKENS);
        let f = &mut w.f;
        let mut acc_buf = [[0i64; 256]; 2];
        for l in &self.layers {
            // Smolgen: the attention logits' bias from the mean token.
            let mut colsum = vec![0i64; d];
            for xt in x.chunks_exact(d) {
                // 64 values below 2^31: no wrap.
                for (s, &v) in colsum.iter_mut().zip(xt) {
                    *s = s.wrapping_add(v as i64);
                }
            }
            let mean: Vec<i32> = colsum.iter().map(|&s| ((2 * s + TOKENS as i64).div_euclid(2 * TOKENS as i64)) as i32).collect();
            let mut h = vec![0i32; l.sm2.rows()];
            l.sm2.apply(&mean, &mut h, scratch);
            self.gelu.apply_all(&mut h, path);
            l.ln1.apply(&mut h, path);
            let mut sg = vec![0i32; l.sm3.rows()];
            l.sm3.apply(&h, &mut sg, scratch);
            self.gelu.apply_all(&mut sg, path);
            l.ln2.apply(&mut sg, path);
            // One row of generator inputs per head, `4096` logits each.
            self.gab.apply_rows(self.heads, &sg, bias, scratch);
            // Attention.
            l.qkv.apply_rows(TOKENS, x, qkv, scratch);
            let (m, ex) = self.att_scale;
            for hd in 0..self.heads {
                let o = hd * dh;
                for t in 0..TOKENS {
                    let row = &qkv[t * 3 * d..(t + 1) * 3 * d];
                    let kt = &mut kq[t * dhp..(t + 1) * dhp];
                    ks[t] = quantise_row_on(path, &row[d + o..d + o + dh], 32767, &mut kt[..dh]);
                    kt[dh..].iter_mut().for_each(|v| *v = 0);
                    vv[t * dh..(t + 1) * dh].copy_from_slice(&row[2 * d + o..2 * d + o + dh]);
                    for (u, &v) in vu[t * dh..(t + 1) * dh].iter_mut().zip(&row[2 * d + o..2 * d + o + dh]) {
                        *u = (v as i64 + (1 << 31)) as u64;
                    }
                }
                rhs.pack(TOKENS, dh, kq, dhp);
                // Two query rows at a time: their weighted sums read each value row once.
                for i0 in (0..TOKENS).step_by(2) {
                    let mut e2 = [[0i64; TOKENS]; 2];
                    let mut z2 = [0i64; 2];
                    let mut sq2 = [0i32; 2];
                    for u in 0..2 {
                        let row = &qkv[(i0 + u) * 3 * d..(i0 + u + 1) * 3 * d];
                        sq2[u] = quantise_pairs_on(path, &row[o..o + dh], 32767, &mut qq2[u]);
                    }
                    let mut dots2 = [[0i64; TOKENS]; 2];
                    let [d0, d1] = &mut dots2;
                    rhs.dots2([&qq2[0], &qq2[1]], [d0, d1], path);
                    for (u, e) in e2.iter_mut().enumerate() {
                        let (i, sq, dots) = (i0 + u, sq2[u], &dots2[u]);
                        let brow = &bias[hd * 4096 + i * TOKENS..hd * 4096 + (i + 1) * TOKENS];
                        let mut shs = [0i32; TOKENS];
                        for j in 0..TOKENS {
                            shs[j] = ex + FRAC as i32 - sq - ks[j];
                        }
                        if !(path == Simd::Avx512 && simd::softmax_row(dots, &shs, brow, m, &self.exp.t32, e)) {
                            let mut s = [0i32; TOKENS];
                            // The i64 fast path of `scale_dot` for every key, branch-free; any key
                            // outside it is redone exactly.
                            let mut slow = false;
                            for j in 0..TOKENS {
                                let (dot, sh) = (dots[j], ex + FRAC as i32 - sq - ks[j]);
                                slow |= !(dot.unsigned_abs() < 1 << 31 && (1..=62).contains(&sh));
                                let sh = sh.clamp(1, 62);
                                let v = dot.wrapping_mul(m).wrapping_add(1i64 << (sh - 1)) >> sh;
                                s[j] = v.wrapping_add(brow[j] as i64).clamp(i32::MIN as i64, i32::MAX as i64) as i32;
                            }
                            if slow {
                                for j in 0..TOKENS {
                                    s[j] = scale_dot(dots[j], m, ex + FRAC as i32 - sq - ks[j], brow[j]);
                                }
                            }
                            let mx = *s.iter().max().unwrap() as i64;
                            for j in 0..TOKENS {
                                e[j] = self.exp.exp_neg(mx - s[j] as i64);
                            }
                        }
                        z2[u] = e.iter().fold(0i64, |a, &v| a.wrapping_add(v));
                    }
                    // sum_j e_j v_j: e_j <= 2^20, |v| < 2^31, 64 terms: below 2^57. Every path
                    // below writes all of acc[..dh] (the generic loop zeroes it first).
                    let [acc0, acc1] = &mut acc_buf;
                    let mut accs = [&mut acc0[..dh], &mut acc1[..dh]];
                    let [a0, a1] = &mut accs;
                    if !simd::weighted_sum2(&e2, vu, dh, z2, [&mut **a0, &mut **a1]) {
                        for (u, acc) in accs.iter_mut().enumerate() {
                            let (e, acc) = (&e2[u], &mut **acc);
                            match dh {
                                _ if simd::weighted_sum(e, vu, dh, z2[u], acc) => {}
                                32 => weighted_sum::<32>(e, vv, acc),
                                64 => weighted_sum::<64>(e, vv, acc),
                                _ => {
                                    acc.fill(0);
                                    for j in 0..TOKENS {
                                        let ej = e[j] as i32 as i64;
                                        for (a, &v) in acc.iter_mut().zip(&vv[j * dh..(j + 1) * dh]) {
                                            *a = a.wrapping_add(ej.wrapping_mul(v as i64));
                                        }
                                    }
                                }
                            }
                        }
                    }
                    for (u, acc) in accs.iter().enumerate() {
                        let i = i0 + u;
                        // z >= 1 (the row's maximum has weight 2^20): the quotient in u64 is the same.
                        let inv = ((1u64 << 62) / z2[u] as u64) as i128;
                        if !simd::scale_row(path, acc, inv as u64, &mut att[i * d + o..i * d + o + dh]) {
                            for c in 0..dh {
                                // |acc| < 2^57, inv <= 2^42: the product fits i128.
                                att[i * d + o + c] = sat((acc[c] as i128).wrapping_mul(inv).wrapping_add(1 << 61) >> 62);
                            }
                        }
                    }
                }
            }
            l.out.apply_rows(TOKENS, att, ys, scratch);
            residual(x, ys);
            for xt in x.chunks_exact_mut(d) {
                l.norm1.apply(xt, path);
            }
            f.resize(TOKENS * l.ff1.rows(), 0);
            l.ff1.apply_rows(TOKENS, x, f, scratch);
            self.gelu.apply_all(f, path);
            l.ff2.apply_rows(TOKENS, f, ys, scratch);
            residual(x, ys);
            for xt in x.chunks_exact_mut(d) {
                l.norm2.apply(xt, path);
            }
        }
        // Policy head.
        for t in 0..TOKENS {
            self.norm.apply(&mut x[t * d..(t + 1) * d], path);
        }
        // The query and key rows in the buffer of the blocks' q, k, v.
        let (q, k) = qkv.split_at_mut(TOKENS * d);
        let k = &mut k[..TOKENS * d];
        self.pol_q.apply_rows(TOKENS, x, q, scratch);
        self.pol_k.apply_rows(TOKENS, x, k, scratch);
        let dp = d.div_ceil(2) * 2;
        let kq = sized(&mut w.kq, TOKENS * dp);
        let mut ksh = vec![0i32; TOKENS];
        for t in 0..TOKENS {
            ksh[t] = quantise_row_on(path, &k[t * d..(t + 1) * d], 32767, &mut kq[t * dp..t * dp + d]);
        }
        rhs.pack(TOKENS, d, kq, dp);
        let mut out = vec![0i32; VOCAB];
        let mut qrow = [vec![0i32; d.div_ceil(2)], vec![0i32; d.div_ceil(2)]];
        let (m, ex) = self.pol_scale;
        for i0 in (0..TOKENS).step_by(2) {
            let [q0, q1] = &mut qrow;
            let sq = [
                quantise_pairs_on(path, &q[i0 * d..(i0 + 1) * d], 32767, q0),
                quantise_pairs_on(path, &q[(i0 + 1) * d..(i0 + 2) * d], 32767, q1),
            ];
            let mut dots2 = [[0i64; TOKENS]; 2];
            let [d0, d1] = &mut dots2;
            rhs.dots2([q0, q1], [d0, d1], path);
            for u in 0..2 {
                let row = &mut out[(i0 + u) * TOKENS..(i0 + u + 1) * TOKENS];
                let mut shs = [0i32; TOKENS];
                for j in 0..TOKENS {
                    shs[j] = ex + FRAC as i32 - sq[u] - ksh[j];
                }
                if !simd::scores_row(path, &dots2[u], &shs, m, row) {
                    for j in 0..TOKENS {
                        row[j] = scale_dot(dots2[u][j], m, shs[j], 0);
                    }
                }
            }
        }
        // The promotion offsets from the keys of the last rank (tokens 56..64).
        let mut off = [0i32; 8 * 4];
        self.promo.apply_rows(8, &k[56 * d..64 * d], &mut off, scratch);
        for t in 0..8 {
            for f in 0..8 {
                for (p, &o) in off[t * 4..(t + 1) * 4].iter().enumerate() {
                    let v = out[(48 + f) * TOKENS + 56 + t] as i128 + rshift(o as i128 * self.promo_scale as i128, FRAC as i32);
                    out[4096 + (f * 8 + t) * 4 + p] = sat(v);
                }
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The AVX-512 GELU against the portable code, over the table's range, its ends and the
    /// extremes of `i32`, with every tail length.
    #[test]
    fn gelu_paths_agree() {
        let gelu = Gelu::new();
        let mut x: Vec<i32> = vec![i32::MIN, i32::MAX, 0, -1, 1];
        let r = (GELU_RANGE * ONE) as i32;
        x.extend((-r - 1000..r + 1000).step_by(7));
        x.extend([-r - 1, -r, -r + 1, r - 1, r, r + 1, i32::MIN + 1, i32::MAX - 1]);
        for len in [x.len(), 1, 15, 17, 33] {
            let xs = &x[x.len() - len..];
            let want: Vec<i32> = xs.iter().map(|&v| gelu.apply(v)).collect();
            for p in [Simd::Scalar, Simd::Avx2, Simd::Avx512].into_iter().filter(|&p| p <= simd::best()) {
                let mut got = xs.to_vec();
                gelu.apply_all(&mut got, p);
                assert_eq!(got, want, "{p:?} len {len}");
            }
        }
    }

    /// The AVX-512 norms against the portable code: LayerNorm and RMSNorm, widths 16 to 512,
    /// rows of small and large spread (the `i128` paths), constant rows, large weights.
    #[test]
    fn norm_paths_agree() {
        let mut g = 0x9e37_79b9_7f4a_7c15u64;
        let mut next = move || {
            g ^= g << 13;
            g ^= g >> 7;
            g ^= g << 17;
            g
        };
        for n in [16, 48, 64, 256, 512] {
            for round in 0..60 {
                let wlim = if round % 4 == 0 { 1i64 << 30 } else { 1 << 17 };
                let w: Vec<f32> = (0..n).map(|_| ((next() % (2 * wlim as u64)) as i64 - wlim) as f32 / ONE as f32).collect();
                let b: Vec<f32> = (0..n).map(|_| ((next() % (1 << 20)) as i64 - (1 << 19)) as f32 / ONE as f32).collect();
                let spread = [1u64, 1 << 10, 1 << 20, 1 << 25, 1 << 27, 1 << 31][round % 6];
                let base = (next() % (1 << 24)) as i64 - (1 << 23);
                let x: Vec<i32> = (0..n)
                    .map(|_| (base + (next() % (2 * spread)) as i64 - spread as i64).clamp(i32::MIN as i64, i32::MAX as i64) as i32)
                    .collect();
                for norm in [Norm::new(&w, Some(&b)), Norm::new(&w, None)] {
                    let mut want = x.clone();
                    norm.apply(&mut want, Simd::Scalar);
                    for p in [Simd::Avx2, Simd::Avx512].into_iter().filter(|&p| p <= simd::best()) {
                        let mut got = x.clone();
                        norm.apply(&mut got, p);
                        assert_eq!(got, want, "{p:?} n {n} round {round}");
                    }
                }
            }
        }
    }

    /// The AVX-512 softmax row against the scalar scores and `exp_neg`, with dots near the
    /// fast path's edge, shifts across `1..=62`, saturating scores and far-below-max keys.
    #[test]
    fn softmax_row_matches_the_scalar_code() {
        let exp = Exp2::new();
        let mut g = 0x1234_5678_9abc_def0u64;
        let mut next = move || {
            g ^= g << 13;
            g ^= g >> 7;
            g ^= g << 17;
            g
        };
        let mut checked = 0;
        for round in 0..2000 {
            let m = (1i64 << 30) + (next() % (1 << 30)) as i64;
            let lim = [3i64 << 30, 1 << 28, 1 << 28, 1 << 36, 1 << 40][round % 5];
            let mut dots = [0i64; TOKENS];
            let mut sh = [0i32; TOKENS];
            let mut bias = [0i32; TOKENS];
            for j in 0..TOKENS {
                dots[j] = (next() % (2 * lim as u64)) as i64 - lim;
                let wide = round % 5 == 0 || round % 10 == 3 || round % 10 == 9;
                sh[j] = 1 + (next() % if wide { 62 } else { 20 }) as i32 + if wide { 0 } else { 20 };
                bias[j] = (next() % (1 << 22)) as i32 - (1 << 21);
            }
            let mut e = [0i64; TOKENS];
            if !simd::softmax_row(&dots, &sh, &bias, m, &exp.t32, &mut e) {
                continue;
            }
            checked += 1;
            let s: Vec<i32> = (0..TOKENS).map(|j| scale_dot(dots[j], m, sh[j], bias[j])).collect();
            let mx = *s.iter().max().unwrap() as i64;
            let want: Vec<i64> = s.iter().map(|&v| exp.exp_neg(mx - v as i64)).collect();
            assert_eq!(&e[..], &want[..], "round {round}");
        }
        // Without AVX-512 the row is never taken: nothing to compare.
        if simd::best() >= Simd::Avx512 {
            assert!(checked > 1000, "{checked} rows on the fast path");
        }
    }

    /// The policy head's AVX-512 scores (`simd::scores_row`) against `scale_dot`, with dots up to
    /// and past the path's `2^40`, shifts across `1..=62` and past them, saturating scores.
    #[test]
    fn policy_scores_match_scale_dot() {
        let mut g = 0x0fed_cba9_8765_4321u64;
        let mut next = move || {
            g ^= g << 13;
            g ^= g >> 7;
            g ^= g << 17;
            g
        };
        let mut checked = 0;
        for round in 0..3000 {
            let m = [(1i64 << 30) + (next() % (1 << 30)) as i64, (next() % (1 << 31)) as i64, 0, (1 << 31) - 1][round % 4];
            let lim = [3i64 << 30, 1 << 28, 1 << 31, 1 << 36, 1 << 40, 1 << 41][round % 6];
            let mut dots = [0i64; TOKENS];
            let mut sh = [0i32; TOKENS];
            for j in 0..TOKENS {
                dots[j] = (next() % (2 * lim as u64)) as i64 - lim;
                sh[j] = match round % 7 {
                    0 => (next() % 66) as i32 - 2,
                    1 => 1 + (next() % 62) as i32,
                    _ => 1 + (next() % 20) as i32 + 20,
                };
            }
            let mut got = [0i32; TOKENS];
            if !simd::scores_row(Simd::Avx512, &dots, &sh, m, &mut got) {
                continue;
            }
            checked += 1;
            let want: Vec<i32> = (0..TOKENS).map(|j| scale_dot(dots[j], m, sh[j], 0)).collect();
            assert_eq!(&got[..], &want[..], "round {round}");
        }
        if simd::best() >= Simd::Avx512 {
            assert!(checked > 1000, "{checked} rows on the fast path");
        }
    }

    /// The AVX-512 softmax's weights (computed in `i32` lanes) against `exp_neg` for every gap
    /// `max - s` below `2^22` (past the clamp at `2^21`) and for gaps up to `2^32 - 1`: rows of
    /// zero dots whose scores are their biases, the first 0 (the maximum), the others `-gap`.
    #[test]
    fn softmax_weights_match_exp_neg_for_every_gap() {
        if simd::best() < Simd::Avx512 {
            return;
        }
        let exp = Exp2::new();
        let sh = [1i32; TOKENS];
        let dots = [0i64; TOKENS];
        let mut gaps: Vec<i64> = (0..1i64 << 22).collect();
        gaps.extend((0..4000).map(|k| (1i64 << 22) + k * ((1i64 << 32) - (1 << 22)) / 4000));
        gaps.extend([(1i64 << 31) - 1, 1 << 31, (1i64 << 32) - 1]);
        for row in gaps.chunks(TOKENS - 1) {
            // A gap of 2^31 or more needs a positive maximum: max = 2^31 - 1, s = max - gap.
            let mut bias = [0i32; TOKENS];
            bias[0] = i32::MAX;
            for (j, &g) in row.iter().enumerate() {
                bias[j + 1] = (i32::MAX as i64 - g) as i32;
            }
            let mut e = [0i64; TOKENS];
            assert!(simd::softmax_row(&dots, &sh, &bias, 1 << 30, &exp.t32, &mut e));
            assert_eq!(e[0], exp.exp_neg(0));
            for (j, &g) in row.iter().enumerate() {
                assert_eq!(e[j + 1], exp.exp_neg(g), "gap {g}");
            }
        }
    }
}
