//! The learned move network: integer inference of a small two-tower network that adds a logit to
//! every legal move, on top of the linear model over the hand features
//! ([`super::features::move_layout`]).
//!
//! Architecture (float names as in `scripts/net/model.py`, which trains it):
//!
//! ```text
//! board tower, once per ply
//!   x  = active inputs of the position, seen from the mover          (BOARD_INPUTS sparse 0/1)
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
//! the move's hand features with values in units of 1/[`ONE`].
//!
//! Everything is integer, as in Stockfish's NNUE: i16 weights, i32 sums (the query's two dot
//! products in i64 where a network needs it), clipped ReLUs in fixed point, shifts that round
//! down. Fixed-point scales (a value `x` is stored as `x * 2^s`):
//!
//! | tensor | shape | scale |
//! | --- | --- | --- |
//! | `W1`, `b1` | `BOARD_INPUTS x h1`, `h1` | 2^9 (so `a` is in `0..=512`) |
//! | `W2`, `b2` | `h2 x h1`, `h2` | 2^12, 2^21 (`c` is in `0..=512` after `>> 12`) |
//! | `P`, `pb` | `d x h2`, `d` | 2^12, 2^21 (`pc` at 2^12 after `>> 9`) |
//! | `Q` | `d x h2` | 2^12 (`q` at 2^10 after `>> 11`) |
//! | `Ef`, `Et`, `F` | `384 x d`, `384 x d`, `hand x d` | 2^12 (`h` in `0..=4096`) |
//! | `Gf`, `Gt` | `384 x d` | 2^12 |
//! | `v` | `d` | 2^10 (`z` at 2^8 = [`LOGIT_ONE`] after `>> 14`) |
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
//! - the loops are written over plain slices so that the compiler vectorises them, and compiled a
//!   second time with AVX2 enabled, chosen at run time ([`Simd`]), where the dense layers of the
//!   board tower use hand-written AVX2 kernels (`vpmaddwd`, four rows per pass).
//!
//! Integer sums are exact in any order, so every path gives the same integers: a test compares
//! the scalar and AVX2 paths, and both with the logit computed as defined above.
//!
//! File format (`models/*/*.net`, little-endian): the magic `CZNET\0\0\x01`, six `u32` dimensions
//! (`BOARD_INPUTS`, `SQUARE_INPUTS`, `hand`, `h1`, `h2`, `d`), the tensors in the order of the
//! table above (`W1 b1 W2 b2 P pb Q Ef Et Gf Gt F v`; matrices row-major, i16 except the biases,
//! which are i32), then the CRC-32 of everything before it.

use shakmaty::{Bitboard, Color, EnPassantMode, Position, Role};

use super::features::{MoveContext, ONE, Sink, move_layout};
use super::game::GameState;
use super::params::fnv1a64;
use super::softmax::LOGIT_ONE;
use crate::chess::movegen::Packed;
use crate::error::Error;

/// Inputs of the board tower: 768 piece-square (own pieces pawn..king, then the opponent's,
/// 64 squares each), 4 castling rights (own king side, own queen side, opponent's king side,
/// queen side), 8 en-passant files, 64 destinations and 64 origins of the opponent's last move,
/// 64 destinations of the mover's own last move, 5 skill classes
/// ([`GameState::skill`]).
pub const BOARD_INPUTS: usize = 977;
/// First castling input.
const CASTLING: usize = 768;
/// First en-passant input.
const EP_FILE: usize = 772;
/// First input of the opponent's last destination.
const LAST_TO: usize = 780;
/// First input of the opponent's last origin.
const LAST_FROM: usize = 844;
/// First input of the mover's own last destination.
const OWN_LAST_TO: usize = 908;
/// First skill input.
const SKILL: usize = 972;
/// Rows of the move tower's square embeddings: `role * 64 + square`.
pub const SQUARE_INPUTS: usize = 384;

/// File magic of a network file.
pub const MAGIC: &[u8; 8] = b"CZNET\0\0\x01";

/// Largest accepted dimensions (a damaged file must not allocate without bound).
const MAX_H1: usize = 1024;
const MAX_H2: usize = 256;

/// More changed squares than this since the last position: recompute the accumulator.
const MAX_INCREMENTAL: u32 = 8;

/// `sq ^ flip(turn)` mirrors Black's squares vertically.
#[inline]
fn flip(turn: Color) -> usize {
    if turn.is_white() { 0 } else { 56 }
}

/// Piece-square input of a piece of colour `piece` and role `role` on `sq`, seen by
/// `perspective`.
#[inline]
pub fn piece_input(perspective: Color, piece: Color, role: Role, sq: usize) -> usize {
    let side = if piece == perspective { 0 } else { 6 };
    (side + role as usize - 1) * 64 + (sq ^ flip(perspective))
}

