//! Inference: the board tower once per ply and the move tower per legal move ([`NetworkState`]),
//! on the folded square rows, in the portable loops or with AVX2 or AVX-512 ([`Simd`]).

use shakmaty::{Color, Position};

use super::accumulator::Accumulator;
use super::inputs::{MAX_HAND, SQUARE_INPUTS, move_rows, rating_inputs, state_inputs};
use super::kernels::{add_i32, add_row, dot16, dot16_i64};
#[cfg(target_arch = "x86_64")]
use super::sparse;
use super::weights::Network;
#[cfg(target_arch = "x86_64")]
use super::x86;
use crate::chess::movegen::Packed;
use crate::model::elo::Ratings;
use crate::model::features::{MoveContext, ONE, Sink, move_layout};
use crate::model::game::GameState;
use crate::model::softmax::LOGIT_ONE;
use crate::simd::Simd;

/// The hand features of one move: `(index, value)`, value in 1/[`ONE`].
type HandFeatures = arrayvec::ArrayVec<(u16, i16), MAX_HAND>;

/// Collects a move's hand features; without its origin and destination features (`from.*`,
/// `to.*`) when `folded`, whose rows [`NetworkState`] has folded into the square embeddings.
/// Features of value [`ONE`] go to `hand`, the others (the loss's) to `rest`.
struct Collect<'a> {
    hand: &'a mut HandFeatures,
    rest: &'a mut HandFeatures,
    folded: bool,
}

/// The origin and destination features, `from.P` to `to.K`.
const SQUARE_FEATURES: std::ops::Range<usize> = move_layout::FROM_P..move_layout::TO_P + SQUARE_INPUTS;
const _: () = assert!(move_layout::TO_P == move_layout::FROM_P + SQUARE_INPUTS);

impl Sink for Collect<'_> {
    #[inline(always)]
    fn put(&mut self, index: usize, value: i32) {
        if self.folded && SQUARE_FEATURES.contains(&index) {
            return;
        }
        // MAX_HAND is the most a move can have (10 features and 10 tactical ones, two of them
        // the loss's); were it ever exceeded, the encoder and the decoder would drop the same
        // feature, so coding stays exact (and nothing panics).
        debug_assert!(self.hand.len() + self.rest.len() < MAX_HAND, "more than MAX_HAND hand features");
        let list = if value == ONE { &mut *self.hand } else { &mut *self.rest };
        let _ = list.try_push((index as u16, value as i16));
    }

    #[inline(always)]
    fn put_one(&mut self, index: usize) {
        self.put(index, ONE);
    }
}

/// The board tower's outputs for one position, and the scratch space of the move tower.
pub struct NetworkState {
    acc: Accumulator,
    /// First layer before the clipped ReLU (scratch).
    sums: Vec<i32>,
    /// First layer after the clipped ReLU, `0..=512`.
    a: Vec<i16>,
    /// Second layer, `0..=512`.
    c: Vec<i16>,
    /// The context's bias of the move tower's hidden layer (scale 2^12).
    pc: Vec<i32>,
    /// The context's query (scale 2^10; fits i16 by [`Network::check_bounds`]).
    q: Vec<i16>,
    /// Dot products of a dense layer before bias and shift (`max(h2, 2 d)`).
    dots: Vec<i32>,
    /// The pairs of `a` with a non-zero value (scratch of the sparse second layer, `sparse.rs`).
    nonzero: Vec<u16>,
    /// The linear model's weights over the hand features ([`move_layout::LEN`]).
    linear: Vec<i32>,
    /// The origin's rows folded together: `Ef[r] + F[FROM_P + r]`, `384 x d`, so that a
    /// move's origin costs one row instead of two; `from_linear[r]` is the linear model's
    /// part, `linear[FROM_P + r] * ONE`. Kept as `i16` (half the cache of `i32`) when every
    /// sum fits ([`NetworkState::folds`]), else empty.
    from_rows: Vec<i16>,
    from_linear: Vec<i64>,
    /// The destination's rows folded the same way, `Et[r] + F[TO_P + r]`: valid for
    /// moves without promotion, whose `to(m)` row and `to.*` feature are the same.
    to_rows: Vec<i16>,
    to_linear: Vec<i64>,
    /// Whether every folded sum fits `i16`, so that [`NetworkState::from_rows`] and
    /// [`NetworkState::to_rows`] hold them (true of every released network); else every move
    /// takes the unfolded path (the same integers).
    folds: bool,
    /// The loss feature's rows in adjacent pairs, interleaved: `loss_pairs[(i D + k) 2 + j] =
    /// F[LOSS + i + j][k]` for `i < LOSS_ROWS - 1`, `j` 0 or 1, so that the AVX2 path adds a
    /// move's two loss features (knots `i` and `i + 1`, the only features whose value is not
    /// [`ONE`]) with one multiply-add ([`x86::pair_rows`]); empty on the portable path.
    loss_pairs: Vec<i16>,
    simd: Simd,
    /// The ratings of the game being coded ([`NetworkState::set_ratings`]; none until set).
    ratings: Ratings,
    /// [`Network::hash`] of the network the folded rows come from.
    net_hash: u64,
}

