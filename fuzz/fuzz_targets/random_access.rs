//! Random access to arbitrary bytes (`Games`, `Games::seek`, `extract_games_with`,
//! `count_games_with`, `GameTags`), some runs under small limits: no panic, and where
//! `expand_bytes` succeeds, games that give back its text and respect the limits.
//! The input's layout and the checks: fuzz/random_access_check.rs, shared with `tests/it/fuzz_cases.rs`,
//! which replays the seeds and findings.
#![no_main]

use libfuzzer_sys::fuzz_target;

#[path = "../random_access_check.rs"]
mod random_access_check;

fuzz_target!(|data: &[u8]| random_access_check::check(data));
