//! A Chessformer's float weights as the ONNX file holds them, found by walking its graph, and
//! a float forward pass that follows the graph op for op (the reference the integer path is
//! measured against; never used to code).
//!
//! What the loader reads (see `docs/notes-level10.md` for the whole graph):
//! - named initializers `elo_embedding_{low,high}.weight`, `token_projection.bias`,
//!   `transformer.layers.N.{norm1,norm2}.weight`, `...linear{1,2}.bias`,
//!   `...self_attn.{sm2,sm3}.{weight,bias}`, `...self_attn.{ln1,ln2}.{weight,bias}`, the one
//!   `...self_attn.gab_weight` (shared by all layers), `transformer.norm.{weight,bias}`;
//! - the weights of the `MatMul` nodes whose second input is an initializer, in graph order:
//!   the token projection, then per layer the fused QKV, the attention output, the two
//!   feed-forward matrices, then the policy head's query, key and promotion matrices.
//!
//! Every shape is read from the file: width, heads, blocks, feed-forward and smolgen sizes.

// Index loops over several arrays at once read best as written.
#![allow(clippy::needless_range_loop)]

use std::path::Path;

use super::onnx::Graph;
use crate::error::Error;

/// A dense matrix, `rows` outputs by `cols` inputs, row-major (`y = W x + b`).
#[derive(Clone, Debug, PartialEq)]
pub struct Mat {
    /// Output size.
    pub rows: usize,
    /// Input size.
    pub cols: usize,
    /// `rows * cols` values, row `r` at `r * cols`.
    pub w: Vec<f32>,
}

impl Mat {
    /// `W` from an ONNX `MatMul` operand, stored `[in, out]`.
    fn from_in_out(dims: &[usize], v: &[f32]) -> Mat {
        let (cols, rows) = (dims[0], dims[1]);
        let mut w = vec![0.0; rows * cols];
        for i in 0..cols {
            for o in 0..rows {
                w[o * cols + i] = v[i * rows + o];
            }
        }
        Mat { rows, cols, w }
    }

    /// `W` from a `Gemm` operand with `transB = 1`, stored `[out, in]`.
    fn from_out_in(dims: &[usize], v: &[f32]) -> Mat {
        Mat { rows: dims[0], cols: dims[1], w: v.to_vec() }
    }

    /// `y = W x (+ b)`.
    pub fn apply(&self, x: &[f32], b: Option<&[f32]>) -> Vec<f32> {
        (0..self.rows)
            .map(|r| {
                let row = &self.w[r * self.cols..(r + 1) * self.cols];
                let s: f32 = row.iter().zip(x).map(|(a, b)| a * b).sum();
                s + b.map_or(0.0, |b| b[r])
            })
            .collect()
    }
}

/// One encoder block: smolgen attention bias, multi-head attention, post-norm RMSNorm,
/// GELU feed-forward, post-norm RMSNorm.
#[derive(Clone, Debug, PartialEq)]
pub struct Layer {
    /// Smolgen: mean token -> hidden (`sm2`), with bias.
    pub sm2: Mat,
    /// Its bias.
    pub sm2_b: Vec<f32>,
    /// LayerNorm after `sm2`'s GELU.
    pub ln1: (Vec<f32>, Vec<f32>),
    /// Smolgen: hidden -> heads x generator inputs (`sm3`), with bias.
    pub sm3: Mat,
    /// Its bias.
    pub sm3_b: Vec<f32>,
    /// LayerNorm after `sm3`'s GELU.
    pub ln2: (Vec<f32>, Vec<f32>),
    /// Fused query, key, value projection (`3 d x d`, no bias).
    pub qkv: Mat,
    /// Attention output projection (`d x d`, no bias).
    pub out: Mat,
    /// RMSNorm weight after the attention's residual.
    pub norm1: Vec<f32>,
    /// Feed-forward in (`ffn x d`).
    pub ff1: Mat,
    /// Its bias.
    pub ff1_b: Vec<f32>,
    /// Feed-forward out (`d x ffn`).
    pub ff2: Mat,
    /// Its bias.
    pub ff2_b: Vec<f32>,
    /// RMSNorm weight after the feed-forward's residual.
    pub norm2: Vec<f32>,
}

