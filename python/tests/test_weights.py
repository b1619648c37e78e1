"""Level 10 from Python: the ``weights=`` keyword and :func:`chesszip.load_weights`.

The real Maia3 weights are third-party and never in CI; these tests use the small random
Chessformer the Rust tests write (``tests/data/level10/random.onnx``, same file format), so
they check the plumbing (loading, the sha256 pin, errors, agreement with the command line),
not the model's strength.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import chesszip

from conftest import REPO, SHARED, need

RANDOM = REPO / "tests" / "data" / "level10" / "random.onnx"

#: The first 20 heldout games: enough moves that level 10's blocks beat the raw (zstd) form.
GAMES = b"".join(need(SHARED / "heldout" / "lichess_heldout.txt").read_bytes().splitlines(keepends=True)[:20])


def random_weights() -> Path:
    need(RANDOM.with_name("random.onnx.data"))
    return need(RANDOM)


def test_load_weights_returns_the_sha256_archives_name() -> None:
    digest = chesszip.load_weights(random_weights())
    assert len(digest) == 64 and int(digest, 16) >= 0
    # Twice the same file: the same weights, the same digest.
    assert chesszip.load_weights(str(random_weights())) == digest


def test_level_10_round_trip_with_weights_keyword() -> None:
    archive = chesszip.compress(GAMES, 10, weights=random_weights())
    info = chesszip.info(archive)
    assert (info.level, info.games) == (10, 20)
    assert chesszip.decompress(archive, weights=random_weights()) == GAMES
    # The incremental compressor and the file API make the same bytes.
    c = chesszip.ChesszipCompressor(10, weights=random_weights())
    assert c.compress(GAMES) + c.flush() == archive


def test_level_10_file_api(tmp_path: Path) -> None:
    path = tmp_path / "games.chz"
    with chesszip.open(path, "wb", level=10, weights=random_weights()) as f:
        f.write(GAMES)
    with chesszip.open(path, "rb", weights=random_weights()) as f:
        assert f.read() == GAMES


def test_level_10_agrees_with_the_command_line(cli: Path, tmp_path: Path) -> None:
    src = tmp_path / "games.txt"
    src.write_bytes(GAMES)
    out = tmp_path / "games.chz"
    subprocess.run([str(cli), "compress", "-10", "--weights", str(random_weights()), str(src), "-o", str(out)], check=True)
    assert chesszip.compress(GAMES, 10, weights=random_weights()) == out.read_bytes()


def test_level_10_without_weights_is_an_error(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("CHESSZIP_WEIGHTS", raising=False)
    with pytest.raises(chesszip.ChesszipError, match="CHESSZIP_WEIGHTS") as e:
        chesszip.compress(GAMES, 10)
    assert "weights=" in str(e.value) and "load_weights" in str(e.value)
    monkeypatch.setenv("CHESSZIP_WEIGHTS", "")  # empty: as if unset
    with pytest.raises(chesszip.ChesszipError, match="level 10 needs"):
        chesszip.compress(GAMES, 10)


def test_damaged_and_missing_weights_are_errors(tmp_path: Path) -> None:
    with pytest.raises(chesszip.ChesszipError):
        chesszip.load_weights(tmp_path / "missing.onnx")
    # A truncated external data file: an error naming it, never a model.
    bad = tmp_path / "random.onnx"
    shutil.copy(random_weights(), bad)
    data = random_weights().with_name("random.onnx.data").read_bytes()
    (tmp_path / "random.onnx.data").write_bytes(data[: len(data) // 2])
    with pytest.raises(chesszip.ChesszipError, match="truncated|short"):
        chesszip.compress(GAMES, 10, weights=bad)


def test_archive_names_the_weights_it_needs(tmp_path: Path) -> None:
    """An archive made with other weights fails to expand with these, naming its sha256."""
    onnx = random_weights().read_bytes()
    data = bytearray(random_weights().with_name("random.onnx.data").read_bytes())
    data[0] ^= 1  # the lowest mantissa bit of the first float: other weights, same shapes
    other = tmp_path / "random.onnx"
    other.write_bytes(onnx)
    (tmp_path / "random.onnx.data").write_bytes(bytes(data))
    other_digest = chesszip.load_weights(other)
    assert other_digest != chesszip.load_weights(random_weights())
    archive = tmp_path / "games.chz"
    archive.write_bytes(chesszip.compress(GAMES, 10, weights=other))
    assert chesszip.info(archive.read_bytes()).level == 10
    # A fresh process holding only the original weights: the archive names the other ones.
    script = (
        "import sys, chesszip\n"
        "try:\n"
        "    chesszip.decompress(open(sys.argv[1], 'rb').read(), weights=sys.argv[2])\n"
        "except chesszip.ChesszipError as e:\n"
        "    print(e)\n"
        "    sys.exit(3)\n"
    )
    env = {k: v for k, v in os.environ.items() if k != "CHESSZIP_WEIGHTS"}
    run = subprocess.run(
        [sys.executable, "-c", script, str(archive), str(random_weights())], capture_output=True, text=True, env=env
    )
    assert run.returncode == 3, run.stderr
    assert other_digest in run.stdout
