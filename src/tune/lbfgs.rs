//! Limited-memory BFGS (Nocedal & Wright, "Numerical Optimization", algorithm 7.4/7.5) with a
//! backtracking Armijo line search: enough for the smooth convex objectives of the tuner.

use std::collections::VecDeque;

/// Minimises `f` from `x`, where `f(x, grad)` returns the value and overwrites `grad`.
/// Stops after `max_iter` iterations or when an iteration improves by less than `tol`
/// relative. Returns the final value.
pub(crate) fn minimize(x: &mut [f64], max_iter: usize, tol: f64, mut f: impl FnMut(&[f64], &mut [f64]) -> f64) -> f64 {
    let n = x.len();
    let memory = 12;
    let mut g = vec![0.0; n];
    let mut fx = f(x, &mut g);
    let mut history: VecDeque<(Vec<f64>, Vec<f64>, f64)> = VecDeque::new();
    let dot = |a: &[f64], b: &[f64]| a.iter().zip(b).map(|(x, y)| x * y).sum::<f64>();
    for _ in 0..max_iter {
        // Two-loop recursion: d = -H g.
        let mut q = g.clone();
        let mut alphas = Vec::with_capacity(history.len());
        for (s, y, rho) in history.iter().rev() {
            let a = rho * dot(s, &q);
            for (qi, yi) in q.iter_mut().zip(y) {
                *qi -= a * yi;
            }
            alphas.push(a);
        }
        if let Some((s, y, _)) = history.back() {
            let gamma = dot(s, y) / dot(y, y);
            for qi in q.iter_mut() {
                *qi *= gamma;
            }
        } else {
            let norm = dot(&g, &g).sqrt().max(1e-12);
            for qi in q.iter_mut() {
                *qi /= norm;
            }
        }
        for ((s, y, rho), a) in history.iter().zip(alphas.iter().rev()) {
            let b = rho * dot(y, &q);
            for (qi, si) in q.iter_mut().zip(s) {
                *qi += (a - b) * si;
            }
        }
        let d: Vec<f64> = q.iter().map(|v| -v).collect();
        let slope = dot(&g, &d);
        if slope >= 0.0 {
            history.clear();
            continue;
        }
        // Backtracking line search.
        let mut step = 1.0;
        let mut x_new = vec![0.0; n];
        let mut g_new = vec![0.0; n];
        let mut f_new;
        loop {
            for i in 0..n {
                x_new[i] = x[i] + step * d[i];
            }
            f_new = f(&x_new, &mut g_new);
            if f_new <= fx + 1e-4 * step * slope || step < 1e-10 {
                break;
            }
            step *= 0.5;
        }
        if f_new > fx {
            break;
        }
        let s: Vec<f64> = x_new.iter().zip(x.iter()).map(|(a, b)| a - b).collect();
        let y: Vec<f64> = g_new.iter().zip(&g).map(|(a, b)| a - b).collect();
        let sy = dot(&s, &y);
        if sy > 1e-12 {
            history.push_back((s, y, 1.0 / sy));
            if history.len() > memory {
                history.pop_front();
            }
        }
        let improvement = (fx - f_new) / fx.abs().max(1e-12);
        x.copy_from_slice(&x_new);
        g.copy_from_slice(&g_new);
        fx = f_new;
        if improvement < tol {
            break;
        }
    }
    fx
}

#[cfg(test)]
mod tests {
    #[test]
    fn minimises_a_quadratic_and_rosenbrock() {
        let mut x = vec![3.0, -2.0];
        let f = super::minimize(&mut x, 200, 1e-14, |x, g| {
            g[0] = 2.0 * (x[0] - 1.0);
            g[1] = 20.0 * (x[1] + 0.5);
            (x[0] - 1.0).powi(2) + 10.0 * (x[1] + 0.5).powi(2)
        });
        assert!(f < 1e-9 && (x[0] - 1.0).abs() < 1e-4 && (x[1] + 0.5).abs() < 1e-4, "{x:?}");
        let mut x = vec![-1.2, 1.0];
        super::minimize(&mut x, 2000, 1e-16, |x, g| {
            let (a, b) = (x[0], x[1]);
            g[0] = -2.0 * (1.0 - a) - 400.0 * a * (b - a * a);
            g[1] = 200.0 * (b - a * a);
            (1.0 - a).powi(2) + 100.0 * (b - a * a).powi(2)
        });
        assert!((x[0] - 1.0).abs() < 1e-3 && (x[1] - 1.0).abs() < 1e-3, "{x:?}");
    }
}
