//! A move network's integer weights ([`Network`]): its file format (parsed and written), the
//! bounds that keep every `i32` sum of the inference exact, and random networks for tests.

use super::inputs::{BOARD_INPUTS, MAX_HAND, RATED_BOARD_INPUTS, SQUARE_INPUTS};
use super::sparse::pair_columns;
use crate::error::Error;
use crate::model::features::{ONE, move_layout};
use crate::model::params::fnv1a64;

/// File magic of a network file.
pub const MAGIC: &[u8; 8] = b"CZNET\0\0\x01";

/// Largest accepted dimensions (a damaged file must not allocate without bound).
const MAX_H1: usize = 1024;
const MAX_H2: usize = 256;

/// A move network's integer weights (see the module documentation for shapes and scales).
#[derive(Clone, PartialEq, Eq)]
pub struct Network {
    /// Board inputs: [`BOARD_INPUTS`], or [`RATED_BOARD_INPUTS`] for a board tower that also
    /// reads the players' ratings (no release has one yet: docs/notes-ratings.md).
    pub(super) inputs: usize,
    pub(super) h1: usize,
    pub(super) h2: usize,
    pub(super) d: usize,
    pub(super) w1: Vec<i16>,
    pub(super) b1: Vec<i32>,
    pub(super) w2: Vec<i16>,
    /// `W2` with its columns in pairs ([`pair_columns`], `(h1 / 2) x h2 x 2`), for the sparse
    /// product of the AVX2 path; derived from `w2` when the network is made, not stored in its file.
    pub(super) w2_pairs: Vec<i16>,
    pub(super) b2: Vec<i32>,
    /// `P` and `Q` stacked (`2d x h2`, `P`'s rows first) with their columns in pairs
    /// ([`pair_columns`]), derived from `p` and `q` like `w2_pairs`.
    pub(super) pq_pairs: Vec<i16>,
    pub(super) p: Vec<i16>,
    pub(super) pb: Vec<i32>,
    pub(super) q: Vec<i16>,
    pub(super) ef: Vec<i16>,
    pub(super) et: Vec<i16>,
    pub(super) gf: Vec<i16>,
    pub(super) gt: Vec<i16>,
    pub(super) f: Vec<i16>,
    pub(super) v: Vec<i16>,
    pub(super) hash: u64,
    /// Whether the query's dot products (`q . Gf`, `q . Gt`) could exceed `i32` in the worst
    /// case, so that the move tower sums them in `i64` ([`Network::check_bounds`]); the same
    /// integers either way wherever `i32` suffices.
    pub(super) wide_query: bool,
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
        if ![BOARD_INPUTS, RATED_BOARD_INPUTS].contains(&inputs) || squares != SQUARE_INPUTS || hand != move_layout::LEN {
            return Err(bad(name, "input dimensions do not match this build's features"));
        }
        let ok = |x: usize, max: usize| x > 0 && x <= max && x.is_multiple_of(16);
        if !ok(h1, MAX_H1) || !ok(h2, MAX_H2) || ![32, 64, 128].contains(&d) {
            return Err(bad(name, "layer sizes must be positive multiples of 16 within the limits, the move tower's 32, 64 or 128"));
        }
        let mut net = Network {
            inputs,
            h1,
            h2,
            d,
            w1: r.i16s(inputs * h1)?,
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
            w2_pairs: Vec::new(),
            pq_pairs: Vec::new(),
        };
        (net.w2_pairs, net.pq_pairs) = (pair_columns(&net.w2, h2, h1), pair_columns(&[&net.p[..], &net.q[..]].concat(), 2 * d, h2));
        if !r.bytes.is_empty() {
            return Err(bad(name, "trailing bytes"));
        }
        net.wide_query = net.check_bounds().map_err(|m| bad(name, &m))?;
        Ok(net)
    }

    /// Checks that no `i32` sum of the inference can overflow, for any position, and that the
    /// query fits `i16`: the first layer's sum of at most 64 active inputs (41 board inputs and
    /// 3 rating inputs at most), the second layer and
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
            if self.b1[j].unsigned_abs() as i64 + 64 * col_max(&self.w1, self.inputs, h1, j) > LIMIT {
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

    /// Whether the board tower reads the players' ratings ([`RATED_BOARD_INPUTS`] inputs,
    /// [`super::rating_inputs`]).
    pub fn reads_ratings(&self) -> bool {
        self.inputs == RATED_BOARD_INPUTS
    }

    /// `(h1, h2, d)`: the widths of the board tower's layers and of the move tower.
    pub fn dims(&self) -> (usize, usize, usize) {
        (self.h1, self.h2, self.d)
    }

    /// The file bytes of this network (what [`Network::parse`] reads).
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut out = MAGIC.to_vec();
        for x in [self.inputs, SQUARE_INPUTS, move_layout::LEN, self.h1, self.h2, self.d] {
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
        Network::random_with_inputs(BOARD_INPUTS, h1, h2, d, seed)
    }

    /// [`Network::random`] with `inputs` board inputs ([`BOARD_INPUTS`] or
    /// [`RATED_BOARD_INPUTS`]).
    ///
    /// # Panics
    /// As [`Network::random`], or for another input count.
    pub fn random_with_inputs(inputs: usize, h1: usize, h2: usize, d: usize, seed: u64) -> Network {
        assert!([BOARD_INPUTS, RATED_BOARD_INPUTS].contains(&inputs), "{inputs} board inputs");
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
        let w1 = i16s(inputs * h1, 200);
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
        let w2_pairs = pair_columns(&w2, h2, h1);
        let pq_pairs = pair_columns(&[&p[..], &q[..]].concat(), 2 * d, h2);
        let mut net =
            Network { inputs, h1, h2, d, w1, b1, w2, w2_pairs, b2, pq_pairs, p, pb, q, ef, et, gf, gt, f, v, hash: 0, wide_query: false };
        net.wide_query = net.check_bounds().expect("random weights within the bounds");
        net.hash = fnv1a64(&net.to_bytes());
        net
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
}
