#!/usr/bin/env bash
# Rebuilds a move-network model from scratch on a fresh machine, in one command:
#   scripts/net/build.sh [LEVEL] [OUT] [-- extra train.py flags]
# e.g. scripts/net/build.sh 2 models/v3/level2   (OUT must not exist: releases never change)
#
# 1. builds `tune`; 2. exports the training and heldout plies under the level's engine
# settings (tune export; never the benchmark); 3. trains the network with PyTorch
# (train.py: fits on ../shared/data/train, evaluates on ../shared/data/heldout); 4. writes
# the integer network and the linear weights (export.py) and the parameter file (tune
# assemble); 5. measures the integer model on the heldout games (tune trace).
# Work files go to ${WORK:-/tmp/chesszip-net}. Takes about an hour per 3 epochs on 2 cores.
set -euo pipefail
cd "$(dirname "$0")/../.."
level=${1:-2}
out=${2:-models/v2/level$level}
shift $(( $# > 2 ? 2 : $# ))
[[ "${1:-}" == "--" ]] && shift
data=../shared/data
work=${WORK:-/tmp/chesszip-net}/l$level
for f in "$data/train/lichess_train.txt" "$data/train/lichess_2016_05.txt" "$data/heldout/lichess_heldout.txt"; do
  [[ -f $f ]] || { echo "missing $f (the training data lives in ../shared/data)" >&2; exit 1; }
done
[[ -e $out.txt || -e $out.net ]] && { echo "$out.txt or $out.net exists: a released model is never changed" >&2; exit 1; }
venv=${VENV:-.venv-net}
[[ -x $venv/bin/python ]] || python3 -m venv "$venv"
"$venv/bin/pip" install -q -r scripts/net/requirements.txt
cargo build --release -q --bin tune
for f in train/lichess_train train/lichess_2016_05 heldout/lichess_heldout; do
  ./target/release/tune export --level "$level" "$data/$f.txt" --out "$work/$(basename "$f")"
done
mkdir -p "$(dirname "$out")"
(cd scripts/net && "../../$venv/bin/python" train.py --train "$work/lichess_train" --train "$work/lichess_2016_05" \
  --heldout "$work/lichess_heldout" --out "$work/net.pt" "$@")
(cd scripts/net && "../../$venv/bin/python" export.py "$work/net.pt" --out "$work/net")
cp "$work/net.net" "$out.net"
./target/release/tune assemble --base "models/level$level.txt" --linear "$work/net.linear.i32" --net "$out.net" \
  --note "Trained by scripts/net/build.sh $level." --out "$out.txt"
./target/release/tune trace --level "$level" --model "$out.txt" --net "$out.net" "$data/heldout/lichess_heldout.txt" --out-dir "$work/trace"
