//! Arbitrary bytes as level 10's weights file (the ONNX protobuf; its external data is read
//! from `tests/data/level10/`, so a mutated seed can still reach the small random model's
//! `random.onnx.data`): the loader returns an error or a Chessformer whose integer forward pass
//! runs; it never panics, hangs or allocates beyond its caps. Seed: `tests/data/level10/random.onnx`.
//! `tests/it/transformer.rs` (`hostile_weights_files_are_errors_or_models_never_panics`) runs
//! seeded mutations of the same kind in CI.
#![no_main]

use std::path::Path;

use chesszip::model::transformer::int::Recipe;
use chesszip::model::transformer::onnx::Graph;
use chesszip::model::transformer::weights::{PLANES, TOKENS};
use chesszip::model::transformer::{FloatModel, IntModel};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let dir = Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../tests/data/level10"));
    let Ok(graph) = Graph::decode(data, dir) else {
        return;
    };
    let Ok(float) = FloatModel::from_graph(&graph) else {
        return;
    };
    let model = IntModel::with_recipe(&float, Recipe(1));
    let planes = vec![0u8; TOKENS * PLANES];
    let _ = model.forward(&planes, 1500, 1500);
});
