#!/usr/bin/env bash
# Compressed downloads: peak memory (RSS, /usr/bin/time -v) of `chesszip compress` on the
# lichess 2016-05 PGN sample compressed with zstd -3, once, 4 times and 40 times over (2.3, 9.3
# and 93 MB of PGN), and on the 4-times PGN uncompressed; and the archive of the sample
# against `zstd -19 --long` of the same PGN. Prints one line per input.
# Usage: scripts/compressed-input-rss.sh [CHESSZIP]   (default: target/release/chesszip, built)
set -euo pipefail
cd "$(dirname "$0")/.."
data=${CHESSZIP_DATA:-../shared/data}
bin=${1:-}
if [ -z "$bin" ]; then
  cargo build --release --bin chesszip -q
  bin=target/release/chesszip
fi
bin=$(realpath "$bin")
pgn=$(realpath "$data/pgn/lichess/2016-05.pgn")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"
cp "$pgn" small.pgn
for i in $(seq 40); do cat "$pgn"; done > big.pgn
head -c $(( $(stat -c %s small.pgn) * 4 )) big.pgn > mid.pgn
for f in small mid big; do zstd -q -3 "$f.pgn"; done
rm big.pgn
echo "zstd -19 --long of small.pgn: $(zstd -19 --long -q -c small.pgn | wc -c) bytes"
for f in small.pgn.zst mid.pgn.zst big.pgn.zst mid.pgn; do
  /usr/bin/time -v "$bin" compress -q -o out.chz "$f" 2> time.txt
  echo "$f: input $(stat -c %s "$f") bytes, archive $(stat -c %s out.chz) bytes," \
    "peak RSS $(awk '/Maximum resident/ {print $NF}' time.txt) KiB, wall $(awk '/Elapsed/ {print $NF}' time.txt)"
  rm out.chz
done