/// A Chessformer (Maia3 family) in float, as read from its ONNX file.
#[derive(Clone, Debug, PartialEq)]
pub struct FloatModel {
    /// Width of the residual stream.
    pub d: usize,
    /// Attention heads.
    pub heads: usize,
    /// Elo embedding at Elo 5000 (`elo_embedding_low`, weighted by `elo / 5000`).
    pub elo_low: Vec<f32>,
    /// Elo embedding at Elo 0 (`elo_embedding_high`, weighted by `1 - elo / 5000`).
    pub elo_high: Vec<f32>,
    /// Token projection: 96 piece planes + 2 Elo embeddings -> `d`.
    pub embed: Mat,
    /// Its bias.
    pub embed_b: Vec<f32>,
    /// The encoder blocks.
    pub layers: Vec<Layer>,
    /// Smolgen's shared generator: `64 * 64` attention logits from each head's generator inputs.
    pub gab: Mat,
    /// Final LayerNorm (weight, bias).
    pub norm: (Vec<f32>, Vec<f32>),
    /// Policy query (`d x d`, no bias).
    pub pol_q: Mat,
    /// Policy key (`d x d`, no bias).
    pub pol_k: Mat,
    /// Promotion offsets from the keys of the last rank (`4 x d`: q, r, b, n).
    pub promo: Mat,
}

/// Squares, the tokens of the sequence.
pub const TOKENS: usize = 64;
/// Inputs per token: 8 positions x 12 piece planes.
pub const PLANES: usize = 96;
/// Moves of the policy: 64 x 64 from-to, then 8 x 8 x 4 promotions.
pub const VOCAB: usize = 4096 + 256;
/// Elo inputs are clamped to `0..=ELO_MAX` and divided by it.
pub const ELO_MAX: i32 = 5000;
/// Largest width accepted (Maia3-5M: 256).
pub const MAX_WIDTH: usize = 4096;
/// Most encoder blocks accepted (Maia3-5M: 8).
pub const MAX_BLOCKS: usize = 128;
/// The LayerNorm and RMSNorm epsilon of the graph.
pub const EPS: f64 = 1e-5;

impl FloatModel {
    /// Reads the weights of a Chessformer ONNX file (with its `.onnx.data` beside it).
    pub fn read(path: &Path) -> Result<FloatModel, Error> {
        let g = Graph::read(path)?;
        FloatModel::from_graph(&g).map_err(|m| Error::Model { name: path.display().to_string(), line: 0, message: m })
    }

