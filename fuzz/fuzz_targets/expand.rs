//! Arbitrary bytes given to every archive reader: errors are fine, panics are not.
#![no_main]

use std::io::Cursor;

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let _ = chesszip::expand_bytes(data, &chesszip::ExpandOptions { threads: 1, ..Default::default() });
    let _ = chesszip::info(Cursor::new(data));
    let _ = chesszip::extract_lines(Cursor::new(data), 1..=3, std::io::sink(), 1);
});
