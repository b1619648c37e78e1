//! Small adaptive models built from binary decisions, in the style of LZMA's coders: an
//! adaptive bit ([`Bit`]), symbols as bit trees ([`BitTree`]), integers as a length class plus
//! mantissa bits ([`NumberModel`], [`SignedModel`]), and strings ([`StringModel`]: a length
//! and the bytes under [`TextModel`]).
//!
//! Every probability is an integer updated by integer arithmetic, so encoder and decoder stay
//! identical. Coding one binary decision costs a table of three `u32`s on the stack, which
//! keeps the per-symbol cost far below [`super::adaptive::AdaptiveModel`]'s for the many
//! near-certain decisions of a PGN file (the PGN format codes tags, clocks, comments and layout
//! with them) (a space after a move, a move number where expected).

use super::cdf::{Cdf, TOTAL};
use super::coder::SymbolCoder;
use super::text::TextModel;
use crate::error::Error;

/// Probability scale of [`Bit`]: probabilities are multiples of 2^-16.
const ONE: i32 = 1 << 16;
/// Smallest probability a [`Bit`] gives either outcome, in 2^-16 (an unexpected outcome costs
/// at most 12 bits; a certain one about 0.0004 bits).
const P_MIN: i32 = 16;
/// Adaptation stops slowing down after this many observations (then the rate is 1/(LIMIT+2)).
const LIMIT: u8 = 30;

/// An adaptive binary decision: the probability of `true` moves towards each observed value,
/// fast at first (close to counting) and then at a fixed rate.
#[derive(Clone, Copy, Debug)]
pub struct Bit {
    /// P(true) in 2^-16.
    p: u16,
    /// Observations so far, saturating at [`LIMIT`].
    n: u8,
}

impl Default for Bit {
    fn default() -> Self {
        Bit { p: 1 << 15, n: 0 }
    }
}

impl Bit {
    /// Information content of `bit` under the current probability, in bits.
    pub fn cost(&self, bit: bool) -> f64 {
        let p1 = (self.p as i32).clamp(P_MIN, ONE - P_MIN) as f64 / ONE as f64;
        -(if bit { p1 } else { 1.0 - p1 }).log2()
    }

    /// Codes `*bit` (encoder) or decodes it (decoder), then adapts.
    ///
    /// # Errors
    /// As [`SymbolCoder::code`].
    #[inline]
    pub fn code<C: SymbolCoder>(&mut self, c: &mut C, bit: &mut bool) -> Result<(), Error> {
        let f1 = ((self.p as i32).clamp(P_MIN, ONE - P_MIN) as u32) << 8;
        let cum = [0, TOTAL - f1, TOTAL];
        let mut s = *bit as usize;
        c.code(Cdf::new(&cum), &mut s)?;
        *bit = s == 1;
        self.update(*bit);
        Ok(())
    }

    /// Codes a bit given by value; returns it (convenient when the caller has no variable).
    ///
    /// # Errors
    /// As [`SymbolCoder::code`].
    #[inline]
    pub(crate) fn code_value<C: SymbolCoder>(&mut self, c: &mut C, bit: bool) -> Result<bool, Error> {
        let mut b = bit;
        self.code(c, &mut b)?;
        Ok(b)
    }

    /// Adapts to one observation.
    #[inline]
    pub fn update(&mut self, bit: bool) {
        let target = if bit { ONE - 1 } else { 0 };
        let p = self.p as i32;
        let p = p + (target - p) / (self.n as i32 + 2);
        self.p = p.clamp(0, ONE - 1) as u16;
        if self.n < LIMIT {
            self.n += 1;
        }
    }
}

/// An adaptive symbol in `0..2^depth`, coded most significant bit first with one [`Bit`] per
/// tree node. The nodes are allocated when the tree first codes a symbol: a block may hold
/// many models that never code anything (one per PGN tag name), and memory must follow what
/// the stream codes, not what it names.
#[derive(Clone, Debug)]
pub struct BitTree {
    nodes: Vec<Bit>,
    depth: u32,
}

/// `bits[i]`, grown with fresh [`Bit`]s (which every model starts from) if it is not there yet:
/// a model's tables grow with the values it has coded, so memory follows the stream.
#[inline]
fn grown(bits: &mut Vec<Bit>, i: usize) -> &mut Bit {
    if i >= bits.len() {
        bits.resize(i + 1, Bit::default());
    }
    &mut bits[i]
}