    /// The weights of a graph.
    pub fn from_graph(g: &Graph) -> Result<FloatModel, String> {
        let get = |name: &str| -> Result<(&[usize], &[f32]), String> {
            let t = g.tensor(name).ok_or(format!("not a Chessformer: no initializer {name}"))?;
            Ok((&t.dims, t.f32s(name)?))
        };
        let vec = |name: &str, n: usize| -> Result<Vec<f32>, String> {
            let (dims, v) = get(name)?;
            if v.len() != n {
                return Err(format!("initializer {name} has shape {dims:?}, expected {n} values"));
            }
            Ok(v.to_vec())
        };
        let gemm = |name: &str, rows: Option<usize>, cols: usize| -> Result<Mat, String> {
            let (dims, v) = get(name)?;
            if dims.len() != 2 || dims[1] != cols || rows.is_some_and(|r| r != dims[0]) {
                return Err(format!("initializer {name} has shape {dims:?}, expected [{rows:?}, {cols}]"));
            }
            Ok(Mat::from_out_in(dims, v))
        };
        // The MatMul weights, in graph order.
        let mut mats = Vec::new();
        for n in &g.nodes {
            if n.op_type == "MatMul"
                && n.input.len() == 2
                && let Some(t) = g.tensor(&n.input[1])
            {
                if t.dims.len() != 2 {
                    return Err(format!("MatMul weight {} is not a matrix", n.input[1]));
                }
                mats.push(Mat::from_in_out(&t.dims, t.f32s(&n.input[1])?));
            }
        }
        let blocks = (0..).take_while(|l| g.tensor(&format!("transformer.layers.{l}.norm1.weight")).is_some()).count();
        if blocks == 0 || mats.len() != 1 + 4 * blocks + 3 {
            return Err(format!("not a Chessformer: {blocks} blocks and {} MatMul weights", mats.len()));
        }
        let mut mats = mats.into_iter();
        let mut next = |rows: usize, cols: usize, what: &str| -> Result<Mat, String> {
            let m = mats.next().unwrap();
            if m.rows != rows || m.cols != cols {
                return Err(format!("{what}: shape {}x{}, expected {rows}x{cols}", m.rows, m.cols));
            }
            Ok(m)
        };
        let elo_dim = get("elo_embedding_low.weight")?.1.len();
        let d = get("token_projection.bias")?.1.len();
        if d == 0 || d > MAX_WIDTH || blocks > MAX_BLOCKS || elo_dim > MAX_WIDTH {
            return Err(format!("not a supported Chessformer: width {d}, {blocks} blocks, Elo embedding {elo_dim}"));
        }
        let embed = next(d, PLANES + 2 * elo_dim, "token projection")?;
        let gab_name = (0..blocks)
            .map(|l| format!("transformer.layers.{l}.self_attn.gab_weight"))
            .find(|n| g.tensor(n).is_some())
            .ok_or("not a Chessformer: no smolgen gab_weight")?;
        let (gd, gv) = get(&gab_name)?;
        if gd.len() != 2 || gd[0] != TOKENS * TOKENS {
            return Err(format!("{gab_name} has shape {gd:?}, expected [4096, generator inputs]"));
        }
        let gab = Mat::from_out_in(gd, gv);
        let mut layers = Vec::with_capacity(blocks);
        let mut heads = 0;
        for l in 0..blocks {
            let p = |s: &str| format!("transformer.layers.{l}.{s}");
            let sm2 = gemm(&p("self_attn.sm2.weight"), None, d)?;
            let hid = sm2.rows;
            let sm3 = gemm(&p("self_attn.sm3.weight"), None, hid)?;
            if sm3.rows % gab.cols != 0 {
                return Err(format!("smolgen output {} is not a multiple of {}", sm3.rows, gab.cols));
            }
            let h = sm3.rows / gab.cols;
            if h == 0 || d % h != 0 || d / h > 256 || (heads != 0 && h != heads) {
                return Err(format!("layer {l}: {h} heads for width {d}"));
            }
            heads = h;
            let ff_n = get(&p("linear1.bias"))?.1.len();
            if ff_n > 8 * MAX_WIDTH || hid > MAX_WIDTH || sm3.rows > 8 * MAX_WIDTH {
                return Err(format!("layer {l}: feed-forward {ff_n}, smolgen {hid} x {}: too large", sm3.rows));
            }
            layers.push(Layer {
                sm2_b: vec(&p("self_attn.sm2.bias"), hid)?,
                ln1: (vec(&p("self_attn.ln1.weight"), hid)?, vec(&p("self_attn.ln1.bias"), hid)?),
                sm3_b: vec(&p("self_attn.sm3.bias"), sm3.rows)?,
                ln2: (vec(&p("self_attn.ln2.weight"), sm3.rows)?, vec(&p("self_attn.ln2.bias"), sm3.rows)?),
                sm2,
                sm3,
                qkv: next(3 * d, d, "QKV")?,
                out: next(d, d, "attention output")?,
                norm1: vec(&p("norm1.weight"), d)?,
                ff1: next(ff_n, d, "feed-forward in")?,
                ff1_b: vec(&p("linear1.bias"), ff_n)?,
                ff2: next(d, ff_n, "feed-forward out")?,
                ff2_b: vec(&p("linear2.bias"), d)?,
                norm2: vec(&p("norm2.weight"), d)?,
            });
        }
        let pol_q = next(d, d, "policy query")?;
        let pol_k = next(d, d, "policy key")?;
        let promo = next(4, d, "promotion")?;
        Ok(FloatModel {
            d,
            heads,
            elo_low: vec("elo_embedding_low.weight", elo_dim)?,
            elo_high: vec("elo_embedding_high.weight", elo_dim)?,
            embed,
            embed_b: vec("token_projection.bias", d)?,
            layers,
            gab,
            norm: (vec("transformer.norm.weight", d)?, vec("transformer.norm.bias", d)?),
            pol_q,
            pol_k,
            promo,
        })
    }