/// Board towers at least this wide (`h1`) compute their second and third layers as sparse
/// products on the AVX2 and AVX-512 paths ([`sparse`]): with version 6's (1024, 256, 128) network, 81 % of
/// the first layer's pairs are 0 and level 3 takes 20 % less time; with level 2's (256, 64, 64),
/// half of them are, and the dense kernels are as fast (measured on the heldout games,
/// docs/performance.md).
const SPARSE_FROM_H1: usize = 512;

/// Rows of the loss feature, `loss` in [`move_layout`] (phases x skills x knots).
const LOSS_ROWS: usize = move_layout::FROM_P - move_layout::LOSS;

impl NetworkState {
    /// Scratch space for `net` and the linear model's weights `linear` (one per hand feature,
    /// [`move_layout::LEN`]), with the vector code [`Simd::active`] chooses now: the widest the
    /// processor runs, unless `CHESSZIP_SIMD` or [`crate::simd::force`] asks for a lower one.
    /// Pass the same `net` to every later call.
    pub fn new(net: &Network, linear: &[i32]) -> Self {
        Self::with_simd(net, linear, Simd::active())
    }

    /// [`NetworkState::new`] with the code path `simd`, narrowed to what the processor runs.
    /// Every path computes the same integers.
    pub(crate) fn with_simd(net: &Network, linear: &[i32], simd: Simd) -> Self {
        assert_eq!(linear.len(), move_layout::LEN, "one linear weight per hand feature");
        let d = net.d;
        let fold = |e: &[i16], first: usize| -> Option<Vec<i16>> {
            (0..SQUARE_INPUTS * d).map(|i| i16::try_from(e[i] as i32 + net.f[first * d + i] as i32).ok()).collect()
        };
        let (from_rows, to_rows) = (fold(&net.ef, move_layout::FROM_P), fold(&net.et, move_layout::TO_P));
        let folds = from_rows.is_some() && to_rows.is_some();
        let fold_linear = |first: usize| -> Vec<i64> { (0..SQUARE_INPUTS).map(|r| linear[first + r] as i64 * ONE as i64).collect() };
        let simd = simd.min(Simd::best());
        let loss_pairs = if simd >= Simd::Avx2 {
            (0..(LOSS_ROWS - 1) * d)
                .flat_map(|x| {
                    let (i, k) = (x / d, x % d);
                    [0, 1].map(|j| net.f[(move_layout::LOSS + i + j) * d + k])
                })
                .collect()
        } else {
            Vec::new()
        };
        NetworkState {
            linear: linear.to_vec(),
            from_rows: from_rows.filter(|_| folds).unwrap_or_default(),
            from_linear: fold_linear(move_layout::FROM_P),
            to_rows: to_rows.filter(|_| folds).unwrap_or_default(),
            to_linear: fold_linear(move_layout::TO_P),
            folds,
            acc: Accumulator::new(net),
            sums: vec![0; net.h1],
            a: vec![0; net.h1],
            c: vec![0; net.h2],
            pc: vec![0; net.d],
            q: vec![0; net.d],
            dots: vec![0; net.h2.max(2 * net.d)],
            nonzero: Vec::with_capacity(net.h1 / 2),
            loss_pairs,
            simd,
            ratings: Ratings::default(),
            net_hash: net.hash(),
        }
    }

    /// Sets the ratings of the game whose plies are prepared from now on: a network that
    /// [`Network::reads_ratings`] adds their rows ([`rating_inputs`]) to its first layer; any
    /// other ignores them.
    pub fn set_ratings(&mut self, ratings: Ratings) {
        self.ratings = ratings;
    }

    /// Runs the board tower on `st` (call once per ply, before [`NetworkState::logits`]).
    pub fn prepare(&mut self, net: &Network, st: &GameState) {
        debug_assert_eq!(net.hash(), self.net_hash, "the network the state was made for");
        match self.simd {
            // SAFETY: `simd` is never above `Simd::best()`, what the processor supports.
            #[cfg(target_arch = "x86_64")]
            Simd::Avx512 => unsafe { self.board_tower_avx512(net, st) },
            #[cfg(target_arch = "x86_64")]
            Simd::Avx2 => unsafe { self.board_tower_avx2(net, st) },
            _ => self.board_tower(net, st),
        }
    }

