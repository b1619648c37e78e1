#!/usr/bin/env bash
# Rebuilds model version 6: version 5's levels-3-9 network widened in two steps, from
# (h1, h2, d) = (256, 64, 64) to (512, 128, 128) and then to (1024, 256, 128), each step
# fine-tuned 3 epochs on version 5's training plies and level 3's features (level 3's network),
# then fine-tuned 3 epochs on level 5's features (the strongest level's search; the network of
# levels 4-9). Level 2 stays version 5's (its speed is bound to xz's); end and result weights
# are version 5's:
#   SAMPLED=DIR SAMPLED5=DIR V5WORK=DIR scripts/teacher/build-v6.sh OUT_DIR   # OUT_DIR must not exist
# SAMPLED and SAMPLED5 are build-v5.sh's (the labels of the sampled games 6,300-14,999 and
# 15,000-32,999). V5WORK is build-v5.sh's work folder, whose search.pt (the float checkpoint of
# version 5's levels-3-9 network) the widened network starts from: `train.py --init` embeds a
# narrower checkpoint in the wider network so that it computes the same logits (new units start
# silent, as in Net2Net). models/v6 was built from the released version 5's checkpoint, which is
# not committed: a rebuild starts from a rebuilt version 5.
# Writes OUT_DIR/level3.net, OUT_DIR/search.net and OUT_DIR/level{3..9}.txt: what models/v6 holds, up to that
# starting point and floating-point reduction order. Work files: ${WORK:-/tmp/chesszip-v6}.
# About 95 minutes on 2 cores (7.5-12.5 minutes an epoch).
set -euo pipefail
# Version 5's sampled ranges (first game, end): one export and one join each.
RANGES=("15000 33000")
# Paths from the caller's folder, before moving to the repository root.
out=$(realpath -m "${1:?usage: SAMPLED=DIR SAMPLED5=DIR V5WORK=DIR scripts/teacher/build-v6.sh OUT_DIR}")
[[ -e $out ]] && { echo "$out exists: a released model is never changed" >&2; exit 1; }
sampled=$(realpath "${SAMPLED:?set SAMPLED to the labels of the sampled games 6300-14999}")
sampled5=$(realpath "${SAMPLED5:?set SAMPLED5 to the labels of the sampled games 15000-32999}")
v5work=$(realpath "${V5WORK:?set V5WORK to build-v5.sh work folder (search.pt)}")
cd "$(dirname "$0")/../.."
data=../shared/data
labels=data/teacher
work=${WORK:-/tmp/chesszip-v6}
venv=${VENV:-.venv-net}
source scripts/teacher/steps.sh
setup
cargo build --release -q --bin chesszip
mkdir -p "$work"
cat "$labels/sampled-int8/teacher_sampled.txt" "$labels/sampled-more/teacher_sampled.006300-015000.txt" > "$work/teacher_sampled.txt"
export_and_join "$work/teacher_sampled.txt" "$labels/elo1500-int8" "$labels/sampled-int8" "$sampled"
games=("$data/train/lichess_train.txt" "$data/train/lichess_2016_05.txt" "$work/teacher_sampled.txt" "$data/heldout/lichess_heldout.txt")
splits="lichess_train lichess_2016_05 teacher_sampled"
for range in "${RANGES[@]}"; do
  read -r first end <<<"$range"
  name=$(printf 'teacher_sampled.%06d-%06d' "$first" "$end")
  ./target/release/chesszip expand -c "$labels/sampled-v5/$name.txt.chz" > "$work/$name.txt"
  export_and_join_range "$work/$name.txt" "$first" "$sampled5"
  games+=("$work/$name.txt")
  splits="$splits $name"
done
# Level 5's features, for the last step (the soft targets serve every level's export).
for g in "${games[@]}"; do
  export_split "$g" 5
done
mkdir -p "$out"
# Each step: quantisation-aware from the start, the epoch with the best heldout bits kept.
tune=(--alpha 1.0 --epochs 3 --qat-epoch 0)
EXPORT=$work/l3 SOFT=$work/soft SPLITS=$splits VENV=$venv LEVEL=3 BASE=models/v5/level3.txt \
  scripts/teacher/distil.sh "$work/wide512" -- "${tune[@]}" --lr 1e-3 --h1 512 --h2 128 --d 128 --init "$v5work/search.pt"
EXPORT=$work/l3 SOFT=$work/soft SPLITS=$splits VENV=$venv LEVEL=3 BASE=models/v5/level3.txt \
  scripts/teacher/distil.sh "$work/wide1024" -- "${tune[@]}" --lr 1e-3 --h1 1024 --h2 256 --d 128 --init "$work/wide512.pt"
EXPORT=$work/l5 SOFT=$work/soft SPLITS=$splits VENV=$venv LEVEL=5 BASE=models/v5/level5.txt \
  scripts/teacher/distil.sh "$work/search" -- "${tune[@]}" --lr 5e-4 --h1 1024 --h2 256 --d 128 --init "$work/wide1024.pt"
cp "$work/wide1024.net" "$out/level3.net"
./target/release/tune assemble --base models/v5/level3.txt --linear "$work/wide1024.linear.i32" --net "$out/level3.net" \
  --note "Model version 6: scripts/teacher/build-v6.sh (version 5's levels-3-9 network widened to (1024, 256, 128) and fine-tuned on level 3's features; end and result weights of models/v5/level3.txt)." \
  --out "$out/level3.txt"
cp "$work/search.net" "$out/search.net"
for level in 4 5 6 7 8 9; do
  ./target/release/tune assemble --base "models/v5/level$level.txt" --linear "$work/search.linear.i32" --net "$out/search.net" \
    --note "Model version 6: scripts/teacher/build-v6.sh (version 5's levels-3-9 network widened to (1024, 256, 128), fine-tuned on level 3's and then level 5's features; end and result weights of models/v5/level$level.txt)." \
    --out "$out/level$level.txt"
done
