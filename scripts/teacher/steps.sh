# Steps shared by the release recipes build-v3.sh to build-v6.sh (sourced, from the repository
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

# export_split GAMES [LEVEL...]: exports GAMES at the LEVELs (default 2 and 3) into
# $work/lLEVEL/NAME (NAME: GAMES's file name without .txt; tune export; skipped where already
# done). With version 2's parameter file, as versions 3-6 were built: the exported features are
# the same with any release of the level, but `linear.i32` (the linear weights that training
# starts from) is the file's.
export_split() {
  local g=$1 level s levels
  shift
  levels=("$@")
  ((${#levels[@]})) || levels=(2 3)
  s=$(basename "$g" .txt)
  for level in "${levels[@]}"; do
    [[ -f $work/l$level/$s/meta.json ]] ||
      ./target/release/tune export --level "$level" --model "models/v2/level$level.txt" "$g" --out "$work/l$level/$s"
  done
}

# check_labelled NAME: stops unless every ply of the joined split $work/soft/NAME carries its
# label: a missing shard would silently train on hard targets.
check_labelled() {
  "$venv/bin/python" -c 'import json,sys; m=json.load(open(sys.argv[1])); assert m["labelled"] == m["plies"], m' "$work/soft/$1/meta.json"
}

# export_and_join SAMPLED_GAMES LABEL_DIR...: exports the training games, SAMPLED_GAMES (the
# games sampled from the teacher) and the heldout games (export_split; never the benchmark),
# then joins the labels of LABEL_DIRs to the level-2 exports of the three training splits into
# $work/soft (join.py; the legal moves' order is the same at every level, so the soft targets
# serve the level-3 exports too) and checks that every training ply is labelled.
export_and_join() {
  local sampled=$1 g s
  shift
  local games=("$data/train/lichess_train.txt" "$data/train/lichess_2016_05.txt" "$sampled" "$data/heldout/lichess_heldout.txt")
  for g in "${games[@]}"; do
    export_split "$g"
  done
  for g in "${games[@]:0:3}"; do
    s=$(basename "$g" .txt)
    "$venv/bin/python" scripts/teacher/join.py --games "$g" --export "$work/l2/$s" --labels "$@" --out "$work/soft/$s"
    check_labelled "$s"
  done
}

# export_and_join_range GAMES FIRST LABEL_DIR: as export_and_join, for a games file that holds
# `sample.py`'s games FIRST, FIRST+1, ... (a range made by `sample.py --from FIRST`): exports
# it at levels 2 and 3 and joins the shards of LABEL_DIR that fall in its range.
export_and_join_range() {
  local g=$1 first=$2 dir=$3 s
  s=$(basename "$g" .txt)
  export_split "$g"
  "$venv/bin/python" scripts/teacher/join.py --games "$g" --export "$work/l2/$s" --labels "$dir" \
    --first-game "$first" --stem teacher_sampled --out "$work/soft/$s"
  check_labelled "$s"
}
