#!/usr/bin/env bash
# Feature ablation: records a level's decisions on the training games once, refits the move
# model with each feature group left out, and prints a Markdown table of train and heldout
# bits per ply (moves only, before the book). Never reads the benchmark.
# Usage: scripts/ablation.sh [LEVEL] [--fraction F]   (default level: 2, the default level)
set -euo pipefail
cd "$(dirname "$0")/.."
level=${1:-2}
shift || true
data=${CHESSZIP_DATA:-../shared/data}
cargo build --release --bin tune -q
./target/release/tune ablate --level "$level" --train "$data/train/lichess_train.txt" \
  --heldout "$data/heldout/lichess_heldout.txt" "$@"