/// The inputs of `st` other than its pieces (castling, en passant, last moves, skill), seen by
/// the side to move, in increasing order.
pub fn state_inputs(st: &GameState, mut out: impl FnMut(usize)) {
    let pos = &st.pos;
    let us = pos.turn();
    let f = flip(us);
    let castles = pos.castles();
    for (k, (color, side)) in [
        (us, shakmaty::CastlingSide::KingSide),
        (us, shakmaty::CastlingSide::QueenSide),
        (!us, shakmaty::CastlingSide::KingSide),
        (!us, shakmaty::CastlingSide::QueenSide),
    ]
    .into_iter()
    .enumerate()
    {
        if castles.has(color, side) {
            out(CASTLING + k);
        }
    }
    if let Some(sq) = pos.ep_square(EnPassantMode::Legal) {
        out(EP_FILE + sq.file() as usize);
    }
    if let Some(m) = st.last {
        let p = Packed::of(&m);
        out(LAST_TO + (p.to() ^ f));
        out(LAST_FROM + (p.from() ^ f));
    }
    if let Some(m) = st.own_last {
        out(OWN_LAST_TO + (Packed::of(&m).to() ^ f));
    }
    out(SKILL + st.skill());
}

/// All board inputs of `st` (pieces, then [`state_inputs`]), seen by the side to move.
pub fn board_inputs(st: &GameState, mut out: impl FnMut(usize)) {
    let us = st.pos.turn();
    for (sq, piece) in st.pos.board().clone().into_iter() {
        out(piece_input(us, piece.color, piece.role, sq as usize));
    }
    state_inputs(st, out);
}

/// The move tower's square rows of move `p` for a mover of colour `turn`: `(from, to)`.
#[inline]
pub fn move_rows(p: Packed, turn: Color) -> (usize, usize) {
    let f = flip(turn);
    let role_to = if p.promotion() != 0 { p.promotion() - 1 } else { p.role() };
    (p.role() * 64 + (p.from() ^ f), role_to * 64 + (p.to() ^ f))
}

/// A move network's integer weights (see the module documentation for shapes and scales).
#[derive(Clone, PartialEq, Eq)]
pub struct Network {
    h1: usize,
    h2: usize,
    d: usize,
    w1: Vec<i16>,
    b1: Vec<i32>,
    w2: Vec<i16>,
    b2: Vec<i32>,
    p: Vec<i16>,
    pb: Vec<i32>,
    q: Vec<i16>,
    ef: Vec<i16>,
    et: Vec<i16>,
    gf: Vec<i16>,
    gt: Vec<i16>,
    f: Vec<i16>,
    v: Vec<i16>,
    hash: u64,
    /// Whether the query's dot products (`q . Gf`, `q . Gt`) could exceed `i32` in the worst
    /// case, so that the move tower sums them in `i64` ([`Network::check_bounds`]); the same
    /// integers either way wherever `i32` suffices.
    wide_query: bool,
}

impl std::fmt::Debug for Network {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Network {{ h1: {}, h2: {}, d: {}, hash: {:016x} }}", self.h1, self.h2, self.d, self.hash)
    }
}

/// Reads little-endian values from a byte slice.
struct Reader<'a> {
    bytes: &'a [u8],
    name: &'a str,
}

impl Reader<'_> {
    fn take(&mut self, n: usize) -> Result<&[u8], Error> {
        if self.bytes.len() < n {
            return Err(bad(self.name, "file is truncated"));
        }
        let (head, rest) = self.bytes.split_at(n);
        self.bytes = rest;
        Ok(head)
    }

    fn u32(&mut self) -> Result<usize, Error> {
        Ok(u32::from_le_bytes(self.take(4)?.try_into().expect("4 bytes")) as usize)
    }

    fn i16s(&mut self, n: usize) -> Result<Vec<i16>, Error> {
        Ok(self.take(n * 2)?.chunks_exact(2).map(|c| i16::from_le_bytes([c[0], c[1]])).collect())
    }

    fn i32s(&mut self, n: usize) -> Result<Vec<i32>, Error> {
        Ok(self.take(n * 4)?.chunks_exact(4).map(|c| i32::from_le_bytes(c.try_into().expect("4 bytes"))).collect())
    }
}

fn bad(name: &str, message: &str) -> Error {
    Error::Model { name: name.into(), line: 0, message: message.into() }
}

