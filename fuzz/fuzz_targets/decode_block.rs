//! Arbitrary streams fed straight to the block decoder, bypassing the checksums that keep
//! damaged data away from it in an archive: it must stop with an error or within its bounds,
//! never panic or run away.
#![no_main]

use chesszip::container::{Coding, EncodedBlock};
use chesszip::movetext::block::decode_block;
use chesszip::model::Model;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let [lines, len, split, rest @ ..] = data else {
        return;
    };
    // The high bit picks the coding: archives of both must decode safely.
    let coding = if *lines & 0x80 != 0 { Coding::First } else { Coding::NEWEST };
    let lines = 1 + *lines as u64 % 16;
    let max_len = *len as usize * 16;
    let split = (*split as usize * 4).min(rest.len() / 4 * 4);
    let block = EncodedBlock {
        range: rest[..split].to_vec(),
        raw: rest[split..].to_vec(),
    };
    let mut out = Vec::new();
    if decode_block(Model::builtin(chesszip::Level::MIN), coding, &block, lines, max_len, &mut out).is_ok() {
        assert!(out.len() <= max_len, "decoded past the limit");
    }
});
