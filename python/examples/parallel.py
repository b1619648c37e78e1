"""Compress many game files in parallel, then read their games back into python-chess.

    python examples/parallel.py OUT_DIR FILE... [--workers N] [--level L] [--read N]

Each file becomes OUT_DIR/NAME.chz, the archive ``chesszip compress`` would write. The work is
spread over a :class:`concurrent.futures.ThreadPoolExecutor`: chesszip releases the GIL while
it codes, so threads run in parallel (give each job ``threads=1`` and let the pool decide how
many run at once). A ``ProcessPoolExecutor`` works the same way, with more start-up cost.
Then every archive is checked against its file and its games are read as python-chess
``Game`` objects (the first ``--read`` of each, to keep python-chess's parsing short): the
summary counts results and plies.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from itertools import islice
from pathlib import Path
from typing import List, Tuple

import chesszip


def compress_file(path: Path, out_dir: Path, level: int) -> Tuple[Path, int, int]:
    """Compress one file with one worker thread; return the archive and both sizes."""
    data = path.read_bytes()
    target = out_dir / (path.name + ".chz")
    target.write_bytes(chesszip.compress(data, level, threads=1))
    return target, len(data), target.stat().st_size


def read_back(archive: Path, original: Path, limit: int) -> Tuple["Counter[str]", int, int]:
    """Check the archive against its file; count the results and plies of its first games."""
    if b"".join(chesszip.iter_games(archive, binary=True, threads=1)) != original.read_bytes():
        raise SystemExit(f"{archive}: does not expand to {original}")
    results: Counter[str] = Counter()
    plies = games = 0
    for game in islice(chesszip.iter_chess_games(archive, threads=1, errors="replace"), limit):
        results[game.headers.get("Result", "*")] += 1
        plies += game.end().ply()
        games += 1
    return results, plies, games


def main(argv: List[str]) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("out_dir", type=Path)
    p.add_argument("files", type=Path, nargs="+")
    p.add_argument("--workers", type=int, default=os.cpu_count() or 1)
    p.add_argument("--level", type=int, default=chesszip.DEFAULT_LEVEL)
    p.add_argument("--read", type=int, default=500, help="games per archive read into python-chess")
    args = p.parse_args(argv)
    args.out_dir.mkdir(parents=True, exist_ok=True)

    started = time.perf_counter()
    with ThreadPoolExecutor(args.workers) as pool:
        jobs = [pool.submit(compress_file, f, args.out_dir, args.level) for f in args.files]
        archives = [job.result() for job in jobs]
        text = sum(size for _, size, _ in archives)
        packed = sum(size for _, _, size in archives)
        print(f"compressed {len(archives)} files, {text:,} -> {packed:,} bytes ({100 * packed / max(text, 1):.2f}%) "
              f"in {time.perf_counter() - started:.2f} s with {args.workers} workers")
        counts = list(pool.map(lambda a: read_back(a[0][0], a[1], args.read), zip(archives, args.files)))

    for (archive, _, _), (results, plies, games) in zip(archives, counts):
        shown = ", ".join(f"{r} {n}" for r, n in sorted(results.items()))
        print(f"{archive.name}: {games} games read with python-chess, {plies:,} plies; results: {shown}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
