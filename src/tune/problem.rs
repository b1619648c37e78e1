//! Softmax regression problems: decisions among candidates described by sparse features.

use rayon::prelude::*;

use crate::model::features::{ONE, Sink};

/// A set of decisions. Each decision has candidates; each candidate has sparse features; one
/// candidate was chosen. The model is `p = (1 - floor) softmax(w . x) + floor / n`.
#[derive(Clone, Debug, Default)]
pub struct Problem {
    /// Number of weights.
    pub n_weights: usize,
    /// Candidate range of decision `d`: `cand_start[d]..cand_start[d + 1]`.
    pub cand_start: Vec<u32>,
    /// Feature range of candidate `c`: `feat_start[c]..feat_start[c + 1]`.
    pub feat_start: Vec<u32>,
    /// The features: `(index, value)`, values in units of 1/[`ONE`].
    pub features: Vec<(u16, i16)>,
    /// Chosen candidate of each decision (relative to its first candidate).
    pub label: Vec<u16>,
}

impl Problem {
    /// An empty problem over `n_weights` weights.
    pub fn new(n_weights: usize) -> Self {
        Problem { n_weights, cand_start: vec![0], feat_start: vec![0], ..Default::default() }
    }

    /// Number of decisions.
    pub fn len(&self) -> usize {
        self.label.len()
    }

    /// Whether there are no decisions.
    pub fn is_empty(&self) -> bool {
        self.label.is_empty()
    }

    /// Closes the current candidate.
    pub(crate) fn end_candidate(&mut self) {
        self.feat_start.push(self.features.len() as u32);
    }

    /// Closes the current decision with `label` chosen.
    pub(crate) fn end_decision(&mut self, label: usize) {
        self.cand_start.push((self.feat_start.len() - 1) as u32);
        self.label.push(label as u16);
    }

    /// Appends all decisions of `other`.
    pub(crate) fn append(&mut self, other: &Problem) {
        let cand_base = (self.feat_start.len() - 1) as u32;
        let feat_base = self.features.len() as u32;
        self.features.extend_from_slice(&other.features);
        self.feat_start.extend(other.feat_start[1..].iter().map(|&s| s + feat_base));
        self.cand_start.extend(other.cand_start[1..].iter().map(|&s| s + cand_base));
        self.label.extend_from_slice(&other.label);
    }

    /// Cross-entropy in nats summed over decisions, and its gradient (added to `grad`), for
    /// weights `w` in nats per feature unit and uniform floor `floor`.
    pub(crate) fn loss_and_gradient(&self, w: &[f64], floor: f64, grad: Option<&mut [f64]>) -> f64 {
        let n = self.len();
        let chunk = 4096;
        let want_grad = grad.is_some();
        let (loss, g) = (0..n.div_ceil(chunk))
            .into_par_iter()
            .map(|k| {
                let mut g = if want_grad { vec![0.0; self.n_weights] } else { Vec::new() };
                let mut z = Vec::new();
                let mut loss = 0.0;
                for d in k * chunk..((k + 1) * chunk).min(n) {
                    loss += self.decision(d, w, floor, &mut z, if want_grad { Some(&mut g) } else { None });
                }
                (loss, g)
            })
            .reduce(
                || (0.0, if want_grad { vec![0.0; self.n_weights] } else { Vec::new() }),
                |(l1, mut g1), (l2, g2)| {
                    for (a, b) in g1.iter_mut().zip(&g2) {
                        *a += b;
                    }
                    (l1 + l2, g1)
                },
            );
        if let Some(grad) = grad {
            for (a, b) in grad.iter_mut().zip(&g) {
                *a += b;
            }
        }
        loss
    }

    /// Negative log-likelihood of decision `d`, adding its gradient to `grad`.
    fn decision(&self, d: usize, w: &[f64], floor: f64, z: &mut Vec<f64>, grad: Option<&mut Vec<f64>>) -> f64 {
        let (c0, c1) = (self.cand_start[d] as usize, self.cand_start[d + 1] as usize);
        let scale = 1.0 / ONE as f64;
        z.clear();
        for c in c0..c1 {
            let (f0, f1) = (self.feat_start[c] as usize, self.feat_start[c + 1] as usize);
            let mut acc = 0.0;
            for &(index, value) in &self.features[f0..f1] {
                acc += w[index as usize] * value as f64;
            }
            z.push(acc * scale);
        }
        let zmax = z.iter().copied().fold(f64::NEG_INFINITY, f64::max);
        let mut sum = 0.0;
        for v in z.iter_mut() {
            *v = (*v - zmax).exp();
            sum += *v;
        }
        let nc = (c1 - c0) as f64;
        let y = self.label[d] as usize;
        let s_y = z[y] / sum;
        let p_y = (1.0 - floor) * s_y + floor / nc;
        if let Some(grad) = grad {
            let r = (1.0 - floor) * s_y / p_y;
            for (i, c) in (c0..c1).enumerate() {
                let g = r * (z[i] / sum - if i == y { 1.0 } else { 0.0 });
                if g == 0.0 {
                    continue;
                }
                let (f0, f1) = (self.feat_start[c] as usize, self.feat_start[c + 1] as usize);
                for &(index, value) in &self.features[f0..f1] {
                    grad[index as usize] += g * value as f64 * scale;
                }
            }
        }
        -p_y.ln()
    }
}

impl Sink for Problem {
    #[inline]
    fn put(&mut self, index: usize, value: i32) {
        self.features.put(index, value);
    }
}
