//! Reading an ONNX model file: the few protobuf messages of `onnx.proto3` that a Chessformer
//! needs (graph, nodes, attributes, initializers), declared with `prost`'s derive macros at the
//! field numbers of the ONNX schema, and the initializers' float data, inline or in an external
//! data file beside the model (`location`, `offset`, `length`, as `torch.onnx` writes them).
//!
//! Only what the loader reads is declared: protobuf skips unknown fields, so the rest of the
//! file (doc strings, value infos, metadata) costs nothing and cannot fail.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use prost::Message;

use crate::error::Error;

/// `ModelProto`.
#[derive(Clone, PartialEq, Message)]
pub struct ModelProto {
    /// `ir_version` (1).
    #[prost(int64, tag = "1")]
    pub ir_version: i64,
    /// `producer_name` (2).
    #[prost(string, tag = "2")]
    pub producer_name: String,
    /// `graph` (7).
    #[prost(message, optional, tag = "7")]
    pub graph: Option<GraphProto>,
}

/// `GraphProto`.
#[derive(Clone, PartialEq, Message)]
pub struct GraphProto {
    /// `node` (1), in topological order.
    #[prost(message, repeated, tag = "1")]
    pub node: Vec<NodeProto>,
    /// `initializer` (5): the weights.
    #[prost(message, repeated, tag = "5")]
    pub initializer: Vec<TensorProto>,
    /// `input` (11).
    #[prost(message, repeated, tag = "11")]
    pub input: Vec<ValueInfoProto>,
    /// `output` (12).
    #[prost(message, repeated, tag = "12")]
    pub output: Vec<ValueInfoProto>,
}

/// `ValueInfoProto` (only its name).
#[derive(Clone, PartialEq, Message)]
pub struct ValueInfoProto {
    /// `name` (1).
    #[prost(string, tag = "1")]
    pub name: String,
}

/// `NodeProto`.
#[derive(Clone, PartialEq, Message)]
pub struct NodeProto {
    /// `input` (1).
    #[prost(string, repeated, tag = "1")]
    pub input: Vec<String>,
    /// `output` (2).
    #[prost(string, repeated, tag = "2")]
    pub output: Vec<String>,
    /// `name` (3).
    #[prost(string, tag = "3")]
    pub name: String,
    /// `op_type` (4).
    #[prost(string, tag = "4")]
    pub op_type: String,
    /// `attribute` (5).
    #[prost(message, repeated, tag = "5")]
    pub attribute: Vec<AttributeProto>,
}

/// `AttributeProto` (scalars and lists; tensors and graphs are not read).
#[derive(Clone, PartialEq, Message)]
pub struct AttributeProto {
    /// `name` (1).
    #[prost(string, tag = "1")]
    pub name: String,
    /// `f` (2).
    #[prost(float, tag = "2")]
    pub f: f32,
    /// `i` (3).
    #[prost(int64, tag = "3")]
    pub i: i64,
    /// `floats` (7).
    #[prost(float, repeated, tag = "7")]
    pub floats: Vec<f32>,
    /// `ints` (8).
    #[prost(int64, repeated, tag = "8")]
    pub ints: Vec<i64>,
}

/// `StringStringEntryProto`.
#[derive(Clone, PartialEq, Message)]
pub struct StringStringEntryProto {
    /// `key` (1).
    #[prost(string, tag = "1")]
    pub key: String,
    /// `value` (2).
    #[prost(string, tag = "2")]
    pub value: String,
}

/// `TensorProto`.
#[derive(Clone, PartialEq, Message)]
pub struct TensorProto {
    /// `dims` (1).
    #[prost(int64, repeated, tag = "1")]
    pub dims: Vec<i64>,
    /// `data_type` (2): 1 float, 7 int64.
    #[prost(int32, tag = "2")]
    pub data_type: i32,
    /// `float_data` (4).
    #[prost(float, repeated, tag = "4")]
    pub float_data: Vec<f32>,
    /// `int64_data` (7).
    #[prost(int64, repeated, tag = "7")]
    pub int64_data: Vec<i64>,
    /// `name` (8).
    #[prost(string, tag = "8")]
    pub name: String,
    /// `raw_data` (9): little-endian values.
    #[prost(bytes = "vec", tag = "9")]
    pub raw_data: Vec<u8>,
    /// `external_data` (13).
    #[prost(message, repeated, tag = "13")]
    pub external_data: Vec<StringStringEntryProto>,
    /// `data_location` (14): 0 default (inline), 1 external.
    #[prost(int32, tag = "14")]
    pub data_location: i32,
}

