#!/bin/sh
# Archive size of every file under a folder against `xz -9e` and `zstd -19 --long`, at the
# default level with one thread: one line per file (path, bytes, chesszip, xz, zstd), then the
# counts of files larger than xz -9e and than 1.05 x zstd -19 --long + 100.
#   scripts/raw-vs-peers.sh [BINARY] [FOLDER]
# BINARY defaults to target/release/chesszip, FOLDER to ../shared/data/pgn.
set -eu
bin=${1:-target/release/chesszip}
dir=${2:-../shared/data/pgn}
find "$dir" -type f | LC_ALL=C sort | while read -r f; do
    c=$("$bin" compress -c -T 1 "$f" | wc -c)
    x=$(xz -9e -c "$f" | wc -c)
    z=$(zstd -q -19 --long -c "$f" | wc -c)
    echo "$f $(wc -c < "$f") $c $x $z"
done | awk '{ print; n++; if ($3 > $4) worse_xz++; if ($3 > 1.05 * $5 + 100) worse_zstd++ }
    END { printf "files %d, larger than xz -9e: %d, larger than 1.05 x zstd -19 --long + 100: %d\n", n, worse_xz, worse_zstd }'
