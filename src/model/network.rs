//! The learned move network: integer inference of a small two-tower network that adds a logit to
//! every legal move, on top of the linear model over the hand features
//! ([`super::features::move_layout`]).
//!
//! Architecture (float names as in `scripts/net/model.py`, which trains it):
//!
//! ```text
//! board tower, once per ply
//!   x  = active inputs of the position, seen from the mover          (BOARD_INPUTS sparse 0/1; or
//!        RATED_BOARD_INPUTS: then also the players' ratings, rating_inputs)
//!   a  = clamp(b1 + sum_{i in x} W1[i], 0, 1)                        (h1)   first layer, "accumulator"
//!   c  = clamp(W2 a + b2, 0, 1)                                      (h2)
//!   pc = P c + pb                                                     (d)    the context's bias of each move's hidden layer
//!   q  = Q c                                                          (d)    the context's query
//! move tower, per legal move m
//!   h  = clamp(pc + Ef[from(m)] + Et[to(m)] + F^T hand(m), 0, 1)      (d)
//!   z  = v . h + q . (Gf[from(m)] + Gt[to(m)])                        logit in nats
//! ```
//!
//! `from(m)` is `role * 64 + origin`, `to(m)` is `role after promotion * 64 + destination` (the
//! king's destination for castling), squares mirrored vertically when Black moves. `hand(m)` are
//! the move's hand features with values in units of 1/[`ONE`](super::features::ONE).
//!
//! Everything is integer, as in Stockfish's NNUE: i16 weights, i32 sums (the query's two dot
//! products in i64 where a network needs it), clipped ReLUs in fixed point, shifts that round
//! down. Fixed-point scales (a value `x` is stored as `x * 2^s`):
//!
//! | tensor | shape | scale |
//! | --- | --- | --- |
//! | `W1`, `b1` | `inputs x h1`, `h1` (`inputs`: `BOARD_INPUTS`, 977, or `RATED_BOARD_INPUTS`, 1022, [`Network::reads_ratings`]) | 2^9 (so `a` is in `0..=512`) |
//! | `W2`, `b2` | `h2 x h1`, `h2` | 2^12, 2^21 (`c` is in `0..=512` after `>> 12`) |
//! | `P`, `pb` | `d x h2`, `d` | 2^12, 2^21 (`pc` at 2^12 after `>> 9`) |
//! | `Q` | `d x h2` | 2^12 (`q` at 2^10 after `>> 11`) |
//! | `Ef`, `Et`, `F` | `384 x d`, `384 x d`, `hand x d` | 2^12 (`h` in `0..=4096`) |
//! | `Gf`, `Gt` | `384 x d` | 2^12 |
//! | `v` | `d` | 2^10 (`z` at 2^8 = [`LOGIT_ONE`](super::softmax::LOGIT_ONE) after `>> 14`) |
//!
//! The first layer is kept up to date incrementally along the games of a block
//! ([`Accumulator`]): the piece-square part of `W1` is summed per perspective and only the
//! squares that changed since the last position are added or removed.
//!
//! Two rewrites of these sums that give the same integers make it fast:
//! - the origin's and destination's hand features (`from.*`, `to.*`) index the same rows as
//!   `Ef` and `Et`, so [`NetworkState`] folds each pair into one table of i32 rows
//!   (`(Ef[r] + F[from.P + r]) << 8`) and the move tower skips those two features (moves with
//!   promotion, whose `to.*` row differs from `to(m)`, take the unfolded path);
//! - the loops are written over plain slices so that the compiler vectorises them, and compiled
//!   again with AVX2 and with AVX-512 (F, BW, VL, VNNI) enabled, chosen at run time ([`Simd`], the
//!   crate's one choice: the best the processor has, or what `CHESSZIP_SIMD` asks for), where the
//!   dense layers of the board tower use hand-written kernels (AVX2 `vpmaddwd`, four rows per
//!   pass; AVX-512 VNNI `vpdpwssd`, sixteen);
//! - on the AVX2 and AVX-512 paths, in the wide networks of levels 3-9, the layers after a
//!   clipped ReLU (`W2 a`, `P c` and `Q c`) skip the pairs of inputs that are 0 (most of them),
//!   reading the weights column pair by column pair (`sparse.rs`, AVX2 kernels on both paths).
//!
//! Integer sums are exact (and wrap the same way) in any order, so every path gives the same
//! integers: a test compares each path up to the best with the scalar one, and the scalar one
//! with the logit computed as defined above.
//!
//! File format (`models/*/*.net`, little-endian): the magic `CZNET\0\0\x01`, six `u32` dimensions
//! (`inputs`, `SQUARE_INPUTS`, `hand`, `h1`, `h2`, `d`), the tensors in the order of the
//! table above (`W1 b1 W2 b2 P pb Q Ef Et Gf Gt F v`; matrices row-major, i16 except the biases,
//! which are i32), then the CRC-32 of everything before it.
//!
//! One concern per file, bottom to top: the inputs of both towers (`inputs.rs`), the portable
//! integer loops (`kernels.rs`), the AVX2 and AVX-512 kernels (`x86.rs`) and the sparse second
//! layer (`sparse.rs`); the weights and their file (`weights.rs`); the incremental first layer
//! (`accumulator.rs`); the inference (`state.rs`, whose paths the crate's [`Simd`] chooses).

mod accumulator;
mod inputs;
mod kernels;
mod sparse;
mod state;
mod weights;
#[cfg(target_arch = "x86_64")]
mod x86;

pub use crate::simd::Simd;
pub use accumulator::Accumulator;
pub use inputs::{
    BOARD_INPUTS, MAX_HAND, RATED_BOARD_INPUTS, RATING_BUCKETS, RATING_INPUTS, SQUARE_INPUTS, board_inputs, move_rows, rating_inputs,
    state_inputs,
};
pub use state::NetworkState;
pub use weights::{MAGIC, Network};
