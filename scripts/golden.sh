#!/usr/bin/env bash
# Makes the golden archives of tests/golden/ (checked by tests/it/golden.rs) that do not exist yet.
# Archives are forever: an existing golden file is never rewritten. When a level gets a new
# model release (models/vN/...), add its archive names below (`<input>.l<level>.vN.chz`),
# run this script and add the new names to tests/it/golden.rs; the old files stay and must keep
# expanding. Usage: scripts/golden.sh
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build --release -q --bin chesszip
bin=./target/release/chesszip
make() { # make LEVEL INPUT ARCHIVE
  local out=tests/golden/$3
  if [[ -e $out ]]; then echo "kept    $out"; return; fi
  "$bin" compress "-$1" -c "tests/golden/$2" > "$out"
  echo "made    $out"
}
# Version 1 (linear models): made at commit 1690106 and earlier.
make 1 movetext.txt movetext.l1.chz
make 2 movetext.txt movetext.l2.chz
make 1 lichess.pgn lichess.pgn.l1.chz
# Levels 3-9 of version 1, made by commit 1690106's binary after the fact (today's binary
# compresses with version 2, so it can only keep these).
for level in 3 4 5 6 7 8 9; do
  make "$level" movetext.txt "movetext.l$level.chz"
done
# Version 2 (move networks at levels 2-9).
make 2 movetext.txt movetext.l2.v2.chz
make 2 lichess.pgn lichess.pgn.l2.v2.chz
for level in 3 4 5 6 7 8 9; do
  make "$level" movetext.txt "movetext.l$level.v2.chz"
done
# The whole-input raw form (src/container/raw.rs): text that is not chess (zstd, LZMA2); a
# tiny file, stored.
make 2 notes.txt notes.txt.l2.raw.chz
make 2 prose.md prose.md.l2.raw.chz
make 2 tiny.txt tiny.txt.l2.raw.chz
# Coding 1 (other move notations coded as moves; header byte 11 = 1): every level's newest
# model, and inputs in those notations (notations.txt, notations.pgn: made from movetext.txt
# by scripts/golden_notations.py, each game in one notation, some mixed).
make 1 movetext.txt movetext.l1.c1.chz
make 1 lichess.pgn lichess.pgn.l1.c1.chz
make 2 lichess.pgn lichess.pgn.l2.c1.chz
for level in 2 3 4 5 6 7 8 9; do
  make "$level" movetext.txt "movetext.l$level.c1.chz"
done
make 2 notations.txt notations.txt.l2.c1.chz
make 2 notations.pgn notations.pgn.l2.c1.chz
# Version 3 (networks distilled from the teacher, levels 2-9), coding 1.
make 2 lichess.pgn lichess.pgn.l2.v3.chz
for level in 2 3 4 5 6 7 8 9; do
  make "$level" movetext.txt "movetext.l$level.v3.chz"
done
make 2 notations.txt notations.txt.l2.v3.chz
make 2 notations.pgn notations.pgn.l2.v3.chz
# Version 4 (more sampled games, new game-end features), coding 1.
make 2 lichess.pgn lichess.pgn.l2.v4.chz
for level in 2 3 4 5 6 7 8 9; do
  make "$level" movetext.txt "movetext.l$level.v4.chz"
done
make 2 notations.txt notations.txt.l2.v4.chz
make 2 notations.pgn notations.pgn.l2.v4.chz
# Version 5 (version 4's networks fine-tuned with more sampled games), coding 1.
make 2 lichess.pgn lichess.pgn.l2.v5.chz
for level in 2 3 4 5 6 7 8 9; do
  make "$level" movetext.txt "movetext.l$level.v5.chz"
done
make 2 notations.txt notations.txt.l2.v5.chz
make 2 notations.pgn notations.pgn.l2.v5.chz
# Version 6 (levels 3-9: version 5's network widened), coding 1.
for level in 3 4 5 6 7 8 9; do
  make "$level" movetext.txt "movetext.l$level.v6.chz"
done
# Version 7 (level 9: an ensemble of version 6's levels 5 and 9 and version 5's level 5),
# coding 1; the notations input also has null moves, which the members' states skip.
make 9 movetext.txt movetext.l9.v7.chz
make 9 notations.txt notations.txt.l9.v7.chz
ls -l tests/golden
# Coding 2 (duplicate lines coded as references, src/archive/dups.rs; header byte 11 = 2):
# every level's newest model on movetext.txt (no duplicates of 64 bytes or more: the blocks are
# those of coding 1), the notations input, and dups.txt, made from movetext.txt by
# scripts/golden_dups.py, with copies in runs, shuffled and drawn at random.
for level in 1 2 3 4 5 6 7 8 9; do
  make "$level" movetext.txt "movetext.l$level.c2.chz"