impl Network {
    /// Parses a network file (format in the module documentation); `name` appears in errors.
    ///
    /// # Errors
    /// [`Error::Model`] if the magic, the dimensions, the length or the checksum are wrong, or
    /// if the weights could overflow an `i32` sum that is not widened to `i64` (see
    /// [`Network::check_bounds`]).
    pub fn parse(name: &str, bytes: &[u8]) -> Result<Network, Error> {
        if bytes.len() < MAGIC.len() + 4 || &bytes[..MAGIC.len()] != MAGIC {
            return Err(bad(name, "not a chesszip network file"));
        }
        let (body, crc) = bytes.split_at(bytes.len() - 4);
        if crc32fast::hash(body) != u32::from_le_bytes(crc.try_into().expect("4 bytes")) {
            return Err(bad(name, "checksum mismatch"));
        }
        let mut r = Reader { bytes: &body[MAGIC.len()..], name };
        let dims = [r.u32()?, r.u32()?, r.u32()?, r.u32()?, r.u32()?, r.u32()?];
        let [inputs, squares, hand, h1, h2, d] = dims;
        if inputs != BOARD_INPUTS || squares != SQUARE_INPUTS || hand != move_layout::LEN {
            return Err(bad(name, "input dimensions do not match this build's features"));
        }
        let ok = |x: usize, max: usize| x > 0 && x <= max && x.is_multiple_of(16);
        if !ok(h1, MAX_H1) || !ok(h2, MAX_H2) || ![32, 64, 128].contains(&d) {
            return Err(bad(name, "layer sizes must be positive multiples of 16 within the limits, the move tower's 32, 64 or 128"));
        }
        let mut net = Network {
            h1,
            h2,
            d,
            w1: r.i16s(BOARD_INPUTS * h1)?,
            b1: r.i32s(h1)?,
            w2: r.i16s(h2 * h1)?,
            b2: r.i32s(h2)?,
            p: r.i16s(d * h2)?,
            pb: r.i32s(d)?,
            q: r.i16s(d * h2)?,
            ef: r.i16s(SQUARE_INPUTS * d)?,
            et: r.i16s(SQUARE_INPUTS * d)?,
            gf: r.i16s(SQUARE_INPUTS * d)?,
            gt: r.i16s(SQUARE_INPUTS * d)?,
            f: r.i16s(move_layout::LEN * d)?,
            v: r.i16s(d)?,
            hash: fnv1a64(bytes),
            wide_query: false,
        };
        if !r.bytes.is_empty() {
            return Err(bad(name, "trailing bytes"));
        }
        net.wide_query = net.check_bounds().map_err(|m| bad(name, &m))?;
        Ok(net)
    }

    /// Checks that no `i32` sum of the inference can overflow, for any position, and that the
    /// query fits `i16`: the first layer's sum of at most 64 active inputs, the second layer and
    /// the context projections with inputs at their clamp, a move's hidden sums with
    /// [`MAX_HAND`] hand features of value at most [`ONE`], and each of the logit's three dot
    /// products (`v . h`, `q . Gf`, `q . Gt`, summed in `i64`) with the hidden layer and the query
    /// at their largest. `v . h` must fit `i32`; the query's two may not, and then the move tower
    /// sums them in `i64` (the widened networks of model version 6, whose worst cases are 2.0x and 2.5x
    /// `i32::MAX`).
    ///
    /// Returns whether the query's dot products need `i64`.
    ///
    /// # Errors
    /// A message naming the layer whose worst case does not fit.
    pub fn check_bounds(&self) -> Result<bool, String> {
        const LIMIT: i64 = i32::MAX as i64 / 2;
        let (h1, h2, d) = (self.h1, self.h2, self.d);
        let col_max =
            |w: &[i16], rows: usize, cols: usize, j: usize| (0..rows).map(|i| w[i * cols + j].unsigned_abs() as i64).max().unwrap_or(0);
        for j in 0..h1 {
            if self.b1[j].unsigned_abs() as i64 + 64 * col_max(&self.w1, BOARD_INPUTS, h1, j) > LIMIT {
                return Err("first layer sums could overflow".into());
            }
        }
        let row_abs = |w: &[i16], cols: usize, i: usize| w[i * cols..][..cols].iter().map(|x| x.unsigned_abs() as i64).sum::<i64>();
        for k in 0..h2 {
            if self.b2[k].unsigned_abs() as i64 + 512 * row_abs(&self.w2, h1, k) > LIMIT {
                return Err("second layer sums could overflow".into());
            }
        }
        // Worst cases of the three dot products of a move's logit: v . h, q . Gf[from], q . Gt[to].
        let (mut zv, mut zf, mut zt) = (0, 0, 0);
        for i in 0..d {
            let pc = self.pb[i].unsigned_abs() as i64 + 512 * row_abs(&self.p, h2, i);
            // The shift floors: a negative query's magnitude can be one more than the sum's >> 11.
            let q = (512 * row_abs(&self.q, h2, i) + 2047) >> 11;
            if pc > LIMIT || q > i16::MAX as i64 {
                return Err("context projections could overflow".into());
            }
            let hand = ((col_max(&self.ef, SQUARE_INPUTS, d, i) + col_max(&self.et, SQUARE_INPUTS, d, i)) << 8)
                + MAX_HAND as i64 * ONE as i64 * col_max(&self.f, move_layout::LEN, d, i);
            if hand > LIMIT || (pc >> 9) + (hand >> 8) > LIMIT {
                return Err("move hidden sums could overflow".into());
            }
            zv += self.v[i].unsigned_abs() as i64 * 4096;
            zf += q * col_max(&self.gf, SQUARE_INPUTS, d, i);
            zt += q * col_max(&self.gt, SQUARE_INPUTS, d, i);
        }
        if zv > i32::MAX as i64 {
            return Err("move logit sums could overflow".into());
        }
        Ok(zf.max(zt) > i32::MAX as i64)
    }

    /// FNV-1a of the file's bytes: part of the id of a model that uses this network.
    pub fn hash(&self) -> u64 {
        self.hash
    }

    /// `(h1, h2, d)`: the widths of the board tower's layers and of the move tower.
    pub fn dims(&self) -> (usize, usize, usize) {
        (self.h1, self.h2, self.d)
    }

