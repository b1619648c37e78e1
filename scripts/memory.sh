#!/usr/bin/env bash
# Peak memory (max RSS, GNU time) of compress and expand at 1 and 16 threads on a highly
# compressible input: 512 MiB of zero bytes, which fills every block to its 16 MiB limit.
#
#   scripts/memory.sh            # CHESSZIP (binary, default target/release/chesszip)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
bin=${CHESSZIP:-$root/target/release/chesszip}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
head -c $((512 << 20)) /dev/zero > "$tmp/zeros"
"$bin" compress -c -T 1 "$tmp/zeros" > "$tmp/zeros.chz"
echo "input 512 MiB of zeros, archive $(stat -c %s "$tmp/zeros.chz") bytes"
for t in 1 16; do
    /usr/bin/time -f "compress -T $t: %M KB peak, %e s" "$bin" compress -c -T "$t" "$tmp/zeros" > /dev/null
done
for t in 1 16; do
    /usr/bin/time -f "expand   -T $t: %M KB peak, %e s" "$bin" expand -c -T "$t" "$tmp/zeros.chz" > /dev/null
done