    /// [`NetworkState::board_tower`] with the AVX2 kernels of [`x86`] for the clamp and the
    /// dense layers; in a network at least [`SPARSE_FROM_H1`] wide, the layers after a clipped
    /// ReLU as sparse products over the non-zero pairs of their input ([`sparse`]). The same
    /// integers either way.
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx2")]
    unsafe fn board_tower_avx2(&mut self, net: &Network, st: &GameState) {
        // SAFETY: the caller runs with AVX2, all the narrow kernels need.
        unsafe { self.board_tower_x86::<false>(net, st) }
    }

    /// [`NetworkState::board_tower`] with the AVX-512 kernels (`vpdpwssd`) of [`x86`] and of
    /// [`sparse`] (in a network at least [`SPARSE_FROM_H1`] wide), and the loops around them
    /// compiled for AVX-512 (the same integers).
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx2,avx512f,avx512bw,avx512vl,avx512vnni")]
    unsafe fn board_tower_avx512(&mut self, net: &Network, st: &GameState) {
        // SAFETY: the caller runs with AVX2 and AVX-512 F, BW, VL and VNNI, all the kernels need.
        unsafe { self.board_tower_x86::<true>(net, st) }
    }

    /// The body of both x86 board towers: the clamp in AVX2; the layers after a clipped ReLU as
    /// sparse products ([`sparse`]) in a network at least [`SPARSE_FROM_H1`] wide, else as dense
    /// ones; with the AVX-512 kernels ([`x86::dense512`], `sparse::x86_512`) when `WIDE`, the
    /// AVX2 ones otherwise.
    ///
    /// # Safety
    /// The processor supports AVX2, and AVX-512 F, BW, VL and VNNI when `WIDE`.
    #[cfg(target_arch = "x86_64")]
    #[inline(always)]
    unsafe fn board_tower_x86<const WIDE: bool>(&mut self, net: &Network, st: &GameState) {
        let (h1, h2, d) = (net.h1, net.h2, net.d);
        let skip_zeros = h1 >= SPARSE_FROM_H1;
        self.first_layer(net, st);
        let acc = &self.sums[..h1];
        // SAFETY (every kernel call): the caller's processor runs them (above); they assert their
        // shapes, which `Network::parse` and `Network::random` ensure: h1 and h2 multiples of 16,
        // d of 32.
        let dense = |w: &[i16], x: &[i16], out: &mut [i32]| unsafe { if WIDE { x86::dense512(w, x, out) } else { x86::dense(w, x, out) } };
        unsafe { x86::clamp_to_i16(acc, &mut self.a) };
        // The sparse products: the non-zero pairs found 16 at a time where the width allows it.
        let sparse_product = |wp: &[i16], x: &[i16], nonzero: &mut Vec<u16>, out: &mut [i32]| unsafe {
            if WIDE {
                if x.len().is_multiple_of(32) {
                    sparse::x86_512::nonzero_pairs(x, nonzero);
                } else {
                    sparse::x86::nonzero_pairs(x, nonzero);
                }
                sparse::x86_512::dense_pairs(wp, x, nonzero, out);
            } else {
                sparse::x86::nonzero_pairs(x, nonzero);
                sparse::x86::dense_pairs(wp, x, nonzero, out);
            }
        };
        if skip_zeros {
            sparse_product(&net.w2_pairs, &self.a, &mut self.nonzero, &mut self.dots[..h2]);
        } else {
            dense(&net.w2, &self.a, &mut self.dots[..h2]);
        }
        // Zipped slices rather than indices: no bounds checks, and the loops vectorise (indexed
        // through `self`, they ran one value at a time).
        for ((c, &b), &x) in self.c.iter_mut().zip(&net.b2).zip(&self.dots[..h2]) {
            *c = ((b + x) >> 12).clamp(0, 512) as i16;
        }
        // `P c` into `dots[..d]` and `Q c` into `dots[d..2 d]`.
        if skip_zeros {
            sparse_product(&net.pq_pairs, &self.c, &mut self.nonzero, &mut self.dots[..2 * d]);
        } else {
            dense(&net.p, &self.c, &mut self.dots[..d]);
            dense(&net.q, &self.c, &mut self.dots[d..2 * d]);
        }
        let (p_dots, q_dots) = self.dots[..2 * d].split_at(d);
        for ((pc, &b), &x) in self.pc.iter_mut().zip(&net.pb).zip(p_dots) {
            *pc = (b + x) >> 9;
        }
        for (q, &x) in self.q.iter_mut().zip(q_dots) {
            *q = (x >> 11) as i16;
        }
    }

