//! Aggregated statistics of the model's predictions while coding, for analysis and plots:
//! bits per ply by ply number, and calibration (predicted probability of candidate moves
//! against how often such moves were played).

use crate::entropy::{Cdf, TOTAL};

/// Number of ply-number buckets (one per ply up to this, the rest in the last).
pub(crate) const PLY_BUCKETS: usize = 200;

/// Calibration bins per factor of 10 of probability.
const BINS_PER_DECADE: usize = 5;
/// Decades covered below probability 1 (down to 1e-6).
const DECADES: usize = 6;

/// Statistics of coded moves.
#[derive(Clone, Debug)]
pub struct Trace {
    /// Per ply number: (moves coded, total bits).
    pub by_ply: Vec<(u64, f64)>,
    /// Per calibration bin: (candidate moves, of which played, sum of predicted probabilities).
    pub calibration: Vec<(u64, u64, f64)>,
}

impl Default for Trace {
    fn default() -> Self {
        Trace { by_ply: vec![(0, 0.0); PLY_BUCKETS], calibration: vec![(0, 0, 0.0); BINS_PER_DECADE * DECADES + 1] }
    }
}

impl Trace {
    /// Records one coded move: the table it was coded with and the played index.
    pub fn record(&mut self, ply: u32, table: Cdf<'_>, played: usize) {
        let slot = &mut self.by_ply[(ply as usize).min(PLY_BUCKETS - 1)];
        slot.0 += 1;
        slot.1 += table.bits(played);
        for i in 0..table.len() {
            let p = table.frequency(i) as f64 / TOTAL as f64;
            let bin = Self::bin(p);
            let b = &mut self.calibration[bin];
            b.0 += 1;
            b.1 += (i == played) as u64;
            b.2 += p;
        }
    }

    /// Calibration bin of probability `p`: bin 0 holds `[0.1^(1/5)..1]`, each next bin a fifth of
    /// a decade lower, the last bin everything below 1e-6.
    pub fn bin(p: f64) -> usize {
        let x = (-p.max(1e-12).log10() * BINS_PER_DECADE as f64).floor();
        (x as usize).min(BINS_PER_DECADE * DECADES)
    }

    /// Adds another trace's counts to this one.
    pub(crate) fn merge(&mut self, other: &Trace) {
        for (a, b) in self.by_ply.iter_mut().zip(&other.by_ply) {
            a.0 += b.0;
            a.1 += b.1;
        }
        for (a, b) in self.calibration.iter_mut().zip(&other.calibration) {
            a.0 += b.0;
            a.1 += b.1;
            a.2 += b.2;
        }
    }

    /// CSV of bits per ply: `ply,moves,bits_per_move`.
    pub fn by_ply_csv(&self) -> String {
        let mut s = String::from("ply,moves,bits_per_move\n");
        for (ply, &(n, bits)) in self.by_ply.iter().enumerate() {
            if n > 0 {
                s += &format!("{ply},{n},{:.5}\n", bits / n as f64);
            }
        }
        s
    }

    /// CSV of calibration: `mean_predicted,observed,candidates`.
    pub fn calibration_csv(&self) -> String {
        let mut s = String::from("mean_predicted,observed,candidates\n");
        for &(n, played, sum_p) in &self.calibration {
            if n > 0 {
                s += &format!("{:.8},{:.8},{n}\n", sum_p / n as f64, played as f64 / n as f64);
            }
        }
        s
    }
}