    /// The file bytes of this network (what [`Network::parse`] reads).
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut out = MAGIC.to_vec();
        for x in [BOARD_INPUTS, SQUARE_INPUTS, move_layout::LEN, self.h1, self.h2, self.d] {
            out.extend_from_slice(&(x as u32).to_le_bytes());
        }
        let i16s = |out: &mut Vec<u8>, w: &[i16]| w.iter().for_each(|x| out.extend_from_slice(&x.to_le_bytes()));
        let i32s = |out: &mut Vec<u8>, w: &[i32]| w.iter().for_each(|x| out.extend_from_slice(&x.to_le_bytes()));
        i16s(&mut out, &self.w1);
        i32s(&mut out, &self.b1);
        i16s(&mut out, &self.w2);
        i32s(&mut out, &self.b2);
        i16s(&mut out, &self.p);
        i32s(&mut out, &self.pb);
        i16s(&mut out, &self.q);
        for w in [&self.ef, &self.et, &self.gf, &self.gt, &self.f, &self.v] {
            i16s(&mut out, w);
        }
        let crc = crc32fast::hash(&out);
        out.extend_from_slice(&crc.to_le_bytes());
        out
    }

    /// A network with pseudo-random weights of moderate size (for tests and benchmarks).
    ///
    /// # Panics
    /// If the sizes are not ones [`Network::parse`] accepts.
    pub fn random(h1: usize, h2: usize, d: usize, seed: u64) -> Network {
        let ok = |x: usize, max: usize| x > 0 && x <= max && x.is_multiple_of(16);
        assert!(ok(h1, MAX_H1) && ok(h2, MAX_H2) && [32, 64, 128].contains(&d), "layer sizes {h1}, {h2}, {d}");
        let mut state = seed | 1;
        let mut next = move |range: i64| {
            // xorshift64*
            state ^= state >> 12;
            state ^= state << 25;
            state ^= state >> 27;
            let x = state.wrapping_mul(0x2545_f491_4f6c_dd1d) >> 33;
            (x as i64 % (2 * range + 1)) - range
        };
        let mut i16s = |n: usize, range: i64| (0..n).map(|_| next(range) as i16).collect::<Vec<_>>();
        let w1 = i16s(BOARD_INPUTS * h1, 200);
        let w2 = i16s(h2 * h1, 300);
        let p = i16s(d * h2, 400);
        let q = i16s(d * h2, 400);
        let ef = i16s(SQUARE_INPUTS * d, 2000);
        let et = i16s(SQUARE_INPUTS * d, 2000);
        let gf = i16s(SQUARE_INPUTS * d, 3000);
        let gt = i16s(SQUARE_INPUTS * d, 3000);
        let f = i16s(move_layout::LEN * d, 1500);
        let v = i16s(d, 1500);
        let b1 = i16s(h1, 200).into_iter().map(i32::from).collect();
        let b2 = i16s(h2, 1000).into_iter().map(|x| x as i32 * 512).collect();
        let pb = i16s(d, 1000).into_iter().map(|x| x as i32 * 512).collect();
        let mut net = Network { h1, h2, d, w1, b1, w2, b2, p, pb, q, ef, et, gf, gt, f, v, hash: 0, wide_query: false };
        net.wide_query = net.check_bounds().expect("random weights within the bounds");
        net.hash = fnv1a64(&net.to_bytes());
        net
    }
}

/// At most this many hand features are active for one move: in
/// [`super::features::MoveContext::features`], the two loss features and 8 others (origin,
/// destination, capture, recapture, promotion, check, same piece, distance), then 10 tactical
/// ones. [`Network::check_bounds`] relies on it; `Collect` checks it in debug builds (the
/// tests), since were it exceeded, the features dropped would depend on the move tower's
/// folding.
pub const MAX_HAND: usize = 20;

/// The first layer's piece-square sums of the current position, for both perspectives, and the
/// pieces they were computed for, so that the next position only adds and removes what changed.
#[derive(Clone)]
pub struct Accumulator {
    /// `[white's view, black's view]`, `h1` sums each, piece-square part of `W1` only.
    sums: [Vec<i32>; 2],
    /// The pieces summed: by colour (white, black) and role (pawn .. king).
    pieces: [[Bitboard; 6]; 2],
    valid: bool,
}

impl Accumulator {
    /// An empty accumulator for `net` (filled by the first [`Accumulator::update`]).
    pub fn new(net: &Network) -> Self {
        Accumulator { sums: [vec![0; net.h1], vec![0; net.h1]], pieces: [[Bitboard::EMPTY; 6]; 2], valid: false }
    }

