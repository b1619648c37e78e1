#!/usr/bin/env bash
# Checks that chesszip's output is bit-identical to reference archives, level by level, and that
# every archive expands back to its input.
#
#   scripts/check-identical.sh save  REFDIR [LEVELS]   # make the reference archives (old build)
#   scripts/check-identical.sh check REFDIR [LEVELS]   # compare the current build against them
#
# LEVELS defaults to "1 2 3 4 5 6 7 8 9". Levels 1-3 use the whole benchmark
# (data/Chess_Games.txt), levels 4-9 its first 1000 games (the search levels are slow).
# Environment: CHESSZIP (binary, default target/release/chesszip), THREADS (default 2).
set -euo pipefail

mode=${1:?usage: $0 save|check REFDIR [LEVELS]}
ref=${2:?usage: $0 save|check REFDIR [LEVELS]}
levels=${3:-"1 2 3 4 5 6 7 8 9"}
root=$(cd "$(dirname "$0")/.." && pwd)
bin=${CHESSZIP:-$root/target/release/chesszip}
threads=${THREADS:-2}
data=$root/data/Chess_Games.txt

mkdir -p "$ref"
small=$ref/games1000.txt
[ -f "$small" ] || head -n 1000 "$data" > "$small"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

status=0
for level in $levels; do
    if [ "$level" -le 3 ]; then input=$data; else input=$small; fi
    out=$tmp/level$level.chz
    start=$(date +%s.%N)
    "$bin" compress -q -f -T "$threads" -"$level" "$input" -o "$out"
    mid=$(date +%s.%N)
    "$bin" expand -q -f -T "$threads" "$out" -o "$tmp/level$level.txt"
    end=$(date +%s.%N)
    times=$(printf 'compress %.2fs expand %.2fs' "$(echo "$mid - $start" | bc)" "$(echo "$end - $mid" | bc)")
    if ! cmp -s "$input" "$tmp/level$level.txt"; then
        echo "level $level: FAILED round trip ($times)"
        status=1
        continue
    fi
    case $mode in
        save)
            cp "$out" "$ref/level$level.chz"
            echo "level $level: saved $(stat -c %s "$out") bytes ($times)"
            ;;
        check)
            if cmp -s "$out" "$ref/level$level.chz"; then
                echo "level $level: identical, $(stat -c %s "$out") bytes ($times)"
            else
                echo "level $level: DIFFERENT from $ref/level$level.chz ($times)"
                status=1
            fi
            ;;
        *) echo "unknown mode $mode"; exit 2 ;;
    esac
done
exit $status