    /// The first layer's sums before the clipped ReLU, into `sums[..h1]`: the accumulator's
    /// piece rows (brought to `st`'s board first), `b1`, the rows of the state's other inputs
    /// and, where the network reads them, of the game's ratings. Shared by both paths, and
    /// inlined into each with everything it calls, so that the AVX2 path adds its rows with
    /// AVX2.
    #[inline(always)]
    fn first_layer(&mut self, net: &Network, st: &GameState) {
        self.acc.update(net, st.pos.board());
        let h1 = net.h1;
        let acc = &mut self.sums[..h1];
        acc.copy_from_slice(self.acc.sums(st.pos.turn()));
        add_i32(acc, &net.b1);
        state_inputs(st, |i| add_row(acc, &net.w1[i * h1..][..h1]));
        if net.reads_ratings() {
            rating_inputs(&self.ratings, st.pos.turn(), |i| add_row(acc, &net.w1[i * h1..][..h1]));
        }
    }

    #[inline(always)]
    fn board_tower(&mut self, net: &Network, st: &GameState) {
        let h1 = net.h1;
        self.first_layer(net, st);
        let acc = &self.sums[..h1];
        for (a, &x) in self.a.iter_mut().zip(acc.iter()) {
            *a = x.clamp(0, 512) as i16;
        }
        for (k, c) in self.c.iter_mut().enumerate() {
            *c = ((net.b2[k] + dot16(&net.w2[k * h1..][..h1], &self.a)) >> 12).clamp(0, 512) as i16;
        }
        let h2 = net.h2;
        for i in 0..net.d {
            self.pc[i] = (net.pb[i] + dot16(&net.p[i * h2..][..h2], &self.c)) >> 9;
            self.q[i] = (dot16(&net.q[i * h2..][..h2], &self.c) >> 11) as i16;
        }
    }

    /// The logits of all moves of `ctx` (`ctx.moves`) into `out` (cleared first), returning their
    /// maximum (`i32::MIN` without moves): for each move, the network's part plus the linear
    /// model (the weights given to [`NetworkState::new`]) over the move's hand features, in
    /// 1/[`LOGIT_ONE`] nat. [`NetworkState::prepare`] must have run for `ctx`'s position, and
    /// `net` must be the network given to [`NetworkState::new`].
    pub fn logits(&mut self, net: &Network, ctx: &MoveContext, out: &mut Vec<i32>) -> i32 {
        debug_assert_eq!(net.hash(), self.net_hash, "the network the state was made for");
        let (turn, moves) = (ctx.pos.turn(), ctx.moves);
        out.clear();
        match self.simd {
            // SAFETY: `simd` is never above `Simd::best()`, what the processor supports.
            #[cfg(target_arch = "x86_64")]
            Simd::Avx512 => unsafe { self.move_tower_avx512(net, turn, moves, ctx, out) },
            #[cfg(target_arch = "x86_64")]
            Simd::Avx2 => unsafe { self.move_tower_avx2(net, turn, moves, ctx, out) },
            _ => self.move_tower::<false>(net, turn, moves, ctx, out),
        }
    }

    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx2")]
    unsafe fn move_tower_avx2(&self, net: &Network, turn: Color, moves: &[Packed], ctx: &MoveContext, out: &mut Vec<i32>) -> i32 {
        self.move_tower::<true>(net, turn, moves, ctx, out)
    }

    /// [`NetworkState::move_tower`] compiled for AVX-512 (F, BW, VL, VNNI): wider vectors for its
    /// loops over the width `d` (the same integers).
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx2,avx512f,avx512bw,avx512vl,avx512vnni")]
    unsafe fn move_tower_avx512(&self, net: &Network, turn: Color, moves: &[Packed], ctx: &MoveContext, out: &mut Vec<i32>) -> i32 {
        self.move_tower::<true>(net, turn, moves, ctx, out)
    }

    /// The move tower with the width as a constant, so that a move's sums stay in registers;
    /// with the AVX2 kernel [`x86::move_dots`] for a move's three dot products when `X86` (which
    /// only the AVX2 and AVX-512 paths pass) and the query's products fit `i32`.
    #[inline(always)]
    fn move_tower<const X86: bool>(&self, net: &Network, turn: Color, moves: &[Packed], ctx: &MoveContext, out: &mut Vec<i32>) -> i32 {
        match net.d {
            32 => self.move_tower_d::<32, X86>(net, turn, moves, ctx, out),
            64 => self.move_tower_d::<64, X86>(net, turn, moves, ctx, out),
            _ => self.move_tower_d::<128, X86>(net, turn, moves, ctx, out),
        }
    }

