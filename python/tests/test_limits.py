"""Decoding limits (``chesszip.Limits``) and no interpreter abort on hostile archives: an
archive that expands past the memory the process may have raises ``MemoryError`` (or a
``ChesszipError``), never SIGABRT."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

import chesszip

GAME = b"e4 e5 Nf3 Nc6 Bb5 a6 Ba4 Nf6 O-O Be7 Re1 b5 Bb3 d6 c3 O-O h3 Nb8 d4 Nbd7 1-0\n"


REPO = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def games() -> bytes:
    """The first 300 games of the benchmark (some 20,000 plies)."""
    with open(REPO / "data" / "Chess_Games.txt", "rb") as f:
        return b"".join(f.readline() for _ in range(300))


@pytest.fixture(scope="module")
def repeated(games: bytes) -> bytes:
    return chesszip.compress(games, level=1)


def test_limits_refuse_with_a_message_naming_them(repeated: bytes, games: bytes) -> None:
    with pytest.raises(chesszip.DecodeLimitError, match="max_plies=") as e:
        chesszip.decompress(repeated, limits=chesszip.Limits(max_plies=1000))
    assert isinstance(e.value, chesszip.ChesszipError)
    assert "--max-plies" in str(e.value)
    with pytest.raises(chesszip.DecodeLimitError, match="max_output="):
        chesszip.decompress(repeated, limits=chesszip.Limits(max_output=1000))
    with pytest.raises(chesszip.DecodeLimitError, match="max_plies="):
        list(chesszip.iter_games(repeated, limits=chesszip.Limits(max_plies=1000)))
    with pytest.raises(chesszip.DecodeLimitError):
        chesszip.Archive(repeated, limits=chesszip.Limits(max_plies=1000))[3]
    # Without limits, or within them, the archive expands.
    assert chesszip.decompress(repeated) == games
    assert chesszip.decompress(repeated, limits=chesszip.Limits.unlimited()) == games
    assert chesszip.decompress(repeated, limits=chesszip.Limits(max_plies=10_000_000)) == games
    with pytest.raises(TypeError):
        chesszip.decompress(repeated, limits={"max_plies": 3})  # type: ignore[arg-type]


def test_a_long_line_is_refused_by_the_game_readers() -> None:
    archive = chesszip.compress(b"Nf3 Nf6 Ng1 Ng8 " * 20_000 + b"*\n" + GAME, level=1)
    small = chesszip.Limits(max_game_bytes=100_000)
    with pytest.raises(chesszip.DecodeLimitError, match="max_game_bytes="):
        list(chesszip.iter_games(archive, binary=True, limits=small))
    assert chesszip.Archive(archive)[1] == GAME.decode()
    assert chesszip.decompress(archive, limits=small).endswith(GAME)


HOSTILE = textwrap.dedent(
    """
    import resource, sys
    import chesszip
    archive = open(sys.argv[1], "rb").read()
    size = int(open("/proc/self/statm").read().split()[0]) * resource.getpagesize()
    # Room for some 48 MB more than the interpreter holds now; the archive expands to 96 MB.
    resource.setrlimit(resource.RLIMIT_AS, (size + (48 << 20), size + (48 << 20)))
    try:
        chesszip.decompress(archive, threads=1)
    except (MemoryError, chesszip.ChesszipError) as e:
        print(type(e).__name__, e)
        sys.exit(0)
    print("expanded in full")
    sys.exit(3)
    """
)


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="address-space limits and /proc are Linux's")
def test_an_archive_too_large_for_memory_raises_instead_of_aborting(tmp_path: Path) -> None:
    text = b"one line of a log file, the same every time\n" * (96_000_000 // 44)
    archive = chesszip.compress(text, level=1)
    assert len(archive) < len(text) // 1000
    path = tmp_path / "hostile.chz"
    path.write_bytes(archive)
    p = subprocess.run([sys.executable, "-c", HOSTILE, str(path)], capture_output=True, timeout=300)
    out = p.stdout.decode() + p.stderr.decode()
    # A negative return code is a signal (SIGABRT: "memory allocation of N bytes failed").
    assert p.returncode == 0, f"return code {p.returncode}: {out}"
    assert out.startswith(("MemoryError", "CorruptArchiveError", "ChesszipError")), out
