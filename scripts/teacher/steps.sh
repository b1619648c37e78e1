# Steps shared by the release recipes build-v3.sh, build-v4.sh and build-v5.sh (sourced, from the repository
# root, after `set -euo pipefail`; they read $data, $labels, $work and $venv).

# Checks the training data, makes the network venv and builds `tune`.
setup() {
  local f
  for f in "$data/train/lichess_train.txt" "$data/train/lichess_2016_05.txt" "$data/heldout/lichess_heldout.txt"; do
    [[ -f $f ]] || { echo "missing $f (the training data lives in ../shared/data)" >&2; exit 1; }
  done
  [[ -x $venv/bin/python ]] || python3 -m venv "$venv"
  "$venv/bin/pip" install -q -r scripts/net/requirements.txt
  cargo build --release -q --bin tune
}

# export_and_join SAMPLED_GAMES LABEL_DIR...: exports the training games, SAMPLED_GAMES (the
# games sampled from the teacher) and the heldout games at levels 2 and 3 into $work/l2 and
# $work/l3 (tune export; never the benchmark), then joins the labels of LABEL_DIRs to the
# level-2 exports of the three training splits into $work/soft (join.py; the legal moves' order
# is the same at every level, so the soft targets serve the level-3 exports too). Every
# training ply must carry its label: a missing shard would silently train on hard targets.
export_and_join() {
  local sampled=$1 level g s
  shift
  local games=("$data/train/lichess_train.txt" "$data/train/lichess_2016_05.txt" "$sampled" "$data/heldout/lichess_heldout.txt")
  for level in 2 3; do
    for g in "${games[@]}"; do
      s=$(basename "$g" .txt)
      # With version 2's parameter file, as versions 3 and 4 were built: the exported features
      # are the same with any release of the level, but `linear.i32` (the linear weights that
      # training starts from) is the file's.
      [[ -f $work/l$level/$s/meta.json ]] ||
        ./target/release/tune export --level "$level" --model "models/v2/level$level.txt" "$g" --out "$work/l$level/$s"
    done
  done
  for g in "${games[@]:0:3}"; do
    s=$(basename "$g" .txt)
    "$venv/bin/python" scripts/teacher/join.py --games "$g" --export "$work/l2/$s" --labels "$@" --out "$work/soft/$s"
    "$venv/bin/python" -c 'import json,sys; m=json.load(open(sys.argv[1])); assert m["labelled"] == m["plies"], m' "$work/soft/$s/meta.json"
  done
}

# export_and_join_range GAMES FIRST LABEL_DIR: as export_and_join, for a games file that holds
# `sample.py`'s games FIRST, FIRST+1, ... (a range made by `sample.py --from FIRST`): exports
# it at levels 2 and 3 and joins the shards of LABEL_DIR that fall in its range.
export_and_join_range() {
  local g=$1 first=$2 dir=$3 level s
  s=$(basename "$g" .txt)
  for level in 2 3; do
    [[ -f $work/l$level/$s/meta.json ]] ||
      ./target/release/tune export --level "$level" --model "models/v2/level$level.txt" "$g" --out "$work/l$level/$s"
  done
  "$venv/bin/python" scripts/teacher/join.py --games "$g" --export "$work/l2/$s" --labels "$dir" \
    --first-game "$first" --stem teacher_sampled --out "$work/soft/$s"
  "$venv/bin/python" -c 'import json,sys; m=json.load(open(sys.argv[1])); assert m["labelled"] == m["plies"], m' "$work/soft/$s/meta.json"
}
