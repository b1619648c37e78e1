#!/usr/bin/env bash
# What the skill inference gains: bits per ply of the embedded models with each player's skill
# class inferred from its moves (as archives are coded) and fixed at each class 0-4 instead
# (`tune trace --skill`), on the heldout games and the benchmark. Prints a Markdown table.
# Usage: scripts/skill-ablation.sh [LEVELS...] (default: 2 3). Reporting only: nothing here
# feeds back into the parameters.
set -euo pipefail
cd "$(dirname "$0")/.."
data=${CHESSZIP_DATA:-../shared/data}
levels=("$@")
[ ${#levels[@]} -gt 0 ] || levels=(2 3)
cargo build --release --bin tune -q
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
bits() { # LEVEL FILE [CLASS]: bits per ply
  cargo run --release -q --bin tune -- trace --level "$1" "$2" --out-dir "$dir" ${3:+--skill "$3"} | sed -E 's/.* ([0-9.]+) bits per move.*/\1/'
}
echo "| level | games | inferred | class 0 | class 1 | class 2 | class 3 | class 4 | best fixed - inferred |"
echo "| ---: | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"
for level in "${levels[@]}"; do
  for f in "$data/heldout/lichess_heldout.txt:heldout" "data/Chess_Games.txt:benchmark"; do
    inferred=$(bits "$level" "${f%%:*}")
    row="| $level | ${f##*:} | $inferred"
    best=
    for class in 0 1 2 3 4; do
      b=$(bits "$level" "${f%%:*}" "$class")
      row="$row | $b"
      best=$(awk -v a="$b" -v b="${best:-$b}" 'BEGIN { print (a < b ? a : b) }')
    done
    echo "$row | $(awk -v b="$best" -v i="$inferred" 'BEGIN { printf "%+.4f", b - i }') |"
  done
done
