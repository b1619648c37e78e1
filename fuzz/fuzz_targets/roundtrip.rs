//! Arbitrary bytes compressed at level 1 expand to themselves, in every form the archive can
//! take; the first bytes choose the settings and can grow the input to megabytes (see
//! fuzz/roundtrip_input.rs).
#![no_main]

use libfuzzer_sys::fuzz_target;

#[path = "../roundtrip_input.rs"]
mod roundtrip_input;

fuzz_target!(|data: &[u8]| {
    let (opts, input) = roundtrip_input::settings(data);
    let archive = chesszip::compress_bytes(&input, &opts);
    let back = chesszip::expand_bytes(&archive, &chesszip::ExpandOptions { threads: 1, ..Default::default() })
        .expect("own archive expands");
    assert!(back == input, "round trip differs");
});
