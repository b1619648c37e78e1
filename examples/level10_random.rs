//! Writes the small random Chessformer of the level-10 tests (our own random weights, in the
//! teacher's ONNX layout): `tests/data/level10/random.onnx` and `random.onnx.data`.
//!
//! ```sh
//! cargo run --example level10_random -- tests/data/level10
//! ```

use chesszip::model::transformer::FloatModel;
use chesszip::model::transformer::weights::Shape;

/// The shape of the committed test model (about 200 KB).
const SHAPE: Shape = Shape { d: 32, heads: 4, blocks: 2, ffn: 64, hidden: 16, gen_inputs: 8, elo: 8 };

fn main() -> std::io::Result<()> {
    let dir = std::path::PathBuf::from(std::env::args().nth(1).unwrap_or_else(|| "tests/data/level10".into()));
    std::fs::create_dir_all(&dir)?;
    let (onnx, data) = FloatModel::random(10, SHAPE).to_onnx("random.onnx.data");
    std::fs::write(dir.join("random.onnx"), onnx)?;
    std::fs::write(dir.join("random.onnx.data"), data)?;
    Ok(())
}
