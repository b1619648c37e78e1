"""Python against the command line on the benchmark: same bytes, and how long each takes.

    python scripts/python-bench.py [--cli target/release/chesszip] [--runs 5] [--threads 0] [--level 2]

Measures, on ``data/Chess_Games.txt``:

1. whether ``chesszip.compress(data)`` gives the bytes of ``chesszip compress -c``;
2. compressing: ``chesszip.compress(open(...).read())`` against ``chesszip compress -c FILE
   > /dev/null`` (a whole process, file reading included);
3. reading: iterating all games as text (``for g in chesszip.iter_games(path)``) against
   ``chesszip expand -c ARCHIVE > /dev/null``; also ``decompress`` and reading through
   ``chesszip.open``.

Each pair runs alternately (CLI, then Python) ``--runs`` times, with the same thread count, and
the medians are compared: the machine's load changes from minute to minute, and alternating
exposes both sides to it alike. CPU seconds (user + system, all threads; for the command line
those of the child process) are reported too: on a loaded machine they vary less than wall
times. Build the command line with ``cargo build --release`` and the
package with ``pip install ./python`` (both use the release profile with fat LTO).
"""

from __future__ import annotations

import argparse
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Callable, Dict, List, Tuple

import chesszip

REPO = Path(__file__).resolve().parents[1]


def cpu(who: int) -> float:
    r = resource.getrusage(who)
    return r.ru_utime + r.ru_stime


def timed(f: Callable[[], object], who: int) -> Tuple[float, float]:
    """Wall and CPU seconds of ``f()``; CPU of this process's threads or of its children."""
    c, started = cpu(who), time.perf_counter()
    f()
    return time.perf_counter() - started, cpu(who) - c


def main(argv: List[str]) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--cli", type=Path, default=REPO / "target" / "release" / "chesszip")
    p.add_argument("--data", type=Path, default=REPO / "data" / "Chess_Games.txt")
    p.add_argument("--runs", type=int, default=5)
    p.add_argument("--threads", type=int, default=0, help="worker threads for both (0: one per core)")
    p.add_argument("--level", type=int, default=chesszip.DEFAULT_LEVEL)
    args = p.parse_args(argv)
    cli, data, t, level = str(args.cli), args.data, args.threads, args.level

    text = data.read_bytes()
    cli_archive = subprocess.run([cli, "compress", "-c", "--level", str(level), "-T", str(t), str(data)], capture_output=True, check=True).stdout
    py_archive = chesszip.compress(text, level, threads=t)
    identical = py_archive == cli_archive
    print(f"{data.name}: {len(text):,} bytes -> {len(py_archive):,} (Python), {len(cli_archive):,} (CLI), level {level}: "
          f"{'identical bytes' if identical else 'DIFFERENT BYTES'}")

    with tempfile.TemporaryDirectory() as tmp:
        archive = Path(tmp) / "bench.chz"
        archive.write_bytes(cli_archive)

        def cli_run(*command: str) -> Callable[[], object]:
            return lambda: subprocess.run([cli, *command, "-T", str(t)], stdout=subprocess.DEVNULL, check=True)

        def iterate() -> None:
            for _ in chesszip.iter_games(archive, threads=t):
                pass

        def read_file() -> None:
            with chesszip.open(archive, threads=t) as f:
                while f.read(1 << 20):
                    pass

        pairs: Dict[str, Tuple[Callable[[], object], Callable[[], object]]] = {
            "compress": (cli_run("compress", "-c", "--level", str(level), str(data)), lambda: chesszip.compress(data.read_bytes(), level, threads=t)),
            "iterate games as text vs expand": (cli_run("expand", "-c", str(archive)), iterate),
            "decompress vs expand": (cli_run("expand", "-c", str(archive)), lambda: chesszip.decompress(archive.read_bytes(), threads=t)),
            "chesszip.open().read vs expand": (cli_run("expand", "-c", str(archive)), read_file),
        }
        print(f"{'':34} {'CLI s':>7} {'Py s':>7} {'Py/CLI':>7} {'CLI cpu':>8} {'Py cpu':>7} {'Py/CLI':>7}"
              f"   (median of {args.runs}, threads={t or 'one per core'})")
        for name, (c, py) in pairs.items():
            c_runs, py_runs = [], []
            for _ in range(args.runs):
                c_runs.append(timed(c, resource.RUSAGE_CHILDREN))
                py_runs.append(timed(py, resource.RUSAGE_SELF))
            cw, cc = (statistics.median(x) for x in zip(*c_runs))
            pw, pc = (statistics.median(x) for x in zip(*py_runs))
            print(f"{name:34} {cw:7.3f} {pw:7.3f} {pw / cw:7.3f} {cc:8.3f} {pc:7.3f} {pc / cc:7.3f}   "
                  f"wall: CLI {' '.join(f'{w:.2f}' for w, _ in c_runs)} | Python {' '.join(f'{w:.2f}' for w, _ in py_runs)}")
    return 0 if identical else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
