#!/usr/bin/env bash
# Regenerates the golden archives in tests/golden/ (checked by tests/golden.rs).
# Run it only after a deliberate change of the archive format or of an embedded model
# (models/*.txt), and say so in the commit: archives made before such a change no longer
# expand with the new binary. Usage: scripts/golden.sh
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build --release -q --bin chesszip
bin=./target/release/chesszip
for level in 1 2; do
  "$bin" compress "-$level" -c tests/golden/movetext.txt > "tests/golden/movetext.l$level.chz"
done
"$bin" compress -1 -c tests/golden/lichess.pgn > tests/golden/lichess.pgn.l1.chz
ls -l tests/golden