/// ONNX `TensorProto.DataType.FLOAT`.
pub const FLOAT: i32 = 1;
/// ONNX `TensorProto.DataType.INT64`.
pub const INT64: i32 = 7;

/// Largest model file accepted (a Maia3 graph is about 1 MB besides its external data).
const MAX_MODEL_BYTES: u64 = 1 << 30;

/// Largest float magnitude accepted in a tensor (NaN and infinities are refused too): Maia3-5M's
/// largest is 5,000 (a constant of the Elo input); the quantiser's fixed-point scales assume
/// finite, moderate values, so anything beyond is a damaged file.
pub const MAX_FLOAT: f32 = (1 << 20) as f32;

/// A tensor's values, read from the file.
#[derive(Clone, Debug, PartialEq)]
pub enum Data {
    /// 32-bit floats.
    F32(Vec<f32>),
    /// 64-bit integers (shapes, indices).
    I64(Vec<i64>),
}

/// An initializer with its values.
#[derive(Clone, Debug, PartialEq)]
pub struct Tensor {
    /// Its dimensions.
    pub dims: Vec<usize>,
    /// Its values, row-major.
    pub data: Data,
}

impl Tensor {
    /// The float values, or an error naming the tensor.
    pub fn f32s(&self, name: &str) -> Result<&[f32], String> {
        match &self.data {
            Data::F32(v) => Ok(v),
            Data::I64(_) => Err(format!("tensor {name} is int64, expected float")),
        }
    }

    /// The int64 values, or an error naming the tensor.
    pub fn i64s(&self, name: &str) -> Result<&[i64], String> {
        match &self.data {
            Data::I64(v) => Ok(v),
            Data::F32(_) => Err(format!("tensor {name} is float, expected int64")),
        }
    }
}

/// An ONNX graph read from a file: its nodes in order and its initializers by name.
#[derive(Clone, Debug)]
pub struct Graph {
    /// The nodes, in the file's (topological) order.
    pub nodes: Vec<NodeProto>,
    /// The initializers, with their data.
    pub tensors: HashMap<String, Tensor>,
    /// The external data files the initializers name, in the order they are first named.
    pub externals: Vec<String>,
}

fn err(path: &Path, message: impl Into<String>) -> Error {
    Error::Model { name: path.display().to_string(), line: 0, message: message.into() }
}

impl Graph {
    /// Reads `path` and the external data files its initializers name (relative to its folder).
    pub fn read(path: &Path) -> Result<Graph, Error> {
        let meta = std::fs::metadata(path).map_err(|e| err(path, format!("cannot read the weights file: {e}")))?;
        if meta.len() > MAX_MODEL_BYTES {
            return Err(err(path, "not an ONNX model: file too large"));
        }
        let bytes = std::fs::read(path).map_err(|e| err(path, format!("cannot read the weights file: {e}")))?;
        let dir = path.parent().map(Path::to_path_buf).unwrap_or_default();
        Graph::decode(&bytes, &dir).map_err(|m| err(path, m))
    }

    /// Decodes a model's bytes; external data is read from files in `dir`.
    pub fn decode(bytes: &[u8], dir: &Path) -> Result<Graph, String> {
        let model = ModelProto::decode(bytes).map_err(|e| format!("not an ONNX model: {e}"))?;
        let graph = model.graph.ok_or("not an ONNX model: no graph")?;
        let mut files: HashMap<String, Vec<u8>> = HashMap::new();
        let mut tensors = HashMap::new();
        let mut externals = Vec::new();
        for t in graph.initializer {
            let tensor = read_tensor(&t, dir, &mut files)?;
            if files.len() > externals.len() {
                let location = t.external_data.iter().find(|e| e.key == "location").map(|e| e.value.clone());
                externals.extend(location);
            }
            tensors.insert(t.name, tensor);
        }
        Ok(Graph { nodes: graph.node, tensors, externals })
    }

