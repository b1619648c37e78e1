//! A context-mixing model of short texts (tag values, comment shapes, odd whitespace): each
//! bit of a byte is predicted by several adaptive models under different contexts (the
//! string's class alone, with the position in the string, and with the previous one, two and
//! three bytes), and the predictions are combined by a small online logistic mixer, as in
//! lpaq. Players' names, opening names or FENs share words and fragments that an order-1 model
//! cannot see.
//!
//! Everything is integer arithmetic (the squash table is lpaq's integer interpolation), so the
//! encoder and decoder agree on every machine.

use std::collections::HashMap;

use super::cdf::{Cdf, TOTAL};
use super::coder::SymbolCoder;
use crate::error::Error;

/// Number of context models mixed.
const INPUTS: usize = 5;
/// Weight sets of the mixer per bit position, selected by the string class.
const CLASS_SETS: usize = 16;
/// Mixer weights' fixed-point one.
const W_ONE: i32 = 1 << 16;
/// Probabilities are 12-bit; the range coder gets them scaled to 24 bits.
const P_BITS: u32 = 12;

/// `4096 / (1 + e^-x/256)` for `x` in -2047..=2047, by interpolation of a fixed table.
fn squash(d: i32) -> i32 {
    const T: [i32; 33] = [
        1, 2, 3, 6, 10, 16, 27, 45, 73, 120, 194, 310, 488, 747, 1101, 1546, 2047, 2549, 2994, 3348, 3607, 3785, 3901, 3975, 4022, 4050,
        4068, 4079, 4085, 4089, 4092, 4093, 4094,
    ];
    if d > 2047 {
        return 4095;
    }
    if d < -2047 {
        return 1;
    }
    let w = d & 127;
    let i = ((d >> 7) + 16) as usize;
    (T[i] * (128 - w) + T[i + 1] * w + 64) >> 7
}

/// The inverse of [`squash`], as a table over 12-bit probabilities.
fn stretch_table() -> Vec<i16> {
    let mut t = vec![2047i16; 4096];
    let mut pi = 0;
    for x in -2047..=2047 {
        let v = squash(x) as usize;
        for slot in t.iter_mut().take(v + 1).skip(pi) {
            *slot = x as i16;
        }
        pi = pi.max(v + 1);
    }
    t
}

/// Observations after which a [`Counter`] stops slowing down.
const COUNT_LIMIT: u32 = 255;

/// A 22-bit probability and an observation count packed in a `u32` (count in the low 10
/// bits); it adapts like a frequency count at first, then at rate 1/[`COUNT_LIMIT`].
#[derive(Clone, Copy)]
struct Counter(u32);

impl Default for Counter {
    fn default() -> Self {
        Counter(1 << 31)
    }
}

impl Counter {
    /// The 12-bit probability.
    fn p(self) -> i32 {
        (self.0 >> 20) as i32
    }

    fn update(&mut self, bit: bool) {
        let n = (self.0 & 1023) as i64;
        let p = (self.0 >> 10) as i64;
        let target: i64 = if bit { (1 << 22) - 1 } else { 0 };
        let p = (p + (target - p) * 2 / (2 * n + 3)).clamp(1 << 10, (1 << 22) - (1 << 10));
        self.0 = (p as u32) << 10 | (n as u32 + 1).min(COUNT_LIMIT);
    }
}

/// A hasher of keys that are hashes already ([`key`]): one multiply and a shift (SipHash,
/// the default, was a tenth of reading tags). Only speed depends on it: slots are numbered
/// in the order their keys first occur.
#[derive(Default)]
struct KeyHasher(u64);

impl std::hash::Hasher for KeyHasher {
    fn finish(&self) -> u64 {
        let x = self.0.wrapping_mul(0x9e37_79b9_7f4a_7c15);
        x ^ (x >> 29)
    }

    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = self.0.rotate_left(8) ^ b as u64;
        }
    }

    fn write_u64(&mut self, v: u64) {
        self.0 = v;
    }
}

/// The text model of one block.
pub struct TextModel {
    index: HashMap<u64, usize, std::hash::BuildHasherDefault<KeyHasher>>,
    /// A nibble's binary tree (nodes 1..16) per context and half byte.
    slots: Vec<[Counter; 16]>,
    weights: Vec<i32>,
    stretch: Vec<i16>,
}

impl std::fmt::Debug for TextModel {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TextModel").field("contexts", &self.slots.len()).finish()
    }
}

impl Default for TextModel {
    fn default() -> Self {
        Self::new()
    }
}

/// FNV-1a style mixing of context parts into a slot key.
fn key(parts: &[u64]) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for &p in parts {
        h = (h ^ p).wrapping_mul(0x0000_0100_0000_01b3);
    }
    h
}

impl TextModel {
    /// A fresh model.
    pub fn new() -> Self {
        TextModel {
            index: HashMap::default(),
            slots: Vec::new(),
            weights: vec![W_ONE / 3; CLASS_SETS * 8 * INPUTS],
            stretch: stretch_table(),
        }
    }

