#!/usr/bin/env bash
# Traces the embedded model of a level on train, heldout and the benchmark, and plots bits per
# ply by ply number and calibration. Usage: scripts/plots.sh [LEVEL] [OUT.png]
# Reporting only: nothing here feeds back into the parameters.
set -euo pipefail
cd "$(dirname "$0")/.."
level=${1:-2}
out=${2:-docs/level${level}-predictions.png}
data=${CHESSZIP_DATA:-../shared/data}
dir=$(mktemp -d)
cargo build --release --bin tune -q
for f in "$data/train/lichess_train.txt:train" "$data/heldout/lichess_heldout.txt:heldout" "data/Chess_Games.txt:benchmark"; do
  ./target/release/tune trace --level "$level" "${f%%:*}" --out-dir "$dir" --name "${f##*:}"
done
mkdir -p "$(dirname "$out")"
python3 scripts/plot.py "$dir" "$out"
