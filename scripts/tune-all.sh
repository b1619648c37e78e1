#!/usr/bin/env bash
# Fits every level's parameters (models/levelN.txt) and the prior opening book (models/book.txt,
# and its binary form models/book.bin) on the training games, validating on the heldout games.
# Never reads the benchmark.
# Usage: scripts/tune-all.sh [LEVEL...]   (default: all levels)
set -euo pipefail
cd "$(dirname "$0")/.."
data=${CHESSZIP_DATA:-../shared/data}
train=$data/train/lichess_train.txt
heldout=$data/heldout/lichess_heldout.txt
levels=${*:-1 2 3 4 5 6 7 8 9}
cargo build --release --bin tune -q
for level in $levels; do
  book=()
  [ "$level" = 1 ] && book=(--book-out models/book.txt)
  ./target/release/tune fit --level "$level" --train "$train" --heldout "$heldout" "${book[@]}"
done
echo "Rebuild (cargo build --release) to embed the new parameters."