    /// The initializer `name`, if the graph has it.
    pub fn tensor(&self, name: &str) -> Option<&Tensor> {
        self.tensors.get(name)
    }
}

/// The external data file `location`, relative to `dir`, refusing paths that leave it.
fn external_path(dir: &Path, location: &str) -> Result<PathBuf, String> {
    let rel = Path::new(location);
    if rel.is_absolute() || rel.components().any(|c| !matches!(c, std::path::Component::Normal(_))) {
        return Err(format!("external data location {location:?} is not a file name beside the model"));
    }
    Ok(dir.join(rel))
}

fn read_tensor(t: &TensorProto, dir: &Path, files: &mut HashMap<String, Vec<u8>>) -> Result<Tensor, String> {
    let name = &t.name;
    let mut dims = Vec::with_capacity(t.dims.len());
    let mut count: usize = 1;
    for &d in &t.dims {
        let d = usize::try_from(d).map_err(|_| format!("tensor {name}: negative dimension"))?;
        count = count.checked_mul(d).filter(|&c| c <= 1 << 28).ok_or(format!("tensor {name}: too large"))?;
        dims.push(d);
    }
    let width = match t.data_type {
        FLOAT => 4,
        INT64 => 8,
        other => return Err(format!("tensor {name}: data type {other} not supported (float or int64 only)")),
    };
    let raw: Option<&[u8]> = if t.data_location == 1 {
        let get = |k: &str| t.external_data.iter().find(|e| e.key == k).map(|e| e.value.as_str());
        let location = get("location").ok_or(format!("tensor {name}: external data without a location"))?;
        let offset: usize = get("offset").unwrap_or("0").parse().map_err(|_| format!("tensor {name}: bad offset"))?;
        let length: usize = match get("length") {
            Some(l) => l.parse().map_err(|_| format!("tensor {name}: bad length"))?,
            None => count * width,
        };
        if !files.contains_key(location) {
            let p = external_path(dir, location)?;
            let data = std::fs::read(&p).map_err(|e| format!("cannot read the external data file {}: {e}", p.display()))?;
            files.insert(location.to_string(), data);
        }
        let data = &files[location];
        let end = offset.checked_add(length).filter(|&e| e <= data.len());
        let end = end.ok_or(format!(
            "tensor {name}: external data {location} is truncated (needs bytes {offset}..{offset}+{length}, has {})",
            data.len()
        ))?;
        Some(&data[offset..end])
    } else if !t.raw_data.is_empty() || count == 0 {
        Some(&t.raw_data)
    } else {
        None
    };
    let data = match (raw, t.data_type) {
        (Some(r), _) if r.len() != count * width => {
            return Err(format!("tensor {name}: {} bytes of data for {count} values", r.len()));
        }
        (Some(r), FLOAT) => Data::F32(r.chunks_exact(4).map(|c| f32::from_le_bytes(c.try_into().unwrap())).collect()),
        (Some(r), _) => Data::I64(r.chunks_exact(8).map(|c| i64::from_le_bytes(c.try_into().unwrap())).collect()),
        (None, FLOAT) if t.float_data.len() == count => Data::F32(t.float_data.clone()),
        (None, _) if t.int64_data.len() == count => Data::I64(t.int64_data.clone()),
        (None, _) => return Err(format!("tensor {name}: no data for {count} values")),
    };
    if let Data::F32(v) = &data
        && let Some((i, x)) = v.iter().enumerate().find(|(_, x)| x.is_nan() || x.abs() > MAX_FLOAT)
    {
        return Err(format!("tensor {name}: value {i} is {x}, outside ±{MAX_FLOAT} (a damaged weights file)"));
    }
    Ok(Tensor { dims, data })
}
