#!/usr/bin/env bash
# Fits every level's linear parameters and the prior opening book on the training games,
# validating on the heldout games, into a new folder: OUT/levelN.txt and OUT/book.txt (+ .bin).
# Released models are never changed: to release the new files, add them to RELEASES in
# src/model/mod.rs (a new book also needs a new embedded book; see src/model/book.rs).
# Never reads the benchmark.
# Usage: OUT=models/v3 scripts/tune-all.sh [LEVEL...]   (default: all levels)
set -euo pipefail
cd "$(dirname "$0")/.."
data=${CHESSZIP_DATA:-../shared/data}
train=$data/train/lichess_train.txt
heldout=$data/heldout/lichess_heldout.txt
levels=${*:-1 2 3 4 5 6 7 8 9}
out=${OUT:?set OUT to a new folder, e.g. OUT=models/v3}
mkdir -p "$out"
cargo build --release --bin tune -q
for level in $levels; do
  book=()
  [ "$level" = 1 ] && book=(--book-out "$out/book.txt")
  ./target/release/tune fit --level "$level" --train "$train" --heldout "$heldout" --out "$out/level$level.txt" "${book[@]}"
done
echo "Wrote $out; add its files to RELEASES in src/model/mod.rs and rebuild to release them."
