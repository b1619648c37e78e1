#!/usr/bin/env bash
# Rebuilds model version 5: version 4's networks fine-tuned with 18,000 more games sampled from
# the teacher (33,000 in all, 1,725,282 plies; RANGES below), end and result weights kept from
# version 4:
#   SAMPLED=DIR SAMPLED5=DIR V4WORK=DIR scripts/teacher/build-v5.sh OUT_DIR   # OUT_DIR must not exist
# SAMPLED holds the labels of the sampled games 6,300-14,999 (as for build-v4.sh), SAMPLED5
# those of the games of RANGES (`sample.py --model maia3-5m-batch-int8.onnx --lengths
# ../shared/data/train/lichess_train.txt --from FIRST --games END --out SAMPLED5`, split between
# processes, one per core; deterministic per shard of 100 games; about 230 positions/s per core:
# the 942,031 plies of 15,000-32,999 took 35 minutes of two processes, 15,000-23,999 and
# 24,000-32,999).
# Their games are committed (data/teacher/sampled-v5/, as chesszip archives), their labels are
# not (50 MB limit). V4WORK is build-v4.sh's work folder, whose level2.pt and search.pt (the
# float checkpoints of version 4's networks) the fine-tuning starts from. models/v5 was
# fine-tuned from the released version 4's checkpoints, which are not committed: a rebuild
# starts from a rebuilt version 4 (within 0.0011 bits/ply of it, scripts/teacher/README.md).
# Writes OUT_DIR/level2.{net,txt}, OUT_DIR/search.net, OUT_DIR/level{3..9}.txt: what models/v5
# holds, up to that starting point and floating-point reduction order. Work files: ${WORK:-/tmp/chesszip-v5}.
set -euo pipefail
# The sampled ranges (first game, end) of version 5: one export and one join each.
RANGES=("15000 33000")
# Paths from the caller's folder, before moving to the repository root.
out=$(realpath -m "${1:?usage: SAMPLED=DIR SAMPLED5=DIR V4WORK=DIR scripts/teacher/build-v5.sh OUT_DIR}")
[[ -e $out ]] && { echo "$out exists: a released model is never changed" >&2; exit 1; }
sampled=$(realpath "${SAMPLED:?set SAMPLED to the labels of the sampled games 6300-14999}")
sampled5=$(realpath "${SAMPLED5:?set SAMPLED5 to the labels of the sampled games of version 5}")
v4work=$(realpath "${V4WORK:?set V4WORK to build-v4.sh work folder (level2.pt, search.pt)}")
cd "$(dirname "$0")/../.."
data=../shared/data
labels=data/teacher
work=${WORK:-/tmp/chesszip-v5}
venv=${VENV:-.venv-net}
source scripts/teacher/steps.sh
setup
cargo build --release -q --bin chesszip
mkdir -p "$work"
cat "$labels/sampled-int8/teacher_sampled.txt" "$labels/sampled-more/teacher_sampled.006300-015000.txt" > "$work/teacher_sampled.txt"
export_and_join "$work/teacher_sampled.txt" "$labels/elo1500-int8" "$labels/sampled-int8" "$sampled"
splits="lichess_train lichess_2016_05 teacher_sampled"
for range in "${RANGES[@]}"; do
  read -r first end <<<"$range"
  name=$(printf 'teacher_sampled.%06d-%06d' "$first" "$end")
  ./target/release/chesszip expand -c "$labels/sampled-v5/$name.txt.chz" > "$work/$name.txt"
  export_and_join_range "$work/$name.txt" "$first" "$sampled5"
  splits="$splits $name"
done
mkdir -p "$out"
# Fine-tuning: 3 epochs at half version 4's learning rate, quantisation-aware from the start
# (the checkpoints already are); the epoch with the best heldout bits is kept.
tune=(--alpha 1.0 --epochs 3 --lr 1e-3 --qat-epoch 0)
EXPORT=$work/l2 SOFT=$work/soft SPLITS=$splits VENV=$venv LEVEL=2 BASE=models/v4/level2.txt \
  scripts/teacher/distil.sh "$work/level2" -- "${tune[@]}" --init "$v4work/level2.pt"
cp "$work/level2.net" "$out/level2.net"
./target/release/tune assemble --base models/v4/level2.txt --linear "$work/level2.linear.i32" --net "$out/level2.net" \
  --note "Model version 5: scripts/teacher/build-v5.sh (version 4's network fine-tuned 3 epochs with 18,000 more sampled games, 2,980,242 plies in all; end and result weights of models/v4/level2.txt)." \
  --out "$out/level2.txt"
EXPORT=$work/l3 SOFT=$work/soft SPLITS=$splits VENV=$venv LEVEL=3 BASE=models/v4/level3.txt \
  scripts/teacher/distil.sh "$work/search" -- "${tune[@]}" --init "$v4work/search.pt"
cp "$work/search.net" "$out/search.net"
for level in 3 4 5 6 7 8 9; do
  ./target/release/tune assemble --base "models/v4/level$level.txt" --linear "$work/search.linear.i32" --net "$out/search.net" \
    --note "Model version 5: scripts/teacher/build-v5.sh (version 4's levels-3-9 network fine-tuned as level 2's; end and result weights of models/v4/level$level.txt)." \
    --out "$out/level$level.txt"
done
