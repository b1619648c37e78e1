//! The integration tests: one test binary (linked once), a module per concern, sharing the
//! helpers of [`common`]. Run one module with `cargo test --test it MODULE::`.

mod bom;
mod cli;
#[cfg(unix)]
mod cli_robust;
mod common;
mod compressed_input;
mod concat;
mod damage;
mod dups;
mod extract_games;
mod fuzz_cases;
mod golden;
mod hostile;
mod info_games;
mod input_kinds;
mod layers;
mod limits;
mod notation;
mod other_notations;
mod pgn_corrupt;
mod pgn_dups;
mod pgn_facts;
mod pgn_predicted;
mod pgn_roundtrip;
mod pgn_streams;
mod pgn_tags;
mod properties;
mod random_access;
mod raw_form;
mod reference;
mod round_trip_real;
mod salvage;
mod search;
mod self_check;
mod transformer;
mod tune_outcome;
mod tune_trace;
