#!/usr/bin/env bash
# Rebuilds model version 3 (the networks distilled from the teacher) from the committed labels,
# in one command, without the teacher:
#   scripts/teacher/build-v3.sh OUT_DIR        # e.g. /tmp/v3; OUT_DIR must not exist
# 1. builds `tune`; 2. exports the training games, the games sampled from the teacher
#    (data/teacher/sampled-int8/teacher_sampled.txt) and the heldout games at levels 2 and 3
#    (tune export; never the benchmark); 3. joins the committed labels (data/teacher/) to the
#    level-2 exports (join.py; the legal moves' order is the same at every level, so the soft
#    targets serve the level-3 exports too); 4. level 2: trains 8 epochs on the soft targets
#    alone (alpha 1) and keeps the best heldout epoch (distil.sh); 5. levels 3-9: level 2's
#    network fine-tuned 3 epochs on level 3's features, then one parameter file per level with
#    that level's settings, end and result weights (tune assemble); 6. heldout traces (levels 2, 3).
# Writes OUT_DIR/level2.{net,txt}, OUT_DIR/search.net, OUT_DIR/level{3..9}.txt: what models/v3
# holds, up to floating-point reduction order (PyTorch threads). Work files: ${WORK:-/tmp/chesszip-v3}.
# About 45 minutes of training on 2 idle cores, plus the exports.
set -euo pipefail
cd "$(dirname "$0")/../.."
out=${1:?usage: scripts/teacher/build-v3.sh OUT_DIR}
[[ -e $out ]] && { echo "$out exists: a released model is never changed" >&2; exit 1; }
data=../shared/data
labels=data/teacher
work=${WORK:-/tmp/chesszip-v3}
venv=${VENV:-.venv-net}
source scripts/teacher/steps.sh
setup
export_and_join "$labels/sampled-int8/teacher_sampled.txt" "$labels/elo1500-int8" "$labels/sampled-int8"
mkdir -p "$out"
splits="lichess_train lichess_2016_05 teacher_sampled"
EXPORT=$work/l2 SOFT=$work/soft SPLITS=$splits VENV=$venv LEVEL=2 \
  scripts/teacher/distil.sh "$work/level2" -- --alpha 1.0 --epochs 8
cp "$work/level2.net" "$out/level2.net"
./target/release/tune assemble --base models/v2/level2.txt --linear "$work/level2.linear.i32" --net "$out/level2.net" \
  --note "Model version 3: scripts/teacher/build-v3.sh (distilled from Maia3-5M, alpha 1, 8 epochs)." --out "$out/level2.txt"
EXPORT=$work/l3 SOFT=$work/soft SPLITS=$splits VENV=$venv LEVEL=3 \
  scripts/teacher/distil.sh "$work/search" -- --alpha 1.0 --epochs 3 --init "$work/level2.pt"
cp "$work/search.net" "$out/search.net"
for level in 3 4 5 6 7 8 9; do
  ./target/release/tune assemble --base "models/v2/level$level.txt" --linear "$work/search.linear.i32" --net "$out/search.net" \
    --note "Model version 3: scripts/teacher/build-v3.sh (level 2's network fine-tuned 3 epochs on level-3 features), shared by levels 3-9." \
    --out "$out/level$level.txt"
done
