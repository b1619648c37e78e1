#!/usr/bin/env bash
# All-in bits per ply of every level on the training, heldout and benchmark files: each file is
# compressed with the embedded models and the archive's size is divided by its plies (moves,
# game ends, results, book, container: everything). Prints a Markdown table.
# Measuring only: the benchmark is never used to fit or select anything.
# Usage: scripts/levels.sh [LEVEL...]   (default: 1..9; levels 8 and 9 take minutes per file;
#        TRAIN=0 skips the training file, the largest)
set -euo pipefail
cd "$(dirname "$0")/.."
data=${CHESSZIP_DATA:-../shared/data}
levels=${*:-1 2 3 4 5 6 7 8 9}
cargo build --release -q --bin chesszip
bin=./target/release/chesszip
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
bpp() { "$bin" compress "-$1" -q -c "$2" > "$tmp/a.chz"; "$bin" info "$tmp/a.chz" | awk '/bits per ply/ {print $4}'; }
echo "| level | train bits/ply | heldout bits/ply | benchmark bits/ply | benchmark bytes | benchmark - heldout |"
echo "|---:|---:|---:|---:|---:|---:|"
for level in $levels; do
  train=-
  [ "${TRAIN:-1}" = 0 ] || train=$(bpp "$level" "$data/train/lichess_train.txt")
  heldout=$(bpp "$level" "$data/heldout/lichess_heldout.txt")
  bench=$(bpp "$level" data/Chess_Games.txt)
  bytes=$(stat -c %s "$tmp/a.chz")
  echo "| $level | $train | $heldout | $bench | $bytes | $(echo "$bench - $heldout" | bc -l | xargs printf '%+.4f') |"
done
