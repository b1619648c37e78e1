//! How the `roundtrip` fuzz target reads its input as settings and text; shared, by `#[path]`,
//! with the replay of its cases in tests/it/fuzz_cases.rs, so that a saved case means the same
//! in both.
//!
//! `[a, b, rest @ ..]`: `a % 8 + 1` lines per block; `b` below 128 gives blocks of `b + 1`
//! bytes, else the largest; bits 3-5 of `a` (1..=7) grow `rest` by repetition to the size next
//! to a boundary of the coders ([`BOUNDARIES`], plus `rest.len() % 7 - 3`), which libFuzzer's
//! own inputs (a few KB) never reach; bit 6 allows the raw form; bit 7 turns the archive's own
//! check off, so that the fuzzer sees the encoders' bugs and not only the fallback's. Shorter
//! inputs: the default settings at level 1.

use chesszip::CompressOptions;
use chesszip::container::MAX_BLOCK_TEXT;
use chesszip::container::raw::MAX_HELD;

/// Sizes next to which the readers and writers change buffers or forms: 64 KiB buffers, the
/// container's 16 KiB raw-form threshold, the 512 KiB probe, the 16 MiB held limit.
pub const BOUNDARIES: [usize; 7] = [16 << 10, 1 << 16, 1 << 17, 3 << 16, 512 << 10, MAX_HELD, MAX_HELD + (1 << 16)];

/// The settings and the text to compress of fuzz input `data`.
pub fn settings(data: &[u8]) -> (CompressOptions, Vec<u8>) {
    let [a, b, rest @ ..] = data else {
        return (CompressOptions { level: chesszip::Level::MIN, threads: 1, ..CompressOptions::default() }, data.to_vec());
    };
    let grow = (a >> 3) & 7;
    let text = if grow == 0 || rest.is_empty() {
        rest.to_vec()
    } else {
        let size = BOUNDARIES[grow as usize - 1] + rest.len() % 7 - 3;
        rest.iter().copied().cycle().take(size).collect()
    };
    let opts = CompressOptions {
        level: chesszip::Level::MIN,
        block_lines: 1 + (*a as u32 % 8),
        block_bytes: if *b < 128 { 1 + *b as usize } else { MAX_BLOCK_TEXT },
        threads: 1,
        format: None,
        raw_form: a & 0x40 != 0,
        verify: a & 0x80 == 0,
        weights: None,
    };
    (opts, text)
}
