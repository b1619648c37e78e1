"""The parallel example runs and writes the command line's archives."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import chesszip

EXAMPLE = Path(__file__).resolve().parents[1] / "examples" / "parallel.py"


def test_parallel_example(tmp_path: Path, shared, run_cli) -> None:
    files = [shared("heldout/lichess_heldout.txt"), shared("notation/lichess_san_with_checks.txt"), shared("pgn/lichess/2017-05.pgn")]
    out = tmp_path / "out"
    p = subprocess.run(
        [sys.executable, str(EXAMPLE), str(out), *map(str, files), "--level", "1", "--read", "50", "--workers", "3"],
        capture_output=True,
        text=True,
    )
    assert p.returncode == 0, p.stderr
    assert p.stdout.startswith("compressed 3 files")
    assert p.stdout.count("50 games read with python-chess") == 3
    for f in files:
        archive = out / (f.name + ".chz")
        assert chesszip.decompress(archive.read_bytes()) == f.read_bytes()
        assert run_cli("compress", "-1", "-c", f).stdout == archive.read_bytes()