impl BitTree {
    /// A tree for symbols below `2^depth` (`depth` at most 16).
    pub fn new(depth: u32) -> Self {
        assert!(depth <= 16);
        BitTree { nodes: Vec::new(), depth }
    }

    /// Codes `*symbol` (which must be below `2^depth` when encoding).
    ///
    /// # Errors
    /// As [`SymbolCoder::code`].
    pub fn code<C: SymbolCoder>(&mut self, c: &mut C, symbol: &mut usize) -> Result<(), Error> {
        debug_assert!(c.decoding() || *symbol < 1 << self.depth);
        if self.nodes.is_empty() {
            self.nodes = vec![Bit::default(); 1 << self.depth];
        }
        let mut node = 1usize;
        for i in (0..self.depth).rev() {
            let mut b = (*symbol >> i) & 1 == 1;
            self.nodes[node].code(c, &mut b)?;
            node = node << 1 | b as usize;
        }
        *symbol = node - (1 << self.depth);
        Ok(())
    }
}

/// Mantissa bits below the leading one that get a context of their own (the rest share one
/// [`Bit`] per position).
const TOP_BITS: u32 = 3;

/// An adaptive model of unsigned integers: the bit length of `v + 1` as a [`BitTree`], then
/// the bits below the leading one, the first three of them in the context of the length
/// and the bits above them. Its tables grow with the longest value coded, so that memory
/// follows what the stream codes.
#[derive(Clone, Debug)]
pub struct NumberModel {
    length: BitTree,
    top: Vec<Bit>,
    low: Vec<Bit>,
}

impl Default for NumberModel {
    fn default() -> Self {
        Self::new()
    }
}

impl NumberModel {
    /// A fresh model.
    pub fn new() -> Self {
        NumberModel { length: BitTree::new(6), top: Vec::new(), low: Vec::new() }
    }

    /// Codes `*v` (any `u64` below `u64::MAX`).
    ///
    /// # Errors
    /// As [`SymbolCoder::code`].
    pub fn code<C: SymbolCoder>(&mut self, c: &mut C, v: &mut u64) -> Result<(), Error> {
        let n = v.wrapping_add(1);
        let mut k = if c.decoding() { 0 } else { 63 - n.leading_zeros() as usize };
        self.length.code(c, &mut k)?;
        let mut acc: u64 = 1;
        for i in (0..k).rev() {
            let mut b = (n >> i) & 1 == 1;
            let above = (k - 1 - i) as u32;
            let bit = if above < TOP_BITS {
                // `acc` (the leading one and the bits so far) is the node of a prefix tree.
                grown(&mut self.top, k << TOP_BITS | acc as usize)
            } else {
                grown(&mut self.low, i)
            };
            bit.code(c, &mut b)?;
            acc = acc << 1 | b as u64;
        }
        *v = acc.wrapping_sub(1);
        Ok(())
    }

    /// Codes a value given by value and returns it.
    ///
    /// # Errors
    /// As [`SymbolCoder::code`].
    pub(crate) fn code_value<C: SymbolCoder>(&mut self, c: &mut C, v: u64) -> Result<u64, Error> {
        let mut x = v;
        self.code(c, &mut x)?;
        Ok(x)
    }
}

/// Signed integers: the magnitude with a [`NumberModel`], then the sign (when not zero) in
/// the context of the magnitude's bit length.
#[derive(Clone, Debug)]
pub struct SignedModel {
    magnitude: NumberModel,
    sign: Vec<Bit>,
}

impl Default for SignedModel {
    fn default() -> Self {
        Self::new()
    }
}

impl SignedModel {
    /// A fresh model.
    pub fn new() -> Self {
        SignedModel { magnitude: NumberModel::new(), sign: Vec::new() }
    }

    /// Codes `*v` (magnitude below `u64::MAX`).
    ///
    /// # Errors
    /// As [`SymbolCoder::code`].
    pub fn code<C: SymbolCoder>(&mut self, c: &mut C, v: &mut i64) -> Result<(), Error> {
        let mut m = v.unsigned_abs();
        self.magnitude.code(c, &mut m)?;
        if m == 0 {
            *v = 0;
            return Ok(());
        }
        let class = 64 - m.leading_zeros() as usize;
        let mut negative = *v < 0;
        grown(&mut self.sign, class).code(c, &mut negative)?;
        let m = i64::try_from(m).map_err(|_| Error::Corrupt("number out of range".into()))?;
        *v = if negative { -m } else { m };
        Ok(())
    }