    /// Brings the sums to the pieces of `board`: incrementally when few squares changed, else
    /// recomputed.
    pub fn update(&mut self, net: &Network, board: &shakmaty::Board) {
        let now: [[Bitboard; 6]; 2] = [Color::White, Color::Black].map(|c| Role::ALL.map(|r| board.by_piece(r.of(c))));
        let changed: u32 =
            (0..2).flat_map(|c| (0..6).map(move |r| (c, r))).map(|(c, r)| (now[c][r] ^ self.pieces[c][r]).count() as u32).sum();
        if !self.valid || changed > MAX_INCREMENTAL {
            for s in &mut self.sums {
                s.fill(0);
            }
            self.pieces = [[Bitboard::EMPTY; 6]; 2];
            self.valid = true;
        }
        for (c, color) in [Color::White, Color::Black].into_iter().enumerate() {
            for (r, role) in Role::ALL.into_iter().enumerate() {
                let (old, new) = (self.pieces[c][r], now[c][r]);
                for sq in old & !new {
                    for (view, s) in [Color::White, Color::Black].into_iter().zip(self.sums.iter_mut()) {
                        sub_row(s, &net.w1[piece_input(view, color, role, sq as usize) * net.h1..][..net.h1]);
                    }
                }
                for sq in new & !old {
                    for (view, s) in [Color::White, Color::Black].into_iter().zip(self.sums.iter_mut()) {
                        add_row(s, &net.w1[piece_input(view, color, role, sq as usize) * net.h1..][..net.h1]);
                    }
                }
            }
        }
        self.pieces = now;
    }

    /// The sums seen by `perspective`.
    pub fn sums(&self, perspective: Color) -> &[i32] {
        // Not `perspective as usize`: shakmaty numbers Black 0 and White 1.
        &self.sums[if perspective.is_white() { 0 } else { 1 }]
    }
}

#[inline(always)]
fn add_row(acc: &mut [i32], row: &[i16]) {
    for (a, &w) in acc.iter_mut().zip(row) {
        *a += w as i32;
    }
}

#[inline(always)]
fn sub_row(acc: &mut [i32], row: &[i16]) {
    for (a, &w) in acc.iter_mut().zip(row) {
        *a -= w as i32;
    }
}

/// `sum_j w[j] * x[j]` in i32: the widening multiply-add that processors do 16 at a time
/// (`pmaddwd`); [`Network::check_bounds`] guarantees the sums fit.
#[inline(always)]
fn dot16(w: &[i16], x: &[i16]) -> i32 {
    w.iter().zip(x).fold(0i32, |s, (&w, &x)| s.wrapping_add(w as i32 * x as i32))
}

/// `w . x` summed in `i64`: exact for any lengths up to 2^33, the same integer as [`dot16`]
/// wherever that fits.
#[inline]
fn dot16_i64(w: &[i16], x: &[i16]) -> i64 {
    w.iter().zip(x).map(|(&w, &x)| (w as i32 * x as i32) as i64).sum()
}

/// The hand features of one move: `(index, value)`, value in 1/[`ONE`].
type HandFeatures = arrayvec::ArrayVec<(u16, i16), MAX_HAND>;

/// Collects a move's hand features; without its origin and destination features (`from.*`,
/// `to.*`) when `folded`, whose rows [`NetworkState`] has folded into the square embeddings.
struct Collect<'a> {
    hand: &'a mut HandFeatures,
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
        // MAX_HAND is the most a move can have; were it ever exceeded, the encoder and the
        // decoder would drop the same feature, so coding stays exact (and nothing panics).
        debug_assert!(!self.hand.is_full(), "more than MAX_HAND hand features");
        let _ = self.hand.try_push((index as u16, value as i16));
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
    /// The linear model's weights over the hand features ([`move_layout::LEN`]).
    linear: Vec<i32>,
    /// The origin's rows folded together: `(Ef[r] + F[FROM_P + r]) << 8`, `384 x d`, so that
    /// a move's origin costs one row instead of two; `from_linear[r]` is the linear model's
    /// part, `linear[FROM_P + r] * ONE`.
    from_rows: Vec<i32>,
    from_linear: Vec<i64>,
    /// The destination's rows folded the same way, `(Et[r] + F[TO_P + r]) << 8`: valid for
    /// moves without promotion, whose `to(m)` row and `to.*` feature are the same.
    to_rows: Vec<i32>,
    to_linear: Vec<i64>,
    simd: Simd,
    /// [`Network::hash`] of the network the folded rows come from.
    net_hash: u64,
}

impl NetworkState {
    /// Scratch space for `net` and the linear model's weights `linear` (one per hand feature,
    /// [`move_layout::LEN`]), with the widest vector code the processor runs ([`Simd::best`]).
    /// Pass the same `net` to every later call.
    pub fn new(net: &Network, linear: &[i32]) -> Self {
        Self::with_simd(net, linear, Simd::best())
    }

    /// [`NetworkState::new`] with the code path `simd`, narrowed to what the processor runs.
    /// Every path computes the same integers.
    pub fn with_simd(net: &Network, linear: &[i32], simd: Simd) -> Self {
        assert_eq!(linear.len(), move_layout::LEN, "one linear weight per hand feature");
        let d = net.d;
        let fold = |e: &[i16], first: usize| -> Vec<i32> {
            (0..SQUARE_INPUTS * d).map(|i| (e[i] as i32 + net.f[first * d + i] as i32) << 8).collect()
        };
        let fold_linear = |first: usize| -> Vec<i64> { (0..SQUARE_INPUTS).map(|r| linear[first + r] as i64 * ONE as i64).collect() };
        NetworkState {
            linear: linear.to_vec(),
            from_rows: fold(&net.ef, move_layout::FROM_P),
            from_linear: fold_linear(move_layout::FROM_P),
            to_rows: fold(&net.et, move_layout::TO_P),
            to_linear: fold_linear(move_layout::TO_P),
            acc: Accumulator::new(net),
            sums: vec![0; net.h1],
            a: vec![0; net.h1],
            c: vec![0; net.h2],
            pc: vec![0; net.d],
            q: vec![0; net.d],
            dots: vec![0; net.h2.max(2 * net.d)],
            simd: simd.min(Simd::best()),
            net_hash: net.hash(),
        }
    }