    #[inline(always)]
    fn move_tower_d<const D: usize, const X86: bool>(
        &self,
        net: &Network,
        turn: Color,
        moves: &[Packed],
        ctx: &MoveContext,
        out: &mut Vec<i32>,
    ) -> i32 {
        // Rows by reference: a copy of each (`[i16; D]` by value) went through the stack.
        fn row<const D: usize>(w: &[i16], r: usize) -> &[i16; D] {
            w[r * D..][..D].try_into().expect("D columns")
        }
        let linear = &self.linear[..];
        let pc: &[i32; D] = self.pc[..D].try_into().expect("D");
        let q: &[i16; D] = self.q[..D].try_into().expect("D");
        let v: &[i16; D] = net.v[..D].try_into().expect("D");
        let mut best = i32::MIN;
        let (mut hand, mut rest) = (HandFeatures::new(), HandFeatures::new());
        for (i, &p) in moves.iter().enumerate() {
            let (from, to) = move_rows(p, turn);
            // Without promotion, `to.*`'s row is `to(m)`: both square pairs come folded.
            let folded = self.folds && p.promotion() == 0;
            hand.clear();
            rest.clear();
            ctx.features(i, &mut Collect { hand: &mut hand, rest: &mut rest, folded });
            // The hidden layer's sums, `pc + (S >> 8)` with `S` the rows times the features'
            // values (in 1/ONE): `S = R + ONE * W`, `R` the rows of the features in `rest` times
            // their values (the loss's), `W` the rows of the squares and of the features of value
            // ONE, so `pc + (S >> 8) = pc + (R >> 8) + W` (the shift floors): `R` first, then
            // `W` added without shifts. No partial sum overflows i32 (`check_bounds` bounds every
            // part).
            let mut sum = [0i32; D];
            let mut lin = 0i64;
            #[cfg(target_arch = "x86_64")]
            if let [(a, va), (b, vb)] = rest[..]
                && X86
                && b == a + 1
                && (b as usize) < move_layout::LOSS + LOSS_ROWS
                && a as usize >= move_layout::LOSS
            {
                let i = a as usize - move_layout::LOSS;
                lin += linear[a as usize] as i64 * va as i64 + linear[b as usize] as i64 * vb as i64;
                // SAFETY: `X86` is passed only by the AVX2 and AVX-512 paths, which build
                // `loss_pairs`; D is 32, 64 or 128.
                sum = unsafe { x86::pair_rows::<D>(&self.loss_pairs[i * 2 * D..][..2 * D], va, vb) };
                rest.clear();
            }
            for &(index, value) in &rest {
                let (index, value) = (index as usize, value as i32);
                lin += linear[index] as i64 * value as i64;
                let f: &[i16; D] = net.f[index * D..][..D].try_into().expect("D columns");
                for k in 0..D {
                    sum[k] += f[k] as i32 * value;
                }
            }
            if folded {
                let (fr, tr) = (row::<D>(&self.from_rows, from), row::<D>(&self.to_rows, to));
                for k in 0..D {
                    sum[k] = pc[k] + (sum[k] >> 8) + fr[k] as i32 + tr[k] as i32;
                }
                lin += self.from_linear[from] + self.to_linear[to];
            } else {
                let (ef, et) = (row::<D>(&net.ef, from), row::<D>(&net.et, to));
                for k in 0..D {
                    sum[k] = pc[k] + (sum[k] >> 8) + ef[k] as i32 + et[k] as i32;
                }
            }
            let mut ones = 0i64;
            for &(index, _) in &hand {
                let index = index as usize;
                ones += linear[index] as i64;
                let f: &[i16; D] = net.f[index * D..][..D].try_into().expect("D columns");
                for k in 0..D {
                    sum[k] += f[k] as i32;
                }
            }
            lin += ones * ONE as i64;
            // The linear model's logit, as `features::Dot::logit` computes it.
            let linear_logit = (lin >> 8).clamp(i32::MIN as i64 / 2, i32::MAX as i64 / 2);
            // `v . h` fits i32 (`check_bounds`), the query's two products too unless
            // `wide_query`, when they are summed in i64; the three are added in i64. For a network
            // whose three sums together fit i32 (every network of model version 2) this is the
            // same integer as an i32 sum.
            let (gf, gt) = (row::<D>(&net.gf, from), row::<D>(&net.gt, to));
            let z = move_z::<D, X86>(net.wide_query, &sum, v, q, gf, gt);
            debug_assert_eq!(LOGIT_ONE, 256);
            let logit = (linear_logit + (z >> 14)).clamp(i32::MIN as i64 / 2, i32::MAX as i64 / 2) as i32;
            best = best.max(logit);
            out.push(logit);
        }
        best
    }
}

