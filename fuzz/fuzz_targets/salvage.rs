//! The same bytes salvaged as a file (`expand_salvage`) and as a stream read in chunks
//! (`expand_salvage_stream`): no panic, the same outcome, and what `expand_bytes` gives where
//! it succeeds.
//! The input's layout and the checks: fuzz/salvage_check.rs, shared with `tests/it/fuzz_cases.rs`,
//! which replays the seeds and findings.
#![no_main]

use libfuzzer_sys::fuzz_target;

#[path = "../salvage_check.rs"]
mod salvage_check;

fuzz_target!(|data: &[u8]| salvage_check::check(data));