    /// Codes the bytes of `s` (its length is coded by the caller) in `class`; when decoding,
    /// `s` must already have its length and is overwritten.
    ///
    /// # Errors
    /// As [`SymbolCoder::code`].
    pub fn code<C: SymbolCoder>(&mut self, c: &mut C, class: u32, s: &mut [u8]) -> Result<(), Error> {
        let class = class as u64;
        for i in 0..s.len() {
            let b1 = if i >= 1 { s[i - 1] as u64 } else { 256 };
            let b2 = if i >= 2 { s[i - 2] as u64 } else { 256 };
            let b3 = if i >= 3 { s[i - 3] as u64 } else { 256 };
            let keys = [
                key(&[0, class]),
                key(&[1, class, (i as u64).min(24)]),
                key(&[2, class, b1]),
                key(&[3, class, b1, b2]),
                key(&[4, class, b1, b2, b3]),
            ];
            let mut byte = s[i];
            let set = (class.wrapping_mul(0x9e37_79b9_7f4a_7c15) >> 60) as usize % CLASS_SETS;
            self.code_byte(c, &keys, set, &mut byte)?;
            s[i] = byte;
        }
        Ok(())
    }

    /// The slots of `keys` for the high nibble (`high` = None) or the low one.
    fn slots_for(&mut self, keys: &[u64; INPUTS], high: Option<usize>) -> [usize; INPUTS] {
        let mut slot = [0usize; INPUTS];
        for (j, &k) in keys.iter().enumerate() {
            let k = match high {
                None => k,
                Some(h) => key(&[k, 16 + h as u64]),
            };
            let next = self.slots.len();
            slot[j] = *self.index.entry(k).or_insert(next);
            if slot[j] == next {
                self.slots.push([Counter::default(); 16]);
            }
        }
        slot
    }

    fn code_byte<C: SymbolCoder>(&mut self, c: &mut C, keys: &[u64; INPUTS], set: usize, byte: &mut u8) -> Result<(), Error> {
        let mut high = 0;
        for half in 0..2 {
            let slot = self.slots_for(keys, (half == 1).then_some(high));
            let mut node = 1usize;
            for k in 0..4 {
                let bit_index = 7 - (4 * half + k);
                let mut st = [0i32; INPUTS];
                for (j, &sl) in slot.iter().enumerate() {
                    st[j] = self.stretch[self.slots[sl][node].p() as usize] as i32;
                }
                let at = (set * 8 + 7 - bit_index) * INPUTS;
                let w = &mut self.weights[at..at + INPUTS];
                let dot: i64 = st.iter().zip(w.iter()).map(|(&s, &w)| s as i64 * w as i64).sum();
                let p = squash((dot >> 16).clamp(-2047, 2047) as i32).clamp(1, 4095) as u32;
                let f1 = p << (24 - P_BITS);
                let cum = [0, TOTAL - f1, TOTAL];
                let mut sym = ((*byte >> bit_index) & 1) as usize;
                c.code(Cdf::new(&cum), &mut sym)?;
                let bit = sym == 1;
                let err = ((bit as i32) << P_BITS) - p as i32;
                for (wj, &s) in w.iter_mut().zip(&st) {
                    *wj += (s * err) >> 11;
                }
                for &sl in &slot {
                    self.slots[sl][node].update(bit);
                }
                node = node << 1 | bit as usize;
            }
            if half == 0 {
                high = node - 16;
            } else {
                *byte = (high << 4 | (node - 16)) as u8;
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::entropy::range::{Decoder, Encoder};

    #[test]
    fn squash_and_stretch_are_inverse() {
        let t = stretch_table();
        for p in (16..4080).step_by(16) {
            assert!((squash(t[p] as i32) - p as i32).abs() <= 1 + p as i32 / 64, "{p}");
        }
        assert!((squash(0) - 2048).abs() <= 1);
    }

    #[test]
    fn texts_round_trip_and_learn() {
        let texts: Vec<&[u8]> =
            vec![b"Sicilian defence", b"Sicilian defence, Najdorf variation", b"", b"\xff\x00\x80", b"Sicilian defence, Dragon variation"];
        let mut enc = Encoder::new();
        enc.measure = true;
        let mut m = TextModel::new();
        let mut bits = Vec::new();
        for t in &texts {
            let before = enc.bits;
            m.code(&mut enc, 7, &mut t.to_vec()).unwrap();
            bits.push(enc.bits - before);
        }
        assert!(bits[4] < bits[1], "{bits:?}");
        let bytes = enc.finish();
        let mut dec = Decoder::new(&bytes).unwrap();
        let mut m = TextModel::new();
        for t in &texts {
            let mut out = vec![0; t.len()];
            m.code(&mut dec, 7, &mut out).unwrap();
            assert_eq!(&out, t);
        }
    }
}