    /// Runs the board tower on `st` (call once per ply, before [`NetworkState::logits`]).
    pub fn prepare(&mut self, net: &Network, st: &GameState) {
        debug_assert_eq!(net.hash(), self.net_hash, "the network the state was made for");
        self.acc.update(net, st.pos.board());
        match self.simd {
            // SAFETY: `simd` is never above `Simd::best()`, what the processor supports.
            #[cfg(target_arch = "x86_64")]
            Simd::Avx2 => unsafe { self.board_tower_avx2(net, st) },
            _ => self.board_tower(net, st),
        }
    }

    /// [`NetworkState::board_tower`] with the AVX2 kernels of [`x86`] for the clamp and the
    /// dense layers (the same integers).
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx2")]
    unsafe fn board_tower_avx2(&mut self, net: &Network, st: &GameState) {
        let (h1, h2) = (net.h1, net.h2);
        let acc = &mut self.sums[..h1];
        acc.copy_from_slice(self.acc.sums(st.pos.turn()));
        add_i32(acc, &net.b1);
        state_inputs(st, |i| add_row(acc, &net.w1[i * h1..][..h1]));
        // SAFETY (all three calls): the caller runs with AVX2, which is all the kernels need
        // (they assert their shapes, which `Network::parse` and `Network::random` ensure: h1
        // and h2 multiples of 16, d of 32).
        unsafe {
            x86::clamp_to_i16(acc, &mut self.a);
            x86::dense(&net.w2, &self.a, &mut self.dots[..h2]);
        }
        for (k, c) in self.c.iter_mut().enumerate() {
            *c = ((net.b2[k] + self.dots[k]) >> 12).clamp(0, 512) as i16;
        }
        let d = net.d;
        unsafe {
            x86::dense(&net.p, &self.c, &mut self.dots[..d]);
            x86::dense(&net.q, &self.c, &mut self.dots[d..2 * d]);
        }
        for i in 0..d {
            self.pc[i] = (net.pb[i] + self.dots[i]) >> 9;
            self.q[i] = (self.dots[d + i] >> 11) as i16;
        }
    }

    #[inline(always)]
    fn board_tower(&mut self, net: &Network, st: &GameState) {
        let h1 = net.h1;
        let acc = &mut self.sums[..h1];
        acc.copy_from_slice(self.acc.sums(st.pos.turn()));
        add_i32(acc, &net.b1);
        state_inputs(st, |i| add_row(acc, &net.w1[i * h1..][..h1]));
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
            Simd::Avx2 => unsafe { self.move_tower_avx2(net, turn, moves, ctx, out) },
            _ => self.move_tower(net, turn, moves, ctx, out),
        }
    }

    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx2")]
    unsafe fn move_tower_avx2(&self, net: &Network, turn: Color, moves: &[Packed], ctx: &MoveContext, out: &mut Vec<i32>) -> i32 {
        self.move_tower(net, turn, moves, ctx, out)
    }

    /// The move tower with the width as a constant, so that a move's sums stay in registers.
    #[inline(always)]
    fn move_tower(&self, net: &Network, turn: Color, moves: &[Packed], ctx: &MoveContext, out: &mut Vec<i32>) -> i32 {
        match net.d {
            32 => self.move_tower_d::<32>(net, turn, moves, ctx, out),
            64 => self.move_tower_d::<64>(net, turn, moves, ctx, out),
            _ => self.move_tower_d::<128>(net, turn, moves, ctx, out),
        }
    }

    #[inline(always)]
    fn move_tower_d<const D: usize>(&self, net: &Network, turn: Color, moves: &[Packed], ctx: &MoveContext, out: &mut Vec<i32>) -> i32 {
        let row = |w: &'_ [i16], r: usize| -> [i16; D] { w[r * D..][..D].try_into().expect("D columns") };
        let row32 = |w: &'_ [i32], r: usize| -> [i32; D] { w[r * D..][..D].try_into().expect("D columns") };
        let linear = &self.linear[..];
        let pc: &[i32; D] = self.pc[..D].try_into().expect("D");
        let q: &[i16; D] = self.q[..D].try_into().expect("D");
        let v: &[i16; D] = net.v[..D].try_into().expect("D");
        let mut best = i32::MIN;
        let mut hand = HandFeatures::new();
        for (i, &p) in moves.iter().enumerate() {
            let (from, to) = move_rows(p, turn);
            // Without promotion, `to.*`'s row is `to(m)`: both square pairs come folded.
            let folded = p.promotion() == 0;
            hand.clear();
            ctx.features(i, &mut Collect { hand: &mut hand, folded });
            let mut sum = [0i32; D];
            let mut lin: i64;
            if folded {
                let (fr, tr) = (row32(&self.from_rows, from), row32(&self.to_rows, to));
                for k in 0..D {
                    sum[k] = fr[k] + tr[k];
                }
                lin = self.from_linear[from] + self.to_linear[to];
            } else {
                let (ef, et) = (row(&net.ef, from), row(&net.et, to));
                for k in 0..D {
                    sum[k] = (ef[k] as i32 + et[k] as i32) << 8;
                }
                lin = 0;
            }
            for &(index, value) in &hand {
                let (index, value) = (index as usize, value as i32);
                lin += linear[index] as i64 * value as i64;
                let f: &[i16; D] = net.f[index * D..][..D].try_into().expect("D columns");
                if value == ONE {
                    // Most features: a shift instead of a multiplication.
                    for k in 0..D {
                        sum[k] += (f[k] as i32) << 8;
                    }
                } else {
                    for k in 0..D {
                        sum[k] += f[k] as i32 * value;
                    }
                }
            }
            // The linear model's logit, as `features::Dot::logit` computes it.
            let linear_logit = (lin >> 8).clamp(i32::MIN as i64 / 2, i32::MAX as i64 / 2);
            let mut hidden = [0i16; D];
            for k in 0..D {
                hidden[k] = (pc[k] + (sum[k] >> 8)).clamp(0, 4096) as i16;
            }
            // `v . h` fits i32 (`check_bounds`), the query's two products too unless
            // `wide_query`, when they are summed in i64; the three are added in i64. For a network
            // whose three sums together fit i32 (every network of model version 2) this is the
            // same integer as an i32 sum.
            let (gf, gt) = (row(&net.gf, from), row(&net.gt, to));
            let zq = if net.wide_query { dot16_i64(q, &gf) + dot16_i64(q, &gt) } else { dot16(q, &gf) as i64 + dot16(q, &gt) as i64 };
            let z = dot16(v, &hidden) as i64 + zq;
            debug_assert_eq!(LOGIT_ONE, 256);
            let logit = (linear_logit + (z >> 14)).clamp(i32::MIN as i64 / 2, i32::MAX as i64 / 2) as i32;
            best = best.max(logit);
            out.push(logit);
        }
        best
    }
}

