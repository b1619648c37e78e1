//! Arbitrary bytes compressed at level 1 expand to themselves. The first two bytes choose the
//! block sizes, so that cuts inside lines are explored too.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let (opts, input) = match data {
        [a, b, rest @ ..] => (
            chesszip::CompressOptions {
                level: 1,
                block_lines: 1 + (*a as u32 % 8),
                raw_form: false,
                block_bytes: if *b < 128 {
                    1 + *b as usize
                } else {
                    chesszip::container::MAX_BLOCK_TEXT
                },
                threads: 1,
                format: None,
            },
            rest,
        ),
        _ => (
            chesszip::CompressOptions {
                level: 1,
                threads: 1,
                ..Default::default()
            },
            data,
        ),
    };
    let archive = chesszip::compress_bytes(input, &opts);
    let back = chesszip::expand_bytes(&archive, &chesszip::ExpandOptions { threads: 1 })
        .expect("own archive expands");
    assert!(back == input, "round trip differs");
});
