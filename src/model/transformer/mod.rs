//! Level 10's predictor: a Chessformer (the Maia3 family's transformer) read from the user's
//! ONNX file and evaluated in integer arithmetic, so that encoder and decoder compute the same
//! logits on every machine.
//!
//! - [`onnx`]: the ONNX protobuf messages (prost) and the initializers' data, inline or external;
//! - [`weights`]: the float weights found by walking the graph, and a float reference forward;
//! - [`int`]: the weights quantised when loaded, and the integer forward pass;
//! - [`tokens`]: positions and moves as the model sees them.
//!
//! The architecture is described in `docs/notes-level10.md`.

pub mod int;
pub mod onnx;
pub mod pinned;
pub mod simd;
pub mod tokens;
pub mod weights;

pub use int::IntModel;
pub use pinned::{TRANSFORMER_LEVEL, Weights};
pub use weights::FloatModel;