    /// The 352 inputs of a token (f32), for the float reference.
    fn token_inputs(&self, planes: &[u8], self_elo: i32, oppo_elo: i32) -> Vec<Vec<f32>> {
        let elo = |e: i32| -> Vec<f32> {
            let a = e.clamp(0, ELO_MAX) as f32 / ELO_MAX as f32;
            self.elo_low.iter().zip(&self.elo_high).map(|(l, h)| a * l + (1.0 - a) * h).collect()
        };
        let (es, eo) = (elo(self_elo), elo(oppo_elo));
        (0..TOKENS)
            .map(|t| {
                let mut x: Vec<f32> = planes[t * PLANES..(t + 1) * PLANES].iter().map(|&b| b as f32).collect();
                x.extend_from_slice(&es);
                x.extend_from_slice(&eo);
                x
            })
            .collect()
    }

    /// The float reference: the policy logits (`VOCAB`) of one position. `planes` is the
    /// `64 x 96` input (0/1), token-major, as `scripts/teacher/label.py` builds it.
    pub fn forward(&self, planes: &[u8], self_elo: i32, oppo_elo: i32) -> Vec<f32> {
        let d = self.d;
        let dh = d / self.heads;
        let gelu = |v: f32| 0.5 * v * (1.0 + erf(v as f64 / std::f64::consts::SQRT_2) as f32);
        let layer_norm = |x: &mut [f32], w: &[f32], b: &[f32]| {
            let n = x.len() as f32;
            let m = x.iter().sum::<f32>() / n;
            let var = x.iter().map(|v| (v - m) * (v - m)).sum::<f32>() / n;
            let s = (var + EPS as f32).sqrt();
            for ((v, w), b) in x.iter_mut().zip(w).zip(b) {
                *v = (*v - m) / s * w + b;
            }
        };
        let rms_norm = |x: &mut [f32], w: &[f32]| {
            let ms = x.iter().map(|v| v * v).sum::<f32>() / x.len() as f32;
            let s = (ms + EPS as f32).sqrt();
            for (v, w) in x.iter_mut().zip(w) {
                *v = *v / s * w;
            }
        };
        let mut x: Vec<Vec<f32>> =
            self.token_inputs(planes, self_elo, oppo_elo).iter().map(|t| self.embed.apply(t, Some(&self.embed_b))).collect();
        for l in &self.layers {
            let mean: Vec<f32> = (0..d).map(|c| x.iter().map(|t| t[c]).sum::<f32>() / TOKENS as f32).collect();
            let mut h: Vec<f32> = l.sm2.apply(&mean, Some(&l.sm2_b)).into_iter().map(gelu).collect();
            layer_norm(&mut h, &l.ln1.0, &l.ln1.1);
            let mut sg: Vec<f32> = l.sm3.apply(&h, Some(&l.sm3_b)).into_iter().map(gelu).collect();
            layer_norm(&mut sg, &l.ln2.0, &l.ln2.1);
            let gc = self.gab.cols;
            let bias: Vec<Vec<f32>> = (0..self.heads).map(|hd| self.gab.apply(&sg[hd * gc..(hd + 1) * gc], None)).collect();
            let qkv: Vec<Vec<f32>> = x.iter().map(|t| l.qkv.apply(t, None)).collect();
            let scale = 1.0 / (dh as f32).sqrt();
            let mut att = vec![vec![0.0f32; d]; TOKENS];
            for hd in 0..self.heads {
                let o = hd * dh;
                for i in 0..TOKENS {
                    let s: Vec<f32> = (0..TOKENS)
                        .map(|j| {
                            let dot: f32 = (0..dh).map(|c| qkv[i][o + c] * qkv[j][d + o + c]).sum();
                            dot * scale + bias[hd][i * TOKENS + j]
                        })
                        .collect();
                    let m = s.iter().cloned().fold(f32::NEG_INFINITY, f32::max);
                    let e: Vec<f32> = s.iter().map(|v| (v - m).exp()).collect();
                    let z: f32 = e.iter().sum();
                    for c in 0..dh {
                        att[i][o + c] = (0..TOKENS).map(|j| e[j] * qkv[j][2 * d + o + c]).sum::<f32>() / z;
                    }
                }
            }
            for (t, a) in x.iter_mut().zip(&att) {
                let y = l.out.apply(a, None);
                t.iter_mut().zip(&y).for_each(|(v, y)| *v += y);
                rms_norm(t, &l.norm1);
                let f: Vec<f32> = l.ff1.apply(t, Some(&l.ff1_b)).into_iter().map(gelu).collect();
                let y = l.ff2.apply(&f, Some(&l.ff2_b));
                t.iter_mut().zip(&y).for_each(|(v, y)| *v += y);
                rms_norm(t, &l.norm2);
            }
        }
        for t in x.iter_mut() {
            layer_norm(t, &self.norm.0, &self.norm.1);
        }
        let q: Vec<Vec<f32>> = x.iter().map(|t| self.pol_q.apply(t, None)).collect();
        let k: Vec<Vec<f32>> = x.iter().map(|t| self.pol_k.apply(t, None)).collect();
        let scale = (d as f32).sqrt();
        let mut out = vec![0.0f32; VOCAB];
        for i in 0..TOKENS {
            for j in 0..TOKENS {
                out[i * TOKENS + j] = q[i].iter().zip(&k[j]).map(|(a, b)| a * b).sum::<f32>() / scale;
            }
        }
        for t in 0..8 {
            let off = self.promo.apply(&k[56 + t], None);
            for f in 0..8 {
                for p in 0..4 {
                    out[4096 + (f * 8 + t) * 4 + p] = out[(48 + f) * TOKENS + 56 + t] + off[p] * scale;
                }
            }
        }
        out
    }
}