    /// Codes a value given by value and returns it.
    ///
    /// # Errors
    /// As [`SymbolCoder::code`].
    pub(crate) fn code_value<C: SymbolCoder>(&mut self, c: &mut C, v: i64) -> Result<i64, Error> {
        let mut x = v;
        self.code(c, &mut x)?;
        Ok(x)
    }
}

/// Byte strings: the length with a [`NumberModel`] per class, then the bytes with the
/// context-mixing [`TextModel`].
#[derive(Debug, Default)]
pub struct StringModel {
    lengths: std::collections::HashMap<u32, NumberModel>,
    bytes: TextModel,
}

impl StringModel {
    /// A fresh model.
    pub fn new() -> Self {
        Self::default()
    }

    /// Codes `s` in `class`. When decoding, `s` is replaced; `limit` bounds the decoded length.
    ///
    /// # Errors
    /// As [`SymbolCoder::code`]; [`Error::Corrupt`] if a decoded length exceeds `limit`.
    pub fn code<C: SymbolCoder>(&mut self, c: &mut C, class: u32, s: &mut Vec<u8>, limit: usize) -> Result<(), Error> {
        let len = self.lengths.entry(class).or_default().code_value(c, s.len() as u64)?;
        if c.decoding() {
            if len > limit as u64 {
                return Err(Error::Corrupt("string longer than the block".into()));
            }
            s.clear();
            s.resize(len as usize, 0);
        }
        self.bytes.code(c, class, s)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::entropy::range::{Decoder, Encoder};

    #[test]
    fn models_round_trip() {
        let numbers: Vec<u64> = (0..500).map(|i| (i * i * 7919) % 100_003).chain([0, 1, u64::MAX - 1, 1 << 40]).collect();
        let signed: Vec<i64> = (0..300).map(|i| (i as i64 - 150) * (i as i64 % 7)).chain([i64::MIN + 1, i64::MAX]).collect();
        let strings: Vec<Vec<u8>> =
            ["", "a", "https://lichess.org/abcdefgh", "german11", "\u{ff}\0x"].iter().map(|s| s.as_bytes().to_vec()).collect();

        let mut enc = Encoder::new();
        let (mut nm, mut sm, mut st, mut bt, mut bit) =
            (NumberModel::new(), SignedModel::new(), StringModel::new(), BitTree::new(3), Bit::default());
        for &n in &numbers {
            nm.code_value(&mut enc, n).unwrap();
        }
        for &s in &signed {
            sm.code_value(&mut enc, s).unwrap();
        }
        for (i, s) in strings.iter().enumerate() {
            st.code(&mut enc, i as u32 % 2, &mut s.clone(), 1000).unwrap();
        }
        for i in 0..100usize {
            bt.code(&mut enc, &mut (i % 8)).unwrap();
            bit.code_value(&mut enc, i % 5 == 0).unwrap();
        }
        let bytes = enc.finish();

        let mut dec = Decoder::new(&bytes).unwrap();
        let (mut nm, mut sm, mut st, mut bt, mut bit) =
            (NumberModel::new(), SignedModel::new(), StringModel::new(), BitTree::new(3), Bit::default());
        for &n in &numbers {
            assert_eq!(nm.code_value(&mut dec, 0).unwrap(), n);
        }
        for &s in &signed {
            assert_eq!(sm.code_value(&mut dec, 0).unwrap(), s);
        }
        for (i, s) in strings.iter().enumerate() {
            let mut out = Vec::new();
            st.code(&mut dec, i as u32 % 2, &mut out, 1000).unwrap();
            assert_eq!(&out, s);
        }
        for i in 0..100usize {
            let mut s = 0;
            bt.code(&mut dec, &mut s).unwrap();
            assert_eq!(s, i % 8);
            assert_eq!(bit.code_value(&mut dec, false).unwrap(), i % 5 == 0);
        }
    }

    #[test]
    fn certain_decisions_become_cheap() {
        let mut bit = Bit::default();
        for _ in 0..1000 {
            bit.update(true);
        }
        assert!(bit.cost(true) < 0.001);
        assert!(bit.cost(false) <= 12.0);
    }
}
