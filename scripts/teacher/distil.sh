#!/usr/bin/env bash
# Trains a level-2 move network with the teacher's soft targets and writes it as build.sh does:
#   scripts/teacher/distil.sh OUT_PREFIX [-- extra train.py flags, e.g. --alpha 0.5 --teacher-plies 100000]
# Needs: target/release/tune; exported splits in $EXPORT (tune export --level 2, with uci.u16);
# joined soft targets in $SOFT (join.py, one folder per training split); the net venv ($VENV).
# Writes OUT_PREFIX.pt (checkpoint), OUT_PREFIX.net and OUT_PREFIX.txt (the assembled parameter
# file), and OUT_PREFIX.trace/ (tune trace of the integer model on the heldout games).
set -euo pipefail
cd "$(dirname "$0")/../.."
out=$(realpath -m "$1"); shift
[[ "${1:-}" == "--" ]] && shift
data=$(realpath ../shared/data)
export_dir=${EXPORT:?set EXPORT to the tune export folders (README)}
soft=${SOFT:?set SOFT to the joined soft targets (README)}
py=$(realpath "${VENV:-.venv-net}")/bin/python
[[ -e $out.net || -e $out.txt ]] && { echo "$out.net or $out.txt exists" >&2; exit 1; }
mkdir -p "$(dirname "$out")"
(cd scripts/net && "$py" train.py --train "$export_dir/lichess_train" --train "$export_dir/lichess_2016_05" \
  --heldout "$export_dir/lichess_heldout" --teacher-root "$soft" --out "$out.pt" "$@")
(cd scripts/net && "$py" export.py "$out.pt" --out "$out")
./target/release/tune assemble --base models/level2.txt --linear "$out.linear.i32" --net "$out.net" \
  --note "Trained by scripts/teacher/distil.sh $*." --out "$out.txt"
./target/release/tune trace --level 2 --model "$out.txt" --net "$out.net" "$data/heldout/lichess_heldout.txt" --out-dir "$out.trace"
