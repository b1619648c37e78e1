#!/usr/bin/env bash
# Learning curve: heldout bits per ply when fitting on 25%, 50% and 100% of the training games.
# Usage: scripts/learning-curve.sh [LEVEL]
set -euo pipefail
cd "$(dirname "$0")/.."
level=${1:-2}
data=${CHESSZIP_DATA:-../shared/data}
cargo build --release --bin tune -q
for fraction in 0.25 0.5 1; do
  ./target/release/tune fit --level "$level" --train "$data/train/lichess_train.txt" \
    --heldout "$data/heldout/lichess_heldout.txt" --fraction "$fraction" --dry-run 2>/dev/null
done