/// The error function, from basic IEEE operations only (so identical on every machine): the
/// Maclaurin series below 3, the continued fraction of erfc above, both to full f64 precision.
pub fn erf(x: f64) -> f64 {
    let a = x.abs();
    let r = if a < 3.0 {
        // erf(x) = 2/sqrt(pi) * sum_n (-1)^n x^(2n+1) / (n! (2n+1))
        let (mut term, mut sum, x2) = (a, a, a * a);
        let mut n = 0.0;
        loop {
            n += 1.0;
            term *= -x2 / n;
            let t = term / (2.0 * n + 1.0);
            sum += t;
            if t.abs() <= 1e-17 * sum.abs() || n > 200.0 {
                break;
            }
        }
        sum * (2.0 / std::f64::consts::PI.sqrt())
    } else if a < 6.0 {
        // erfc(x) = exp(-x^2) / sqrt(pi) * 1 / (x + 1/2 / (x + 1 / (x + 3/2 / (x + ...))))
        let mut f = a;
        for k in (1..=60).rev() {
            f = a + (k as f64 / 2.0) / f;
        }
        1.0 - exp_basic(-a * a) / (std::f64::consts::PI.sqrt() * f)
    } else {
        1.0
    };
    if x < 0.0 { -r } else { r }
}

/// `e^x` from basic IEEE operations only: `x = k ln 2 + r` with `|r| <= ln 2 / 2`, a Taylor
/// series of `e^r`, and an exact power of two.
pub fn exp_basic(x: f64) -> f64 {
    if x < -700.0 {
        return 0.0;
    }
    let ln2 = std::f64::consts::LN_2;
    let k = (x / ln2).round();
    let r = x - k * ln2;
    let (mut term, mut sum) = (1.0f64, 1.0f64);
    for n in 1..30 {
        term *= r / n as f64;
        sum += term;
    }
    // 2^k as an f64 from its exponent bits (k > -1022 for the x > -700 this is called with).
    sum * f64::from_bits(((1023 + k as i64) as u64) << 52)
}