/// A move's network logit before its shift, `v . h + q . gf + q . gt` in `i64` with
/// `h = clamp(sum, 0, 4096)`: `v . h` in wrapping `i32` (it fits, `check_bounds`), the query's
/// two products in `i32` too unless `wide_query`, then in `i64`. With `X86` (passed only by the
/// AVX2 and AVX-512 paths) and a query that fits `i32`, the three products come from the AVX2
/// kernel [`x86::move_dots`] (the same integers).
#[inline(always)]
fn move_z<const D: usize, const X86: bool>(
    wide_query: bool,
    sum: &[i32; D],
    v: &[i16; D],
    q: &[i16; D],
    gf: &[i16; D],
    gt: &[i16; D],
) -> i64 {
    #[cfg(target_arch = "x86_64")]
    if X86 && !wide_query {
        // SAFETY: `X86` is passed only by the AVX2 and AVX-512 paths, whose processors run AVX2;
        // D is 32, 64 or 128.
        let [zv, zf, zt] = unsafe { x86::move_dots::<D>(sum, v, q, gf, gt) };
        return zv as i64 + zf as i64 + zt as i64;
    }
    let mut hidden = [0i16; D];
    for k in 0..D {
        hidden[k] = sum[k].clamp(0, 4096) as i16;
    }
    let zq = if wide_query { dot16_i64(q, gf) + dot16_i64(q, gt) } else { dot16(q, gf) as i64 + dot16(q, gt) as i64 };
    dot16(v, &hidden) as i64 + zq
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::elo::Speed;
    use crate::model::network::inputs::{BOARD_INPUTS, RATED_BOARD_INPUTS, board_inputs};
    use crate::model::{Level, Model, Predictor};
    use crate::text::parse_game;

    /// The first `n` games of the benchmark file bundled in the repository.
    fn games(n: usize) -> Vec<crate::text::Game> {
        include_str!("../../../data/Chess_Games.txt").lines().take(n).map(|l| parse_game(l.as_bytes()).expect("a game")).collect()
    }

    /// A move's logit as the module's doc defines it, without the folded square rows: every
    /// hand feature (origin and destination included) through `F`, sums in i64.
    fn defined_logit(net: &Network, linear: &[i32], state: &NetworkState, turn: Color, p: Packed, ctx: &MoveContext, i: usize) -> i32 {
        let d = net.d;
        let (mut hand, mut rest) = (HandFeatures::new(), HandFeatures::new());
        ctx.features(i, &mut Collect { hand: &mut hand, rest: &mut rest, folded: false });
        hand.extend(rest);
        let (from, to) = move_rows(p, turn);
        let mut lin = 0i64;
        let mut sum: Vec<i64> = (0..d).map(|k| (net.ef[from * d + k] as i64 + net.et[to * d + k] as i64) * ONE as i64).collect();
        for &(index, value) in &hand {
            lin += linear[index as usize] as i64 * value as i64;
            for (s, &f) in sum.iter_mut().zip(&net.f[index as usize * d..][..d]) {
                *s += f as i64 * value as i64;
            }
        }
        let mut z = 0i64;
        for (k, &s) in sum.iter().enumerate() {
            let h = (state.pc[k] as i64 + (s >> 8)).clamp(0, 4096);
            z += net.v[k] as i64 * h + state.q[k] as i64 * (net.gf[from * d + k] as i64 + net.gt[to * d + k] as i64);
        }
        ((lin >> 8) + (z >> 14)) as i32
    }

    /// Runs `net` over the first `n` benchmark games on every path up to [`Simd::best`],
    /// checking at every ply: the incremental first layer against a fresh one and against its
    /// definition, every path's board tower and logits against the scalar path's, and every logit
    /// against [`defined_logit`]. Returns the last scalar state and the number of positions and
    /// of promotions with capture seen.
    fn check_paths(net: &Network, n: usize) -> (NetworkState, usize, usize) {
        check_paths_rated(net, n, false)
    }

    /// Ratings of the `g`-th test game when `rated` (none for every third side, every speed).
    fn test_ratings(g: usize, rated: bool) -> Ratings {
        if !rated {
            return Ratings::default();
        }
        let speeds = [Speed::Unknown, Speed::Bullet, Speed::Blitz, Speed::Rapid, Speed::Classical];
        Ratings {
            white: (g % 3 != 1).then_some(600 + (g as i32 * 137) % 2600),
            black: (g % 3 != 2).then_some(700 + (g as i32 * 211) % 2500),
            speed: speeds[g % speeds.len()],
        }
    }

    /// [`check_paths`], with each game's [`test_ratings`] set on both paths and in the
    /// definition of the first layer when `rated`.
    fn check_paths_rated(net: &Network, n: usize, rated: bool) -> (NetworkState, usize, usize) {
        let model = Model::builtin(Level::new(2).unwrap()).clone();
        let mut predictor = Predictor::new(&model);
        let mut scalar = NetworkState::with_simd(net, &model.move_weights, Simd::Scalar);
        let mut others: Vec<NetworkState> = [Simd::Avx2, Simd::Avx512]
            .into_iter()
            .filter(|&p| p <= Simd::best())
            .map(|p| NetworkState::with_simd(net, &model.move_weights, p))
            .collect();
        assert!(others.iter().all(|o| o.simd != Simd::Scalar));
        let (mut positions, mut promotion_captures) = (0, 0);
        for (g, game) in games(n).iter().enumerate() {
            let ratings = test_ratings(g, rated);
            scalar.set_ratings(ratings);
            others.iter_mut().for_each(|o| o.set_ratings(ratings));
            let mut st = GameState::new();
            for m in &game.moves {
                let mut fresh = Accumulator::new(net);
                fresh.update(net, st.pos.board());
                scalar.prepare(net, &st);
                others.iter_mut().for_each(|o| o.prepare(net, &st));
                for view in [Color::White, Color::Black] {
                    assert_eq!(scalar.acc.sums(view), fresh.sums(view), "incremental sums at ply {}", st.ply);
                }
                // The first layer against its definition: b1 plus the rows of board_inputs.
                let mut direct = net.b1.clone();
                board_inputs(&st, |i| add_row(&mut direct, &net.w1[i * net.h1..][..net.h1]));
                if net.reads_ratings() {
                    rating_inputs(&ratings, st.pos.turn(), |i| add_row(&mut direct, &net.w1[i * net.h1..][..net.h1]));
                }
                let direct: Vec<i16> = direct.into_iter().map(|x| x.clamp(0, 512) as i16).collect();
                assert_eq!(scalar.a, direct, "first layer at ply {}", st.ply);
                predictor.prepare(&st);
                let ctx = predictor.move_context(&st);
                let turn = st.pos.turn();
                let (mut a, mut b) = (Vec::new(), Vec::new());
                let best = scalar.logits(net, &ctx, &mut a);
                for o in &mut others {
                    assert_eq!((&scalar.c, &scalar.pc, &scalar.q), (&o.c, &o.pc, &o.q), "{:?} board tower at ply {}", o.simd, st.ply);
                    assert_eq!(o.logits(net, &ctx, &mut b), best, "{:?} best logit at ply {}", o.simd, st.ply);
                    assert_eq!(a, b, "{:?} logits at ply {}", o.simd, st.ply);
                }
                assert_eq!(best, a.iter().copied().max().unwrap_or(i32::MIN));
                for (i, &p) in predictor.moves().iter().enumerate() {
                    assert_eq!(a[i], defined_logit(net, &model.move_weights, &scalar, turn, p, &ctx, i), "move {i} at ply {}", st.ply);
                    promotion_captures += (p.promotion() != 0 && p.capture() != 0) as usize;
                }
                let played = predictor.index_of(m).expect("legal");
                predictor.observe(&mut st, played);
                st.play(*m);
                positions += 1;
            }
        }
        (scalar, positions, promotion_captures)
    }

    #[test]
    fn incremental_accumulator_matches_a_fresh_one_and_simd_matches_scalar() {
        let (state, positions, promotion_captures) = check_paths(&Network::random(64, 32, 32, 7), 200);
        assert!(positions > 10_000 && promotion_captures > 0, "{positions} positions, {promotion_captures} promotions with capture");
        // The random network is not degenerate: the board tower's outputs vary.
        assert!(state.c.iter().any(|&c| c > 0 && c < 512));
    }

    #[test]
    fn random_networks_of_odd_sizes_give_the_same_integers_on_every_path() {
        // Rows of 16 mod 32 values (h2 = 16, h1 = 48 and 80; the AVX-512 kernel's masked tail),
        // and every move-tower width.
        for (h1, h2, d, seed) in [(48, 16, 32, 3), (80, 48, 64, 5), (16, 16, 128, 9)] {
            let (_, positions, _) = check_paths(&Network::random(h1, h2, d, seed), 20);
            assert!(positions > 1000);
        }
    }

    #[test]
    fn the_network_files_give_the_same_integers_on_every_path() {
        // Version 5's level-2 network (h1 256, d 64) and version 6's wide one (h1 1024, d 128).
        for (name, bytes) in [
            ("models/v5/level2.net", &include_bytes!("../../../models/v5/level2.net")[..]),
            ("models/v6/search.net", &include_bytes!("../../../models/v6/search.net")[..]),
        ] {
            let net = Network::parse(name, bytes).expect("a released network");
            let (_, positions, _) = check_paths(&net, 30);
            assert!(positions > 1500, "{name}");
        }
    }

    #[test]
    fn the_released_networks_compute_their_logits_as_defined_on_every_path() {
        // Level 2's network, and version 6's two wider ones (level 3's; levels 4-9's).
        for level in [2, 3, 5] {
            let net = Model::builtin(Level::new(level).unwrap()).network.as_deref().expect("levels 2-9 have a network");
            let (_, positions, _) = check_paths(net, 60);
            assert!(positions > 3000);
        }
    }

    #[test]
    fn wide_networks_skip_the_zero_pairs_and_compute_the_same_integers() {
        // At least `SPARSE_FROM_H1` wide: the AVX2 path takes the sparse products (tiles of 64
        // rows, and of 16 for the 48 and 16 rows here), the scalar path the dense ones.
        for (h1, h2, d) in [(512, 48, 32), (1024, 256, 128), (512, 16, 64)] {
            let (state, positions, _) = check_paths(&Network::random(h1, h2, d, 11), 30);
            assert!(positions > 1500, "{positions} positions");
            assert!(state.a.chunks(2).any(|p| p == [0, 0]), "some pairs of the first layer are 0");
            assert!(state.c.iter().any(|&c| c > 0 && c < 512));
        }
    }

    #[test]
    fn a_network_whose_query_products_need_i64_computes_its_logits_as_defined() {
        // A random network of move-tower width 128 whose Gf and Gt rows are scaled up until the
        // query products' worst case passes i32 (as with model version 6's network).
        let mut net = Network::random(64, 32, 128, 11);
        net.gf.iter_mut().chain(net.gt.iter_mut()).for_each(|w| *w = w.saturating_mul(64));
        net.q.iter_mut().for_each(|w| *w = w.saturating_mul(8));
        let net = Network::parse("net", &net.to_bytes()).expect("accepted");
        assert!(net.wide_query);
        let (_, positions, _) = check_paths(&net, 40);
        assert!(positions > 2000);
    }

    #[test]
    fn a_network_whose_folded_rows_do_not_fit_i16_computes_its_logits_as_defined() {
        // One origin row whose sum with its `from.*` feature row passes `i16`: no move folds.
        let mut net = Network::random(64, 32, 32, 13);
        net.ef[0] = 30_000;
        net.f[move_layout::FROM_P * net.d] = 30_000;
        let net = Network::parse("net", &net.to_bytes()).expect("accepted");
        let (state, positions, _) = check_paths(&net, 40);
        assert!(!state.folds && state.from_rows.is_empty() && positions > 2000);
        // The released networks fold.
        let released = Model::builtin(Level::new(2).unwrap());
        let net = released.network.as_deref().expect("level 2 has a network");
        assert!(NetworkState::new(net, &released.move_weights).folds);
    }

    #[test]
    fn a_network_with_rating_inputs_adds_their_rows_and_without_ratings_is_the_same_network() {
        let rated = Network::random_with_inputs(RATED_BOARD_INPUTS, 64, 32, 32, 7);
        let (state, positions, _) = check_paths_rated(&rated, 60, true);
        assert!(positions > 3000 && state.c.iter().any(|&c| c > 0 && c < 512));
        let plain = Network::parse("net", &rated.to_bytes()).expect("a rated network file is accepted");
        assert!(plain.reads_ratings());
        // Without ratings its logits are those of the same network without the rating rows.
        let mut cut = rated.clone();
        cut.inputs = BOARD_INPUTS;
        cut.w1.truncate(BOARD_INPUTS * cut.h1);
        let cut = Network::parse("cut", &cut.to_bytes()).expect("a plain network");
        let model = Model::builtin(Level::new(2).unwrap()).clone();
        let mut predictor = Predictor::new(&model);
        let (mut a, mut b) = (NetworkState::new(&rated, &model.move_weights), NetworkState::new(&cut, &model.move_weights));
        let (mut with, mut without, mut differ) = (Vec::new(), Vec::new(), 0);
        for (g, game) in games(20).iter().enumerate() {
            let mut st = GameState::new();
            for m in &game.moves {
                predictor.prepare(&st);
                let ctx = predictor.move_context(&st);
                for (ratings, expect_same) in [(Ratings::default(), true), (test_ratings(g, true), false)] {
                    a.set_ratings(ratings);
                    a.prepare(&rated, &st);
                    b.prepare(&cut, &st);
                    a.logits(&rated, &ctx, &mut with);
                    b.logits(&cut, &ctx, &mut without);
                    if expect_same {
                        assert_eq!(with, without, "no ratings: the rating rows are never read");
                    } else {
                        differ += (with != without) as usize;
                    }
                }
                let played = predictor.index_of(m).expect("legal");
                predictor.observe(&mut st, played);
                st.play(*m);
            }
        }
        assert!(differ > 100, "ratings change the logits ({differ} plies)");
    }
}
