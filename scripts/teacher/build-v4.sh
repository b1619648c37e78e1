#!/usr/bin/env bash
# Rebuilds model version 4 (version 3's recipe with 2.4x the sampled games, and end weights
# refitted with the end model's new features):
#   SAMPLED=DIR scripts/teacher/build-v4.sh OUT_DIR        # OUT_DIR must not exist
# SAMPLED holds the labels of the sampled games 6,300-14,999 (`teacher_sampled.*.npz`), which
# are not committed (50 MB limit): `sample.py --model maia3-5m-batch-int8.onnx --lengths
# ../shared/data/train/lichess_train.txt --from 6300 --games 15000 --out SAMPLED` (the
# teacher, as in scripts/teacher/README.md "Pipeline"; deterministic per shard of 100 games;
# 455,736 plies, about 35 minutes of one core at 230 positions/s). Their games are committed: data/teacher/sampled-more/.
# Steps: version 3's (build-v3.sh) on 15,000 sampled games instead of 6,300, plus
# `tune outcome` per level (the end and result weights refitted on lichess_train from version
# 3's parameter files), whose files are the bases the networks' parameter files are assembled on.
# Writes OUT_DIR/level2.{net,txt}, OUT_DIR/search.net, OUT_DIR/level{3..9}.txt: what models/v4
# holds, up to floating-point reduction order. Work files: ${WORK:-/tmp/chesszip-v4}.
set -euo pipefail
# Both paths from the caller's folder, before moving to the repository root.
out=$(realpath -m "${1:?usage: SAMPLED=DIR scripts/teacher/build-v4.sh OUT_DIR}")
[[ -e $out ]] && { echo "$out exists: a released model is never changed" >&2; exit 1; }
sampled=$(realpath "${SAMPLED:?set SAMPLED to the labels of the sampled games 6300-14999}")
cd "$(dirname "$0")/../.."
data=../shared/data
labels=data/teacher
work=${WORK:-/tmp/chesszip-v4}
venv=${VENV:-.venv-net}
source scripts/teacher/steps.sh
setup
mkdir -p "$work"
cat "$labels/sampled-int8/teacher_sampled.txt" "$labels/sampled-more/teacher_sampled.006300-015000.txt" > "$work/teacher_sampled.txt"
export_and_join "$work/teacher_sampled.txt" "$labels/elo1500-int8" "$labels/sampled-int8" "$sampled"
for level in 2 3 4 5 6 7 8 9; do
  [[ -f $work/outcome-level$level.txt ]] ||
    ./target/release/tune outcome --level "$level" --from "models/v3/level$level.txt" --train "$data/train/lichess_train.txt" \
      --heldout "$data/heldout/lichess_heldout.txt" --note "Model version 4." --out "$work/outcome-level$level.txt"
done
mkdir -p "$out"
splits="lichess_train lichess_2016_05 teacher_sampled"
EXPORT=$work/l2 SOFT=$work/soft SPLITS=$splits VENV=$venv LEVEL=2 BASE=$work/outcome-level2.txt \
  scripts/teacher/distil.sh "$work/level2" -- --alpha 1.0 --epochs 8
cp "$work/level2.net" "$out/level2.net"
./target/release/tune assemble --base "$work/outcome-level2.txt" --linear "$work/level2.linear.i32" --net "$out/level2.net" \
  --note "Model version 4: scripts/teacher/build-v4.sh (distilled from Maia3-5M, alpha 1, 8 epochs, 15,000 sampled games; end and result weights refitted by tune outcome on lichess_train from models/v3/level2.txt)." \
  --out "$out/level2.txt"
EXPORT=$work/l3 SOFT=$work/soft SPLITS=$splits VENV=$venv LEVEL=3 BASE=$work/outcome-level3.txt \
  scripts/teacher/distil.sh "$work/search" -- --alpha 1.0 --epochs 3 --init "$work/level2.pt"
cp "$work/search.net" "$out/search.net"
for level in 3 4 5 6 7 8 9; do
  ./target/release/tune assemble --base "$work/outcome-level$level.txt" --linear "$work/search.linear.i32" --net "$out/search.net" \
    --note "Model version 4: scripts/teacher/build-v4.sh (level 2's network fine-tuned 3 epochs on level-3 features, shared by levels 3-9; end and result weights refitted by tune outcome on lichess_train from models/v3/level$level.txt)." \
    --out "$out/level$level.txt"
done