/// Adds an initializer (name, dimensions, values) to a file being written.
type AddTensor<'a> = dyn FnMut(String, Vec<usize>, &[f32]) + 'a;

/// Shapes of a Chessformer, for [`FloatModel::random`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Shape {
    /// Width of the residual stream.
    pub d: usize,
    /// Attention heads (dividing `d`).
    pub heads: usize,
    /// Encoder blocks.
    pub blocks: usize,
    /// Feed-forward width.
    pub ffn: usize,
    /// Smolgen's hidden width (`sm2`'s output).
    pub hidden: usize,
    /// Smolgen's generator inputs per head (`gab_weight`'s columns).
    pub gen_inputs: usize,
    /// Size of one Elo embedding.
    pub elo: usize,
}

/// A deterministic generator of test weights (splitmix64).
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> f32 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^= z >> 31;
        ((z >> 40) as f32 / (1u64 << 24) as f32) * 2.0 - 1.0
    }

    fn vec(&mut self, n: usize, scale: f32, centre: f32) -> Vec<f32> {
        (0..n).map(|_| centre + scale * self.next()).collect()
    }

    fn mat(&mut self, rows: usize, cols: usize) -> Mat {
        let s = 1.5 / (cols as f32).sqrt();
        Mat { rows, cols, w: self.vec(rows * cols, s, 0.0) }
    }
}

impl FloatModel {
    /// A random Chessformer of shape `s` (for tests: CI never has the real weights).
    pub fn random(seed: u64, s: Shape) -> FloatModel {
        let mut r = Rng(seed);
        let layers = (0..s.blocks)
            .map(|_| Layer {
                sm2: r.mat(s.hidden, s.d),
                sm2_b: r.vec(s.hidden, 0.1, 0.0),
                ln1: (r.vec(s.hidden, 0.2, 1.0), r.vec(s.hidden, 0.1, 0.0)),
                sm3: r.mat(s.heads * s.gen_inputs, s.hidden),
                sm3_b: r.vec(s.heads * s.gen_inputs, 0.1, 0.0),
                ln2: (r.vec(s.heads * s.gen_inputs, 0.2, 1.0), r.vec(s.heads * s.gen_inputs, 0.1, 0.0)),
                qkv: r.mat(3 * s.d, s.d),
                out: r.mat(s.d, s.d),
                norm1: r.vec(s.d, 0.2, 1.0),
                ff1: r.mat(s.ffn, s.d),
                ff1_b: r.vec(s.ffn, 0.1, 0.0),
                ff2: r.mat(s.d, s.ffn),
                ff2_b: r.vec(s.d, 0.1, 0.0),
                norm2: r.vec(s.d, 0.2, 1.0),
            })
            .collect();
        FloatModel {
            d: s.d,
            heads: s.heads,
            elo_low: r.vec(s.elo, 0.5, 0.0),
            elo_high: r.vec(s.elo, 0.5, 0.0),
            embed: r.mat(s.d, PLANES + 2 * s.elo),
            embed_b: r.vec(s.d, 0.1, 0.0),
            layers,
            gab: r.mat(TOKENS * TOKENS, s.gen_inputs),
            norm: (r.vec(s.d, 0.2, 1.0), r.vec(s.d, 0.1, 0.0)),
            pol_q: r.mat(s.d, s.d),
            pol_k: r.mat(s.d, s.d),
            promo: r.mat(4, s.d),
        }
    }

