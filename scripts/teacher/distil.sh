#!/usr/bin/env bash
# Trains a move network with the teacher's soft targets and writes it as build.sh does:
#   scripts/teacher/distil.sh OUT_PREFIX [-- extra train.py flags, e.g. --alpha 0.5 --teacher-plies 100000]
# Needs: target/release/tune; exported splits in $EXPORT (tune export --level $LEVEL; the
# level-2 export also writes uci.u16, which join.py reads); joined soft targets in $SOFT
# (join.py, one folder per training split: the legal moves' order is the same at every level,
# so soft targets joined on the level-2 export serve every level's export); the net venv ($VENV).
# Optional: LEVEL (default 2; levels 3-9 share level 3's network, fine-tuned with --init),
# SPLITS (the training splits, default "lichess_train lichess_2016_05"; add teacher_sampled
# for the games sampled from the teacher, sample.py), BASE (the parameter file whose settings,
# end and result weights the new file keeps; default models/v2/level$LEVEL.txt).
# Writes OUT_PREFIX.pt (checkpoint), OUT_PREFIX.net and OUT_PREFIX.txt (the assembled parameter
# file), and OUT_PREFIX.trace/ (tune trace of the integer model on the heldout games).
set -euo pipefail
cd "$(dirname "$0")/../.."
out=$(realpath -m "$1"); shift
[[ "${1:-}" == "--" ]] && shift
data=$(realpath ../shared/data)
level=${LEVEL:-2}
export_dir=$(realpath "${EXPORT:?set EXPORT to the tune export folders (README)}")
soft=$(realpath "${SOFT:?set SOFT to the joined soft targets (README)}")
base=${BASE:-models/v2/level$level.txt}
py=$(realpath "${VENV:-.venv-net}")/bin/python
[[ -e $out.net || -e $out.txt ]] && { echo "$out.net or $out.txt exists" >&2; exit 1; }
mkdir -p "$(dirname "$out")"
train=()
for s in ${SPLITS:-lichess_train lichess_2016_05}; do train+=(--train "$export_dir/$s"); done
(cd scripts/net && "$py" train.py "${train[@]}" --heldout "$export_dir/lichess_heldout" --teacher-root "$soft" --out "$out.pt" "$@")
(cd scripts/net && "$py" export.py "$out.pt" --out "$out")
./target/release/tune assemble --base "$base" --linear "$out.linear.i32" --net "$out.net" \
  --note "Trained by scripts/teacher/distil.sh $*." --out "$out.txt"
./target/release/tune trace --level "$level" --model "$out.txt" --net "$out.net" "$data/heldout/lichess_heldout.txt" --out-dir "$out.trace"