done
make 2 notations.txt notations.txt.l2.c2.chz
make 9 notations.txt notations.txt.l9.c2.chz
make 2 dups.txt dups.txt.l2.c2.chz
make 9 dups.txt dups.txt.l9.c2.chz
# Version 8 (level 10: the transformer), with the committed random Chessformer of
# tests/data/level10/ (examples/level10_random.rs; our own random weights, never the teacher's).
out=tests/golden/movetext.l10.v8.random.chz
if [[ -e $out ]]; then echo "kept    $out"; else
  "$bin" compress -10 --weights tests/data/level10/random.onnx -c tests/golden/movetext.txt > "$out"
  echo "made    $out"
fi
# Version 9 (level 10 with 8-bit activations in the transformer's dense layers), the same weights.
out=tests/golden/movetext.l10.v9.random.chz
if [[ -e $out ]]; then echo "kept    $out"; else
  "$bin" compress -10 --weights tests/data/level10/random.onnx -c tests/golden/movetext.txt > "$out"
  echo "made    $out"
fi
# Coding 3 (PGN facts: clocks under a mixing model, rating diffs from the ratings, ECO from the
# opening moves; header byte 11 = 3): the PGN inputs at the levels they have goldens of.
make 1 lichess.pgn lichess.pgn.l1.c3.chz
make 2 lichess.pgn lichess.pgn.l2.c3.chz
make 2 notations.pgn notations.pgn.l2.c3.chz
# Coding 4 (PGN streams: clocks also from the move model's view of each move; header byte 11 =
# 4): the PGN inputs at the levels they have goldens of.
make 1 lichess.pgn lichess.pgn.l1.c4.chz
make 2 lichess.pgn lichess.pgn.l2.c4.chz
make 2 notations.pgn notations.pgn.l2.c4.chz
# Coding 5 (PGN tags first: every tag value coded before any move, so that the tags read alone;
# header byte 11 = 5): the PGN inputs at the levels they have goldens of.
make 1 lichess.pgn lichess.pgn.l1.c5.chz
make 2 lichess.pgn lichess.pgn.l2.c5.chz
make 2 notations.pgn notations.pgn.l2.c5.chz
# Coding 6 (PGN predicted: ECO and Opening after the moves, clocks also from the time left per
# move still to play and the game's ending; header byte 11 = 6): the PGN inputs at the levels
# they have goldens of.
make 1 lichess.pgn lichess.pgn.l1.c6.chz
make 2 lichess.pgn lichess.pgn.l2.c6.chz
make 2 notations.pgn notations.pgn.l2.c6.chz
# Version 10 (level 10: the transformer's Elo inputs from PGN games' rating tags), the same
# weights: movetext (coded as version 9, under version 10's id) and the PGN input (coding 6).
for input in movetext.txt lichess.pgn; do
  out=tests/golden/${input%.txt}.l10.v10.random.chz
  if [[ -e $out ]]; then echo "kept    $out"; else
    "$bin" compress -10 --weights tests/data/level10/random.onnx -c "tests/golden/$input" > "$out"
    echo "made    $out"
  fi
done
# Coding 7 (PGN duplicates: a game equal to an earlier one coded as a reference to its lines,
# src/archive/dups.rs; header byte 11 = 7): the PGN inputs at the levels they have goldens of,
# and dups.pgn, made from lichess.pgn by scripts/golden_dups_pgn.py (copies in runs, shuffled,
# drawn at random, a last copy without its final line feed).
make 1 lichess.pgn lichess.pgn.l1.c7.chz
make 2 lichess.pgn lichess.pgn.l2.c7.chz
make 2 notations.pgn notations.pgn.l2.c7.chz
make 1 dups.pgn dups.pgn.l1.c7.chz
make 2 dups.pgn dups.pgn.l2.c7.chz
out=tests/golden/lichess.pgn.l10.c7.random.chz
if [[ -e $out ]]; then echo "kept    $out"; else
  "$bin" compress -10 --weights tests/data/level10/random.onnx -c tests/golden/lichess.pgn > "$out"
  echo "made    $out"
fi