    /// The model as an ONNX file in the teacher's layout: the named initializers and the
    /// `MatMul` nodes that [`FloatModel::from_graph`] reads, tensors larger than 64 values in
    /// the external data file `data_name` (returned second), the rest inline. Not a runnable
    /// graph: the test helper for the loader (the real file's other nodes are not read).
    pub fn to_onnx(&self, data_name: &str) -> (Vec<u8>, Vec<u8>) {
        use super::onnx::{GraphProto, ModelProto, NodeProto, StringStringEntryProto, TensorProto};
        use prost::Message;
        let mut data = Vec::new();
        let mut inits = Vec::new();
        let mut add = |name: String, dims: Vec<usize>, v: &[f32]| {
            let bytes: Vec<u8> = v.iter().flat_map(|x| x.to_le_bytes()).collect();
            let mut t =
                TensorProto { dims: dims.iter().map(|&d| d as i64).collect(), data_type: super::onnx::FLOAT, name, ..Default::default() };
            if v.len() > 64 {
                let kv = |k: &str, v: String| StringStringEntryProto { key: k.into(), value: v };
                t.external_data =
                    vec![kv("location", data_name.into()), kv("offset", data.len().to_string()), kv("length", bytes.len().to_string())];
                t.data_location = 1;
                data.extend_from_slice(&bytes);
            } else {
                t.raw_data = bytes;
            }
            inits.push(t);
        };
        let in_out = |m: &Mat| -> Vec<f32> {
            let mut w = vec![0.0; m.rows * m.cols];
            for o in 0..m.rows {
                for i in 0..m.cols {
                    w[i * m.rows + o] = m.w[o * m.cols + i];
                }
            }
            w
        };
        let mut nodes = Vec::new();
        let mut matmul = |k: usize, m: &Mat, add: &mut AddTensor| {
            let name = format!("val_{k}");
            add(name.clone(), vec![m.cols, m.rows], &in_out(m));
            nodes.push(NodeProto {
                input: vec![format!("x_{k}"), name],
                output: vec![format!("y_{k}")],
                op_type: "MatMul".into(),
                ..Default::default()
            });
        };
        add("elo_embedding_low.weight".into(), vec![1, self.elo_low.len()], &self.elo_low);
        add("elo_embedding_high.weight".into(), vec![1, self.elo_high.len()], &self.elo_high);
        add("token_projection.bias".into(), vec![self.d], &self.embed_b);
        let mut k = 0;
        matmul(k, &self.embed, &mut add);
        let last = self.layers.len() - 1;
        for (l, ly) in self.layers.iter().enumerate() {
            let p = |s: &str| format!("transformer.layers.{l}.{s}");
            add(p("self_attn.sm2.weight"), vec![ly.sm2.rows, ly.sm2.cols], &ly.sm2.w);
            add(p("self_attn.sm2.bias"), vec![ly.sm2_b.len()], &ly.sm2_b);
            add(p("self_attn.ln1.weight"), vec![ly.ln1.0.len()], &ly.ln1.0);
            add(p("self_attn.ln1.bias"), vec![ly.ln1.1.len()], &ly.ln1.1);
            add(p("self_attn.sm3.weight"), vec![ly.sm3.rows, ly.sm3.cols], &ly.sm3.w);
            add(p("self_attn.sm3.bias"), vec![ly.sm3_b.len()], &ly.sm3_b);
            add(p("self_attn.ln2.weight"), vec![ly.ln2.0.len()], &ly.ln2.0);
            add(p("self_attn.ln2.bias"), vec![ly.ln2.1.len()], &ly.ln2.1);
            add(p("linear1.bias"), vec![ly.ff1_b.len()], &ly.ff1_b);
            add(p("linear2.bias"), vec![ly.ff2_b.len()], &ly.ff2_b);
            add(p("norm1.weight"), vec![self.d], &ly.norm1);
            add(p("norm2.weight"), vec![self.d], &ly.norm2);
            if l == last {
                add(p("self_attn.gab_weight"), vec![self.gab.rows, self.gab.cols], &self.gab.w);
            }
            for m in [&ly.qkv, &ly.out, &ly.ff1, &ly.ff2] {
                k += 1;
                matmul(k, m, &mut add);
            }
        }
        add("transformer.norm.weight".into(), vec![self.d], &self.norm.0);
        add("transformer.norm.bias".into(), vec![self.d], &self.norm.1);
        for m in [&self.pol_q, &self.pol_k, &self.promo] {
            k += 1;
            matmul(k, m, &mut add);
        }
        let graph = GraphProto { node: nodes, initializer: inits, ..Default::default() };
        let model = ModelProto { ir_version: 10, producer_name: "chesszip test helper".into(), graph: Some(graph) };
        (model.encode_to_vec(), data)
    }
}
