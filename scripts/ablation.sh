#!/usr/bin/env bash
# Feature ablation: refits a level with each move-feature group left out and prints heldout
# bits per ply (moves, before the book) next to the full model. Fits on train, measures on heldout.
# Usage: scripts/ablation.sh [LEVEL]
set -euo pipefail
cd "$(dirname "$0")/.."
level=${1:-5}
data=${CHESSZIP_DATA:-../shared/data}
cargo build --release --bin tune -q
run() { ./target/release/tune fit --level "$level" --train "$data/train/lichess_train.txt" \
          --heldout "$data/heldout/lichess_heldout.txt" --dry-run "$@" 2>/dev/null; }
run
for group in loss from.P,from.N,from.B,from.R,from.Q,from.K to.P,to.N,to.B,to.R,to.Q,to.K capture promotion check \
             recapture same_piece dist_last escape escape_hanging to_attacked to_hanging; do
  run --drop "$group"
done
