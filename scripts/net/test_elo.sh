#!/usr/bin/env bash
# End-to-end check of the Python side of the level-2 network's rating inputs (docs/notes-ratings.md),
# on a few hundred games; about a minute on 2 cores:
#   scripts/net/test_elo.sh [GAMES]        # GAMES: training games to use (default 300)
#
# 1. import_net.py reads models/v5/level2.{net,txt} into a checkpoint, and export.py of it writes
#    level2.net again byte for byte and the same linear weights as `tune export` of that model;
# 2. pgn_ratings.py turns ../shared/data/pgn/lichess/2016-05.pgn (training data already) into
#    movetext and ratings, every 10th game a validation split;
# 3. `tune export --ratings` of the first GAMES games and of 60 validation games, checked file for
#    file against rate_export.py (the same inputs added in Python);
# 4. train.py --init v5 --train-rows 977 for one epoch (it asserts that every frozen weight is
#    bit-identical to v5's), export.py, and a check that the 1022-input network less its 45 rating
#    rows is models/v5/level2.net byte for byte;
# 5. where this build reads 1022-input networks, `tune trace` of movetext (no ratings) with the new
#    network and with v5's gives the same bits, ply for ply.
# Work files go to ${WORK:-/tmp/chesszip-elo-test}; TUNE (default target/release/tune, built if
# missing) and PYTHON (default python3, with scripts/net/requirements.txt) can be set.
set -euo pipefail
cd "$(dirname "$0")/../.."
games=${1:-300}
work=${WORK:-/tmp/chesszip-elo-test}
py=${PYTHON:-python3}
tune=${TUNE:-target/release/tune}
[[ -x $tune ]] || cargo build --release -q --bin tune
tune=$(realpath "$tune")
v5=models/v5/level2
rm -rf "$work" && mkdir -p "$work"
work=$(realpath "$work")
net() { (cd scripts/net && "$py" "$@"); }

echo "== 1. import v5 and export it again"
net import_net.py "../../$v5.net" "../../$v5.txt" --out "$work/v5.pt"
net export.py "$work/v5.pt" --out "$work/v5again"
cmp "$work/v5again.net" "$v5.net"
echo "ok: export.py of the imported checkpoint is $v5.net byte for byte"

echo "== 2. PGN to movetext and ratings"
net pgn_ratings.py ../../../shared/data/pgn/lichess/2016-05.pgn "$work/all" --heldout-every 10
head -n "$games" "$work/all.txt" > "$work/train.txt"
head -n "$games" "$work/all.ratings" > "$work/train.ratings"
head -n 60 "$work/all.val.txt" > "$work/val.txt"
head -n 60 "$work/all.val.ratings" > "$work/val.ratings"

echo "== 3. exports with the rating inputs"
for s in train val; do
  "$tune" export --level 2 --model "$v5.txt" "$work/$s.txt" --out "$work/$s-plain"
  net rate_export.py "$work/$s-plain" "$work/$s.txt" "$work/$s.ratings" --out "$work/$s-py"
  "$tune" export --level 2 --model "$v5.txt" "$work/$s.txt" --ratings "$work/$s.ratings" --out "$work/$s"
  for f in board_idx.u16 board_off.i64; do cmp "$work/$s/$f" "$work/$s-py/$f"; done
  echo "ok: tune export --ratings and rate_export.py agree on $s"
done
cmp "$work/train-plain/linear.i32" "$work/v5again.linear.i32"
echo "ok: the imported linear weights are those of tune export with $v5.txt"

echo "== 4. train the rating rows only, export, compare with v5"
net train.py --train "$work/train" --heldout "$work/val" --out "$work/v11.pt" --init "$work/v5.pt" \
  --train-rows 977 --epochs 1 --batch 256 --lr 1e-3
net export.py "$work/v11.pt" --out "$work/v11"
"$py" - "$work/v11.net" "$v5.net" <<'EOF'
import struct, sys, zlib
new, old = (open(p, "rb").read() for p in sys.argv[1:3])
inputs, squares, hand, h1, h2, d = struct.unpack("<6I", new[8:32])
assert inputs == 1022, inputs
start, rows = 32, 977 * h1 * 2  # w1 is the first tensor, i16, row-major (inputs x h1)
body = new[:8] + struct.pack("<6I", 977, squares, hand, h1, h2, d) + new[start : start + rows] + new[start + inputs * h1 * 2 : -4]
body += struct.pack("<I", zlib.crc32(body))
assert body == old, "the new network less its rating rows differs from v5"
print(f"ok: {sys.argv[1]} less its 45 rating rows is {sys.argv[2]} byte for byte")
EOF

echo "== 5. the integer model without ratings"
"$tune" trace --level 2 --model "$v5.txt" --net "$work/v11.net" "$work/val.txt" --out-dir "$work/trace11" --name val
"$tune" trace --level 2 --model "$v5.txt" --net "$v5.net" "$work/val.txt" --out-dir "$work/trace5" --name val
cmp "$work/trace11/val.by_ply.csv" "$work/trace5/val.by_ply.csv"
echo "ok: on movetext the new network codes every ply as v5 does"
echo "all checks passed"