#[inline(always)]
fn add_i32(acc: &mut [i32], x: &[i32]) {
    for (a, &b) in acc.iter_mut().zip(x) {
        *a += b;
    }
}

#[cfg(target_arch = "x86_64")]
mod x86;

/// The vector instructions a [`NetworkState`] uses, ordered from none to the widest. All paths
/// compute the same integers (integer sums are exact in any order); a test compares them.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Simd {
    /// Portable code (what the compiler vectorises for the build's baseline target).
    Scalar,
    /// x86-64 AVX2: 256-bit vectors, hand-written kernels for the dense layers.
    Avx2,
}

impl Simd {
    /// The widest path this processor runs.
    pub fn best() -> Simd {
        #[cfg(target_arch = "x86_64")]
        {
            if std::arch::is_x86_feature_detected!("avx2") {
                return Simd::Avx2;
            }
        }
        Simd::Scalar
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{Level, Model, Predictor};
    use crate::text::parse_game;

    /// The first `n` games of the benchmark file bundled in the repository.
    fn games(n: usize) -> Vec<crate::text::Game> {
        include_str!("../../data/Chess_Games.txt").lines().take(n).map(|l| parse_game(l.as_bytes()).expect("a game")).collect()
    }

    /// A move's logit as the module's doc defines it, without the folded square rows: every
    /// hand feature (origin and destination included) through `F`, sums in i64.
    fn defined_logit(net: &Network, linear: &[i32], state: &NetworkState, turn: Color, p: Packed, ctx: &MoveContext, i: usize) -> i32 {
        let d = net.d;
        let mut hand = HandFeatures::new();
        ctx.features(i, &mut Collect { hand: &mut hand, folded: false });
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

    /// Runs `net` over the first `n` benchmark games with the scalar and the fastest path,
    /// checking at every ply: the incremental first layer against a fresh one and against its
    /// definition, both paths' board towers and logits against each other, and every logit
    /// against [`defined_logit`]. Returns the last scalar state and the number of positions and
    /// of promotions with capture seen.
    fn check_paths(net: &Network, n: usize) -> (NetworkState, usize, usize) {
        let model = Model::builtin(Level::new(2).unwrap()).clone();
        let mut predictor = Predictor::new(&model);
        let (mut scalar, mut simd) = (
            NetworkState::with_simd(net, &model.move_weights, Simd::Scalar),
            NetworkState::with_simd(net, &model.move_weights, Simd::best()),
        );
        let (mut positions, mut promotion_captures) = (0, 0);
        for game in games(n) {
            let mut st = GameState::new();
            for m in &game.moves {
                let mut fresh = Accumulator::new(net);
                fresh.update(net, st.pos.board());
                scalar.prepare(net, &st);
                simd.prepare(net, &st);
                for view in [Color::White, Color::Black] {
                    assert_eq!(scalar.acc.sums(view), fresh.sums(view), "incremental sums at ply {}", st.ply);
                }
                // The first layer against its definition: b1 plus the rows of board_inputs.
                let mut direct = net.b1.clone();
                board_inputs(&st, |i| add_row(&mut direct, &net.w1[i * net.h1..][..net.h1]));
                let direct: Vec<i16> = direct.into_iter().map(|x| x.clamp(0, 512) as i16).collect();
                assert_eq!(scalar.a, direct, "first layer at ply {}", st.ply);
                assert_eq!((&scalar.c, &scalar.pc, &scalar.q), (&simd.c, &simd.pc, &simd.q));
                predictor.prepare(&st);
                let ctx = predictor.move_context(&st);
                let turn = st.pos.turn();
                let (mut a, mut b) = (Vec::new(), Vec::new());
                let best = scalar.logits(net, &ctx, &mut a);
                simd.logits(net, &ctx, &mut b);
                assert_eq!(a, b);
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
    fn the_released_networks_compute_their_logits_as_defined_on_every_path() {
        // Level 2's network, and version 6's two wider ones (level 3's; levels 4-9's).
        for level in [2, 3, 5] {
            let net = Model::builtin(Level::new(level).unwrap()).network.as_deref().expect("levels 2-9 have a network");
            let (_, positions, _) = check_paths(net, 60);
            assert!(positions > 3000);
        }
    }

    #[test]
    fn file_round_trips_and_damage_is_rejected() {
        let net = Network::random(32, 16, 32, 3);
        let bytes = net.to_bytes();
        assert_eq!(Network::parse("net", &bytes).unwrap(), net);
        for at in [0, 9, 40, bytes.len() / 2, bytes.len() - 1] {
            let mut bad = bytes.clone();
            bad[at] ^= 0x10;
            assert!(Network::parse("net", &bad).is_err(), "flip at {at}");
        }
        assert!(Network::parse("net", &bytes[..bytes.len() - 5]).is_err());
        assert!(Network::parse("net", b"CZNET").is_err());
        // A valid checksum around impossible dimensions.
        let mut huge = bytes[..MAGIC.len() + 24].to_vec();
        huge[MAGIC.len() + 12..MAGIC.len() + 16].copy_from_slice(&(1u32 << 20).to_le_bytes());
        let crc = crc32fast::hash(&huge);
        huge.extend_from_slice(&crc.to_le_bytes());
        let err = Network::parse("net", &huge).unwrap_err().to_string();
        assert!(err.contains("layer sizes"), "{err}");
    }

    #[test]
    fn weights_that_could_overflow_are_rejected() {
        let mut net = Network::random(32, 16, 32, 5);
        net.w2.iter_mut().for_each(|w| *w = i16::MAX);
        net.b2.iter_mut().for_each(|b| *b = i32::MAX / 2);
        let err = Network::parse("net", &net.to_bytes()).unwrap_err().to_string();
        assert!(err.contains("second layer"), "{err}");
    }

    #[test]
    fn v_dot_h_must_fit_i32_the_query_products_are_summed_in_i64_where_they_might_not() {
        // Q at 1024 everywhere puts every query at its bound (512 * 16 * 1024) >> 11 = 4096, so
        // that q . Gf[from] is at most 32 * 4096 * |Gf|, and so is q . Gt[to].
        let mut net = Network::random(32, 16, 32, 5);
        net.q.iter_mut().for_each(|w| *w = 1024);
        // 1.29e9 each: both fit i32, their sum (2.58e9) does not; the logit sums them in i64.
        net.gf.iter_mut().for_each(|w| *w = 9830);
        net.gt.iter_mut().for_each(|w| *w = -9830);
        assert!(!Network::parse("net", &net.to_bytes()).expect("fits").wide_query);
        // 2.6e9: q . Gf alone could exceed i32, so both query products are summed in i64.
        net.gf.iter_mut().for_each(|w| *w = 20000);
        assert!(Network::parse("net", &net.to_bytes()).expect("accepted").wide_query);
        // v . h at its bound: 32 * 4096 * 32767 = 4.3e9 does not fit i32.
        net.v.iter_mut().for_each(|w| *w = i16::MAX);
        let err = Network::parse("net", &net.to_bytes()).unwrap_err().to_string();
        assert!(err.contains("move logit"), "{err}");
    }

    #[test]
    fn the_i64_dot_product_is_exact_where_i32_would_wrap() {
        let max = [i16::MAX; 128];
        let min = [i16::MIN; 128];
        assert_eq!(dot16_i64(&max, &max), 128 * 32767 * 32767);
        assert_eq!(dot16_i64(&min, &max), -128 * 32768 * 32767);
        assert!(dot16_i64(&max, &max) > i32::MAX as i64);
        // Where the sum fits i32, both give the same integer.
        let (w, x): (Vec<i16>, Vec<i16>) = (0..128).map(|i| ((i * 37 % 200) as i16 - 100, (i * 91 % 4097) as i16)).unzip();
        assert_eq!(dot16(&w, &x) as i64, dot16_i64(&w, &x));
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
}
